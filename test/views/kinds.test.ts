import { describe, expect, it } from 'vitest';
import { SECTION_VIEW, VIEW_NAMES, VIEW_TYPES } from '../../src/contracts/vocabulary.js';
import { createExtractiveBackend } from '../../src/generation/extractive-backend.js';
import { CHUNK_RECORDS } from '../../src/views/records/chunk-records.js';
import { VIEW_KINDS } from '../../src/views/kinds/index.js';
import type { ChunkViewKind } from '../../src/views/kinds/kind.js';
import { RECORD_KINDS, recordKindOf } from '../../src/views/records/records.js';
import { SECTION_RECORDS } from '../../src/views/records/section-records.js';
import { EXTRACTIVE_BUILDERS } from '../../src/views/extractive.js';
import { feedbackFor } from '../../src/views/feedback.js';

const NO_LEXICON = { lexicon: () => [] };

describe('view kinds: one per view name, each with its record kind', () => {
  it('every view name has its kind, named after it', () => {
    expect(Object.keys(VIEW_KINDS)).toEqual([...VIEW_NAMES]);
    for (const name of VIEW_NAMES) expect(VIEW_KINDS[name].name).toBe(name);
  });

  it('the chunk views read chunks, section_summary reads sections', () => {
    for (const name of VIEW_TYPES) expect(recordKindOf(VIEW_KINDS[name])).toBe(CHUNK_RECORDS);
    expect(recordKindOf(VIEW_KINDS[SECTION_VIEW])).toBe(SECTION_RECORDS);
    expect(Object.keys(RECORD_KINDS).sort()).toEqual([...new Set(VIEW_NAMES.map((v) => VIEW_KINDS[v].reads))].sort());
  });

  it('a view without extractive rules stops the extractive backend at start-up, naming the view', async () => {
    const bare: ChunkViewKind = { ...VIEW_KINDS.rca_frame, extractive: false };
    await expect(createExtractiveBackend([bare], NO_LEXICON)).rejects.toThrow('--backend extractive has no rules for rca_frame');
    await expect(createExtractiveBackend([VIEW_KINDS.rca_frame, VIEW_KINDS.retrieval_summary], NO_LEXICON)).resolves.toMatchObject({ retries: false });
  });

  it("a kind's quality rules are its own: a new view does not inherit another's", () => {
    const shape = { kind: 'object' as const, fields: new Map() };
    expect(VIEW_KINDS.rca_frame.quality({}, shape)).toEqual(['empty_frame']);
    expect(VIEW_KINDS.retrieval_summary.quality({}, shape)).toEqual([]);
  });

  it.each(VIEW_TYPES.map((v) => [v]))('%s: its kind says extractive exactly when views/extractive.ts has its builder', (view) => {
    expect(VIEW_KINDS[view].extractive).toBe(EXTRACTIVE_BUILDERS[view] !== undefined);
  });

  it.each(VIEW_NAMES.map((v) => [v]))("%s: its flags' wording is its kind's, and its field roles and polarity fields are fields of its format", (view) => {
    const kind = VIEW_KINDS[view];
    for (const [flag, say] of Object.entries(kind.feedback)) expect(feedbackFor({ flags: [flag] }, 'SOURCE')).toContain(say('SOURCE'));
    const paths = Object.keys(kind.bounds);
    for (const field of [...Object.keys(kind.roles), ...kind.polarity]) expect(paths, field).toContain(field);
  });
});
