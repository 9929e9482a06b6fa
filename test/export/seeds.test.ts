// The seeds' own record shapes through the whole pipeline: DACKAR's processed records (test_case_2,
// test_case_3) and mdParser chunks, and library_rag's v1 and v2 documents as its own code writes
// them (test/fixtures/README.md): tag → summarize → count-sections → section summaries → export →
// report, with every input field and id kept, sections placed as library_rag places them, and
// export objects that fit library_rag's Weaviate schema and Chroma's id rules.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/runtime/stage.js';
import { runBin } from '../support/golden.js';

const ROOT = process.cwd();
const V1 = 'test/fixtures/library_rag/v1/example_CR_2026_00123_chunks.json';
const V2 = 'test/fixtures/library_rag/v2/example_CR_2026_00123_chunks.json';
const V2_ONE_LINE = 'test/fixtures/library_rag/v2/example_CR_2026_00123_chunks.oneline.json';
const TC2 = 'test/fixtures/dackar/test_case_2/processed_records.jsonl';
const TC3 = 'test/fixtures/dackar/test_case_3/processed_records.jsonl';
const CR = 'test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl';
const SCHEMA = JSON.parse(readFileSync('test/fixtures/library_rag/weaviate-schema.json', 'utf8')) as Record<'Chunk' | 'Summary', Record<string, unknown>>;

const lines = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as JsonObject);
const rca = (args: string[], input = '') => {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'rca'), ...args], { cwd: ROOT, input });
  return { code: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
};
const file = (path: string) => ['-', path];

/** Which of library_rag's data types a value is of (schema.py: TEXT, INT, TEXT_ARRAY, OBJECT). */
function fitsType(type: unknown, value: unknown): boolean {
  if (type === 'TEXT') return typeof value === 'string';
  if (type === 'INT') return Number.isSafeInteger(value);
  if (type === 'TEXT_ARRAY') return Array.isArray(value) && value.every((v) => typeof v === 'string');
  return fitsProperties(type as Record<string, unknown>, value);
}
function fitsProperties(properties: Record<string, unknown>, value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === Object.keys(properties).length && keys.every((k) => Object.hasOwn(properties, k) && fitsType(properties[k], (value as JsonObject)[k]));
}

interface Run {
  input: JsonObject[];
  tagged: JsonObject[];
  summarized: JsonObject[];
  sections: JsonObject[];
  summaries: JsonObject[];
  weaviate: JsonObject[];
  chroma: { code: number | null; records: JsonObject[]; stderr: string };
  bottomUpStderr: string;
  countStderr: string;
}

/** The pipeline of the README, stage by stage, from one input file. */
function pipeline(path: string, document: boolean): Run {
  const tag = runBin('tag', [path], '');
  expect(tag.code, tag.stderr).toBe(0);
  const summarize = runBin('summarize', ['--backend', 'extractive'], tag.stdout);
  // 1: some extractive views flagged (few keywords), still written.
  expect(summarize.code, summarize.stderr).toBeLessThanOrEqual(1);
  const hasToc = document && Array.isArray((JSON.parse(readFileSync(path, 'utf8')) as JsonObject).toc);
  const count = runBin('count-sections', hasToc ? ['--toc', path] : [], tag.stdout);
  expect(count.code, count.stderr).toBe(0);
  const bottomUp = runBin('summarize', ['--view', 'section_summary', '--bottom-up', '--backend', 'extractive'], count.stdout);
  expect(bottomUp.code, bottomUp.stderr).toBeLessThanOrEqual(1);
  const weaviate = rca(['export', ...(document ? ['--document', path] : []), '-'], bottomUp.stdout + summarize.stdout);
  expect(weaviate.code, weaviate.stderr).toBe(0);
  const chroma = rca(['export', '--target', 'chroma', '-'], bottomUp.stdout + summarize.stdout);
  const input = document ? (JSON.parse(readFileSync(path, 'utf8')) as { chunks: JsonObject[] }).chunks : lines(readFileSync(path, 'utf8'));
  return {
    input,
    tagged: lines(tag.stdout),
    summarized: lines(summarize.stdout),
    sections: lines(count.stdout),
    summaries: lines(bottomUp.stdout),
    weaviate: lines(weaviate.stdout),
    chroma: { code: chroma.code, records: lines(chroma.stdout), stderr: chroma.stderr },
    bottomUpStderr: bottomUp.stderr,
    countStderr: count.stderr,
  };
}

