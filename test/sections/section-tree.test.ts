import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/runtime/stage.js';
import { sectionChunkOf } from '../../src/sections/section-chunk.js';
import { SectionTreeBuilder, UNSECTIONED_TITLE, type SectionRecord } from '../../src/sections/section-tree.js';
import { ContextBuilder } from '../../src/tagging/context.js';
import { sectionId } from '../../src/tagging/section-path.js';
import { ROOT } from '../support/golden.js';
import { chunk, chunksPerDocument, countSections, treeProblems } from './support.js';

const NFC_MENON = 'M\u00e9non';
const NFD_MENON = 'Me\u0301non';
const DACKAR = 'test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl';
const FIXTURES = [
  DACKAR,
  'test/fixtures/dackar/test_case_2/processed_records.jsonl',
  'test/fixtures/dackar/test_case_3/processed_records.jsonl',
  'test/fixtures/library_rag/example_chunks.jsonl',
  'test/fixtures/written/sop_afw_012.jsonl',
  'test/fixtures/written/eca_2026_0007.jsonl',
  'test/fixtures/written/wo_2026_04567.jsonl',
];

function readJsonl(file: string): JsonObject[] {
  return readFileSync(join(ROOT, file), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as JsonObject);
}

/** "path direct/total children", in emission order: the shape of the tree in one glance. */
function shape(sections: readonly SectionRecord[]): string[] {
  return sections.map((s) => `${s.doc_id}:${s.section_path || s.title} ${s.direct_count}/${s.total_count} ${s.child_count}`);
}

const paths = (doc: string, ...ps: (string | undefined)[]) => ps.map((p, i) => chunk(doc, `${doc}-${i + 1}`, p));

describe('section tree shape (sorted input)', () => {
  it.each<[string, JsonObject[], string[]]>([
    ['"CP 5.31" is not an ancestor of "CP 5.314 > x"', paths('d', 'CP 5.31', 'CP 5.31 > y', 'CP 5.314 > x'), ['d:CP 5.31 > y 1/1 0', 'd:CP 5.31 1/2 1', 'd:CP 5.314 > x 1/1 0', 'd:CP 5.314 0/1 1']],
    ['"Chapter 1" is not an ancestor of "Chapter 10"', paths('d', 'Chapter 1', 'Chapter 10 > Intro'), ['d:Chapter 1 1/1 0', 'd:Chapter 10 > Intro 1/1 0', 'd:Chapter 10 0/1 1']],
    ['intermediate nodes exist without direct chunks', paths('d', 'A > B > C', 'A > B > D'), ['d:A > B > C 1/1 0', 'd:A > B > D 1/1 0', 'd:A > B 0/2 2', 'd:A 0/2 1']],
    ['returning to an open ancestor adds to it', paths('d', 'A', 'A > B', 'A', 'A > C', 'A'), ['d:A > B 1/1 0', 'd:A > C 1/1 0', 'd:A 3/5 2']],
    ['trailing, double and non-breaking spaces are one node', paths('d', 'A > B', 'A > B  ', 'A  >  B', 'A\u00a0>\u00a0B', ' A\t> B\u202f'), ['d:A > B 5/5 0', 'd:A 0/5 1']],
    ['NFD and NFC are one node', paths('d', `P > ${NFC_MENON}`, `P > ${NFD_MENON}`), [`d:P > ${NFC_MENON} 2/2 0`, 'd:P 0/2 1']],
    ['markdown bold is not part of a title', paths('d', '**CR 1** > **1. Description**', 'CR 1 > 1. Description', '__CR 1__'), ['d:CR 1 > 1. Description 2/2 0', 'd:CR 1 1/3 1']],
    ['a bare ">" stays in the title', paths('d', 'P>50 psig > Action', 'x >y'), ['d:P>50 psig > Action 1/1 0', 'd:P>50 psig 0/1 1', 'd:x >y 1/1 0']],
    ['a chunk without a path goes to (unsectioned), emitted last', paths('d', 'A', undefined, 'B', '', ' > '), ['d:A 1/1 0', 'd:B 1/1 0', `d:${UNSECTIONED_TITLE} 3/3 0`]],
    ['the same path in two documents is two nodes', [...paths('x', 'Purpose'), ...paths('y', 'Purpose')], ['x:Purpose 1/1 0', 'y:Purpose 1/1 0']],
    ['a new document closes the previous one', [...paths('x', 'A > B'), ...paths('y', 'A')], ['x:A > B 1/1 0', 'x:A 0/1 1', 'y:A 1/1 0']],
  ])('%s', (_label, records, expected) => {
    const run = countSections(records);
    expect(run.stop).toBeNull();
    expect(shape(run.sections)).toEqual(expected);
    expect(treeProblems(run.sections, chunksPerDocument(records))).toEqual([]);
  });
});

