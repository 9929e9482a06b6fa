// Identifier families: document references, alarm ids, failure-mode ids and equipment tags.
// Each is one precompiled regex, tried where scan.ts says it may start; the forms follow DACKAR's
// default plant profile, extended where the profile's own examples or our data need it. A new
// form must keep the start shapes findStarts (scan.ts) marks, or extend them.

import { ALARM_ID, DOC_REF, EQUIPMENT_ID, type Family, FM_ID, type Found, tokenRegex, wholeMatchAt } from './scan.js';

const YEAR = '(?:19|20)\\d{2}';
const GAP = '[ \\t\\u00A0]+';

// Prefixes are upper case as in the profile: lower-case "in 2019-20" or "gl" are prose, not refs.
const DOC_REF_FORMS = [
  `CR-${YEAR}-\\d{3,8}`,
  'CR-\\d{5,8}',
  `CAP-?${YEAR}-\\d{3,8}`,
  'CAP-\\d{5,9}',
  `WO-${YEAR}-\\d{3,8}`,
  'WO-\\d{5,9}',
  `WO${GAP}\\d{5,9}`,
  'PM-\\d{4,8}',
  `PM${GAP}\\d{4,8}`,
  // Plant PM and task ids: PM-U2-CND-EXPJOINT-INSP-A, PM-U2-AIR-EJECTOR-SURV-Q.
  'PM(?:-[A-Z0-9]{1,12}){2,8}',
  // Numbered action items of a CR (CA-1, CA-12): tracked items a reader looks up, like documents.
  'CA-\\d{1,4}',
  `ECA-${YEAR}-\\d{3,6}`,
  '(?:ECA|EC|DCN|ECN)-\\d{4,7}',
  // Procedures may carry up to three plant/system segments before the number
  // (SOP-U2-CND-001, EOP-E-0) and dotted sub-numbers (OP-1234.2).
  '(?:EOP|AOP|GOP|SOP|FNP)(?:-[A-Z0-9]{1,6}){0,3}-\\d{1,5}(?:\\.\\d+)*',
  '(?:OP|MP|SP)(?:-[A-Z0-9]{1,6}){0,3}-\\d{2,5}(?:\\.\\d+)*',
  `LER(?:-|${GAP})\\d{3}-${YEAR}-\\d{3}`,
  `(?:GL|IN)(?:-|${GAP})${YEAR}-\\d{2,3}`,
  `(?:BUL-|BULLETIN${GAP})${YEAR}-\\d{2,3}`,
  `(?:SER|IER)-${YEAR}-\\d{2,4}`,
  'OE-\\d{4,6}',
  `(?:NCR|PER)-${YEAR}-\\d{3,7}`,
  'NCR-\\d{5,8}',
  'AR-\\d{5,8}',
];

// The profile's "kla_point" form ([A-Z]{1,4}-\d{4}) is left out on purpose: it is exactly the
// shape of instrument tags such as FT-1102, which are equipment.
const ALARM_FORMS = [
  'ALM-\\d{3,6}[A-Z]?',
  'ANN(?:UNC)?-[A-Z]-\\d{1,3}',
  `(?:WINDOW|Window)${GAP}[A-Z]-\\d{1,3}`,
  'P(?:AHH|ALL|AS|AH|AL)-\\d{3,6}(?:-(?:HI|LO))?',
  // Unit-train-condition tags: 1-RC-P-1A-HI-PRESS, 1-FW-LO-FLOW (the condition may be followed by
  // the process variable, which the profile's own example does but its pattern did not allow).
  '\\d-[A-Z]{2,6}(?:-[A-Z0-9]{1,6}){0,3}-(?:HI-HI|LO-LO|HI|LO|TRIP|ALARM|ACTUAT|SCRAM|SI|EFAS|AFAS)(?:-[A-Z]{2,8})?',
];

const FM_ID_FORMS = ['FM(?:_[A-Z0-9]+)+', 'FM-\\d{1,4}[A-Z]?'];

// Candidate shape only; isEquipmentId decides. Upper-case letters only, so hyphenated English
// ("in-leakage", "year-2026") never qualifies and case is kept exactly as written. Segments are
// joined by "-", or after a unit-prefixed system by the "*" some plants write before the
// instrument (2RCS*PT455). The "*" form is its own alternative: a "[-*]" class in the common form
// doubles the cost of this regex, which runs at every hyphenated upper-case token.
const EQUIPMENT_SHAPE = ['[A-Z0-9]+(?:-[A-Z0-9]+)+', '\\d[A-Z]{1,5}\\*[A-Z0-9]+(?:-[A-Z0-9]+)*'];

const DOC_REF_RE = tokenRegex(DOC_REF_FORMS);
const ALARM_RE = tokenRegex(ALARM_FORMS);
const FM_ID_RE = tokenRegex(FM_ID_FORMS);
const EQUIPMENT_RE = tokenRegex(EQUIPMENT_SHAPE);

