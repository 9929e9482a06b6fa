// Measurements: a number or range followed by a unit, every part kept exactly as written.
// Durations (hours, minutes, days) are temporal refs, not measurements.

import type { Measurement } from '../../contracts/chunk.js';
import { type Family, type Found, MEASUREMENT } from './scan.js';
import { buildPattern, escapePattern } from '../../runtime/patterns.js';

const UNITS = [
  'psig', 'psia', 'psid', 'psi', 'PSIG', 'PSIA', 'PSID', 'PSI',
  'inHg', 'in. Hg', 'in Hg', 'in.Hg', 'inH2O', 'in. H2O', 'in H2O', 'inWC',
  '%', 'percent', 'PERCENT',
  '°F', '°C', 'degF', 'degC', 'deg F', 'deg C', '°',
  'degrees', 'degree', 'Degrees', 'DEGREES', 'degrees F', 'degrees C', 'DEGREES F', 'DEGREES C',
  'degrees Fahrenheit', 'degrees Celsius', 'Degrees Fahrenheit', 'DEGREES FAHRENHEIT',
  'gpm', 'GPM', 'gph', 'rpm', 'RPM', 'SCFM', 'scfm', 'cfm', 'CFM',
  'mils', 'mil', 'MILS', 'in', 'inch', 'inches', 'Inch', 'Inches', 'INCH', 'INCHES', 'mm', 'cm', 'm', 'ft', 'feet', 'foot', 'Feet', 'FEET',
  'in/s', 'ips', 'IPS', 'mm/s', 'g',
  'A', 'mA', 'kA', 'amps', 'amp', 'amperes', 'Amps', 'AMPS', 'V', 'mV', 'kV', 'KV', 'VAC', 'VDC', 'Vac', 'Vdc',
  'volts', 'volt', 'Volts', 'Volt', 'VOLTS', 'VOLT',
  'ohm', 'ohms', 'Ohm', 'Ohms', 'OHMS', 'Ω', 'kΩ', 'MΩ', 'megohms', 'Megohms',
  'W', 'kW', 'MW', 'MWe', 'MWt', 'kWh', 'MWh',
  'Pa', 'kPa', 'MPa', 'bar', 'barg',
  'Hz', 'kHz',
  'ppb', 'ppm', 'PPB', 'PPM',
  'lb', 'lbm', 'lbs', 'lbf', 'ft-lb', 'ft-lbs', 'kg',
  'gal', 'gallons', 'gallon', 'Gallons', 'GAL', 'GALLONS',
  'mR/hr', 'mR/h', 'R/hr', 'rem', 'mrem', 'mrem/hr', 'Ci', 'uCi', 'µCi', 'dpm', 'cpm',
  // Multiples ("23 times above the normal limit").
  'times',
];

// Longest first, so the alternation itself prefers "psig" to "psi" and "in. Hg" to "in"; the
// word-boundary check after the unit enforces the same when the text continues with a letter.
const UNIT_ALTERNATION = [...UNITS]
  .sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0))
  .map(escapePattern)
  .join('|');

// Thousands grouped by commas or by the no-break and thin spaces of SI style ("1 200").
// Scientific notation ("1.5E-3 rem") keeps its exponent in the value.
// A fraction ("3/8-inch") is a number too; a date's "2/6/2026" never reaches a unit.
const NUMBER = String.raw`\d{1,2}\/\d{1,2}|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:[\u00A0\u202F\u2009]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][-+−]?\d{1,3})?|\.\d+`;
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
// A space (or nothing) before the unit; a hyphen in the compound forms ("1500-psig", "3/8-inch",
// "480-volt"); or, in a markdown table row, the cell edge between a number-only cell and a
// unit-only cell ("| 6.2 | mils |").
const SEPARATOR = String.raw`[ \u00A0]?|-|[ \t]*\|[ \t]*`;
const UNIT_END = String.raw`(?![A-Za-z0-9_]|-[A-Za-z0-9])`;

// Sticky: tried only where findStarts (scan.ts) marks a possible start (a digit, sign or "."
// that NUMBER_START allows). Groups 1 value, 2 separator, 3 unit: numbered, as named groups cost
// an extra object per match.
const MEASUREMENT_RE = buildPattern('tagging/extractors/measurements: MEASUREMENT_RE', `${NUMBER_START}(${VALUE})(${SEPARATOR})(${UNIT_ALTERNATION})${UNIT_END}`, 'y');

const HORIZONTAL_SPACE = /[ \t]/;
const ALNUM = /[A-Za-z0-9]/;
const DIGITS = /\d/g;

