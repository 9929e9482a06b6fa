// rca-count-sections on input as real parsers and parallel runs write it: DACKAR lists its table
// chunks after its text chunks, documents interleave, ids are numbers or missing, paths are
// absurdly deep. The default accepts any order (spilling to a temporary SQLite file), --sorted is
// the streaming fast path, and a stop that cuts the output short is exit 3.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/runtime/stage.js';
import type { SectionRecord } from '../../src/sections/section-tree.js';
import { SectionCounter } from '../../src/transforms/count-sections.js';
import { ROOT, runBin } from '../support/golden.js';
import { chunk, chunksPerDocument, countSections, treeProblems } from './support.js';

const DACKAR = join(ROOT, 'test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl');
const SAMPLE = join(ROOT, 'examples/sample-corpus.jsonl');

const jsonl = (records: readonly JsonObject[]) => records.map((r) => JSON.stringify(r) + '\n').join('');
const parse = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as SectionRecord);
const readJsonl = (file: string) => parse(readFileSync(file, 'utf8')) as unknown as JsonObject[];

/** A deterministic shuffle (the order an unordered parallel run may write). */
function shuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Three documents of a few sections each, sorted as a parser writes them. */
function sortedCorpus(): JsonObject[] {
  const records: JsonObject[] = [];
  for (const doc of ['d1', 'd2', 'd3']) {
    let n = 0;
    for (const path of ['Report', 'Report > A', 'Report > A > x', 'Report > A > x', 'Report > B', 'Report > B > y', 'Appendix']) {
      records.push(chunk(doc, `${doc}-${n + 1}`, path, { page_start: n + 1, page_end: n + 1, orderIndex: n++ }));
    }
  }
  return records;
}

