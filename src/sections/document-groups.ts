import { ChunkStore } from './chunk-store.js';
import type { SectionChunk } from './section-chunk.js';
import type { SectionRecord, SectionTreeBuilder } from './section-tree.js';

interface TrieNode {
  chunks: SectionChunk[];
  children: Map<string, TrieNode>;
}

/**
 * For input in any order (a parser listing tables after text, the output of an unordered parallel
 * run): every chunk goes to a ChunkStore (memory, then a temporary SQLite file) until the end of
 * input, then each document is replayed in subtree order through the sorted builder, so the output
 * is exactly what sorted input would give: documents in the order they first appeared, the chunks
 * without a doc id last. Memory: one entry per document, the store's budget and, at the end, the
 * largest document.
 */
export class DocumentGroups {
  private readonly docNumbers = new Map<string, number>();
  private readonly docs: { docId: string; missing: boolean }[] = [];
  /** Chunks added so far (the progress line's count while input is read). */
  held = 0;

  constructor(
    private readonly builder: SectionTreeBuilder,
    private readonly maxTextChars: number,
    private readonly store: ChunkStore = new ChunkStore(),
  ) {}

  add(chunk: SectionChunk): void {
    this.held++;
    // The chunks without a doc id are one document, whatever comes between them.
    const key = chunk.docIdMissing ? '\u0000missing' : chunk.docId;
    let doc = this.docNumbers.get(key);
    if (doc === undefined) {
      doc = chunk.docIdMissing ? MISSING_DOC : this.docs.length;
      this.docNumbers.set(key, doc);
      if (!chunk.docIdMissing) this.docs.push({ docId: chunk.docId, missing: false });
    }
    // No node keeps more than maxTextChars of one chunk; one more char still marks the cut.
    const text = chunk.text !== undefined && chunk.text.length > this.maxTextChars + 1 ? chunk.text.slice(0, this.maxTextChars + 1) : chunk.text;
    this.store.add(doc, text === chunk.text ? chunk : { ...chunk, text });
  }

  /** Every document's sections, document by document, as they are built. */
  *finish(): Generator<SectionRecord> {
    const out: SectionRecord[] = [];
    try {
      let index = 0;
      for (const stored of this.store.documents()) {
        // Documents come back by number; MISSING_DOC sorts after every real one.
        const doc = this.docs[index++] ?? { docId: '', missing: true };
        const chunks = stored.map((c) => (c.docId === doc.docId && c.docIdMissing === doc.missing ? c : { ...c, docId: doc.docId, docIdMissing: doc.missing }));
        for (const chunk of subtreeOrder(documentOrder(chunks))) {
          if (this.builder.add(chunk, out)) throw new Error('section replay is not in subtree order');
          yield* out.splice(0);
        }
        this.builder.finish(out);
        yield* out.splice(0);
      }
    } finally {
      this.store.close();
    }
  }

  stats(): Record<string, unknown> {
    return this.store.stats() as unknown as Record<string, unknown>;
  }

  close(): void {
    this.store.close();
  }
}

const MISSING_DOC = Number.MAX_SAFE_INTEGER;

/** The order index when every chunk has one (stable on ties); else the input order. */
export function documentOrder(chunks: SectionChunk[]): SectionChunk[] {
  if (!chunks.every((c) => c.order !== null)) return chunks;
  return [...chunks].sort((a, b) => a.order! - b.order!);
}

/**
 * Pre-order over the document's trie, children in first-seen order, each node's own chunks before
 * its children, unsectioned chunks last: every subtree becomes contiguous.
 */
export function subtreeOrder(chunks: readonly SectionChunk[]): SectionChunk[] {
  const root: TrieNode = { chunks: [], children: new Map() };
  const unsectioned: SectionChunk[] = [];
  for (const chunk of chunks) {
    if (chunk.segments.length === 0) {
      unsectioned.push(chunk);
      continue;
    }
    let node = root;
    for (const segment of chunk.segments) {
      let child = node.children.get(segment);
      if (!child) node.children.set(segment, (child = { chunks: [], children: new Map() }));
      node = child;
    }
    node.chunks.push(chunk);
  }
  const ordered: SectionChunk[] = [];
  // An explicit stack: a pathological path depth must not overflow the call stack.
  const pending: TrieNode[] = [...root.children.values()].reverse();
  while (pending.length > 0) {
    const node = pending.pop()!;
    for (const chunk of node.chunks) ordered.push(chunk);
    const children = [...node.children.values()];
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]!);
  }
  for (const chunk of unsectioned) ordered.push(chunk);
  return ordered;
}
