// Shared pieces of the pattern extractors: the token-edge assertions every family uses, and the
// pass that finds where each family may start a match.
//
// Why: each family is a regex, and running six of them globally means six walks over every
// character of a text that is mostly lowercase prose. Instead one finder regex stops at the few
// places worth a look (word starts with a digit, an upper-case run ended by a hyphen or a GAP,
// ...), a few character tests there say which families may start (or start just before, for
// month names and signs), and each family's regex then runs sticky (`y`) at its own starts only.
// The tests are necessary conditions read off the family regexes, so the result is exactly what
// a global scan gives: where no start is marked, the family's regex cannot match.
// test/tagging/extractor-starts.test.ts holds the code to that.

import { buildPattern } from '../../runtime/patterns.js';

/** A span one family found at a given start. `key` is what deduplication compares. */
export interface Found<T> {
  readonly end: number;
  readonly key: string;
  readonly item: T;
}

export interface Family<T> {
  /** The family's bit in a start mask (see findStarts). */
  readonly bit: number;
  /** The family's regex, sticky: tried at one position at a time. */
  readonly regex: RegExp;
  /** The match starting exactly at `start`, or null when there is none or the family rejects it. */
  at(text: string, start: number): Found<T> | null;
}

// A match must begin and end on the edge of an identifier-like token, so no family can carve a
// shorter span out of a longer token ("CR-2026" out of "CR-2026-00123", "101A" out of "VB-101A").
// A token continues through letters, digits and underscores, through "-" or "." when a letter or
// digit follows, and through ":" when a digit follows (so the date in "2026-02-06T03:22" is not a
// tag). Every form starts with a letter or digit, so the start is a word boundary not preceded by
// a joiner.
export const TOKEN_START = String.raw`\b(?<![.\-])`;
export const TOKEN_END = String.raw`(?![A-Za-z0-9_]|[\-.][A-Za-z0-9]|:\d)`;

/** Builds a sticky regex whose match is one of `forms`, starting and ending on token edges; `site` names it for the ReDoS check. */
export function tokenRegex(site: string, forms: readonly string[]): RegExp {
  return buildPattern(site, `${TOKEN_START}(?:${forms.join('|')})${TOKEN_END}`, 'y');
}

/** The common case: the whole match is the item, compared case-insensitively. */
export function wholeMatchAt(regex: RegExp, text: string, start: number): Found<string> | null {
  regex.lastIndex = start;
  // test(), not exec(): no match array is allocated for the many positions that fail.
  if (!regex.test(text)) return null;
  const end = regex.lastIndex;
  const item = text.slice(start, end);
  return { end, key: item.toLowerCase(), item };
}

// Family bits, in priority order; bit k is family k's list in StartLists.
export const DOC_REF = 1;
export const ALARM_ID = 2;
export const FM_ID = 4;
export const EQUIPMENT_ID = 8;
export const TEMPORAL_REF = 16;
export const MEASUREMENT = 32;
const FAMILY_COUNT = 6;

/** Per family, the positions where it may start, ascending (buffers reused from text to text). */
export class StartLists {
  readonly counts = new Int32Array(FAMILY_COUNT);
  readonly positions: Int32Array[] = Array.from({ length: FAMILY_COUNT }, () => new Int32Array(64));

  clear(): void {
    this.counts.fill(0);
  }

  /** The list of the family with bit `bit` (its first `countOf(bit)` entries are valid). */
  listOf(bit: number): Int32Array {
    return this.positions[31 - Math.clz32(bit)]!;
  }

  countOf(bit: number): number {
    return this.counts[31 - Math.clz32(bit)]!;
  }

  /** Adds `position` to the list of every family in `mask`; positions must come in ascending order. */
  add(position: number, mask: number): void {
    for (let family = 0; mask !== 0; family++, mask >>>= 1) {
      if ((mask & 1) === 0) continue;
      const count = this.counts[family]!;
      let list = this.positions[family]!;
      if (count === list.length) {
        const grown = new Int32Array(count * 2);
        grown.set(list);
        this.positions[family] = list = grown;
      }
      list[count] = position;
      this.counts[family] = count + 1;
    }
  }
}

// ASCII character kinds. WORD is the regex `\w` (what `\b` looks at): letters, digits, underscore.
const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
const UNDERSCORE = 8;
const LETTER = UPPER | LOWER;
const WORD = LETTER | DIGIT | UNDERSCORE;

