import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/runtime/stage.js';
import { sectionChunkOf } from '../../src/sections/section-chunk.js';
import { ContextBuilder } from '../../src/tagging/context.js';
import { chunksPerDocument, countSections, treeProblems } from './support.js';

// Titles that break prefix matching or need normalising, each with raw spellings of one heading.
const TITLES: readonly (readonly string[])[] = [
  ['CP 5.31', '**CP 5.31**', 'CP\u00a05.31 '],
  ['CP 5.314', ' CP  5.314'],
  ['Chapter 1', '_Chapter 1_'],
  ['Chapter 10', 'Chapter\u202f10'],
  ['M\u00e9non', 'Me\u0301non'],
  ['P>50 psig'],
  ['x >y'],
  ['A', '`A`'],
];

interface ChunkSpec {
  kind: 'chunk';
  spelling: number;
  page: number | null;
}
interface TreeSpec {
  kind: 'tree';
  title: number;
  items: (ChunkSpec | TreeSpec)[];
}
interface DocSpec {
  id: string;
  /** A chunk at document level has no path: it belongs to the unsectioned node. */
  items: (ChunkSpec | TreeSpec)[];
}

const chunkSpec: fc.Arbitrary<ChunkSpec> = fc.record({
  kind: fc.constant('chunk' as const),
  spelling: fc.nat(5),
  page: fc.option(fc.integer({ min: 1, max: 60 }), { nil: null }),
});
const { tree } = fc.letrec<{ tree: TreeSpec }>((tie) => ({
  tree: fc.record({
    kind: fc.constant('tree' as const),
    title: fc.nat(TITLES.length - 1),
    items: fc.array(fc.oneof({ depthSize: 'small', withCrossShrink: true }, chunkSpec, tie('tree')), { maxLength: 4 }),
  }),
}));
const docs = fc.uniqueArray(
  fc.record({ id: fc.constantFrom('doc-a', 'doc-b', 'doc-c', 'doc-d'), items: fc.array(fc.oneof(chunkSpec, tree), { maxLength: 6 }) }),
  { selector: (d) => d.id, maxLength: 3 },
);

/** Sorted chunk records: a pre-order walk, siblings with the same heading merged. */
function render(specs: readonly DocSpec[]): JsonObject[] {
  const records: JsonObject[] = [];
  for (const doc of specs) {
    let order = 0;
    const walk = (items: readonly (ChunkSpec | TreeSpec)[], raw: string[]) => {
      const seen = new Set<number>();
      for (const item of items) {
        if (item.kind === 'tree') {
          // Two sibling subtrees with one heading would be a re-entry, not sorted input.
          if (seen.has(item.title)) continue;
          seen.add(item.title);
          const spellings = TITLES[item.title]!;
          walk(item.items, [...raw, spellings[(raw.length + item.items.length) % spellings.length]!]);
          continue;
        }
        const path = raw.map((r, i) => (i === raw.length - 1 ? spellingOf(r, item.spelling) : r));
        records.push({
          chunk_id: `${doc.id}:${order}`,
          doc_id: doc.id,
          ...(path.length ? { section_path: path.join(' > ') } : {}),
          text: `chunk ${order}`,
          orderIndex: order++,
          page_start: item.page,
          page_end: item.page === null ? null : item.page + 1,
        });
      }
    };
    walk(doc.items, []);
  }
  return records;
}

/** Another raw spelling of the same heading, so one node is reached through several strings. */
function spellingOf(raw: string, n: number): string {
  const group = TITLES.find((g) => g.includes(raw))!;
  return group[n % group.length]!;
}

function shuffleWithinDocuments(records: readonly JsonObject[], seed: number): JsonObject[] {
  let state = seed >>> 0;
  const rand = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out: JsonObject[] = [];
  for (let start = 0; start < records.length; ) {
    let end = start;
    while (end < records.length && records[end]!.doc_id === records[start]!.doc_id) end++;
    const part = records.slice(start, end);
    for (let i = part.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [part[i], part[j]] = [part[j]!, part[i]!];
    }
    out.push(...part);
    start = end;
  }
  return out;
}

describe('section tree properties', () => {
  it('sorted input: invariants hold, every prefix is one node, every chunk links to its node by section_id', () => {
    fc.assert(
      fc.property(docs, (specs) => {
        const records = render(specs);
        const run = countSections(records);
        expect(run.stop).toBeNull();
        expect(treeProblems(run.sections, chunksPerDocument(records))).toEqual([]);

        const prefixes = new Set<string>();
        for (const r of records) {
          const { segments } = sectionChunkOf(r);
          if (segments.length === 0) prefixes.add(`${String(r.doc_id)}|`);
          for (let i = 1; i <= segments.length; i++) prefixes.add(`${String(r.doc_id)}|${JSON.stringify(segments.slice(0, i))}`);
        }
        expect(run.sections).toHaveLength(prefixes.size);

        const owner = new Map<string, string>();
        for (const s of run.sections) for (const id of s.chunk_ids) {
          expect(owner.has(id)).toBe(false);
          owner.set(id, s.section_id);
        }
        const context = new ContextBuilder({ docTypeMode: 'auto', authority: null });
        for (const r of records) expect(owner.get(String(r.chunk_id))).toBe(context.build(r).section_id);
      }),
      { numRuns: 300 },
    );
  });

  it('--unsorted gives the sorted output on sorted input and on any shuffle within documents', () => {
    fc.assert(
      fc.property(docs, fc.integer(), (specs, seed) => {
        const records = render(specs);
        const sorted = countSections(records).sections;
        expect(countSections(records, { unsorted: true }).sections).toEqual(sorted);
        const shuffled = countSections(shuffleWithinDocuments(records, seed), { unsorted: true });
        expect(shuffled.stop).toBeNull();
        expect(shuffled.sections).toEqual(sorted);
      }),
      { numRuns: 300 },
    );
  });

  it('a chunk returning to a closed root stops sorted mode at its line', () => {
    fc.assert(
      fc.property(docs, (specs) => {
        const records = render(specs);
        const firstOfDoc = records.filter((r, i) => i === 0 || records[i - 1]!.doc_id !== r.doc_id);
        for (const first of firstOfDoc) {
          const mine = records.filter((r) => r.doc_id === first.doc_id);
          const last = mine[mine.length - 1]!;
          const firstRoot = sectionChunkOf(first).segments[0];
          const lastRoot = sectionChunkOf(last).segments[0];
          if (firstRoot === undefined || lastRoot === undefined || firstRoot === lastRoot) continue;
          const at = records.indexOf(last) + 1;
          const broken = [...records.slice(0, at), { ...first, chunk_id: 'again' }, ...records.slice(at)];
          const run = countSections(broken);
          expect(run.stop?.line).toBe(at + 1);
          expect(run.stop?.message).toContain(`section ${JSON.stringify(firstRoot)} of document ${JSON.stringify(first.doc_id)} re-opens`);
          expect(countSections(broken, { unsorted: true }).stop).toBeNull();
        }
      }),
      { numRuns: 200 },
    );
  });
});
