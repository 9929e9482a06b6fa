// The real-text set (test/fixtures/realtext/) is whole and consistent: what LABELLING.md promises
// its readers and scorers. Its sizes are the floor: 200 chunks, 40 documents, 6 kinds.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRealtextSet } from '../../bench/quality/realtext-set.mjs';
import { ROOT } from '../support/golden.js';

const set = checkRealtextSet(join(ROOT, 'test', 'fixtures', 'realtext'));

describe('the real-text set', () => {
  it('labels every chunk, with items that occur in its text and whole lines as non-prose', () => {
    expect(set.errors).toEqual([]);
  });

  it('holds at least 200 chunks of 40 documents of 6 kinds, every kind in both halves', () => {
    expect(set.chunks).toBeGreaterThanOrEqual(200);
    expect(set.documents.size).toBeGreaterThanOrEqual(40);
    const kinds = new Map<string, Set<string>>();
    for (const d of set.documents.values()) (kinds.get(d.kind) ?? kinds.set(d.kind, new Set()).get(d.kind)!).add(d.split);
    expect(kinds.size).toBeGreaterThanOrEqual(6);
    for (const [, halves] of kinds) expect([...halves].sort()).toEqual(['dev', 'test']);
  });
});