describe('count-sections: any order by default', () => {
  it("DACKAR's real chunks (tables after text) give all 6 sections, exit 0", () => {
    const r = runBin('count-sections', [DACKAR], '');
    expect(r.code).toBe(0);
    const sections = parse(r.stdout);
    expect(sections.map((s) => s.title)).toEqual([
      '1. Condition Description',
      '2. Immediate Actions',
      '5. Evidence / Data',
      '4. Apparent Cause (if known)',
      '6. Planned Corrective Actions',
      'Condition Report (CR) - Elevated Vibration on AFW Pump P-101A',
    ]);
    expect(sections.at(-1)!.total_count).toBe(9);
    expect(r.stderr).toBe('rca-count-sections: 9 chunks, 1 document, 6 sections, max depth 3, 0 unsectioned, flags: none\n');
  });

  it("the README's example over the bundled sample: rca-tag | rca-count-sections, exit 0", () => {
    const tagged = runBin('tag', [SAMPLE], '');
    expect(tagged.code).toBe(0);
    const r = runBin('count-sections', [], tagged.stdout);
    expect(r.stderr).toMatch(/^rca-count-sections: 32 chunks, 4 documents, \d+ sections, .* flags: none\n$/);
    expect(r.code).toBe(0);
    const sections = parse(r.stdout);
    expect(treeProblems(sections, chunksPerDocument(readJsonl(SAMPLE)))).toEqual([]);
  });

  it('interleaved documents (an unordered parallel run) give the sorted output, in memory and spilled to disk', () => {
    const sorted = sortedCorpus();
    const expected = countSections(sorted).sections;
    expect(expected.map((s) => s.doc_id).filter((d, i, all) => all.indexOf(d) === i)).toEqual(['d1', 'd2', 'd3']);
    for (const seed of [1, 2, 3]) {
      // Documents come out in the order of their first chunk; within one, orderIndex restores the order.
      const shuffled = shuffle(sorted, seed);
      const firstSeen = [...new Set(shuffled.map((r) => r.doc_id as string))];
      const inOrder = firstSeen.flatMap((doc) => expected.filter((s) => s.doc_id === doc));
      expect(countSections(shuffled, { unsorted: true }).sections).toEqual(inOrder);
      expect(countSections(shuffled, { unsorted: true, spillAfterBytes: 0 }).sections).toEqual(inOrder);
    }
  });

  it('spilling keeps the chunks in a temporary SQLite file, not in memory, with the same bytes out', () => {
    const input = jsonl(shuffle(sortedCorpus(), 7));
    const inMemory = runBin('count-sections', [], input);
    const dir = mkdtempSync(join(tmpdir(), 'rca-spill-'));
    try {
      const spilled = runBin('count-sections', ['--spill-mb', '0', '--stats', join(dir, 'stats.json')], input);
      expect(spilled.code).toBe(0);
      expect(spilled.stdout).toBe(inMemory.stdout);
      expect(JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')).store).toEqual({ spilled: true, chunks_spilled: 21 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const counter = new SectionCounter({ maxTextChars: 100, spillAfterBytes: 0 });
    for (const r of sortedCorpus()) counter.process(r);
    expect(counter.stats().store).toEqual({ spilled: true, chunks_spilled: 21 });
    counter.close();
  });

  it('--sorted streams sorted input to the same output', () => {
    const input = jsonl(sortedCorpus());
    const streamed = runBin('count-sections', ['--sorted'], input);
    expect(streamed.code).toBe(0);
    expect(streamed.stdout).toBe(runBin('count-sections', [], input).stdout);
  });

  it.each([
    ['DACKAR', readFileSync(DACKAR, 'utf8'), 8, /input not sorted: section .* re-opens after it was closed/],
    ['a document appears again', jsonl([chunk('x', 'c1', 'A'), chunk('y', 'c2', 'A'), chunk('x', 'c3', 'B')]), 3, /document "x" appears again/],
  ])('--sorted on unsorted input (%s) is fatal, exit 3, never exit 1', (_label, input, line, message) => {
    const r = runBin('count-sections', ['--sorted'], input);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(new RegExp(`^rca-count-sections: stdin:${line}: fatal: .*${message.source}.*run without --sorted`, 'm'));
  });

  it('--sorted and --unsorted together are a usage error', () => {
    expect(runBin('count-sections', ['--sorted', '--unsorted'], '').code).toBe(2);
  });
});

describe('count-sections: ids that are numbers or missing', () => {
  const records: JsonObject[] = [
    { doc_id: 123, chunk_id: 1, section_path: 'A', text: 'one' },
    { chunk_id: 'orphan', section_path: 'A', text: 'no doc id' },
    { doc_id: 123, chunk_id: 2, section_path: 'A > B', text: 'two' },
    { doc_id: '123', chunk_id: '3', section_path: 'A', text: 'three' },
  ];

  it.each([[[]], [['--sorted']]])('a record without doc_id mid-document does not stop the run (%j); numbers are strings', (args) => {
    const r = runBin('count-sections', args, jsonl(records));
    expect(r.code).toBe(0);
    const sections = parse(r.stdout);
    expect(sections.map((s) => [s.doc_id, s.section_path, s.chunk_ids, s.flags])).toEqual([
      ['123', 'A > B', ['2'], []],
      ['123', 'A', ['1', '3'], []],
      // The chunks without a doc id are one document, written last.
      ['', 'A', ['orphan'], ['missing_doc_id']],
    ]);
  });
});

describe('count-sections: pathological section paths', () => {
  const deep = Array.from({ length: 2000 }, (_, k) => `Heading ${k + 1}`);
  const records = Array.from({ length: 10 }, (_, i) => ({ doc_id: 'deep', chunk_id: `c${i}`, section_path: [...deep.slice(0, -1), `Leaf ${i}`].join(' > '), text: `chunk ${i}` }));
  const input = jsonl(records);

  it('a 2,000-heading path is folded at --max-depth 32: output is linear in the input, flagged', () => {
    const r = runBin('count-sections', [], input);
    expect(r.code).toBe(0);
    const sections = parse(r.stdout);
    expect(Math.max(...sections.map((s) => s.level))).toBe(32);
    // 31 shared headings, one folded node per leaf.
    expect(sections).toHaveLength(31 + 10);
    expect(sections.filter((s) => s.flags.includes('section_path_folded'))).toHaveLength(10);
    expect(sections[0]!.section_path).toBe(records[0]!.section_path);
    expect(r.stdout.length).toBeLessThan(5 * input.length);
    // Uncapped, as before: quadratic.
    const uncapped = runBin('count-sections', ['--max-depth', '100000'], input);
    expect(uncapped.stdout.length).toBeGreaterThan(100 * input.length);
  });

  it('tag gives each deep chunk the section_id of its folded section: the link holds', () => {
    const tagged = runBin('tag', [], input);
    expect(tagged.code).toBe(0);
    const chunks = tagged.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as JsonObject);
    expect(chunks.every((c) => (c.tag_flags as string[]).includes('section_path_folded'))).toBe(true);
    const sections = parse(runBin('count-sections', [], tagged.stdout).stdout);
    for (const c of chunks) {
      const owner = sections.find((s) => s.chunk_ids.includes(c.chunk_id as string))!;
      expect(owner.section_id).toBe(c.section_id);
      expect((c.context as JsonObject).section_path).toBe(owner.section_path);
      expect(owner.flags).not.toContain('section_id_mismatch');
    }
  });
});
