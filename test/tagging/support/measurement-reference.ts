// The measurement family as it was written before its hand matcher: MEASUREMENT_RE's exec() and
// the checks on its groups. Kept as the reference the hand matcher is held equal to.
import type { Measurement } from '../../../src/contracts/chunk.js';
import { measurements } from '../../../src/tagging/extractors/measurements.js';
import type { Found } from '../../../src/tagging/extractors/scan.js';

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

function accept(text: string, start: number, end: number, value: string, sep: string, unit: string): boolean {
  if (sep.includes('|')) {
    const before = previousNonSpace(text, start);
    const after = nextNonSpace(text, end);
    return before === '|' && (after === '|' || after === '\n' || after === '\r' || after === '');
  }
  if (unit.length === 1 && sep === '' && (value.match(DIGITS)?.length ?? 0) < 2) return false;
  if (unit === 'in') return !ALNUM.test(nextNonSpace(text, end));
  return true;
}

/** What the regex finds at `start`, before accept (the raw exec). */
export function measurementExecAt(text: string, start: number): { end: number; value: string; sep: string; unit: string } | null {
  const regex = new RegExp(measurements.regex.source, 'y');
  regex.lastIndex = start;
  const match = regex.exec(text);
  if (match === null) return null;
  const [span, value = '', sep = '', unit = ''] = match;
  return { end: start + span.length, value, sep, unit };
}

export function referenceMeasurementAt(text: string, start: number): Found<Measurement> | null {
  const raw = measurementExecAt(text, start);
  if (raw === null) return null;
  const span = text.slice(start, raw.end);
  if (!accept(text, start, raw.end, raw.value, raw.sep, raw.unit)) return null;
  return { end: raw.end, key: span.toLowerCase(), item: { value: raw.value, unit: raw.unit, text: span } };
}