describe('re-entry: --sorted stops, the default groups', () => {
  it.each<[string, JsonObject[], number, RegExp, string[]]>([
    ['A > B, C, A > B', paths('d', 'A > B', 'C', 'A > B'), 3, /section "A" of document "d" re-opens after it was closed \(chunk path "A > B"\)/, ['d:A > B 2/2 0', 'd:A 0/2 1', 'd:C 1/1 0']],
    ['a closed sibling re-opens', paths('d', 'A > B', 'A > C', 'A > B > D'), 3, /section "A > B" of document "d" re-opens/, ['d:A > B > D 1/1 0', 'd:A > B 1/2 1', 'd:A > C 1/1 0', 'd:A 0/3 2']],
    ['a child re-opens after its parent got a chunk', paths('d', 'A > B', 'A', 'A > B'), 3, /section "A > B" of document "d" re-opens after it was closed;/, ['d:A > B 2/2 0', 'd:A 1/3 1']],
    ['normalised variants are the same node', paths('d', '**A**', 'B', 'A\u00a0'), 3, /section "A" of document "d"/, ['d:A 2/2 0', 'd:B 1/1 0']],
    ['a document re-appears', [...paths('x', 'A'), ...paths('y', 'A'), ...paths('x', 'B')], 3, /document "x" appears again after other documents/, ['x:A 1/1 0', 'x:B 1/1 0', 'y:A 1/1 0']],
  ])('%s', (_label, records, line, message, unsortedShape) => {
    const sorted = countSections(records);
    expect(sorted.stop?.line).toBe(line);
    expect(sorted.stop?.message).toMatch(message);
    const grouped = countSections(records, { unsorted: true });
    if (unsortedShape.length === 0) {
      expect(grouped.stop?.message).toMatch(message);
      return;
    }
    expect(grouped.stop).toBeNull();
    expect(shape(grouped.sections)).toEqual(unsortedShape);
    expect(treeProblems(grouped.sections, chunksPerDocument(records))).toEqual([]);
  });

  it('nothing is emitted for the record that stops the run', () => {
    const records = paths('d', 'A > B', 'C', 'A > B');
    const builder = new SectionTreeBuilder({ maxTextChars: 100 });
    const out: SectionRecord[] = [];
    builder.add(sectionChunkOf(records[0]!), out);
    builder.add(sectionChunkOf(records[1]!), out);
    const before = out.length;
    expect(builder.add(sectionChunkOf(records[2]!), out)).toEqual({ kind: 'section', docId: 'd', reopened: 'A', chunkPath: 'A > B' });
    expect(out.length).toBe(before);
  });
});

