import { PATH_SEPARATOR, sectionIdOfSegments } from '../tagging/section-path.js';
import type { SectionChunk } from './section-chunk.js';
import { SeenDocuments } from './seen-documents.js';

export const UNSECTIONED_TITLE = '(unsectioned)';
const TEXT_SEPARATOR = '\n\n';

export const SECTION_FLAGS = ['unsectioned', 'missing_doc_id', 'missing_chunk_id', 'missing_text', 'section_id_mismatch', 'section_path_folded', 'duplicate_chunk_id'] as const;
export type SectionFlag = (typeof SECTION_FLAGS)[number];
const FLAG_BIT = Object.fromEntries(SECTION_FLAGS.map((flag, i) => [flag, 1 << i])) as Record<SectionFlag, number>;

/** One node of a document's section tree; keys in output order. A type, not an interface, so it is a JsonObject. */
export type SectionRecord = {
  kind: 'section';
  section_id: string;
  doc_id: string;
  section_path: string;
  segments: string[];
  title: string;
  level: number;
  parent_id: string | null;
  parent_path: string | null;
  direct_count: number;
  total_count: number;
  child_count: number;
  chunk_ids: string[];
  page_start: number | null;
  page_end: number | null;
  first_order: number | null;
  last_order: number | null;
  text: string;
  text_truncated: boolean;
  flags: SectionFlag[];
};

/** Why sorted input turned out not to be sorted. */
export type NotSorted =
  | { kind: 'section'; docId: string; reopened: string; chunkPath: string }
  | { kind: 'document'; docId: string };

export type SectionStats = {
  chunks: number;
  documents: number;
  sections: number;
  max_depth: number;
  unsectioned: number;
  flags: Partial<Record<SectionFlag, number>>;
  /** Chunks read under a chunk id their document had already given another chunk (each counted). */
  duplicate_chunks: number;
};

/** A chunk id read more than once in one document, for the summary (the first few). */
export interface DuplicateChunk {
  docId: string;
  chunkId: string;
  times: number;
}
const DUPLICATES_NAMED = 5;

export interface SectionTreeOptions {
  maxTextChars: number;
}

interface Node {
  id: string;
  title: string;
  segments: string[];
  path: string;
  parent: Node | null;
  chunkIds: string[];
  directCount: number;
  totalCount: number;
  childCount: number;
  pageMin: number | null;
  pageMax: number | null;
  firstOrder: number | null;
  lastOrder: number | null;
  text: string;
  textTruncated: boolean;
  flags: number;
  /** Titles of children already closed: only these can re-open, so memory stays depth × fan-out. */
  closedChildren: Set<string> | null;
}

/**
 * Builds section trees from chunks whose documents and subtrees arrive contiguously, holding only
 * the open path. Nodes are emitted children-first as soon as a chunk leaves their subtree.
 */
export class SectionTreeBuilder {
  private readonly maxTextChars: number;
  private readonly stack: Node[] = [];
  private docId: string | null = null;
  private docFlags = 0;
  private closedRoots = new Set<string>();
  private unsectioned: Node | null = null;
  // One fingerprint per document: the only state that grows with the corpus, needed to see a
  // document re-appear (its sections would otherwise be emitted twice).
  private readonly seenDocs = new SeenDocuments();
  // The chunk ids of the open document (fingerprints, as for documents): a document's chunks all
  // pass here together, sorted input or not, so this is held for one document at a time.
  private docChunks = new SeenDocuments();
  private duplicateCount = 0;
  private readonly duplicates: DuplicateChunk[] = [];
  private readonly counts = { chunks: 0, sections: 0, maxDepth: 0, unsectioned: 0 };
  private readonly flagCounts = new Map<SectionFlag, number>();

  constructor(options: SectionTreeOptions) {
    this.maxTextChars = options.maxTextChars;
  }