const ASCII_KIND = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code);
  if (char >= 'A' && char <= 'Z') ASCII_KIND[code] = UPPER;
  else if (char >= 'a' && char <= 'z') ASCII_KIND[code] = LOWER;
  else if (char >= '0' && char <= '9') ASCII_KIND[code] = DIGIT;
  else if (char === '_') ASCII_KIND[code] = UNDERSCORE;
}

// Reads are bounds-checked by hand: charCodeAt past either end returns NaN, and one such read
// deoptimises the loop into slower floating-point code for good.
function codeAt(text: string, index: number): number {
  return index >= 0 && index < text.length ? text.charCodeAt(index) : -1;
}

function kindAt(text: string, index: number): number {
  const code = codeAt(text, index);
  return code >= 0 && code < 128 ? ASCII_KIND[code]! : 0;
}

const HYPHEN = 0x2d;
const STAR = 0x2a;
const PLUS = 0x2b;
const DOT = 0x2e;
const COMMA = 0x2c;
const SLASH = 0x2f;
const COLON = 0x3a;
const SEMICOLON = 0x3b;
const OPEN_BRACKET = 0x5b;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const NBSP = 0xa0;
const MINUS_SIGN = 0x2212;
const PLUS_MINUS = 0xb1;
const EN_DASH = 0x2013;
const EM_DASH = 0x2014;
const LETTER_F = 0x46;
const LETTER_M = 0x4d;
const LETTER_W = 0x57;
const LETTER_A = 0x41;
const LETTER_P = 0x50;
const UNDERSCORE_CODE = 0x5f;

// First letters of the doc-ref forms (CR, CAP, WO, PM, ECA, EC, DCN, ECN, EOP, AOP, GOP, SOP,
// FNP, OP, MP, SP, LER, GL, IN, BUL, BULLETIN, SER, IER, OE, NCR, PER, AR).
const DOC_REF_FIRST = new Uint8Array(128);
for (const letter of 'ABCDEFGILMNOPSW') DOC_REF_FIRST[letter.charCodeAt(0)] = 1;

/** The `[ \t\u00A0]` of the forms' GAP. */
function isGap(code: number): boolean {
  return code === SPACE || code === TAB || code === NBSP;
}

/** TOKEN_START's lookbehind: identifiers never start right after "." or "-". */
function identifierMayFollow(before: number): boolean {
  return before !== DOT && before !== HYPHEN;
}

/** The temporal START lookbehind `(?<![.\-/:])`. */
function temporalMayFollow(before: number): boolean {
  return before !== DOT && before !== HYPHEN && before !== SLASH && before !== COLON;
}

/** The measurement NUMBER_START lookbehind, less its `\w` part (a word start never follows `\w`). */
function measurementMayFollow(before: number): boolean {
  return !(
    before === DOT || before === COMMA || before === HYPHEN || before === MINUS_SIGN || before === EN_DASH ||
    before === EM_DASH || before === PLUS || before === PLUS_MINUS || before === SLASH || before === COLON
  );
}

// The words a letter-initial temporal form opens with: month names (MONTH_NAME) and duration
// leads (DURATION_LEAD), kept as hashes of their lowercased letters so checking a word allocates
// nothing (a collision only adds a start, which the regex then rejects).
const MONTH_AND_LEAD_WORDS = new Set(
  [
    'jan', 'january', 'feb', 'february', 'mar', 'march', 'apr', 'april', 'may', 'jun', 'june', 'jul', 'july',
    'aug', 'august', 'sep', 'sept', 'september', 'oct', 'october', 'nov', 'november', 'dec', 'december',
    'within', 'over', 'for', 'after', 'in', 'past', 'last', 'next', 'every',
  ].map((word) => wordHash(word, 0, word.length)),
);

/** Hash of text[start, end), ASCII letters folded to lower case. */
function wordHash(text: string, start: number, end: number): number {
  let hash = 0;
  for (let k = start; k < end; k++) hash = (Math.imul(hash, 31) + (text.charCodeAt(k) | 0x20)) | 0;
  return hash;
}

/**
 * The start of the month name or lead word before the number at `digit`, or -1. Every
 * letter-initial temporal form reads letters, an optional ".", an optional ",", a GAP, then a
 * number ("Feb. 6", "January, 2023", "within 2 minutes"), so those starts are found backwards
 * from the numbers, which the finder meets anyway. The forms are case-insensitive, but without the
 * `u` flag only ASCII letters match them.
 */