describe('record fields', () => {
  it('a node carries ids, pages, orders and its direct text', () => {
    const records = [
      chunk('d', 'c1', 'A', { page_start: 3, page_end: 4, orderIndex: 0 }),
      chunk('d', 'c2', 'A > B', { page: 7, order_index: 1 }),
      chunk('d', 'c3', 'A', { page_start: null, page_end: null, orderIndex: 2, text: 'tail' }),
    ];
    const [b, a] = countSections(records).sections;
    expect(b).toMatchObject({ section_path: 'A > B', parent_path: 'A', parent_id: a!.section_id, chunk_ids: ['c2'], page_start: 7, page_end: 7, first_order: 1, last_order: 1 });
    expect(a).toEqual({
      kind: 'section',
      section_id: sectionId('d', ['A']),
      doc_id: 'd',
      section_path: 'A',
      segments: ['A'],
      title: 'A',
      level: 1,
      parent_id: null,
      parent_path: null,
      direct_count: 2,
      total_count: 3,
      child_count: 1,
      chunk_ids: ['c1', 'c3'],
      page_start: 3,
      page_end: 7,
      first_order: 0,
      last_order: 2,
      text: 'text of c1\n\ntail',
      text_truncated: false,
      flags: [],
    });
    expect(Object.keys(a!)).toEqual(KEY_ORDER);
  });

  it.each<[string, JsonObject, string[]]>([
    ['no chunk id', { doc_id: 'd', section_path: 'A', text: 'x' }, ['missing_chunk_id']],
    ['no text', { doc_id: 'd', chunk_id: 'c', section_path: 'A' }, ['missing_text']],
    ['no doc id', { chunk_id: 'c', section_path: 'A', text: 'x' }, ['missing_doc_id']],
    ['a tagged chunk with a foreign section_id', { doc_id: 'd', chunk_id: 'c', section_path: 'A', text: 'x', section_id: 'sec_x' }, ['section_id_mismatch']],
    ['a tagged chunk with its own section_id', { doc_id: 'd', chunk_id: 'c', section_path: '**A**', text: 'x', section_id: sectionId('d', ['A']) }, []],
    ['no path', { doc_id: 'd', chunk_id: 'c', text: 'x' }, ['unsectioned']],
  ])('flags: %s', (_label, record, flags) => {
    const [node] = countSections([record]).sections;
    expect(node!.flags).toEqual(flags);
  });

  it.each<[string, string[], number, string, boolean]>([
    ['fits', ['abc', 'de'], 20, 'abc\n\nde', false],
    ['exactly the cap', ['abc', 'de'], 7, 'abc\n\nde', false],
    ['cut inside the second chunk', ['abc', 'defg'], 7, 'abc\n\nde', true],
    ['cut at the separator', ['abc', 'defg'], 4, 'abc', true],
    ['never splits a surrogate pair', ['ab\u{1F600}'], 3, 'ab', true],
    ['zero keeps nothing', ['abc'], 0, '', true],
    ['empty texts add no separator', ['', 'abc', ''], 20, 'abc', false],
  ])('text cap: %s', (_label, texts, cap, text, truncated) => {
    const records = texts.map((t, i) => chunk('d', `c${i}`, 'A', { text: t }));
    for (const unsorted of [false, true]) {
      const [node] = countSections(records, { maxTextChars: cap, unsorted }).sections;
      expect(node).toMatchObject({ text, text_truncated: truncated });
    }
  });

  it('the summary line counts chunks, documents, sections, depth, unsectioned and flags', () => {
    const run = countSections([chunk('x', 'a', 'A > B > C'), chunk('x', 'b', undefined), { doc_id: 'y', section_path: 'A', text: 't' }]);
    expect(run.summary).toEqual(['3 chunks, 2 documents, 5 sections, max depth 3, 1 unsectioned, flags: unsectioned 1, missing_chunk_id 1']);
  });
});

const KEY_ORDER = ['kind', 'section_id', 'doc_id', 'section_path', 'segments', 'title', 'level', 'parent_id', 'parent_path', 'direct_count', 'total_count', 'child_count', 'chunk_ids', 'page_start', 'page_end', 'first_order', 'last_order', 'text', 'text_truncated', 'flags'];

describe.each(FIXTURES)('real records: %s', (file) => {
  const records = readJsonl(file);
  const run = countSections(records, { unsorted: true });

  it('keeps the invariants', () => {
    expect(run.stop).toBeNull();
    const perDoc = new Map<string, number>();
    for (const r of records) {
      const doc = sectionChunkOf(r).docId;
      perDoc.set(doc, (perDoc.get(doc) ?? 0) + 1);
    }
    expect(treeProblems(run.sections, perDoc)).toEqual([]);
  });

  it("links every chunk to one section by tag's section_id (equality, never prefix)", () => {
    const context = new ContextBuilder({ docTypeMode: 'auto', authority: null });
    const owners = new Map<string, SectionRecord>();
    for (const s of run.sections) owners.set(`${s.doc_id}\u0000${s.section_id}`, s);
    for (const r of records) {
      const facts = context.build(r);
      const owner = owners.get(`${facts.context.doc_id}\u0000${facts.section_id}`);
      expect(owner, facts.context.chunk_id).toBeDefined();
      if (facts.context.chunk_id !== '') expect(owner!.chunk_ids).toContain(facts.context.chunk_id);
    }
  });

  it('tagged input gives the same sections, without section_id_mismatch', () => {
    const context = new ContextBuilder({ docTypeMode: 'auto', authority: null });
    const tagged = records.map((r) => ({ ...r, section_id: context.build(r).section_id }));
    expect(countSections(tagged, { unsorted: true }).sections).toEqual(run.sections);
  });
});

