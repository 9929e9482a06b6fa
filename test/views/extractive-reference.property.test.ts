// Property: isReference, its document ids found by docIdSpans' scan, answers as the removals with
// the id pattern itself do (the pattern is not linear: docIdSpans stands in for it).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COLLAPSIBLE_SPACING, collapseWhitespace } from '../../src/tagging/spacing.js';
import { isReference } from '../../src/views/extractive.js';

const DOC_ID_RE = /\b[A-Z]{1,8}(?:[-_ ]?[A-Z0-9]+)*[-_ ]?\d[\w.-]*/g;
const LABEL_PREFIX_RE = /^[\p{L}][\p{L} /&-]{0,40}:\s*/u;
function referenceIsReference(text: string): boolean {
  let rest = text.replace(/[*_]+/g, '').replace(/\brev(?:ision)?\.?\s*\d+[A-Z]?\b/gi, ' ').trim();
  for (let label = LABEL_PREFIX_RE.exec(rest); label !== null; label = LABEL_PREFIX_RE.exec(rest)) rest = rest.slice(label[0].length);
  const ids = rest.match(DOC_ID_RE);
  if (ids === null) return false;
  const left = rest.replace(DOC_ID_RE, ' ').replace(/\([^()]*\)/g, ' ').replace(/\b(?:and|or|per|see)\b/gi, ' ');
  return !/[\p{L}\p{N}]/u.test(left);
}

const PIECES = [
  'CR-2026-00123', 'WO 12345678', 'SOP-U2-CND-001', 'ECA-2026-0007', 'PM-20417', 'CR-2026-abc', 'A1', 'TS 3.7.5', 'P-101A', 'x1-b2',
  '(if initiated)', '(', ')', '((', '))', '(see CR-1)', 'and', 'or', 'per', 'see', 'See', 'AND', 'andrew', 'and-', 'or_', 'pera',
  'rev. 4', 'Revision 2', 'rev 3B', 'Related evaluation:', 'Ref:', 'Related: ', '**', '*', '_', '__', ',', '.', ';', ' ', '  ', '\n', '\t', '\u00a0',
  '-', 'a', 'x', 'é', 'Ünit', 'pump', 'Pump', 'the', '7', '2026', 'abc1', 'b_c',
];
const text = fc.oneof(
  { weight: 5, arbitrary: fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((p) => p.join('')) },
  { weight: 5, arbitrary: fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((p) => p.join(' ')) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);

describe('property: isReference against the removals with the id pattern', () => {
  it('answers as the removals alone do, for any text', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(isReference(t)).toBe(referenceIsReference(t));
      }),
      { numRuns: 5000 },
    );
  });
});

// collapseWhitespace (tagging/spacing.ts: match surfaces, extractive items, embedding text) replaces
// whitespace runs only where this pattern finds one: a whitespace character other than a space, or
// two in a row. The replace changes nothing anywhere else.
const SPACING_RE = COLLAPSIBLE_SPACING;
const WHITESPACE = [' ', '  ', '\t', '\n', '\r\n', '\v', '\f', '\u00a0', '\u1680', '\u2000', '\u2009', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];

describe('property: whitespace runs are replaced only where SPACING_RE finds one', () => {
  it('for any text', () => {
    const spaced = fc.array(fc.oneof(fc.constantFrom(...WHITESPACE), fc.string({ maxLength: 4 }), fc.string({ maxLength: 3, unit: 'binary' })), { maxLength: 12 }).map((p) => p.join(''));
    fc.assert(
      fc.property(spaced, (t) => {
        if (!SPACING_RE.test(t)) expect(t.replace(/\s+/g, ' ')).toBe(t);
        else expect(t.replace(/\s+/g, ' ')).not.toBe(t);
        expect(collapseWhitespace(t)).toBe(t.replace(/\s+/g, ' '));
      }),
      { numRuns: 5000 },
    );
  });
});
