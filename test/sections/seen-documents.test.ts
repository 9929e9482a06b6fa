import { describe, expect, it } from 'vitest';
import { SeenDocuments } from '../../src/sections/seen-documents.js';
import { SectionTreeBuilder } from '../../src/sections/section-tree.js';
import { sectionChunkOf } from '../../src/sections/section-chunk.js';

describe('SeenDocuments', () => {
  it('holds every id added, across many growths, and no other', () => {
    const seen = new SeenDocuments();
    const n = 50_000;
    for (let i = 0; i < n; i++) seen.add(`doc-${i}`);
    seen.add('doc-7'); // again: counted once
    expect(seen.size).toBe(n);
    for (let i = 0; i < n; i += 997) expect(seen.has(`doc-${i}`)).toBe(true);
    for (let i = n; i < n + 5000; i++) expect(seen.has(`doc-${i}`)).toBe(false);
    expect(seen.has('')).toBe(false);
    seen.add('');
    expect(seen.has('')).toBe(true);
  });

  it('keeps the sorted builder refusing a document that re-appears after thousands of others', () => {
    const builder = new SectionTreeBuilder({ maxTextChars: 100 });
    const out: unknown[] = [];
    const chunk = (doc: string) => sectionChunkOf({ chunk_id: `${doc}:0`, doc_id: doc, section_path: 'A > B', text: 't' }, 32);
    for (let i = 0; i < 5000; i++) expect(builder.add(chunk(`d${i}`), out as never)).toBeNull();
    expect(builder.add(chunk('d42'), out as never)).toEqual({ kind: 'document', docId: 'd42' });
    expect(builder.stats().documents).toBe(5000);
  });
});