/** Every field of every input record is in its output record, under its name or its upstream_ name. */
function expectInputKept(input: JsonObject[], output: JsonObject[]): void {
  expect(output).toHaveLength(input.length);
  input.forEach((record, i) => {
    for (const [key, value] of Object.entries(record)) {
      // null is a placeholder for a stage to fill (DACKAR's "ner_seed": null), as documented.
      if (value === null) continue;
      const names = Object.keys(output[i]!).filter((k) => k === key || new RegExp(`^upstream_${key}(?:_\\d+)?$`).test(k));
      expect(names.some((k) => JSON.stringify(output[i]![k]) === JSON.stringify(value)), `record ${i}: ${key}`).toBe(true);
    }
  });
}

function expectSchemaAndIds(run: Run): void {
  for (const object of run.weaviate) {
    const cls = object.class as 'Chunk' | 'Summary';
    expect(fitsProperties(SCHEMA[cls], object.properties), `${cls} ${JSON.stringify(object.properties)}`).toBe(true);
  }
  expect(new Set(run.weaviate.map((o) => o.id)).size).toBe(run.weaviate.length);
  // Chroma: every id non-empty and unique.
  const ids = run.chroma.records.map((r) => r.id as string);
  expect(ids.every((id) => typeof id === 'string' && id !== '')).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  // One Summary per section, and each chunk's sectionLevel is its Summary's level.
  const summaries = run.weaviate.filter((o) => o.class === 'Summary').map((o) => o.properties as JsonObject);
  const where = (p: JsonObject) => `${(p.document as JsonObject).sourceId}\n${p.sectionPath}`;
  expect(new Set(summaries.map(where)).size).toBe(summaries.length);
  for (const chunk of run.weaviate.filter((o) => o.class === 'Chunk').map((o) => o.properties as JsonObject)) {
    const own = summaries.find((s) => where(s) === where(chunk));
    if (own) expect(chunk.sectionLevel, String(chunk.sectionPath)).toBe(own.level);
  }
  expect(run.bottomUpStderr).not.toContain('found no parent');
}

