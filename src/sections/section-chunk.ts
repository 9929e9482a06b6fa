import { sectionPathOf } from '../tagging/context.js';
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
  const docId = str(record.doc_id) ?? str(objectField(record.document, 'sourceId'));
  const rawPath = sectionPathOf(record);
  const pages = [page(record.page_start), page(record.page_end), page(record.page)];
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
    chunkId: str(record.chunk_id),
    segments: rawPath === undefined ? [] : normaliseSegments(rawPath),
    pageMin,
    pageMax,
    order: orderOf(record.orderIndex) ?? orderOf(record.order_index),
    text: str(record.text) ?? str(record.raw_text),
    taggedSectionId: str(record.section_id),
  };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function objectField(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

function page(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

function orderOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
