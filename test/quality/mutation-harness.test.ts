// The injected-error harness's core on a small fixed set: which errors apply to which item, and
// the counts it gives (no timing). bench/quality/mutation.score.mjs runs it over the samples.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the benchmarks, no type declarations
import { KINDS, mutate, score } from '../../bench/quality/mutation-core.mjs';

const TEXT = 'AFW Train B remained available. Vibration channel VB-101A peaked at 6.2 mils, above the alarm setpoint of 5.0 mils. No reactor trip occurred.';
const CONTEXT = { doc_id: 'CR-1', doc_type: 'CR', chunk_id: 'C1', section_path: 'CR-1 > Description', page_start: null, page_end: null, authority_level: 'informational', section_role: 'body' };
const citations = { doc_id: 'CR-1', section_path: 'CR-1 > Description', page_start: null, page_end: null };
const RECORD = {
  chunk_id: 'C1',
  text: TEXT,
  context: CONTEXT,
  rca_frame: {
    chunk_id: 'C1',
    doc_type: 'CR',
    view_type: 'rca_frame',
    observed: ['AFW Train B remained available', 'VB-101A peaked at 6.2 mils, above the alarm setpoint of 5.0 mils', 'no reactor trip occurred'],
    hypotheses: [],
    tests_to_confirm: [],
    candidate_actions: [],
    constraints: [],
    citations,
  },
};
const OTHER = { chunk_id: 'C2', text: 'Operators isolated the charging line and opened the bypass valve.', context: { ...CONTEXT, chunk_id: 'C2' }, rca_frame: null };

describe('mutate', () => {
  it.each<[string, string, string | null]>([
    ['change_number', 'peaked at 6.2 mils', 'peaked at 7.2 mils'],
    ['flip_comparator', 'above the alarm setpoint of 5.0 mils', 'below the alarm setpoint of 5.0 mils'],
    ['flip_comparator', 'AFW Train B remained available', null],
    ['swap_unit', 'peaked at 6.2 mils', 'peaked at 6.2 psig'],
    ['negate', 'AFW Train B remained available', 'No AFW Train B remained available'],
    ['negate', 'no reactor trip occurred', 'Reactor trip occurred'],
    ['invent_id', 'VB-101A peaked', 'VB-102A peaked'],
    ['invent_entity', 'AFW Train B remained available', 'CCW Train B remained available'],
    ['near_copy', 'VB-101A peaked at 6.2 mils, above the alarm setpoint of 5.0 mils', 'VB-101A peaked at 6.2 mils, below the alarm setpoint of 5.0 mils'],
    ['near_copy', 'AFW Train B remained available', 'AFW Train B remained unavailable'],
    ['near_copy', 'no reactor trip occurred', null],
  ])('%s: %j → %j', (kind, item, want) => {
    expect(mutate(kind, item, { field: 'observed', text: TEXT, seed: 0, other: 'Operators isolated the charging line.' })).toBe(want);
  });
});

describe('score', () => {
  it('counts injections per kind, the caught ones, and faithful items flagged', () => {
    const { faithful, byKind } = score([RECORD, OTHER]);
    expect(faithful).toEqual({ items: 3, flagged: 0, flags: [] });
    const counts = Object.fromEntries(KINDS.map((k: string) => [k, [byKind[k].caught, byKind[k].injected]]));
    expect(counts).toEqual({
      change_number: [1, 1],
      flip_comparator: [1, 1],
      swap_unit: [1, 1],
      negate: [3, 3],
      invent_id: [3, 3],
      invent_entity: [3, 3],
      foreign_sentence: [3, 3],
      // "remained available" → "unavailable", "above the alarm setpoint" → "below".
      near_copy: [2, 2],
    });
  });
});