  /** Adds one chunk; nodes it closes are pushed to `out`. A problem leaves the state unchanged. */
  add(chunk: SectionChunk, out: SectionRecord[]): NotSorted | null {
    if (chunk.docId !== this.docId) {
      if (this.seenDocs.has(chunk.docId)) return { kind: 'document', docId: chunk.docId };
      this.closeDocument(out);
      this.openDocument(chunk);
    }
    const segments = chunk.segments;
    if (segments.length === 0) {
      this.unsectioned ??= this.newNode(UNSECTIONED_TITLE, [], null, FLAG_BIT.unsectioned);
      this.counts.unsectioned++;
      this.addDirect(this.unsectioned, chunk);
      return null;
    }

    const stack = this.stack;
    let common = 0;
    while (common < stack.length && common < segments.length && stack[common]!.title === segments[common]) common++;
    if (common < segments.length) {
      // Only the first new segment can name a closed node: deeper ones hang under a node created now.
      const closed = common === 0 ? this.closedRoots : stack[common - 1]!.closedChildren;
      if (closed?.has(segments[common]!)) {
        return {
          kind: 'section',
          docId: chunk.docId,
          reopened: segments.slice(0, common + 1).join(PATH_SEPARATOR),
          chunkPath: segments.join(PATH_SEPARATOR),
        };
      }
    }
    while (stack.length > common) this.close(stack.pop()!, out);
    for (let depth = common; depth < segments.length; depth++) {
      const parent = depth === 0 ? null : stack[depth - 1]!;
      if (parent) parent.childCount++;
      stack.push(this.newNode(segments[depth]!, segments.slice(0, depth + 1), parent, 0));
    }
    if (stack.length > this.counts.maxDepth) this.counts.maxDepth = stack.length;
    this.addDirect(stack[stack.length - 1]!, chunk);
    return null;
  }

  /** End of input (or of a document known to be complete): emits every node still open. */
  finish(out: SectionRecord[]): void {
    this.closeDocument(out);
  }

  stats(): SectionStats {
    const flags: Partial<Record<SectionFlag, number>> = {};
    for (const flag of SECTION_FLAGS) {
      const n = this.flagCounts.get(flag);
      if (n) flags[flag] = n;
    }
    return {
      chunks: this.counts.chunks,
      documents: this.seenDocs.size,
      sections: this.counts.sections,
      max_depth: this.counts.maxDepth,
      unsectioned: this.counts.unsectioned,
      flags,
      duplicate_chunks: this.duplicateCount,
    };
  }

  /** The first chunk ids read more than once (in the order they were seen again), with their counts. */
  duplicateChunks(): readonly DuplicateChunk[] {
    return this.duplicates;
  }

  private openDocument(chunk: SectionChunk): void {
    this.docId = chunk.docId;
    this.docFlags = chunk.docIdMissing ? FLAG_BIT.missing_doc_id : 0;
    this.seenDocs.add(chunk.docId);
    this.docChunks = new SeenDocuments();
  }

  private closeDocument(out: SectionRecord[]): void {
    while (this.stack.length > 0) this.close(this.stack.pop()!, out);
    // Last, so every node of the document is out before its unsectioned remainder.
    if (this.unsectioned) this.close(this.unsectioned, out);
    this.unsectioned = null;
    this.closedRoots = new Set();
    this.docId = null;
  }

  private newNode(title: string, segments: string[], parent: Node | null, flags: number): Node {
    return {
      // The unsectioned node gets sectionId(doc, []), the id tag gives chunks without a path.
      id: sectionIdOfSegments(this.docId!, segments),
      title,
      segments,
      path: parent ? parent.path + PATH_SEPARATOR + title : segments.length ? title : '',
      parent,
      chunkIds: [],
      directCount: 0,
      totalCount: 0,
      childCount: 0,
      pageMin: null,
      pageMax: null,
      firstOrder: null,
      lastOrder: null,
      text: '',
      textTruncated: false,
      flags: flags | this.docFlags,
      closedChildren: null,
    };
  }