function wordBeforeNumber(text: string, digit: number): number {
  let j = digit - 1;
  if (!isGap(codeAt(text, j))) return -1;
  while (isGap(codeAt(text, j))) j--;
  if (codeAt(text, j) === COMMA) j--;
  if (codeAt(text, j) === DOT) j--;
  if ((kindAt(text, j) & LETTER) === 0) return -1;
  const end = j + 1;
  while ((kindAt(text, j - 1) & LETTER) !== 0) j--;
  // The letters must open a `\w` run (START's `\b`) that START's lookbehind allows, and be a
  // month name or a lead word.
  if ((kindAt(text, j - 1) & WORD) !== 0 || !temporalMayFollow(codeAt(text, j - 1))) return -1;
  return MONTH_AND_LEAD_WORDS.has(wordHash(text, j, end)) ? j : -1;
}

// Lowercased letters that may follow a number in a temporal form: right after it, an ordinal
// ("6th"), a duration unit ("5min") or a time zone ("1430CDT", "0624 EDT", "1754 Central ...",
// "1200 UTC", "0900 local"); after a GAP, also a month name ("6 FEB"), "to" ("2 to 3 days") or
// "on" ("at 1125 on May 24"). Without the `u` flag, the `i` flag folds ASCII letters only.
const AFTER_NUMBER = letterSet('snrtmhdwyecpuglz');
const AFTER_NUMBER_AND_GAP = letterSet('snrtmhdwyjfaoecpuglzbiw');

function letterSet(letters: string): Uint8Array {
  const set = new Uint8Array(128);
  for (const letter of letters) {
    set[letter.charCodeAt(0)] = 1;
    set[letter.toUpperCase().charCodeAt(0)] = 1;
  }
  return set;
}

function inSet(set: Uint8Array, code: number): boolean {
  return code >= 0 && code < 128 && set[code] === 1;
}

// The last number numberMayBeTemporal looked at (reset by findStarts for each text).
const lastNumber = { end: -1, temporal: false };

/**
 * Whether the number at `start` may open a temporal form. After the whole number ("1,200" and
 * "1.5" count as one: no form goes on from inside them), a date or time goes on with "-", "/" or
 * ":", a range with a dash, and anything else needs an ordinal, a month name, a duration unit or
 * "to". Most numbers in plant text are measurements ("465 gpm", "92%") and fail here, sparing
 * the temporal regex a try.
 */
function numberMayBeTemporal(text: string, start: number): boolean {
  // A start inside the last number seen ("200" of "1,200") shares its end and so its answer;
  // remembering it keeps "1,1,1,..." linear.
  if (start < lastNumber.end) return lastNumber.temporal;
  lastNumber.end = numberEnd(text, start);
  lastNumber.temporal = followsTemporalNumber(text, lastNumber.end);
  return lastNumber.temporal;
}

/** End of the number at `start`: digits, with "," or "." inside ("1,200", "1.5"). */
function numberEnd(text: string, start: number): number {
  let j = start + 1;
  for (;;) {
    while ((kindAt(text, j) & DIGIT) !== 0) j++;
    const next = codeAt(text, j);
    if ((next !== COMMA && next !== DOT) || (kindAt(text, j + 1) & DIGIT) === 0) break;
    j += 2;
  }
  return j;
}

/** Whether what follows a number ending at `j` may continue a temporal form. */
function followsTemporalNumber(text: string, j: number): boolean {
  let after = codeAt(text, j);
  if (after === HYPHEN || after === SLASH || after === COLON || after === EN_DASH || after === EM_DASH) return true;
  // A bracketed zone ("04:47[EST]") or the comma after a bare time ("at 1515, the pump").
  if (after === OPEN_BRACKET || after === OPEN_PAREN || after === COMMA || after === SEMICOLON) return true;
  // A bare "at 0145" that ends its sentence, bracket or line.
  if (after === DOT || after === CLOSE_PAREN || after === -1 || after === LINE_FEED || after === CARRIAGE_RETURN) return true;
  if (inSet(AFTER_NUMBER, after)) return true;
  if (!isGap(after)) return false;
  do after = codeAt(text, ++j);
  while (isGap(after));
  return (
    inSet(AFTER_NUMBER_AND_GAP, after) || after === HYPHEN || after === EN_DASH || after === EM_DASH ||
    after === OPEN_BRACKET || after === OPEN_PAREN || after === COMMA || after === SEMICOLON
  );
}

