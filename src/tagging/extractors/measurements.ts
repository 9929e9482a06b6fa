// Measurements: a number or range followed by a unit, every part kept exactly as written.
// Durations (hours, minutes, days) are temporal refs, not measurements.

import type { Measurement } from '../../contracts/chunk.js';
import { type Family, type Found, MEASUREMENT } from './scan.js';

const UNITS = [
  'psig', 'psia', 'psid', 'psi', 'PSIG', 'PSIA', 'PSID', 'PSI',
  'inHg', 'in. Hg', 'in Hg', 'in.Hg', 'inH2O', 'in. H2O', 'in H2O', 'inWC',
  '%', 'percent', 'PERCENT',
  '°F', '°C', 'degF', 'degC', 'deg F', 'deg C',
  'gpm', 'GPM', 'gph', 'rpm', 'RPM', 'SCFM', 'scfm', 'cfm', 'CFM',
  'mils', 'mil', 'MILS', 'in', 'inch', 'inches', 'mm', 'cm', 'm', 'ft', 'feet',
  'in/s', 'ips', 'IPS', 'mm/s', 'g',
  'A', 'mA', 'kA', 'amps', 'V', 'mV', 'kV', 'VAC', 'VDC', 'Vac', 'Vdc', 'volts',
  'W', 'kW', 'MW', 'MWe', 'MWt', 'kWh', 'MWh',
  'Pa', 'kPa', 'MPa', 'bar', 'barg',
  'Hz', 'kHz',
  'ppb', 'ppm', 'PPB', 'PPM',
  'lb', 'lbm', 'lbs', 'lbf', 'ft-lb', 'ft-lbs', 'kg',
  'gal', 'gallons', 'GAL',
  'mR/hr', 'mR/h', 'R/hr', 'rem', 'mrem', 'mrem/hr', 'Ci', 'uCi', 'µCi', 'dpm', 'cpm',
  // Multiples ("23 times above the normal limit").
  'times',
];

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

// Longest first, so the alternation itself prefers "psig" to "psi" and "in. Hg" to "in"; the
// word-boundary check after the unit enforces the same when the text continues with a letter.
const UNIT_ALTERNATION = [...UNITS]
  .sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0))
  .map(escapeRegex)
  .join('|');

