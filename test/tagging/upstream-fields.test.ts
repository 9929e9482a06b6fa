// No user field is overwritten or lost: an input field named like one tag writes (context,
// section_id, ner_seed, tag_flags) that tag did not write is kept as upstream_<field> and flagged;
// tag's own values (a re-run) are replaced in place.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/runtime/stage.js';
import { isOwnValue, upstreamRenames } from '../../src/tagging/added-fields.js';
import { runBin } from '../support/golden.js';

const jsonl = (records: readonly JsonObject[]) => records.map((r) => JSON.stringify(r) + '\n').join('');
const lines = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as JsonObject);

const ragChunk = { chunk_id: 'c1', doc_id: 'WO-1', section_path: 'Work Order > As-Found', text: 'As found, coupling misaligned by 12 mils.', context: 'Previous chunk: the pump tripped on high vibration.' };

describe('upstream fields named like tag’s own', () => {
  it.each([[['--jobs', '1']], [['--jobs', '2']]])('a RAG `context` string is kept as upstream_context, flagged, and validate accepts the record (%j)', (args) => {
    const tagged = runBin('tag', args, jsonl([ragChunk]));
    expect(tagged.code).toBe(0);
    const [record] = lines(tagged.stdout);
    expect(record!.upstream_context).toBe(ragChunk.context);
    expect(Object.keys(record!).slice(0, 6)).toEqual(['chunk_id', 'doc_id', 'section_path', 'text', 'upstream_context', 'context']);
    expect((record!.context as JsonObject).doc_id).toBe('WO-1');
    expect(record!.tag_flags).toEqual(['context_kept_as:upstream_context']);
    expect(tagged.stderr).toBe('rca-tag: 1 chunk tagged, 1 flagged: context_kept_as 1\n');
    const validated = runBin('validate', [], tagged.stdout);
    expect(validated.stderr).not.toContain('BAD_CONTEXT');
    expect(validated.code).toBe(0);
  });

  it('section_id, ner_seed and tag_flags of another tool are kept too; a taken name gets a number', () => {
    const input = { ...ragChunk, upstream_context: 'already here', section_id: 'sec5', ner_seed: { components: ['pump'] }, tag_flags: ['reviewed'] };
    const [record] = lines(runBin('tag', [], jsonl([input])).stdout);
    expect(record!.upstream_context).toBe('already here');
    expect(record!.upstream_context_2).toBe(ragChunk.context);
    expect(record!.upstream_section_id).toBe('sec5');
    expect(record!.upstream_ner_seed).toEqual({ components: ['pump'] });
    expect(record!.upstream_tag_flags).toEqual(['reviewed']);
    expect(record!.section_id).toMatch(/^sec_[0-9a-f]{16}$/);
    expect(record!.tag_flags).toEqual([
      'context_kept_as:upstream_context_2',
      'section_id_kept_as:upstream_section_id',
      'ner_seed_kept_as:upstream_ner_seed',
      'tag_flags_kept_as:upstream_tag_flags',
    ]);
  });

  it("tag's own fields are replaced: tagging twice writes the same bytes as once, and null is a placeholder", () => {
    const once = runBin('tag', [], jsonl([ragChunk, { chunk_id: 'c2', doc_id: 'WO-1', text: 'x', ner_seed: null }]));
    const twice = runBin('tag', [], once.stdout);
    expect(twice.stdout).toBe(once.stdout);
    const second = lines(once.stdout)[1]!;
    expect(second.tag_flags).toEqual(['missing_section_path']);
    expect(second).not.toHaveProperty('upstream_ner_seed');
  });

  it.each<[string, unknown, boolean]>([
    ['context', { doc_id: 'd', doc_type: 'CR', chunk_id: 'c', section_path: '', page_start: null, page_end: null, authority_level: 'informational', section_role: 'unknown' }, true],
    ['context', { doc_type: 'forged' }, false],
    ['section_id', 'sec_0123456789abcdef', true],
    ['section_id', 'sec_1', false],
    ['tag_flags', ['missing_text', 'page_start_dropped', 'context_kept_as:upstream_context'], true],
    ['tag_flags', ['stale'], false],
  ])('isOwnValue(%s, %j) = %s', (key, value, own) => {
    expect(isOwnValue(key as 'context', value)).toBe(own);
    expect(upstreamRenames({ [key]: value })).toEqual(own ? [] : [[key, `upstream_${key}`]]);
  });
});
