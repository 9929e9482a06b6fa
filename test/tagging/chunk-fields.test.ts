// The one reader of chunk fields (src/tagging/chunk-fields.ts): tag, count-sections and validate
// read a chunk the same way, coerced and dropped values are flagged, and `rca schema chunk` lists
// every field read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChunkInput } from '../../src/contracts/chunk.js';
import type { JsonObject } from '../../src/runtime/stage.js';
import { ADDED_KEYS } from '../../src/tagging/added-fields.js';
import { CHUNK_FIELDS, chunkIdOf, chunkTextOf, docIdOf, pageOf, sectionPathOf } from '../../src/tagging/chunk-fields.js';
import { ContextBuilder } from '../../src/tagging/context.js';
import { ROOT, runBin } from '../support/golden.js';

const jsonl = (records: readonly JsonObject[]) => records.map((r) => JSON.stringify(r) + '\n').join('');
const lines = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as JsonObject);
const build = (record: JsonObject) => new ContextBuilder({ docTypeMode: 'auto', authority: null }).build(record);

describe('chunk-fields: values read, coerced or dropped, always flagged', () => {
  it.each<[string, () => unknown, unknown, string[]]>([
    ['doc_id 123 is "123"', () => docIdOf({ doc_id: 123 }, flags), '123', ['doc_id_coerced']],
    ['document.sourceId 7 is "7"', () => docIdOf({ document: { sourceId: 7 } }, flags), '7', ['document.sourceId_coerced']],
    ['a doc_id beyond 2^53 lost its digits: dropped', () => docIdOf({ doc_id: 2 ** 60 }, flags), undefined, ['doc_id_dropped']],
    ['an object doc_id is dropped, sourceId used', () => docIdOf({ doc_id: { a: 1 }, document: { sourceId: 's' } }, flags), 's', ['doc_id_dropped']],
    ['chunk_id 5 is "5"', () => chunkIdOf({ chunk_id: 5 }, flags), '5', ['chunk_id_coerced']],
    ['page_start "3" is 3', () => pageOf({ page_start: '3' }, 'page_start', flags), 3, ['page_start_coerced']],
    ['page_start -1 is dropped', () => pageOf({ page_start: -1 }, 'page_start', flags), null, ['page_start_dropped']],
    ['page_start 1e309 (Infinity) is dropped', () => pageOf(JSON.parse('{"page_start":1e309}') as JsonObject, 'page_start', flags), null, ['page_start_dropped']],
    ['page_start "three" is dropped', () => pageOf({ page_start: 'three' }, 'page_start', flags), null, ['page_start_dropped']],
    ['page_start null is unknown, not flagged', () => pageOf({ page_start: null }, 'page_start', flags), null, []],
    ['embedding_text is the text of DACKAR processed records', () => chunkTextOf({ embedding_text: 'e' }, flags), 'e', []],
    ["rca-summarize's embedding_text object is not text, and not a loss", () => chunkTextOf({ embedding_text: { combined: 'x' } }, flags), undefined, []],
    ['a text array is dropped, raw_text used', () => chunkTextOf({ text: ['a'], raw_text: 'r' }, flags), 'r', ['text_dropped']],
    ['section is a one-heading path', () => sectionPathOf({ section: 'Purpose' }, flags), 'Purpose', []],
    ['a section_path object is dropped', () => sectionPathOf({ section_path: { x: 1 } }, flags), undefined, ['section_path_dropped']],
  ])('%s', (_label, read, value, expectedFlags) => {
    flags.length = 0;
    expect(read()).toEqual(value);
    expect(flags).toEqual(expectedFlags);
  });

  it('every field read is listed in the chunk schema (rca schema chunk), and every listed field is read', () => {
    const listed = Object.entries(ChunkInput.shape).flatMap(([key, schema]) =>
      key === 'document' ? ['document.sourceId'] : key === 'provenance' ? ['provenance.chunk_id'] : [key],
    );
    expect(new Set(listed)).toEqual(new Set([...CHUNK_FIELDS, ...ADDED_KEYS]));
  });
});
const flags: string[] = [];