describe('the DACKAR sample', () => {
  const records = readJsonl(DACKAR);

  it('is not sorted: its tables come after the text chunks, so sorted mode stops at the first re-opened section', () => {
    const run = countSections(records);
    expect(run.stop?.line).toBe(8);
    expect(run.stop?.message).toContain('section "Condition Report (CR) - Elevated Vibration on AFW Pump P-101A > 4. Apparent Cause (if known)"');
  });

  it('--unsorted builds its tree with the markdown removed', () => {
    const run = countSections(records, { unsorted: true });
    const root = 'Condition Report (CR) - Elevated Vibration on AFW Pump P-101A';
    expect(shape(run.sections).map((s) => s.replace(`${root}`, 'CR'))).toEqual([
      'ad61d26ecf6e:CR > 1. Condition Description 1/1 0',
      'ad61d26ecf6e:CR > 2. Immediate Actions 1/1 0',
      'ad61d26ecf6e:CR > 4. Apparent Cause (if known) > 5. Evidence / Data 1/1 0',
      'ad61d26ecf6e:CR > 4. Apparent Cause (if known) 1/2 1',
      'ad61d26ecf6e:CR > 6. Planned Corrective Actions 3/3 0',
      'ad61d26ecf6e:CR 2/9 4',
    ]);
    expect(run.sections.at(-1)!.chunk_ids).toEqual(['chunk:ad61d26ecf6e:sec1', 'table:ad61d26ecf6e:1']);
  });
});

describe('duplicate_chunk_id: a chunk id read twice in one document is counted and flagged, not silently counted twice', () => {
  const rec = (doc: string, id: string, path: string) => ({ doc_id: doc, chunk_id: id, section_path: path, text: `${id} text` });

  it.each([[false], [true]])('unsorted: %s', (unsorted) => {
    // The same chunk twice (two input files overlapping), and the same id in another document (not a duplicate).
    const records = [rec('d', 'c1', 'A'), rec('d', 'c2', 'A > B'), rec('d', 'c1', 'A'), rec('e', 'c1', 'A')];
    const input = unsorted ? records : [records[0]!, records[2]!, records[1]!, records[3]!];
    const run = countSections(input, { unsorted });
    const a = run.sections.find((s) => s.doc_id === 'd' && s.section_path === 'A')!;
    expect(a.chunk_ids).toEqual(['c1', 'c1']);
    expect(a.direct_count).toBe(2);
    expect(a.flags).toEqual(['duplicate_chunk_id']);
    expect(run.sections.find((s) => s.doc_id === 'd' && s.section_path === 'A > B')!.flags).toEqual([]);
    expect(run.sections.find((s) => s.doc_id === 'e')!.flags).toEqual([]);
    expect(run.summary[0]).toContain('flags: duplicate_chunk_id 1');
    expect(run.summary[1]).toBe('duplicate_chunk_id: 1 chunk read under a chunk id already read in its document, each counted (its section is flagged duplicate_chunk_id): chunk "c1" of document "d" 2 times');
  });

  it('names the first few, with how many times each was read, and counts the rest', () => {
    const records = [...Array.from({ length: 8 }, (_, i) => rec('d', `c${i}`, 'A')), ...Array.from({ length: 8 }, (_, i) => rec('d', `c${i}`, 'A')), rec('d', 'c0', 'A')];
    const run = countSections(records, { unsorted: true });
    expect(run.summary[1]).toBe(
      'duplicate_chunk_id: 9 chunks read under a chunk id already read in its document, each counted (its section is flagged duplicate_chunk_id): ' +
        'chunk "c0" of document "d" 3 times; chunk "c1" of document "d" 2 times; chunk "c2" of document "d" 2 times; chunk "c3" of document "d" 2 times; chunk "c4" of document "d" 2 times, …',
    );
  });
});
