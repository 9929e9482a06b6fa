import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../src/contracts/json.js';
import { compileChecker } from '../../src/contracts/json-schema-check.js';
import { JSON_SCHEMAS } from '../../src/contracts/json-schemas.generated.js';
import { exportStage } from '../../src/commands/export.js';
import countSections from '../../src/transforms/count-sections.js';
import summarize from '../../src/transforms/summarize.js';
import tag from '../../src/transforms/tag.js';
import { runInProcess } from '../support/run-in-process.js';

const EXAMPLE = 'test/fixtures/library_rag/EXAMPLE_CHUNK_JSON_FORMAT.json';
type Obj = { class?: string; id: string; properties: Record<string, unknown>; document?: string; metadata?: Record<string, unknown> };
const lines = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Obj);
const check = {
  Summary: compileChecker(JSON_SCHEMAS.weaviate_summary as JsonSchema),
  Chunk: compileChecker(JSON_SCHEMAS.weaviate_chunk as JsonSchema),
  chroma: compileChecker(JSON_SCHEMAS.chroma_record as JsonSchema),
};

/** The chunks linked to a section path: at it or under it, by whole segments. */
const linked = (chunks: Obj[], path: string) => chunks.filter((c) => c.properties.sectionPath === path || String(c.properties.sectionPath).startsWith(`${path} > `)).length;

async function pipeline(inputArgs: string[], tocArgs: string[]) {
  const tagged = await runInProcess(tag, [], inputArgs);
  expect(tagged.code).toBe(0);
  const sections = await runInProcess(countSections, [tagged.stdout], tocArgs);
  expect(sections.code).toBe(0);
  const summaries = await runInProcess(summarize, [sections.stdout], ['--view', 'section_summary', '--bottom-up', '--backend', 'extractive']);
  expect(summaries.code).toBeLessThanOrEqual(1); // 1: extractive views flagged (few concepts), still written
  return { tagged: tagged.stdout, summaries: summaries.stdout };
}

