import type { SectionChunk } from './section-chunk.js';
import type { NotSorted, SectionRecord, SectionTreeBuilder } from './section-tree.js';

interface TrieNode {
  chunks: SectionChunk[];
  children: Map<string, TrieNode>;
}

/**
 * For input whose sections are not contiguous: holds one document's chunks, then replays them in
 * subtree order through the sorted builder, so the output is exactly what sorted input would give.
 * Memory is bounded by the largest document; documents themselves must still arrive contiguously.
 */
export class DocumentGroups {
  private docId: string | null = null;
  private chunks: SectionChunk[] = [];
  private readonly seenDocs = new Set<string>();

  constructor(
    private readonly builder: SectionTreeBuilder,
    private readonly maxTextChars: number,
  ) {}

  add(chunk: SectionChunk, out: SectionRecord[]): NotSorted | null {
    if (chunk.docId !== this.docId) {
      if (this.seenDocs.has(chunk.docId)) return { kind: 'document', docId: chunk.docId };
      this.flush(out);
      this.docId = chunk.docId;
      this.seenDocs.add(chunk.docId);
    }
    // No node keeps more than maxTextChars of one chunk; one more char still marks the cut.
    const text = chunk.text !== undefined && chunk.text.length > this.maxTextChars + 1 ? chunk.text.slice(0, this.maxTextChars + 1) : chunk.text;
    this.chunks.push(text === chunk.text ? chunk : { ...chunk, text });
    return null;
  }

  finish(out: SectionRecord[]): void {
    this.flush(out);
  }

  private flush(out: SectionRecord[]): void {
    if (this.chunks.length === 0) return;
    for (const chunk of subtreeOrder(documentOrder(this.chunks))) {
      if (this.builder.add(chunk, out)) throw new Error('section replay is not in subtree order');
    }
    // The document is complete: its sections go out now, not when the next one starts.
    this.builder.finish(out);
    this.chunks = [];
  }
}

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
