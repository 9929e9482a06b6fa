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
    // No path of its own after c1 of the same work order: it continues c1's section.
    expect(second.tag_flags).toEqual(['missing_section_path', 'section_role_continued']);
    expect((second.context as JsonObject).section_role).toBe('as_found');
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

// Every field any stage writes, each holding a value another tool could have put there (not in the
// stage's own shape): a pipeline through every stage, and each later stage on a record that gets
// such a field after tag, must keep every input field, under its name or its upstream_ name.
const STAGE_WRITTEN = {
  embedding_text: 'Condenser vacuum degradation observed. Air removal train differential pressure increased prior to vacuum loss, indicating possible air in-leakage.',
  context: 'neighbouring chunk text',
  section_id: 42,
  ner_seed: 'seed',
  tag_flags: 'reviewed',
  prompts: ['p'],
  prompt_truncation: 'none',
  retrieval_summary: 'a summary of another tool',
  rca_frame: ['frame'],
  flags: ['checked'],
  provenance_fixed: 'pf',
  provenance_normalised: 1,
  evidence: { source: 'operator log' },
  generation: 'gen',
  requests: 'req',
};
// DACKAR's processed record (test_case_2, line 1) with every stage field added.
const dackar = { record_id: 'REC_CR_1042_1', doc_id: 'CR:SEC:2026:1042', doc_type: 'CR', chunk_index: 0, metadata: { asset_id: 'CONDENSER_TRAIN_A' }, provenance: { chunk_id: 'CR1042_1' }, ...STAGE_WRITTEN };

/** Every field of `input` is in `output`, under its own name or an upstream_ one, with the same value. */
function expectKept(input: JsonObject, output: JsonObject, stage: string): void {
  for (const [key, value] of Object.entries(input)) {
    const names = Object.keys(output).filter((k) => k === key || new RegExp(`^upstream_${key}(?:_\\d+)?$`).test(k));
    expect(names.some((k) => JSON.stringify(output[k]) === JSON.stringify(value)), `${stage}: ${key} lost`).toBe(true);
  }
}

describe('no stage overwrites an input field (upstream_<field>, as tag does for context)', () => {
  it('tag → prompt → generate → validate → flatten, and tag → summarize: every input field survives, and the text is still read', () => {
    const input = jsonl([dackar]);
    const tagged = runBin('tag', [], input);
    expect(tagged.code).toBe(0);
    const [t] = lines(tagged.stdout);
    expectKept(dackar, t!, 'tag');
    expect((t!.context as JsonObject).chunk_id).toBe('CR1042_1');
    expect(t!.tag_flags).toContain('embedding_text_kept_as:upstream_embedding_text');
    let current = tagged.stdout;
    for (const [stage, args] of [['prompt', []], ['generate', ['--backend', 'extractive']], ['validate', []], ['flatten', []]] as const) {
      const r = runBin(stage, [...args], current);
      expect(r.stderr, stage).not.toMatch(/NO_TEXT|MISSING/);
      const [out] = lines(r.stdout);
      expect(out, stage).toBeDefined();
      expectKept(dackar, out!, stage);
      current = r.stdout;
    }
    const summarized = runBin('summarize', ['--backend', 'extractive'], tagged.stdout);
    expect(summarized.code).toBe(0);
    const [s] = lines(summarized.stdout);
    expectKept(dackar, s!, 'summarize');
    expect((s!.retrieval_summary as JsonObject).scope).toContain('Condenser vacuum degradation observed.');
    // A re-run reads the kept text: no NO_TEXT, and the same record.
    const again = runBin('summarize', ['--backend', 'extractive', '--overwrite'], summarized.stdout);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(summarized.stdout);
  });

  it('a later stage keeps a field some tool added after tag (flatten, summarize, validate, prompt, generate --dry-run)', () => {
    const [t] = lines(runBin('tag', [], jsonl([{ chunk_id: 'c', doc_id: 'd', text: 'The pump tripped on high vibration.' }])).stdout);
    const later = { ...t!, embedding_text: 'another tool', flags: ['x'], evidence: { a: 'b' }, provenance_fixed: { rs: 'x' }, prompts: 'p', requests: ['r'], retrieval_summary: 'rs' };
    for (const [stage, args] of [['flatten', []], ['summarize', ['--backend', 'extractive']], ['validate', []], ['prompt', []], ['generate', ['--dry-run']]] as const) {
      const r = runBin(stage, [...args], jsonl([later]));
      const [out] = lines(r.stdout);
      expect(out, `${stage}: ${r.stderr}`).toBeDefined();
      expectKept(later, out!, stage);
    }
  });

  it('rca merge compares the input’s own fields: a record that lost its upstream embedding_text is missing', async () => {
    const { spawnSync } = await import('node:child_process');
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'rca-merge-'));
    writeFileSync(join(dir, 'in.chunks.jsonl'), jsonl([dackar]));
    const summarized = runBin('summarize', ['--backend', 'extractive'], runBin('tag', [], jsonl([dackar])).stdout).stdout;
    writeFileSync(join(dir, 'good.summarized.jsonl'), summarized);
    const lost = lines(summarized).map((r) => {
      const { upstream_embedding_text: _dropped, ...rest } = r;
      return rest;
    });
    writeFileSync(join(dir, 'lost.summarized.jsonl'), jsonl(lost));
    const rca = (args: string[]) => {
      const r = spawnSync(process.execPath, [join(process.cwd(), 'bin', 'rca'), ...args]);
      return { code: r.status, stderr: r.stderr.toString('utf8') };
    };
    const ok = rca(['merge', '--inputs', join(dir, 'in.chunks.jsonl'), '--outputs', join(dir, 'good.summarized.jsonl')]);
    expect(ok.stderr).not.toMatch(/missing:|unexpected:/);
    expect(ok.code).toBe(0);
    const bad = rca(['merge', '--inputs', join(dir, 'in.chunks.jsonl'), '--outputs', join(dir, 'lost.summarized.jsonl')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('missing');
  });
});
