import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import countSections from '../../src/transforms/count-sections.js';
import { matchToc, parseToc } from '../../src/sections/toc.js';
import { sectionId } from '../../src/tagging/section-path.js';
import { runInProcess } from '../support/run-in-process.js';

const EXAMPLE = 'test/fixtures/library_rag/EXAMPLE_CHUNK_JSON_FORMAT.json';
type Rec = Record<string, unknown> & { section_path: string; flags: string[]; direct_count: number; total_count: number };
const lines = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Rec);

describe('parseToc: flat and nested TOCs', () => {
  const shape = (value: unknown) => parseToc(value)!.entries.map((e) => [e.title, e.level, e.parent?.title ?? null, e.stem]);

  it('nests a flat TOC by its levels', () => {
    expect(shape([{ title: 'A', level: 1 }, { title: 'A1', level: 2 }, { title: 'A1a', level: 3 }, { title: 'A2', level: 2 }, { title: 'B', level: 1 }])).toEqual([
      ['A', 1, null, null], ['A1', 2, 'A', null], ['A1a', 3, 'A1', null], ['A2', 2, 'A', null], ['B', 1, null, null],
    ]);
  });

  it('reads children, levels defaulting to the depth, and abridged titles', () => {
    expect(shape([{ title: 'Part I', children: [{ title: 'Ch. 1...' }, { title: 'Ch. 2\u2026', level: 2 }] }])).toEqual([
      ['Part I', 1, null, null], ['Ch. 1...', 2, 'Part I', 'Ch. 1'], ['Ch. 2\u2026', 2, 'Part I', 'Ch. 2'],
    ]);
  });

  it('skips items without a title, saying where', () => {
    const toc = parseToc([{ level: 1 }, 'x', { title: 'A' }])!;
    expect(toc.entries.map((e) => e.title)).toEqual(['A']);
    expect(toc.skipped).toEqual(['toc[0]: no title', 'toc[1]: not an object']);
    expect(parseToc({ title: 'A' })).toBeNull();
  });

  it('matches by whole segments, an abridged title by its stem, the longest stem first', () => {
    const toc = parseToc([{ title: 'CP 5.31', level: 1 }, { title: 'x...', level: 2 }, { title: 'xy...', level: 2 }])!;
    expect(matchToc(toc, ['CP 5.314'])).toBeNull();
    expect(matchToc(toc, ['CP 5.31'])).toMatchObject({ entry: { title: 'CP 5.31' }, abridged: false });
    expect(matchToc(toc, ['CP 5.31', 'xyz'])).toMatchObject({ entry: { title: 'xy...' }, abridged: true });
    expect(matchToc(toc, ['CP 5.31', 'a'])).toBeNull();
  });
});

describe('rca-count-sections with a TOC', () => {
  it('the example document: TOC titles and levels, an abridged match, a section outside the TOC', async () => {
    const r = await runInProcess(countSections, [], [EXAMPLE]);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(new Set(out.map((s) => s.doc_id))).toEqual(new Set(['EXAMPLE_CHUNK_JSON_FORMAT']));
    expect(out.map((s) => [s.section_path.slice(0, 30), s.title, s.level, s.direct_count, s.total_count, s.flags, s.toc_index])).toEqual([
      ['Peirce: CP 1.1 > 1. PREFACE', '1. PREFACE', 2, 1, 1, [], 1],
      ['Peirce: CP 1.1', 'Peirce: CP 1.1', 1, 0, 1, [], 0],
      ['Peirce: CP 1.2 > 2. But before', '2. But before all else...', 2, 1, 1, ['toc_abridged'], 3],
      ['Peirce: CP 1.2', 'Peirce: CP 1.2', 1, 0, 1, [], 2],
      ['Peirce: CP 1.628 > 628. It is ', '628. It is the instincts, the sentiments, that make the substance of the soul', 2, 1, 1, ['not_in_toc'], null],
      ['Peirce: CP 1.628', 'Peirce: CP 1.628', 1, 0, 1, ['not_in_toc'], null],
    ]);
    expect(r.stderr).toContain('toc: 4 entries in 1 document, 4 with chunks (1 by an abridged title, 2 with none of their own), 0 without chunks; 2 sections (1 chunks) not in the toc');
  });

  it('writes every TOC entry no chunk reached, children first, with zero counts, linked to matched parents', async () => {
    const doc = JSON.stringify({
      metadata: { doc_id: 'd' },
      toc: [{ title: 'A', level: 1, children: [{ title: 'A1 long...', level: 2, children: [{ title: 'A1x', level: 3 }] }, { title: 'A2', level: 2 }] }, { title: 'B', level: 1 }, { title: 'B1', level: 2 }],
      chunks: [{ chunk_id: 'c1', sectionPath: 'A > A1 long title indeed', text: 't' }],
    }, null, 2);
    const r = await runInProcess(countSections, [doc]);
    const out = lines(r.stdout);
    // Every section before its parent, TOC-only ones too (what --bottom-up's order check needs).
    expect(out.map((s) => [s.section_path, s.direct_count, s.total_count, s.flags, s.parent_path])).toEqual([
      ['A > A1 long title indeed > A1x', 0, 0, ['toc_only'], 'A > A1 long title indeed'],
      ['A > A1 long title indeed', 1, 1, ['toc_abridged'], 'A'],
      ['A > A2', 0, 0, ['toc_only'], 'A'],
      ['A', 0, 1, [], null],
      ['B > B1', 0, 0, ['toc_only'], 'B'],
      ['B', 0, 0, ['toc_only'], null],
    ]);
    const a1x = out[0]!;
    expect(a1x.parent_id).toBe(out[1]!.section_id);
    expect(a1x.section_id).toBe(sectionId('d', ['A', 'A1 long title indeed', 'A1x']));
  });

  it('--toc FILE: a document or a bare list, for tagged JSON Lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rca-toc-'));
    const list = join(dir, 'toc.json');
    writeFileSync(list, JSON.stringify([{ title: 'A', level: 1 }, { title: 'Z', level: 1 }]));
    const input = '{"doc_id":"d","chunk_id":"c","section_path":"A","text":"t"}\n{"doc_id":"d","chunk_id":"e","section_path":"Q","text":"u"}\n';
    const r = await runInProcess(countSections, [input], ['--toc', list]);
    expect(lines(r.stdout).map((s) => [s.section_path, s.flags])).toEqual([['A', []], ['Q', ['not_in_toc']], ['Z', ['toc_only']]]);
    const fromDoc = await runInProcess(countSections, [input], ['--toc', EXAMPLE]);
    expect(lines(fromDoc.stdout).map((s) => s.section_path)).toEqual(['A', 'Q', 'Peirce: CP 1.1 > 1. PREFACE', 'Peirce: CP 1.1', 'Peirce: CP 1.2 > 2. But before all else...', 'Peirce: CP 1.2']);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"metadata": {}}');
    const usage = await runInProcess(countSections, [input], ['--toc', bad]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('has no toc');
  });

  it('without a TOC the records are as before', async () => {
    const input = '{"doc_id":"d","chunk_id":"c","section_path":"A > B","text":"t"}\n';
    const r = await runInProcess(countSections, [input]);
    expect(lines(r.stdout).map((s) => [s.section_path, s.flags, 'toc_index' in s])).toEqual([['A > B', [], false], ['A', [], false]]);
  });
});