// Thousands grouped by commas or by the no-break and thin spaces of SI style ("1 200").
// Scientific notation ("1.5E-3 rem") keeps its exponent in the value.
const NUMBER = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:[\u00A0\u202F\u2009]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][-+−]?\d{1,3})?|\.\d+`;
const SIGN = '[-+−±]';
// A range is "100-120", "100–120" or "100 to 120"; only the en-dash and "to" forms allow a signed
// upper bound, so "5--3" is never read as a range.
const VALUE =
  `${SIGN}?(?:${NUMBER})` +
  `(?:[ \\t]*[–—][ \\t]*${SIGN}?(?:${NUMBER})|[ \\t]*-[ \\t]*(?:${NUMBER})|[ \\t]+to[ \\t]+${SIGN}?(?:${NUMBER}))?`;

// The number may not continue a token: "VB-101A", "FT-1102", "2026-02-06", "1,175" (at "175"),
// "5.0" (at "0"), "2/6/2026" and "03:22" all start with a letter, digit or joiner before it.
// Nor may it follow a number and one space: in "1 200 kPa" the "200" is half of a number.
const NUMBER_START = String.raw`(?<![A-Za-z0-9_.,\-−–—+±/:]|\d[ \u00A0\u202F\u2009])`;
// A space (or nothing) before the unit; or, in a markdown table row, the cell edge between a
// number-only cell and a unit-only cell ("| 6.2 | mils |").
const SEPARATOR = String.raw`[ \u00A0]?|[ \t]*\|[ \t]*`;
const UNIT_END = String.raw`(?![A-Za-z0-9_]|-[A-Za-z0-9])`;

// Sticky: tried only where findStarts (scan.ts) marks a possible start (a digit, sign or "."
// that NUMBER_START allows). Groups 1 value, 2 separator, 3 unit: numbered, as named groups cost
// an extra object per match.
const MEASUREMENT_RE = new RegExp(`${NUMBER_START}(${VALUE})(${SEPARATOR})(${UNIT_ALTERNATION})${UNIT_END}`, 'y');

// The matcher below reads MEASUREMENT_RE by hand over the text's char codes, in the regex's own
// order of trying (alternatives left to right, greedy quantifiers longest first), so its first
// match is exec()'s: same span, same three groups. The regex stays as the family's definition;
// test/tagging/measurement-matcher.test.ts holds the two equal. What makes a hand reading short:
// no unit starts with a digit, ",", ".", "e", "E" or a space, so a number part cut short (which
// leaves one of those next) can never go on to a unit, and each NUMBER alternative has at most
// one end worth trying.

const C_TAB = 0x09;
const C_LF = 0x0a;
const C_CR = 0x0d;
const C_SPACE = 0x20;
const C_PLUS = 0x2b;
const C_COMMA = 0x2c;
const C_HYPHEN = 0x2d;
const C_DOT = 0x2e;
const C_SLASH = 0x2f;
const C_COLON = 0x3a;
const C_PIPE = 0x7c;
const C_NBSP = 0xa0;
const C_PLUS_MINUS = 0xb1;
const C_THIN = 0x2009;
const C_EN_DASH = 0x2013;
const C_EM_DASH = 0x2014;
const C_NNBSP = 0x202f;
const C_MINUS = 0x2212;
const C_LOWER_E = 0x65;
const C_UPPER_E = 0x45;
const C_LOWER_T = 0x74;
const C_LOWER_O = 0x6f;
const C_LOWER_I = 0x69;
const C_LOWER_N = 0x6e;

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** `[A-Za-z0-9_]` (the regex's `\w`, ASCII only without the `u` flag). */
function isWord(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
}

function isAlnum(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** `[-+−±]` */
function isSign(code: number): boolean {
  return code === C_HYPHEN || code === C_PLUS || code === C_MINUS || code === C_PLUS_MINUS;
}

function isSpaceOrTab(code: number): boolean {
  return code === C_SPACE || code === C_TAB;
}

// charCodeAt past the end gives NaN, which deoptimises the loops: every read goes through here.
function codeAt(text: string, index: number): number {
  return index < text.length ? text.charCodeAt(index) : -1;
}

function digitsFrom(text: string, index: number): number {
  let j = index;
  while (isDigit(codeAt(text, j))) j++;
  return j;
}

/** `(?:\.\d+)?` at `index`, greedy: past the fraction when there is one. */
function fractionEnd(text: string, index: number): number {
  return codeAt(text, index) === C_DOT && isDigit(codeAt(text, index + 1)) ? digitsFrom(text, index + 2) : index;
}

/** `\d{1,3}(?:G\d{3})+(?:\.\d+)?` from the end `run` of its leading digits, or -1 (the one end that can go on). */
function groupedEnd(text: string, run: number, comma: boolean): number {
  let j = run;
  let groups = 0;
  for (;;) {
    const c = codeAt(text, j);
    const separator = comma ? c === C_COMMA : c === C_NBSP || c === C_NNBSP || c === C_THIN;
    if (!separator || !isDigit(codeAt(text, j + 1)) || !isDigit(codeAt(text, j + 2)) || !isDigit(codeAt(text, j + 3))) break;
    j += 4;
    groups++;
  }
  if (groups === 0) return -1;
  return fractionEnd(text, j);
}

/** `\d+(?:\.\d+)?(?:[eE][-+−]?\d{1,3})?` from the end `run` of its digits, greedy. */
function plainEnd(text: string, run: number): number {
  const j = fractionEnd(text, run);
  const e = codeAt(text, j);
  if (e !== C_LOWER_E && e !== C_UPPER_E) return j;
  let k = j + 1;
  const sign = codeAt(text, k);
  if (sign === C_HYPHEN || sign === C_PLUS || sign === C_MINUS) k++;
  if (!isDigit(codeAt(text, k))) return j;
  let n = 1;
  while (n < 3 && isDigit(codeAt(text, k + n))) n++;
  return k + n;
}

// The NUMBER alternatives' ends at `p`, in the regex's order, into `out` (-1 where one fails or
// its end is followed by a digit, from which nothing goes on). Scratch arrays, one per nesting.
const lowerEnds = new Int32Array(4);
const upperEnds = new Int32Array(4);

function numberEnds(text: string, p: number, out: Int32Array): boolean {
  const first = codeAt(text, p);
  out[0] = out[1] = out[2] = out[3] = -1;
  if (isDigit(first)) {
    const run = digitsFrom(text, p + 1);
    // The grouped forms need a separator right after one to three digits.
    if (run - p <= 3) {
      const c = codeAt(text, run);
      if (c === C_COMMA) out[0] = groupedEnd(text, run, true);
      else if (c === C_NBSP || c === C_NNBSP || c === C_THIN) out[1] = groupedEnd(text, run, false);
    }
    out[2] = plainEnd(text, run);
  } else if (first === C_DOT && isDigit(codeAt(text, p + 1))) {
    out[3] = digitsFrom(text, p + 2);
  } else return false;
  let any = false;
  for (let i = 0; i < 4; i++) {
    const e = out[i]!;
    if (e >= 0 && isDigit(codeAt(text, e))) out[i] = -1;
    else if (e >= 0) any = true;
  }
  return any;
}

// Units by first char code, each list in the alternation's order (longest first).
// Every unit opens with a char code under 256 ("°", "µ").
const UNITS_BY_FIRST: Array<string[] | undefined> = new Array(256).fill(undefined);
for (const unit of [...UNITS].sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0))) {
  const code = unit.charCodeAt(0);
  if (code > 255) throw new Error(`unit ${unit} opens above U+00FF`);
  (UNITS_BY_FIRST[code] ??= []).push(unit);
}

/** `(UNIT_ALTERNATION)UNIT_END` at `u`: the first unit in order that fits, or null. */
function unitAt(text: string, u: number): string | null {
  const first = codeAt(text, u);
  const list = first >= 0 && first < 256 ? UNITS_BY_FIRST[first] : undefined;
  if (list === undefined) return null;
  for (let i = 0; i < list.length; i++) {
    const unit = list[i]!;
    const n = unit.length;
    let k = 1;
    while (k < n && codeAt(text, u + k) === unit.charCodeAt(k)) k++;
    if (k < n) continue;
    const next = codeAt(text, u + n);
    if (isWord(next) || (next === C_HYPHEN && isAlnum(codeAt(text, u + n + 1)))) continue;
    return unit;
  }
  return null;
}

// The last match's groups, as exec() would give them: [start, valueEnd) the value, [valueEnd,
// unitStart) the separator, then the unit.
let valueEnd = 0;
let unitStart = 0;
let matchedUnit = '';
let pipeSeparator = false;

/** SEPARATOR, unit, UNIT_END after a value ending at `e`, in the regex's order. */
function tailAt(text: string, e: number): boolean {
  const c = codeAt(text, e);
  let unit: string | null;
  if (c === C_SPACE || c === C_NBSP) {
    if ((unit = unitAt(text, e + 1)) !== null) return found(e, e + 1, unit, false);
  }
  if ((unit = unitAt(text, e)) !== null) return found(e, e, unit, false);
  let j = e;
  while (isSpaceOrTab(codeAt(text, j))) j++;
  if (codeAt(text, j) !== C_PIPE) return false;
  j++;
  while (isSpaceOrTab(codeAt(text, j))) j++;
  if ((unit = unitAt(text, j)) !== null) return found(e, j, unit, true);
  return false;
}

function found(end: number, u: number, unit: string, pipe: boolean): boolean {
  valueEnd = end;
  unitStart = u;
  matchedUnit = unit;
  pipeSeparator = pipe;
  return true;
}

/** The range's upper bound after the lower one ending at `e` (optional), then the tail. */
function rangeThenTail(text: string, e: number): boolean {
  let j = e;
  while (isSpaceOrTab(codeAt(text, j))) j++;
  const c = codeAt(text, j);
  let p = -1;
  if (c === C_EN_DASH || c === C_EM_DASH) {
    j++;
    while (isSpaceOrTab(codeAt(text, j))) j++;
    p = isSign(codeAt(text, j)) ? j + 1 : j;
  } else if (c === C_HYPHEN) {
    j++;
    while (isSpaceOrTab(codeAt(text, j))) j++;
    p = j;
  } else if (j > e && c === C_LOWER_T && codeAt(text, j + 1) === C_LOWER_O && isSpaceOrTab(codeAt(text, j + 2))) {
    j += 2;
    while (isSpaceOrTab(codeAt(text, j))) j++;
    p = isSign(codeAt(text, j)) ? j + 1 : j;
  }
  if (p >= 0 && numberEnds(text, p, upperEnds)) {
    for (let i = 0; i < 4; i++) if (upperEnds[i]! >= 0 && tailAt(text, upperEnds[i]!)) return true;
  }
  return tailAt(text, e);
}

/** MEASUREMENT_RE.exec at `start` (sticky), by hand: whether it matches (groups in the lets above). */
function matchAt(text: string, start: number): boolean {
  const before = start > 0 ? text.charCodeAt(start - 1) : -1;
  if (isWord(before)) return false;
  if (
    before === C_DOT || before === C_COMMA || before === C_HYPHEN || before === C_MINUS || before === C_EN_DASH ||
    before === C_EM_DASH || before === C_PLUS || before === C_PLUS_MINUS || before === C_SLASH || before === C_COLON
  ) return false;
  if ((before === C_SPACE || before === C_NBSP || before === C_NNBSP || before === C_THIN) && start > 1 && isDigit(text.charCodeAt(start - 2))) return false;
  const p = isSign(codeAt(text, start)) ? start + 1 : start;
  if (!numberEnds(text, p, lowerEnds)) return false;
  // rangeThenTail reuses upperEnds only: the lower ends are read before each call.
  for (let i = 0; i < 4; i++) {
    const e = lowerEnds[i]!;
    if (e >= 0 && rangeThenTail(text, e)) return true;
  }
  return false;
}

function previousNonSpace(text: string, index: number): number {
  let i = index - 1;
  while (i >= 0 && isSpaceOrTab(text.charCodeAt(i))) i -= 1;
  return i >= 0 ? text.charCodeAt(i) : -1;
}

function nextNonSpace(text: string, index: number): number {
  let i = index;
  while (i < text.length && isSpaceOrTab(text.charCodeAt(i))) i += 1;
  return i < text.length ? text.charCodeAt(i) : -1;
}

/** The checks the regex cannot make, on the last match ending at `end`. */
function accept(text: string, start: number, end: number): boolean {
  if (pipeSeparator) {
    // Both cells must hold nothing else: "| 6.2 | mils |", the row may end after the unit cell.
    const after = nextNonSpace(text, end);
    return previousNonSpace(text, start) === C_PIPE && (after === C_PIPE || after === C_LF || after === C_CR || after === -1);
  }
  // "1A", "2B" are train and bus names; a one-letter unit glued to a one-digit number is an id.
  if (matchedUnit.length === 1 && unitStart === valueEnd) {
    let digits = 0;
    for (let i = start; i < valueEnd && digits < 2; i++) if (isDigit(text.charCodeAt(i))) digits++;
    if (digits < 2) return false;
  }
  // Bare "in" is also the preposition ("found 3 in the casing", "1 in 10"): accept it only when
  // no word or number follows.
  if (matchedUnit.length === 2 && text.charCodeAt(unitStart) === C_LOWER_I && text.charCodeAt(unitStart + 1) === C_LOWER_N) return !isAlnum(nextNonSpace(text, end));
  return true;
}

export const measurements: Family<Measurement> = {
  bit: MEASUREMENT,
  regex: MEASUREMENT_RE,
  at(text: string, start: number): Found<Measurement> | null {
    if (!matchAt(text, start)) return null;
    const end = unitStart + matchedUnit.length;
    if (!accept(text, start, end)) return null;
    const span = text.slice(start, end);
    return { end, key: span.toLowerCase(), item: { value: text.slice(start, valueEnd), unit: matchedUnit, text: span } };
  },
};