describe("the seeds' own shapes, end to end", () => {
  it("DACKAR test_case_2 (processed records): the text and ids are kept and read, export takes every record (items 1, 2)", () => {
    const run = pipeline(TC2, false);
    expectInputKept(run.input, run.summarized);
    expect(run.tagged.map((t) => (t.context as JsonObject).chunk_id)).toEqual(['CR1042_1', 'CR1042_2', 'WO5518_1', 'SOP201_1', 'CRHVAC771_1']);
    expect(run.tagged.every((t) => !(t.tag_flags as string[]).includes('missing_chunk_id'))).toBe(true);
    expect(run.weaviate.filter((o) => o.class === 'Chunk')).toHaveLength(5);
    expect(run.chroma.code).toBe(0);
    expect(run.chroma.records.filter((r) => (r.metadata as JsonObject).kind === 'chunk').map((r) => r.id)).toEqual(['CR1042_1', 'CR1042_2', 'WO5518_1', 'SOP201_1', 'CRHVAC771_1']);
    expectSchemaAndIds(run);
  });

  it('DACKAR test_case_3 and the mdParser chunks of its CR: every field kept, objects fit the schema', () => {
    for (const path of [TC3, CR]) {
      const run = pipeline(path, false);
      expectInputKept(run.input, run.summarized);
      expectSchemaAndIds(run);
    }
  });

  it('library_rag v1 (hierarchy, title, level): sections from the hierarchy, one per heading (item 3)', () => {
    const run = pipeline(V1, true);
    expectInputKept(run.input, run.summarized);
    expect(run.tagged.some((t) => (t.tag_flags as string[]).includes('missing_section_path'))).toBe(false);
    const paths = run.sections.filter((s) => (s.direct_count as number) > 0).map((s) => s.section_path);
    expect(paths).toContain('Condition Report (CR) - Elevated Vibration on AFW Pump P-101A > 4. Apparent Cause (if known) > 5. Evidence / Data');
    expect(paths).toContain('Condition Report (CR) - Elevated Vibration on AFW Pump P-101A > 1. Condition Description');
    expect(run.sections.some((s) => s.section_path === '(unsectioned)')).toBe(false);
    expectSchemaAndIds(run);
  });

  it('library_rag v2 (section, section_level, toc with bold titles): placed in the TOC tree, one section per heading (item 4)', () => {
    const run = pipeline(V2, true);
    expectInputKept(run.input, run.summarized);
    const planned = run.tagged.find((t) => t.section === '**6. Planned Corrective Actions**')!;
    expect((planned.context as JsonObject).section_path).toBe('Condition Report (CR) - Elevated Vibration on AFW Pump P-101A > 6. Planned Corrective Actions');
    const evidence = run.tagged.find((t) => t.section === '**5. Evidence / Data**')!;
    expect((evidence.context as JsonObject).section_path).toBe('Condition Report (CR) - Elevated Vibration on AFW Pump P-101A > 4. Apparent Cause (if known) > 5. Evidence / Data');
    // No TOC entry is a second, empty section; the TOC sections carry the TOC's level.
    expect(run.sections.filter((s) => (s.flags as string[]).includes('toc_only'))).toHaveLength(0);
    expect(run.sections.find((s) => s.section_path === (planned.context as JsonObject).section_path)).toMatchObject({ level: 2, direct_count: 1, flags: [] });
    expect(run.sections).toHaveLength(7);
    // Export read from the document itself places its chunks the same way as from tag's output.
    const direct = rca(['export', '--only', 'chunks', V2]);
    const viaTag = rca(['export', '--only', 'chunks', '--document', V2, '-'], run.tagged.map((t) => JSON.stringify(t)).join('\n') + '\n');
    expect(direct.stdout).toBe(viaTag.stdout);
    // On worker threads the same bytes (a document's records are placed in order, on this one).
    expect(runBin('tag', ['--jobs', '2', V2], '').stdout).toBe(runBin('tag', ['--jobs', '1', V2], '').stdout);
    // The same chunks as JSON Lines, with the document's TOC given: the same places.
    const asLines = (JSON.parse(readFileSync(V2, 'utf8')) as { chunks: JsonObject[] }).chunks.map((c) => JSON.stringify({ ...c, doc_id: 'example_CR_2026_00123' })).join('\n') + '\n';
    const fromLines = lines(runBin('tag', ['--toc', V2], asLines).stdout);
    expect(fromLines.map((t) => (t.context as JsonObject).section_path)).toEqual(run.tagged.map((t) => (t.context as JsonObject).section_path));
    expect(fromLines.map((t) => t.section_id)).toEqual(run.tagged.map((t) => t.section_id));
    // document.sourceId is the document's own name.
    expect(run.weaviate.every((o) => ((o.properties as JsonObject).document as JsonObject).sourceId === 'example_CR_2026_00123')).toBe(true);
    expectSchemaAndIds(run);
  });

  it('a library_rag document written on one line is read as the same document (item 6)', () => {
    const pretty = runBin('tag', [V2], '');
    const oneLine = runBin('tag', [V2_ONE_LINE], '');
    expect(oneLine.code).toBe(0);
    expect(oneLine.stdout).toBe(pretty.stdout);
    expect(lines(oneLine.stdout)).toHaveLength(7);
  });

  it('Chunk objects are written from rca’s own views: summary and keywords, no table separators (item 5)', () => {
    const run = pipeline(CR, false);
    const chunks = run.weaviate.filter((o) => o.class === 'Chunk').map((o) => o.properties as JsonObject);
    expect(chunks.every((c) => (c.keywords as string[]).every((k) => /[\p{L}\p{N}]/u.test(k) && !k.includes('|')))).toBe(true);
    expect(chunks.find((c) => String(c.text).startsWith('During routine surveillance'))!.summary).toContain('During routine surveillance');
  });

  it('Chroma: a chunk without any id, or an id written twice, is refused, never written empty (item 2)', () => {
    const tagged = runBin('tag', [], '{"doc_id":"d","text":"The pump tripped."}\n{"doc_id":"d","chunk_id":"c","text":"The pump tripped."}\n{"doc_id":"d","chunk_id":"c","text":"The valve stuck."}\n').stdout;
    const summarized = runBin('summarize', ['--backend', 'extractive'], tagged).stdout;
    const r = rca(['export', '--target', 'chroma', '-'], summarized);
    expect(r.code).toBe(1);
    expect(lines(r.stdout).map((x) => x.id)).toEqual(['c']);
    expect(r.stderr).toContain('MISSING_CHUNK_ID');
    expect(r.stderr).toContain('DUPLICATE_ID');
  });

  it("DACKAR's CR: its cause section is in the report's summary, and table cells are read as cells (items 7, 8)", () => {
    const run = pipeline(CR, false);
    const root = run.summaries.find((s) => s.parent_id === null)!;
    const summary = (root.section_summary as JsonObject).summary as string;
    expect(summary).toContain('Potential contributors include reduced suction pressure margin and coupling misalignment.');
    expect(summary).not.toContain('|');
    const limits = run.summarized.flatMap((r) => (r.retrieval_summary as JsonObject).numbers_limits as string[]);
    expect(limits).toContain('6.2 mils');
    expect(limits.some((l) => l.includes('|'))).toBe(false);
    for (const r of run.summarized) expect((r.embedding_text as JsonObject).retrieval_summary).not.toMatch(/NUMBERS\/LIMITS: .*\|/);
    for (const s of run.summaries) expect(((s.embedding_text as JsonObject | undefined)?.section_summary as string | undefined) ?? '').not.toContain(' | ');
  });

  it('rca report reads what the pipeline wrote', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rca-seeds-'));
    const run = pipeline(TC2, false);
    writeFileSync(join(dir, 'tc2.summarized.jsonl'), run.summarized.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const r = rca(['report', dir, '--output', join(dir, 'report.html')]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('CR:SEC:2026:1042');
  });
});

describe('count-sections --toc output and its summary line (item 14)', () => {
  it('a TOC entry no chunk reached comes before its parent, and the summary line counts the TOC flags', () => {
    const doc = JSON.stringify({ document: 'd', toc: [{ title: 'A', level: 1 }, { title: 'B', level: 2 }], chunks: [{ chunk_id: 'c1', sectionPath: 'A', text: 'The pump tripped on high vibration at the start.' }] });
    const tagged = runBin('tag', file('x')[0] === '-' ? [] : [], doc);
    const sections = runBin('count-sections', [], tagged.stdout);
    // Tagged JSON Lines have no TOC: give it as a file.
    const dir = mkdtempSync(join(tmpdir(), 'rca-toc-'));
    writeFileSync(join(dir, 'd_chunks.json'), doc);
    const withToc = runBin('count-sections', ['--toc', join(dir, 'd_chunks.json')], tagged.stdout);
    expect(sections.code).toBe(0);
    expect(lines(withToc.stdout).map((s) => s.section_path)).toEqual(['A > B', 'A']);
    expect(withToc.stderr).toContain('flags: toc_only 1');
    const bottomUp = runBin('summarize', ['--view', 'section_summary', '--bottom-up', '--backend', 'extractive'], withToc.stdout);
    expect(bottomUp.stderr).not.toContain('found no parent');
  });
});