  private addDirect(node: Node, chunk: SectionChunk): void {
    this.counts.chunks++;
    node.directCount++;
    node.totalCount++;
    if (chunk.folded) node.flags |= FLAG_BIT.section_path_folded;
    if (chunk.chunkId === undefined) node.flags |= FLAG_BIT.missing_chunk_id;
    else {
      node.chunkIds.push(chunk.chunkId);
      // The same chunk read twice (two input files overlap, a parser ran twice), or two chunks
      // given one id: which copy is right is not knowable here, so each is counted, and the
      // section says so instead of holding a silent double count.
      if (this.docChunks.has(chunk.chunkId)) this.duplicate(node, chunk.chunkId);
      else this.docChunks.add(chunk.chunkId);
    }
    if (chunk.taggedSectionId !== undefined && chunk.taggedSectionId !== node.id) node.flags |= FLAG_BIT.section_id_mismatch;
    mergeRange(node, chunk.pageMin, chunk.pageMax, chunk.order, chunk.order);
    if (chunk.text === undefined) node.flags |= FLAG_BIT.missing_text;
    else if (chunk.text !== '') this.appendText(node, chunk.text);
  }

  private duplicate(node: Node, chunkId: string): void {
    node.flags |= FLAG_BIT.duplicate_chunk_id;
    this.duplicateCount++;
    const known = this.duplicates.find((d) => d.docId === this.docId && d.chunkId === chunkId);
    if (known) known.times++;
    else if (this.duplicates.length < DUPLICATES_NAMED) this.duplicates.push({ docId: this.docId ?? '', chunkId, times: 2 });
  }

  private appendText(node: Node, text: string): void {
    if (node.textTruncated) return;
    const separator = node.text === '' ? '' : TEXT_SEPARATOR;
    const room = this.maxTextChars - node.text.length - separator.length;
    if (text.length <= room) {
      node.text += separator + text;
      return;
    }
    node.textTruncated = true;
    if (room > 0) node.text += separator + cutAt(text, room);
  }

  private close(node: Node, out: SectionRecord[]): void {
    const parent = node.parent;
    if (parent) {
      parent.totalCount += node.totalCount;
      mergeRange(parent, node.pageMin, node.pageMax, node.firstOrder, node.lastOrder);
      (parent.closedChildren ??= new Set()).add(node.title);
    } else if (node.segments.length > 0) {
      this.closedRoots.add(node.title);
    }
    this.counts.sections++;
    const flags = SECTION_FLAGS.filter((flag) => node.flags & FLAG_BIT[flag]);
    for (const flag of flags) this.flagCounts.set(flag, (this.flagCounts.get(flag) ?? 0) + 1);
    out.push({
      kind: 'section',
      section_id: node.id,
      doc_id: this.docId!,
      section_path: node.path,
      segments: node.segments,
      title: node.title,
      level: node.segments.length,
      parent_id: parent ? parent.id : null,
      parent_path: parent ? parent.path : null,
      direct_count: node.directCount,
      total_count: node.totalCount,
      child_count: node.childCount,
      chunk_ids: node.chunkIds,
      page_start: node.pageMin,
      page_end: node.pageMax,
      first_order: node.firstOrder,
      last_order: node.lastOrder,
      text: node.text,
      text_truncated: node.textTruncated,
      flags,
    });
  }
}

function mergeRange(node: Node, pageMin: number | null, pageMax: number | null, firstOrder: number | null, lastOrder: number | null): void {
  if (pageMin !== null && (node.pageMin === null || pageMin < node.pageMin)) node.pageMin = pageMin;
  if (pageMax !== null && (node.pageMax === null || pageMax > node.pageMax)) node.pageMax = pageMax;
  if (firstOrder !== null && (node.firstOrder === null || firstOrder < node.firstOrder)) node.firstOrder = firstOrder;
  if (lastOrder !== null && (node.lastOrder === null || lastOrder > node.lastOrder)) node.lastOrder = lastOrder;
}

/** The first `n` UTF-16 units, one fewer when the cut would split a surrogate pair. */
function cutAt(text: string, n: number): string {
  const last = text.charCodeAt(n - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? n - 1 : n);
}