// First segments that name a document, an alarm, a standard or a part of a document: such a token
// is never equipment even when its doc-ref or alarm form did not match in full (CR-2026 alone,
// PM-U2-CND-EXPJOINT-INSP-A, NUREG-0800).
const NOT_EQUIPMENT_PREFIXES = new Set([
  'CR', 'CAP', 'WO', 'PM', 'ECA', 'EC', 'DCN', 'ECN', 'SOP', 'OP', 'MP', 'SP', 'EOP', 'AOP', 'GOP',
  'FNP', 'LER', 'GL', 'IN', 'BUL', 'FM', 'CA', 'LCO', 'TS', 'RG', 'BULLETIN', 'SER', 'IER', 'OE', 'NCR', 'PER', 'AR', 'FMEA',
  'ALM', 'ANN', 'ANNUNC', 'WINDOW', 'PAS', 'PAH', 'PAL', 'PAHH', 'PALL',
  'NUREG', 'ASME', 'IEEE', 'ANSI', 'ASTM', 'ISO', 'EPRI', 'NEI', 'NFPA', 'API', 'TECH',
  'REV', 'STEP', 'TABLE', 'FIG', 'FIGURE', 'ATTACHMENT', 'APPENDIX', 'SECTION', 'PAGE', 'NOTE', 'ITEM',
]);

// Numbered list items written like tags (corrective actions CA-1, CA-2 in a CR's action table).
const NUMBERED_ITEM_PREFIXES = new Set(['CA']);

// Nuclides are written like tags and are frequent in plant documents.
const NUCLIDES = new Set([
  'H-3', 'C-14', 'N-16', 'CO-58', 'CO-60', 'KR-85', 'SR-90', 'I-131', 'I-133', 'I-135', 'XE-133',
  'XE-135', 'CS-134', 'CS-137', 'U-235', 'U-238', 'PU-239', 'AM-241',
]);

const HYPHEN = 45;
const STAR = 42;
const DOT = 0x2e;
const COLON = 0x3a;
const UNDERSCORE = 0x5f;
const DIGIT_0 = 48;
const DIGIT_9 = 57;

const UNIT_PREFIXED_RE = /^\d[A-Z]{1,5}$/;

// One pass over the characters (the shape regex guarantees only A-Z, 0-9 and inner hyphens):
// this runs for every hyphenated upper-case token, dates included, so it avoids split and regexes.
function isEquipmentId(id: string): boolean {
  let hyphens = 0;
  let letters = 0;
  let digits = 0;
  let lastSegmentDigits = 0;
  let lastSegmentLetters = 0;
  let firstSegmentEnd = -1;
  for (let i = 0; i < id.length; i += 1) {
    const code = id.charCodeAt(i);
    if (code === HYPHEN || code === STAR) {
      hyphens += 1;
      if (firstSegmentEnd < 0) firstSegmentEnd = i;
      lastSegmentDigits = 0;
      lastSegmentLetters = 0;
    } else if (code >= DIGIT_0 && code <= DIGIT_9) {
      digits += 1;
      lastSegmentDigits += 1;
    } else {
      letters += 1;
      lastSegmentLetters += 1;
    }
  }
  if (digits === 0 || letters === 0) return false; // dates, ranges, HI-HI
  const first = id.slice(0, firstSegmentEnd);
  if (NOT_EQUIPMENT_PREFIXES.has(first) || NUCLIDES.has(id)) return false;
  if (hyphens > 1) return true; // AFW-P-101, 1-RC-P-1A, U2-CND-HOTWELL
  // Two segments must read PREFIX-NUMBER: P-101A, MOV-204A, FT-1102. A one-letter prefix needs a
  // three-digit number or a train letter after the number (P-101, P-2A), so grid and window
  // labels (A-1, B-2, A-14) are not tags.
  // A unit digit may lead the system letters (1SI-8801A, 2RCS*PT455); a bare number may not (12-34A).
  const startsWithDigit = id.charCodeAt(0) <= DIGIT_9;
  if (startsWithDigit && !UNIT_PREFIXED_RE.test(first)) return false;
  if (NUMBERED_ITEM_PREFIXES.has(first) || lastSegmentDigits === 0) return false;
  if (startsWithDigit) return true;
  return firstSegmentEnd > 1 || lastSegmentDigits >= 3 || lastSegmentLetters > 0;
}

export const docRefs: Family<string> = {
  bit: DOC_REF,
  regex: DOC_REF_RE,
  at: (text, start) => wholeMatchAt(DOC_REF_RE, text, start),
};

export const alarmIds: Family<string> = {
  bit: ALARM_ID,
  regex: ALARM_RE,
  at: (text, start) => wholeMatchAt(ALARM_RE, text, start),
};

export const fmIds: Family<string> = {
  bit: FM_ID,
  regex: FM_ID_RE,
  at: (text, start) => wholeMatchAt(FM_ID_RE, text, start),
};

