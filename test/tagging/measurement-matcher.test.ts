import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { measurements } from '../../src/tagging/extractors/measurements.js';
import { referenceMeasurementAt } from './support/measurement-reference.js';

// The measurement family reads MEASUREMENT_RE by hand. These hold it to the regex (exec() and
// the checks on its groups, test/tagging/support/measurement-reference.ts) at every position of
// texts built from the regex's own pieces and their near misses: every span, value, unit and
// rejection equal.

function allPositions(text: string): void {
  for (let start = 0; start <= text.length; start++) {
    const expected = referenceMeasurementAt(text, start);
    const actual = measurements.at(text, start);
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      expect({ text, start, actual }).toEqual({ text, start, actual: expected });
    }
  }
}

const piece = fc.constantFrom(
  // numbers and their near misses
  '0', '1', '5', '12', '100', '465', '1234', '2026', '1,175', '1,200', '12,345,678', '1,2000', '1,20', '1,200.5', '1,200.',
  '1\u00a0200', '1\u202f200', '1\u2009200', '1\u00a0200\u00a0300', '1\u00a020', '6.2', '6.', '.5', '..5', '1.5E-3', '2e5', '2E+12',
  '3e1234', '4e−2', '4e±2', '5e', '5e-', 'e', 'E',
  // signs, ranges, joiners
  '-', '+', '−', '±', '–', '—', '--', ' - ', ' – ', ' to ', 'to', ' to', 'to ', '\tto\t', 'tox', ' To ',
  // separators and table cells
  ' ', '  ', '\t', '\u00a0', '\u202f', '\u2009', '|', ' | ', '|\t', '\n', '\r\n', '',
  // units, whole and cut
  'psig', 'psi', 'PSIG', 'ps', 'inHg', 'in. Hg', 'in Hg', 'in.Hg', 'in. H2O', 'in H2O', 'inH2O', 'inWC', 'in', 'inch', 'inches',
  '%', 'percent', 'PERCENT', '°F', '°C', '°', 'degF', 'deg F', 'deg C', 'deg', 'gpm', 'GPM', 'rpm', 'mils', 'mil', 'mm', 'm',
  'ft', 'ft-lb', 'ft-lbs', 'ft-', 'in/s', 'mm/s', 'g', 'A', 'mA', 'kA', 'V', 'VAC', 'Vdc', 'W', 'kW', 'MWe', 'MWh', 'Pa', 'kPa',
  'bar', 'barg', 'Hz', 'ppm', 'PPB', 'lb', 'lbf', 'kg', 'gal', 'GAL', 'mR/hr', 'mR/h', 'R/hr', 'rem', 'mrem/hr', 'Ci', 'uCi',
  'µCi', 'dpm', 'cpm', 'times', 'time', 'x',
  // what may follow or precede
  'a', 'B', '_', '.', ',', ':', '/', '-a', '-1', '(', ')', 'é', 'Ω', '\u0130', '\ud83d\ude00', 'the', '10', 'casing',
);
const text = fc.array(piece, { maxLength: 14 }).map((parts) => parts.join(''));

// Shaped like a measurement, each part drawn with its near misses, so most texts get far into the
// regex before they match or fail.
const oneOf = (...xs: string[]) => fc.constantFrom(...xs);
const before = oneOf('', ' ', 'a', '1 ', '1\u00a0', '1\u2009', 'x\u00a0', '.', ',', '-', '/', ':', '|', '| ', '(', '_', '+', 'é');
const sign = oneOf('', '', '-', '+', '−', '±', '--', '.');
const number = oneOf('5', '12', '465', '1234', '1,200', '1,2000', '12,345.6', '1\u00a0200', '1\u202f200.5', '6.2', '.5', '1.5E-3', '2e12', '3e1234', '7e', '1,20', '0.', '');
const join = oneOf('', '', '-', ' - ', '–', ' — ', ' to ', 'to ', ' to', '\tto\t', ' -', '- ', '\t–\t');
const sep = oneOf('', '', ' ', '\u00a0', '  ', '\t', ' | ', '|', '\t|\t', ' |', '| ', '\u202f');
const unit = oneOf('psig', 'psi', 'in', 'in. Hg', 'in.', 'inch', '%', '°F', '°', 'A', 'V', 'mA', 'g', 'ft-lbs', 'ft-lb', 'ft-', 'mR/hr', 'mR/', 'times', 'deg F', 'deg', 'mil', 'mils', 'x', '');
const after = oneOf('', ' ', '.', ',', 'a', 'A', '1', '_', '-a', '-1', '-', ' |', ' | x', '|\n', '\n', ' the', ' 10', 'é', ':5', '/s');
const shaped = fc
  .array(fc.tuple(before, sign, number, join, sign, number, sep, unit, after), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.map((p) => p.join('')).join(''));

describe('measurements: the hand matcher reads MEASUREMENT_RE', () => {
  it('gives exec() and its checks at every position of measurement-shaped texts', () => {
    fc.assert(fc.property(shaped, (t) => allPositions(t)), { numRuns: 5000 });
  });

  it('gives exec() and its checks at every position of generated texts', () => {
    fc.assert(fc.property(text, (t) => allPositions(t)), { numRuns: 3000 });
  });

  it('gives them on texts of random characters from the regex alphabet', () => {
    const alphabet = fc.constantFrom(...'0123456789,.eE-+−±–— \t\u00a0\u202f\u2009|tonpsigmAVWF%°Hgx_/:é\n'.split(''));
    fc.assert(fc.property(fc.array(alphabet, { maxLength: 30 }).map((c) => c.join('')), (t) => allPositions(t)), { numRuns: 3000 });
  });

  it('gives them on fixed cases and long runs', () => {
    for (const t of [
      'flow 465 gpm at 1,200 psig and 100-120 °F, 100 – -5 °C, 5 to 10 psid, 2 to -3 V',
      '| 6.2 | mils |', 'x | 6.2 | mils', '| 6.2 | mils | x', '|6.2|mils|\n', 'found 3 in the casing; 1 in 10; gap 0.5 in.',
      '1A 2B 12A 1 A -5 °F ±5 psig .5 in -.5 psig 1.5E-3 rem 23 times', '1 200 kPa', '1\u00a0200 kPa', 'P-101A 5.0 psi 2/6 psi',
      '1,'.repeat(200) + '1 psi', '9'.repeat(500) + ' psi', '1 '.repeat(300) + 'psi', '5' + ' '.repeat(200) + 'to 6 psi',
      '1e999 psi 1e99 psi 1e9psi', '100--120 psi', '100 -120 psi', '100- 120 psi', '3in', '3 in', '33in x', '5to 6 psi', '5 to6 psi', '5 to  6psi',
    ]) allPositions(t);
  });
});
