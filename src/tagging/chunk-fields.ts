// How rca reads the fields of a chunk record, in one place: tag's context and count-sections must
// pick the same doc id, text, pages and path, or sections would not link to their chunks.

export function stringField(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** doc_id, else library_rag's document.sourceId. */
export function docIdOf(record: Record<string, unknown>): string | undefined {
  const document = record.document;
  const sourceId = document !== null && typeof document === 'object' ? (document as Record<string, unknown>).sourceId : undefined;
  return stringField(record.doc_id) ?? stringField(sourceId);
}

/** text, else raw_text. */
export function chunkTextOf(record: Record<string, unknown>): string | undefined {
  return stringField(record.text) ?? stringField(record.raw_text);
}

/** A page number we can cite: a non-negative safe integer (DACKAR writes -1 for "unknown"). */
export function pageOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** The section path as given: a ' > '-joined string, or segments that must never be split. */
export function sectionPathOf(record: Record<string, unknown>): string | string[] | undefined {
  const segments = record.section_segments;
  if (Array.isArray(segments) && segments.every((s) => typeof s === 'string')) return segments as string[];
  return stringField(record.section_path) ?? stringField(record.sectionPath);
}
