// Temporal refs: calendar dates, clock times and durations, each span kept as written.
// One case-insensitive regex; month names and duration words appear in any case in the corpus.

import { type Family, type Found, TEMPORAL_REF } from './scan.js';
import { buildPattern } from '../../runtime/patterns.js';

const YEAR = '(?:19|20)\\d{2}';
const MONTH_NUMBER = '(?:0?[1-9]|1[0-2])';
const DAY = '(?:0?[1-9]|[12]\\d|3[01])';
const ISO_DAY = '(?:0[1-9]|[12]\\d|3[01])';
const ISO_TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}:?\\d{2})?';
const ORDINAL = '(?:st|nd|rd|th)?';
const MONTH_NAME =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?' +
  '|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const GAP = '[ \\t\\u00A0]+';
const NUMBER = String.raw`\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?`;
const RANGE = `(?:${NUMBER})(?:[ \\t]*[-–—][ \\t]*(?:${NUMBER})|${GAP}to${GAP}(?:${NUMBER}))?`;
const DURATION_UNIT =
  '(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|months?|years?|yrs?|shifts?)';
// Leading words that make a duration a bounded interval ("within 2 minutes", "over 14 days").
const DURATION_LEAD = '(?:within|over|for|after|in|past|last|next|every)';
// Time zones as event reports write them: "EDT", "ET", "UTC", spelled out ("Central Daylight
// Time"), bare or in brackets and parentheses ("04:47[EST]", "20:16 [ET]", "19:23 (EDT)").
const ZONE_NAME =
  '(?:utc|gmt|local|[ecmp][sd]?t|(?:eastern|central|mountain|pacific)[ \\t]+(?:standard[ \\t]+|daylight[ \\t]+)?time)';
const ZONE_TAG = `(?:${ZONE_NAME}|\\[[ \\t]?${ZONE_NAME}[ \\t]?\\]|\\([ \\t]?${ZONE_NAME}[ \\t]?\\))`;
const ZONE = `(?:z|[ap]\\.?m\\.?|${ZONE_TAG})`;
// What may follow a bare "at 0145": a clause mark, a line end, or a function word that opens the
// rest of the clause ("at 0145 the operators", "at 0300 when", "at 2230 on May 5").
const AT_TIME_FOLLOWS =
  '[ \\t]?[,;:)]|\\.(?![0-9])|[ \\t]*(?:\\r?\\n|$)|' +
  '[ \\t](?:on|the|when|while|after|before|and|during|with|it|that|this|an|until|following|operators?|plant|unit|reactor)(?![A-Za-z0-9])';
// A four-digit clock time ("1430"), as plant logs and event reports write the 24-hour clock.
const HHMM = '(?:[01]\\d|2[0-3])[0-5]\\d';

const FORMS = [
  // 2026-02-06, optionally with an ISO time: 2026-02-06T03:22:00Z
  `${YEAR}-(?:0[1-9]|1[0-2])-${ISO_DAY}(?:T${ISO_TIME})?`,
  // 2/6/2026, 02/06/26
  `${MONTH_NUMBER}/${DAY}/(?:${YEAR}|\\d{2})`,
  // February 6, 2026 / Feb. 6th 2026 / February 6 (the year-less form is checked in code)
  `(?<mdyMonth>${MONTH_NAME})${GAP}${DAY}${ORDINAL}(?<mdyYear>,?${GAP}${YEAR})?`,
  // 6 FEB 2026 / 06-Feb-2026
  `${DAY}${ORDINAL}(?:${GAP}|-)${MONTH_NAME}(?:,?${GAP}|-)${YEAR}`,
  // feb 2026 / January 2023
  `${MONTH_NAME},?${GAP}${YEAR}`,
  // 03:22 UTC, 14:05:30, 04:47[EST], 7:17 a.m.
  `(?:[01]?\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d)?(?:[ \\t]?${ZONE})?`,
  // 1430 CDT, 0624 EDT, 1754 Central Daylight Time: a four-digit time needs its zone; the
  // military and aviation "1735Z" / "1735 Zulu" is one
  `${HHMM}(?:[ \\t]?${ZONE_TAG}|z|[ \\t]zulu)`,
  // "at 1515," / "At 1125 on May 24" / "at approximately 0300 the": a bare four-digit time after
  // "at" (and an approximation), where the clause ends or goes on with a function word that no
  // unit is ("at 1500 psig", "at 2250 rpm" are measurements)
  `(?<=\\bat[ \\t](?:(?:approximately|about|approx\\.)[ \\t])?)${HHMM}(?=${AT_TIME_FOLLOWS})`,
  // within 2 minutes, 48 hours, 0322 hours, 24-hour, for 30 min, 2 to 3 shifts
  `(?:${DURATION_LEAD}${GAP})?${RANGE}(?:[ \\t]?|-)${DURATION_UNIT}`,
];

// Not inside a token, and not continuing a date or time ("2/6/2026" at "6", "03:22" at "22").
const START = String.raw`\b(?<![.\-/:])`;
const END = String.raw`(?![A-Za-z0-9_]|[\-/.:][0-9])`;

// Sticky: tried only where findStarts (scan.ts) marks a possible start (a digit, or letters
// followed by a number).
const TEMPORAL_RE = buildPattern('tagging/extractors/temporal: TEMPORAL_RE', `${START}(?:${FORMS.join('|')})${END}`, 'iy');

const CAPITAL = /^[A-Z]/;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

export const temporalRefs: Family<string> = {
  bit: TEMPORAL_REF,
  regex: TEMPORAL_RE,
  at(text: string, start: number): Found<string> | null {
    TEMPORAL_RE.lastIndex = start;
    // Only a match that opens with a month name can be the year-less form; the others need no
    // groups, so test() spares them the match array.
    const first = text.charCodeAt(start);
    let end: number;
    if (first < DIGIT_0 || first > DIGIT_9) {
      const match = TEMPORAL_RE.exec(text);
      if (match === null) return null;
      const { mdyMonth, mdyYear } = match.groups ?? {};
      // Without a year, "may 5" and "march 3" are as likely prose as dates: require "May 5".
      if (mdyMonth !== undefined && mdyYear === undefined && !CAPITAL.test(mdyMonth)) return null;
      end = start + match[0].length;
    } else {
      if (!TEMPORAL_RE.test(text)) return null;
      end = TEMPORAL_RE.lastIndex;
    }
    const span = text.slice(start, end);
    return { end, key: span.toLowerCase(), item: span };
  },
};
