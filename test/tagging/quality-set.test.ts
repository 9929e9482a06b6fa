// The invariants of the labelled quality set (test/fixtures/quality/), from the same core
// `npm run quality` prints: exact counts, no timing. The precision and recall figures are
// reported in QUALITY.md, not asserted here beyond the targets of the quality table.
import { describe, expect, it } from 'vitest';
import { overall, scoreExtraction } from '../../bench/quality/extraction-core.mjs';
import { ROOT } from '../support/golden.js';

const score = await scoreExtraction({ root: ROOT });

describe('the labelled quality set', () => {
  it('labels every chunk of real text', () => {
    expect(score.chunks).toBe(39);
  });

  it('keeps every negated mention out of the positive seed lists and out of the extractive view', () => {
    expect(score.negation.labelled).toBeGreaterThan(0);
    expect(score.negation.leaked).toEqual([]);
    expect(score.negation.viewLeaked).toEqual([]);
  });

  it('finds every labelled negated mention as negated, and negates nothing the labels keep', () => {
    expect(score.negation.found).toBe(score.negation.labelled);
    expect(score.negation.falseNegations).toEqual([]);
  });

  it('gets the doc type and the section role (and whether it was inherited) of every chunk exactly', () => {
    expect(score.docType.wrong).toEqual([]);
    expect(score.role.wrong).toEqual([]);
  });

  it('meets the targets: overall precision ≥ 0.97 and recall ≥ 0.95', () => {
    const tag = overall(score.tag.fields);
    expect(tag.precision).toBeGreaterThanOrEqual(0.97);
    expect(tag.recall).toBeGreaterThanOrEqual(0.95);
  });
});