describe('rca export: the example document round trip', () => {
  it('tag → count-sections (its TOC) → section summaries (extractive) → Weaviate Summary and Chunk objects', async () => {
    const { tagged, summaries } = await pipeline([EXAMPLE], ['--toc', EXAMPLE]);
    const r = await runInProcess(exportStage, [summaries, tagged], ['--document', EXAMPLE]);
    expect(r.code).toBe(0);
    const objects = lines(r.stdout);
    for (const o of objects) expect(check[o.class as 'Summary' | 'Chunk'](o)).toBeNull();
    const summaryObjs = objects.filter((o) => o.class === 'Summary');
    const chunkObjs = objects.filter((o) => o.class === 'Chunk');
    expect(summaryObjs).toHaveLength(6);
    expect(chunkObjs).toHaveLength(3);
    for (const s of summaryObjs) expect([s.properties.sectionPath, s.properties.chunksCount]).toEqual([s.properties.sectionPath, linked(chunkObjs, String(s.properties.sectionPath))]);
    expect(summaryObjs.map((s) => [s.properties.title, s.properties.level, s.properties.chunksCount, (s.properties.text as string).length > 0])).toEqual([
      ['1. PREFACE', 2, 1, true],
      ['Peirce: CP 1.1', 1, 1, true],
      ['2. But before all else...', 2, 1, true],
      ['Peirce: CP 1.2', 1, 1, true],
      ['628. It is the instincts, the sentiments, that make the substance of the soul', 2, 1, true],
      ['Peirce: CP 1.628', 1, 1, true],
    ]);
    expect(chunkObjs[0]!.properties).toMatchObject({
      sectionPath: 'Peirce: CP 1.1 > 1. PREFACE',
      canonicalReference: 'CP 1.1',
      orderIndex: 0,
      unitType: 'argument',
      // library_rag's Chunk schema nests work {title, author} only.
      work: { title: 'Collected papers', author: 'Charles Sanders PEIRCE' },
      document: { sourceId: 'EXAMPLE_CHUNK_JSON_FORMAT', edition: '' },
      language: 'en',
    });
    expect(new Set(objects.map((o) => o.id)).size).toBe(objects.length);
    expect(r.stderr).toContain('6 Summary objects (0 without a summary: text ""), 3 Chunk objects');
  });

  it('counts by whole segments: "CP 5.314" is not inside "CP 5.31"; a TOC section without chunks exports chunksCount 0', async () => {
    const doc = JSON.stringify({
      metadata: { doc_id: 'cp', title: 'CP', author: 'P' },
      toc: [{ title: 'CP 5.31', level: 1 }, { title: 'CP 5.314', level: 1 }, { title: 'CP 5.4', level: 1 }],
      chunks: [
        { chunk_id: 'a', sectionPath: 'CP 5.31', text: 'The first paragraph of five point thirty-one.' },
        { chunk_id: 'b', sectionPath: 'CP 5.314 > note', text: 'A note on five point three hundred fourteen.' },
        { chunk_id: 'c', sectionPath: 'CP 5.314', text: 'Five point three hundred fourteen itself.' },
      ],
    }, null, 2);
    const tagged = await runInProcess(tag, [doc]);
    const sections = await runInProcess(countSections, [tagged.stdout], []);
    const withToc = await runInProcess(countSections, [doc]); // the document's own TOC
    const sectionRecords = withToc.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { section_path: string; total_count: number });
    expect(sectionRecords.map((s) => [s.section_path, s.total_count])).toEqual([
      ['CP 5.31', 1], ['CP 5.314 > note', 1], ['CP 5.314', 2], ['CP 5.4', 0],
    ]);
    const r = await runInProcess(exportStage, [withToc.stdout, tagged.stdout]);
    const objects = lines(r.stdout);
    const chunks = objects.filter((o) => o.class === 'Chunk');
    const counts = objects.filter((o) => o.class === 'Summary').map((s) => [s.properties.sectionPath, s.properties.chunksCount, linked(chunks, String(s.properties.sectionPath))]);
    expect(counts).toEqual([['CP 5.31', 1, 1], ['CP 5.314 > note', 1, 1], ['CP 5.314', 2, 2], ['CP 5.4', 0, 0]]);
    expect(objects.find((o) => o.properties.sectionPath === 'CP 5.4')!.properties.text).toBe('');
    expect(sections.code).toBe(0);
  });
});

describe('rca export --target chroma', () => {
  it('writes sections and tagged chunks as {id, document, metadata} with the trusted citations', async () => {
    const { tagged, summaries } = await pipeline([EXAMPLE], ['--toc', EXAMPLE]);
    const r = await runInProcess(exportStage, [summaries], ['--target', 'chroma']);
    expect(r.code).toBe(0);
    const records = lines(r.stdout);
    for (const rec of records) expect(check.chroma(rec)).toBeNull();
    expect(records[0]).toMatchObject({ id: expect.stringMatching(/^sec_/), document: expect.stringContaining('SUMMARY: To erect'), metadata: { kind: 'section', chunk_count: 1, doc_id: 'EXAMPLE_CHUNK_JSON_FORMAT' } });
    // Chunks need embedding_text (rca-flatten / rca-summarize): untagged or unflattened ones are refused, by line.
    const refused = await runInProcess(exportStage, [tagged], ['--target', 'chroma']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('stdin:1: NO_EMBEDDING_TEXT');
    const flat = tagged.split('\n').filter(Boolean).map((l) => JSON.stringify({ ...JSON.parse(l), embedding_text: { retrieval_summary: 'SCOPE: x' } })).join('\n');
    const ok = lines((await runInProcess(exportStage, [flat], ['--target', 'chroma'])).stdout);
    expect(ok[0]).toEqual({
      id: 'chunk_00000',
      document: 'SCOPE: x',
      metadata: expect.objectContaining({ kind: 'chunk', view: 'retrieval_summary', chunk_id: 'chunk_00000', doc_id: 'EXAMPLE_CHUNK_JSON_FORMAT', section_path: 'Peirce: CP 1.1 > 1. PREFACE', doc_type: 'OTHER' }),
    });
    expect(Object.values(ok[0]!.metadata!).every((v) => v !== null)).toBe(true);
  });
});