/** Families that may start at `start`, a letter or digit not preceded by a `\w` character. */
function wordStartMask(text: string, start: number, code: number): number {
  const kind = kindAt(text, start);
  const before = codeAt(text, start - 1);
  let mask = 0;
  if ((kind & DIGIT) !== 0) {
    if (measurementMayFollow(before)) mask |= MEASUREMENT;
    if (temporalMayFollow(before) && numberMayBeTemporal(text, start)) mask |= TEMPORAL_REF;
  }
  if (identifierMayFollow(before)) {
    // Equipment, doc-ref and most alarm forms open with a run of upper-case letters and digits
    // that a "-" (or for doc refs, a GAP: "WO 12345678", "LER 123-...") ends.
    let j = start + 1;
    while ((kindAt(text, j) & (UPPER | DIGIT)) !== 0) j++;
    const after = codeAt(text, j);
    if (after === STAR) mask |= EQUIPMENT_ID;
    if (after === HYPHEN) {
      mask |= EQUIPMENT_ID;
      if (code === LETTER_A || code === LETTER_P || (kind & DIGIT) !== 0) mask |= ALARM_ID;
    }
    if (code < 128 && DOC_REF_FIRST[code] === 1 && (after === HYPHEN || isGap(after))) mask |= DOC_REF;
    // "WINDOW A-14" / "Window A-14" (the run of "Window" is just "W").
    if (code === LETTER_W) mask |= ALARM_ID;
    if (code === LETTER_F && codeAt(text, start + 1) === LETTER_M && (codeAt(text, start + 2) === UNDERSCORE_CODE || codeAt(text, start + 2) === HYPHEN)) mask |= FM_ID;
  }
  return mask;
}

/**
 * Whether a measurement may start at `index` with a sign (`[-+−±]`) or a "." before its number
 * ("-5 °F", "±5 psig", ".5 in"): NUMBER_START's lookbehind allows it and a number follows.
 */
function signStart(text: string, index: number): boolean {
  const code = codeAt(text, index);
  if (code !== HYPHEN && code !== PLUS && code !== DOT && code !== MINUS_SIGN && code !== PLUS_MINUS) return false;
  if ((kindAt(text, index - 1) & WORD) !== 0 || !measurementMayFollow(codeAt(text, index - 1))) return false;
  if ((kindAt(text, index + 1) & DIGIT) !== 0) return true;
  return code !== DOT && codeAt(text, index + 1) === DOT && (kindAt(text, index + 2) & DIGIT) !== 0;
}

// The positions worth a closer look, one character each (so a match ends right after its start):
// a word start that is a digit, an upper-case run ended by "-" or a GAP, a "W" (Window) or "FM_".
// The regex engine skips the lowercase prose between them far faster than a JS loop over the
// characters. Starts that open with a letter (month names) or a sign are found from the digits.
// A digit right after a "." or "-" that follows a word character ("P-101", "4.2", "2026-02")
// starts nothing and is no sign's number, so the finder passes over it.
const FINDER = /\b(?:[0-9](?<![A-Za-z0-9_][.\-][0-9])|[A-Z](?=[A-Z0-9]*[-*\t \u00A0])|W|F(?=M_))/g;

/** Fills `out` with the positions where each family may start a match in `text`. */
export function findStarts(text: string, out: StartLists): StartLists {
  out.clear();
  lastNumber.end = -1;
  FINDER.lastIndex = 0;
  while (FINDER.test(text)) addStarts(text, FINDER.lastIndex - 1, out);
  return out;
}

/** The families that may start at a position FINDER stops at (and those found back from a digit). */
function addStarts(text: string, start: number, out: StartLists): void {
  const code = text.charCodeAt(start);
  if ((ASCII_KIND[code]! & DIGIT) !== 0) {
    // Nothing else can start between these earlier starts and the digit: they are added first.
    const word = wordBeforeNumber(text, start);
    if (word >= 0) out.add(word, TEMPORAL_REF);
    else if (signStart(text, start - 2)) out.add(start - 2, MEASUREMENT);
    else if (signStart(text, start - 1)) out.add(start - 1, MEASUREMENT);
  }
  const mask = wordStartMask(text, start, code);
  if (mask !== 0) out.add(start, mask);
}
