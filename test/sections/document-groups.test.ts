import { describe, expect, it } from 'vitest';
import { documentOrder, subtreeOrder } from '../../src/sections/document-groups.js';
import { sectionChunkOf, type SectionChunk } from '../../src/sections/section-chunk.js';

const chunkAt = (id: string, path: string | undefined, order?: number): SectionChunk =>
  sectionChunkOf({ doc_id: 'd', chunk_id: id, ...(path === undefined ? {} : { section_path: path }), ...(order === undefined ? {} : { orderIndex: order }) });
const ids = (chunks: readonly SectionChunk[]) => chunks.map((c) => c.chunkId);

describe('documentOrder', () => {
  it.each<[string, SectionChunk[], string[]]>([
    ['by orderIndex when every chunk has one', [chunkAt('c', 'A', 2), chunkAt('a', 'A', 0), chunkAt('b', 'A', 1)], ['a', 'b', 'c']],
    ['ties keep the input order', [chunkAt('x', 'A', 1), chunkAt('y', 'A', 1), chunkAt('z', 'A', 0)], ['z', 'x', 'y']],
    ['as read when one chunk has no orderIndex', [chunkAt('c', 'A', 2), chunkAt('a', 'A'), chunkAt('b', 'A', 1)], ['c', 'a', 'b']],
  ])('%s', (_label, chunks, expected) => {
    expect(ids(documentOrder(chunks))).toEqual(expected);
  });
});

describe('subtreeOrder makes every subtree contiguous', () => {
  it.each<[string, [string, string | undefined][], string[]]>([
    ['re-entry is gathered under its node', [['1', 'A > B'], ['2', 'C'], ['3', 'A > B']], ['1', '3', '2']],
    ['own chunks before children, children in first-seen order', [['1', 'A > C'], ['2', 'A'], ['3', 'A > B'], ['4', 'A > C']], ['2', '1', '4', '3']],
    ['unsectioned chunks last', [['1', undefined], ['2', 'A'], ['3', '']], ['2', '1', '3']],
    ['normalised paths are one node', [['1', '**A**'], ['2', 'B'], ['3', 'A\u00a0']], ['1', '3', '2']],
    ['"CP 5.31" and "CP 5.314" stay apart', [['1', 'CP 5.314 > x'], ['2', 'CP 5.31'], ['3', 'CP 5.314']], ['3', '1', '2']],
  ])('%s', (_label, specs, expected) => {
    expect(ids(subtreeOrder(specs.map(([id, path]) => chunkAt(id, path))))).toEqual(expected);
  });

  it('a deep path does not overflow the call stack', () => {
    const deep = Array.from({ length: 20_000 }, (_, i) => `s${i}`).join(' > ');
    expect(ids(subtreeOrder([chunkAt('deep', deep), chunkAt('top', 's0')]))).toEqual(['top', 'deep']);
  });
});
