import { chunkTextOf, docIdOf, pageOf, sectionPathOf, stringField } from '../tagging/chunk-fields.js';
import { normaliseSegments } from '../tagging/section-path.js';

/** What the section tree needs of one chunk record. */
export interface SectionChunk {
  docId: string;
  docIdMissing: boolean;
  chunkId: string | undefined;
  /** Normalised path segments; [] when the chunk has no usable path. */
  segments: readonly string[];
  pageMin: number | null;
  pageMax: number | null;
  order: number | null;
  text: string | undefined;
  /** The section_id tag put on the chunk, when the input is tagged. */
  taggedSectionId: string | undefined;
}

// The same field choices as tag's ContextBuilder, so the section ids agree with the chunks'.
export function sectionChunkOf(record: Record<string, unknown>): SectionChunk {
  const docId = docIdOf(record);
  const rawPath = sectionPathOf(record);
  const pages = [pageOf(record.page_start), pageOf(record.page_end), pageOf(record.page)];
  let pageMin: number | null = null;
  let pageMax: number | null = null;
  for (const p of pages) {
    if (p === null) continue;
    if (pageMin === null || p < pageMin) pageMin = p;
    if (pageMax === null || p > pageMax) pageMax = p;
  }
  return {
    docId: docId ?? '',
    docIdMissing: docId === undefined,
    chunkId: stringField(record.chunk_id),
    segments: rawPath === undefined ? [] : normaliseSegments(rawPath),
    pageMin,
    pageMax,
    order: orderOf(record.orderIndex) ?? orderOf(record.order_index),
    text: chunkTextOf(record),
    taggedSectionId: stringField(record.section_id),
  };
}

function orderOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