// EQUIPMENT_RE read by hand, with isEquipmentId's counts taken in the same pass, so a shape that
// fails (dates, ranges: no letter) costs no string. Either form of EQUIPMENT_SHAPE has one end
// worth trying: cutting a segment short leaves a letter or digit next, dropping one leaves "-"
// and a letter or digit next, and TOKEN_END refuses both. The forms differ at the char after the
// first run ("-" or "*"). test/tagging/equipment-matcher.test.ts holds it to the regex.
function isUpperOrDigit(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= DIGIT_0 && code <= DIGIT_9);
}

function isWordCode(code: number): boolean {
  return isUpperOrDigit(code) || (code >= 0x61 && code <= 0x7a) || code === UNDERSCORE;
}

function codeAt(text: string, index: number): number {
  return index < text.length ? text.charCodeAt(index) : -1;
}

function isDigitCode(code: number): boolean {
  return code >= DIGIT_0 && code <= DIGIT_9;
}

/** TOKEN_END at `end`: no `[A-Za-z0-9_]`, no `[-.]` before a letter or digit, no ":" before a digit. */
function tokenEndsAt(text: string, end: number): boolean {
  const next = codeAt(text, end);
  if (isWordCode(next)) return false;
  if (next === HYPHEN || next === DOT) {
    const after = codeAt(text, end + 1);
    return !(isWordCode(after) && after !== UNDERSCORE);
  }
  if (next === COLON) return !isDigitCode(codeAt(text, end + 1));
  return true;
}

function equipmentAt(text: string, start: number): Found<string> | null {
  const before = start > 0 ? text.charCodeAt(start - 1) : -1;
  if (isWordCode(before) || before === DOT || before === HYPHEN) return null;
  let j = start;
  let letters = 0;
  let digits = 0;
  for (let c = codeAt(text, j); isUpperOrDigit(c); c = codeAt(text, ++j)) {
    if (isDigitCode(c)) digits++;
    else letters++;
  }
  const firstSegmentEnd = j;
  if (j === start) return null;
  const joiner = codeAt(text, j);
  if (joiner === STAR) {
    // \d[A-Z]{1,5}\* and then a run: the first run is one digit and one to five letters.
    if (digits !== 1 || text.charCodeAt(start) > DIGIT_9 || letters === 0 || letters > 5 || !isUpperOrDigit(codeAt(text, j + 1))) return null;
  } else if (joiner !== HYPHEN || !isUpperOrDigit(codeAt(text, j + 1))) return null;
  let hyphens = 0;
  let lastSegmentDigits = 0;
  let lastSegmentLetters = 0;
  // Segments after the first: "-" (or the one "*") and a run.
  for (;;) {
    const c = codeAt(text, j);
    if (!((c === HYPHEN || (c === STAR && hyphens === 0 && j === firstSegmentEnd)) && isUpperOrDigit(codeAt(text, j + 1)))) break;
    hyphens++;
    lastSegmentDigits = 0;
    lastSegmentLetters = 0;
    j++;
    for (let d = codeAt(text, j); isUpperOrDigit(d); d = codeAt(text, ++j)) {
      if (isDigitCode(d)) {
        digits++;
        lastSegmentDigits++;
      } else {
        letters++;
        lastSegmentLetters++;
      }
    }
  }
  if (!tokenEndsAt(text, j)) return null;
  // isEquipmentId on the counts.
  if (digits === 0 || letters === 0) return null;
  const end = j;
  const first = text.slice(start, firstSegmentEnd);
  if (NOT_EQUIPMENT_PREFIXES.has(first)) return null;
  const item = text.slice(start, end);
  if (hyphens === 1 && NUCLIDES.has(item)) return null;
  if (hyphens === 1) {
    const startsWithDigit = text.charCodeAt(start) <= DIGIT_9;
    if (startsWithDigit && !UNIT_PREFIXED_RE.test(first)) return null;
    if (NUMBERED_ITEM_PREFIXES.has(first) || lastSegmentDigits === 0) return null;
    if (!startsWithDigit && !(firstSegmentEnd - start > 1 || lastSegmentDigits >= 3 || lastSegmentLetters > 0)) return null;
  }
  return { end, key: item.toLowerCase(), item };
}

export const equipmentIds: Family<string> = {
  bit: EQUIPMENT_ID,
  regex: EQUIPMENT_RE,
  at: equipmentAt,
};

/** The family as the regex and isEquipmentId give it: the reference the hand reading is held to. */
export function equipmentAtByRegex(text: string, start: number): Found<string> | null {
  EQUIPMENT_RE.lastIndex = start;
  if (!EQUIPMENT_RE.test(text)) return null;
  const end = EQUIPMENT_RE.lastIndex;
  const item = text.slice(start, end);
  return isEquipmentId(item) ? { end, key: item.toLowerCase(), item } : null;
}