describe('rca-tag: ids that are numbers or missing', () => {
  it('a numeric doc_id is its string everywhere: context, section_id, doc type decision', () => {
    const numeric = build({ doc_id: 123, chunk_id: 9, section_path: 'A', text: 't' });
    const text = build({ doc_id: '123', chunk_id: '9', section_path: 'A', text: 't' });
    expect(numeric.context).toEqual(text.context);
    expect(numeric.section_id).toBe(text.section_id);
    expect(numeric.flags).toEqual(['chunk_id_coerced', 'doc_id_coerced']);
  });

  it('the --jobs path writes the same bytes for numeric and missing ids', () => {
    const records = Array.from({ length: 120 }, (_, i) => (i % 7 === 3 ? { chunk_id: i, text: `pump P-${i}A` } : { doc_id: 100 + (i >> 4), chunk_id: i, section: `Part ${i >> 3}`, text: `pump P-${i}A` }));
    const one = runBin('tag', ['--jobs', '1'], jsonl(records));
    const two = runBin('tag', ['--jobs', '2'], jsonl(records));
    expect(one.code).toBe(0);
    expect(two.stdout).toBe(one.stdout);
    expect(two.stderr).toBe(one.stderr);
    expect((lines(one.stdout)[0]!.context as JsonObject).doc_id).toBe('100');
  });
});

describe('rca-tag: section is the cited path and the filed section', () => {
  it('a chunk with only `section` gets the section_id count-sections gives it', () => {
    const input = jsonl([
      { doc_id: 'CR-1', chunk_id: 'a', section: 'cause_statement', text: 'The seal failed.' },
      { doc_id: 'CR-1', chunk_id: 'b', section_title: '**Immediate Actions**', text: 'Pump stopped.' },
    ]);
    const tagged = lines(runBin('tag', [], input).stdout);
    expect(tagged.map((c) => (c.context as JsonObject).section_path)).toEqual(['cause_statement', 'Immediate Actions']);
    expect(tagged.every((c) => (c.tag_flags as string[]).length === 0)).toBe(true);
    const sections = lines(runBin('count-sections', [], tagged.map((c) => JSON.stringify(c)).join('\n')).stdout);
    expect(sections.map((s) => [s.section_path, s.chunk_ids, s.flags])).toEqual([
      ['cause_statement', ['a'], []],
      ['Immediate Actions', ['b'], []],
    ]);
    expect(sections.map((s) => s.section_id)).toEqual(tagged.map((c) => c.section_id));
  });
});

describe('rca-tag: coercions, dropped values and the run summary', () => {
  it('page_start "3", -1 and 1e309 are flagged, and the summary line counts them', () => {
    const input = [
      '{"chunk_id":"a","doc_id":"d","section_path":"A","text":"x","page_start":"3","page_end":"3"}',
      '{"chunk_id":"b","doc_id":"d","section_path":"A","text":"x","page_start":-1,"page_end":1e309}',
    ].join('\n');
    const r = runBin('tag', [], input);
    expect(r.code).toBe(0);
    const [a, b] = lines(r.stdout);
    expect([(a!.context as JsonObject).page_start, a!.tag_flags]).toEqual([3, ['page_start_coerced', 'page_end_coerced']]);
    expect([(b!.context as JsonObject).page_start, b!.tag_flags]).toEqual([null, ['page_start_dropped', 'page_end_dropped']]);
    expect(r.stderr).toBe('rca-tag: 2 chunks tagged, 2 flagged: page_start_coerced 1, page_end_coerced 1, page_start_dropped 1, page_end_dropped 1\n');
  });

  it("DACKAR's processed records: text from embedding_text (kept as upstream_embedding_text), ids from provenance.chunk_id, and stderr says what they lack", () => {
    const file = join(ROOT, 'test/fixtures/dackar/test_case_2/processed_records.jsonl');
    const r = runBin('tag', [file], '');
    expect(r.code).toBe(0);
    const tagged = lines(r.stdout);
    expect(tagged.length).toBe(readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).length);
    expect(tagged.every((c) => (c.ner_seed as { mechanisms: string[] }).mechanisms.length + (c.ner_seed as { systems: string[] }).systems.length > 0)).toBe(true);
    expect(tagged.map((c) => (c.context as JsonObject).chunk_id)).toEqual(['CR1042_1', 'CR1042_2', 'WO5518_1', 'SOP201_1', 'CRHVAC771_1']);
    expect(tagged.every((c) => typeof c.upstream_embedding_text === 'string' && !('embedding_text' in c))).toBe(true);
    expect(r.stderr).toBe(`rca-tag: ${tagged.length} chunks tagged, ${tagged.length} flagged: missing_section_path ${tagged.length}, embedding_text_kept_as ${tagged.length}\n`);
  });
});