function previousNonSpace(text: string, index: number): string {
  let i = index - 1;
  while (i >= 0 && HORIZONTAL_SPACE.test(text[i] ?? '')) i -= 1;
  return i >= 0 ? (text[i] ?? '') : '';
}

function nextNonSpace(text: string, index: number): string {
  let i = index;
  while (i < text.length && HORIZONTAL_SPACE.test(text[i] ?? '')) i += 1;
  return i < text.length ? (text[i] ?? '') : '';
}

// "PAGE 2 of 27 A. PURPOSE": the page count of a page header, not a measurement.
const PAGE_OF_RE = /\bpage[ \t]\d{1,4}[ \t]of[ \t]$/i;
const PAGE_OF_CHARS = 16;
// A word of capitals ("PURPOSE", "LOSS"): after a one-letter "unit", that letter is a list label.
const CAPITALS_WORD_RE = /^\.?[ \t]*[A-Z]{2}/;

function accept(text: string, start: number, end: number, value: string, sep: string, unit: string): boolean {
  if (PAGE_OF_RE.test(text.slice(Math.max(0, start - PAGE_OF_CHARS), start))) return false;
  // "2-A" is a train, "4-in" a phrase; "480-V" and "125-V" are voltages.
  if (sep === '-' && ((unit.length === 1 && (value.match(DIGITS)?.length ?? 0) < 3) || unit === 'in')) return false;
  if (sep.includes('|')) {
    // Both cells must hold nothing else: "| 6.2 | mils |", the row may end after the unit cell.
    const before = previousNonSpace(text, start);
    const after = nextNonSpace(text, end);
    return before === '|' && (after === '|' || after === '\n' || after === '\r' || after === '');
  }
  // "1A", "2B" are train and bus names; a one-letter unit glued to a one-digit number is an id.
  if (unit.length === 1 && sep === '' && (value.match(DIGITS)?.length ?? 0) < 2) return false;
  // "27 A. PURPOSE", "1 g LOSS OF COOLANT", "2 A/R": a step or list label after a small count,
  // not amperes or g. A measured value with a decimal point ("2.1 g") keeps its unit.
  if (unit.length === 1 && value.length <= 2 && !value.includes('.') && (text[end] === '/' || CAPITALS_WORD_RE.test(text.slice(end, end + 8)))) return false;
  // Bare "in" is also the preposition ("found 3 in the casing", "1 in 10"): accept it only when
  // no word or number follows.
  if (unit === 'in') return !ALNUM.test(nextNonSpace(text, end));
  return true;
}

export const measurements: Family<Measurement> = {
  bit: MEASUREMENT,
  regex: MEASUREMENT_RE,
  at(text: string, start: number): Found<Measurement> | null {
    MEASUREMENT_RE.lastIndex = start;
    const match = MEASUREMENT_RE.exec(text);
    if (match === null) return null;
    const [span, value = '', sep = '', unit = ''] = match;
    const end = start + span.length;
    if (!accept(text, start, end, value, sep, unit)) return null;
    return { end, key: span.toLowerCase(), item: { value, unit, text: span } };
  },
};

// Spelled-out values with their unit ("two inches", "six inch", "ten percent", "twenty-five
// feet", "half an inch"), as narrative reports write small numbers. Durations stay temporal.
const NUMBER_WORD =
  '(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-(?:one|two|three|four|five|six|seven|eight|nine))?' +
  '|one[ ]hundred|a[ ]hundred|half[ ]an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve' +
  '|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)';
const SPELLED_UNIT = '(?:inch(?:es)?|feet|foot|percent|degrees?|gallons?|volts?|mils?|psig|psid|psia|psi|amps?|ohms?)';
const SPELLED_RE = buildPattern(
  'tagging/extractors/measurements: SPELLED_RE',
  `\\b(${NUMBER_WORD})[ -](${SPELLED_UNIT})(?![A-Za-z0-9_]|-[A-Za-z0-9])`,
  'gi',
);

/** Spelled-out measurements in text order, each with its [start, end). */
export function spelledMeasurements(text: string): Array<{ start: number; end: number; item: Measurement }> {
  const out: Array<{ start: number; end: number; item: Measurement }> = [];
  SPELLED_RE.lastIndex = 0;
  for (let m = SPELLED_RE.exec(text); m !== null; m = SPELLED_RE.exec(text)) {
    out.push({ start: m.index, end: m.index + m[0].length, item: { value: m[1]!, unit: m[2]!, text: m[0] } });
  }
  return out;
}
