import { chunkIdOf, chunkTextOf, DEFAULT_MAX_DEPTH, docIdOf, orderOf, pageOf, sectionPathOf, sectionSegmentsOf, taggedSectionIdOf } from '../tagging/chunk-fields.js';

/** What the section tree needs of one chunk record. */
export interface SectionChunk {
  docId: string;
  docIdMissing: boolean;
  chunkId: string | undefined;
  /** Normalised path segments, at most --max-depth; [] when the chunk has no usable path. */
  segments: readonly string[];
  /** The path was deeper than --max-depth: its last segment holds the rest. */
  folded: boolean;
  pageMin: number | null;
  pageMax: number | null;
  order: number | null;
  text: string | undefined;
  /** The section_id tag put on the chunk, when the input is tagged. */
  taggedSectionId: string | undefined;
}

// The readers tag's ContextBuilder uses (chunk-fields.ts), so the section ids agree with the chunks'.
export function sectionChunkOf(record: Record<string, unknown>, maxDepth = DEFAULT_MAX_DEPTH): SectionChunk {
  const docId = docIdOf(record);
  const { segments, folded } = sectionSegmentsOf(sectionPathOf(record), maxDepth);
  let pageMin: number | null = null;
  let pageMax: number | null = null;
  for (const field of ['page_start', 'page_end', 'page'] as const) {
    const p = pageOf(record, field);
    if (p === null) continue;
    if (pageMin === null || p < pageMin) pageMin = p;
    if (pageMax === null || p > pageMax) pageMax = p;
  }
  return {
    docId: docId ?? '',
    // An empty id names no document either: such chunks join the ones without an id.
    docIdMissing: docId === undefined || docId === '',
    chunkId: chunkIdOf(record),
    segments,
    folded,
    pageMin,
    pageMax,
    order: orderOf(record),
    text: chunkTextOf(record),
    taggedSectionId: taggedSectionIdOf(record),
  };
}
