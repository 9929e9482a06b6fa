// How rca reads the fields of a chunk record, in one place: tag's context, count-sections and
// validate must pick the same doc id, text, pages and path, or sections would not link to their
// chunks. Every reader takes an optional `flags` list: a value that had to be coerced
// (`doc_id: 123` → "123", `page_start: "3"` → 3) adds `<field>_coerced`, a value present but
// unusable (`page_start: -1`, `1e309`, an object where a string belongs) adds `<field>_dropped`,
// so nothing changes silently. The fields and their use are listed in CHUNK_FIELDS (and in
// `rca schema chunk`, from contracts/chunk.ts; a test holds the two lists equal).

import { keptNameOf } from './added-fields.js';
import { capDepth, normaliseSegments } from './section-path.js';

/** Every field (dot = nested) a stage reads from a chunk record, in the order of preference. */
export const CHUNK_FIELDS = [
  'chunk_id',
  'provenance.chunk_id',
  'record_id',
  'doc_id',
  'document.sourceId',
  'doc_type',
  'doc_name',
  'source_path',
  'section_segments',
  'section_path',
  'sectionPath',
  'section',
  'section_title',
  'hierarchy',
  'title',
  'sectionLevel',
  'section_level',
  'level',
  'text',
  'raw_text',
  'embedding_text',
  'page_start',
  'page_end',
  'page',
  'orderIndex',
  'order_index',
  'section_id',
] as const;

/** The default of --max-depth (tag and count-sections must agree, or the section ids would not). */
export const DEFAULT_MAX_DEPTH = 32;

const present = (value: unknown) => value !== undefined && value !== null;

export function stringField(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A string, or a number written as its decimal string; anything else present is dropped. */
function idField(value: unknown, field: string, flags: string[] | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (!present(value)) return undefined;
  // An integer beyond 2^53 has already lost digits in JSON.parse: no string of it is the id.
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) {
    flags?.push(`${field}_coerced`);
    return String(value);
  }
  flags?.push(`${field}_dropped`);
  return undefined;
}

/**
 * chunk_id, else provenance.chunk_id, else record_id (DACKAR's processed records carry their ids
 * there); a number becomes its string. An empty string is no id.
 */
export function chunkIdOf(record: Record<string, unknown>, flags?: string[]): string | undefined {
  const own = idField(record.chunk_id, 'chunk_id', flags);
  if (own !== undefined && own !== '') return own;
  const provenance = record.provenance;
  if (provenance !== null && typeof provenance === 'object' && !Array.isArray(provenance)) {
    const nested = idField((provenance as Record<string, unknown>).chunk_id, 'provenance.chunk_id', flags);
    if (nested !== undefined && nested !== '') return nested;
  }
  const recordId = idField(record.record_id, 'record_id', flags);
  return recordId !== undefined && recordId !== '' ? recordId : own;
}

/** doc_id, else library_rag's document.sourceId (a number becomes its string). */
export function docIdOf(record: Record<string, unknown>, flags?: string[]): string | undefined {
  const own = idField(record.doc_id, 'doc_id', flags);
  if (own !== undefined) return own;
  const document = record.document;
  if (document === null || typeof document !== 'object') return undefined;
  return idField((document as Record<string, unknown>).sourceId, 'document.sourceId', flags);
}

const TEXT_FIELDS = ['text', 'raw_text', 'embedding_text'] as const;

/**
 * text, else raw_text, else embedding_text (DACKAR's processed records): the first string. Once
 * tag has kept an upstream embedding_text string under its upstream_ name (added-fields.ts), that
 * is read in its place: it is still the chunk's only text.
 */
export function chunkTextOf(record: Record<string, unknown>, flags?: string[]): string | undefined {
  for (const field of TEXT_FIELDS) {
    const value = record[field];
    if (typeof value === 'string') return value;
    // rca-summarize's own embedding_text is an object of texts: not the chunk's text, not a loss.
    if (present(value) && !(field === 'embedding_text' && typeof value === 'object')) flags?.push(`${field}_dropped`);
  }
  const kept = record[keptNameOf(record, 'embedding_text')];
  return typeof kept === 'string' ? kept : undefined;
}

const DIGITS = /^\s*\d+\s*$/;

/**
 * A page number we can cite: a non-negative safe integer. A string of digits is coerced; a
 * negative number (DACKAR writes -1 for "unknown"), a fraction, an overflow (1e309 parses as
 * Infinity) or any other value is dropped. null means unknown and is not flagged.
 */
export function pageOf(record: Record<string, unknown>, field: 'page_start' | 'page_end' | 'page', flags?: string[]): number | null {
  const value = record[field];
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (!present(value)) return null;
  if (typeof value === 'string' && DIGITS.test(value)) {
    const n = Number(value);
    if (Number.isSafeInteger(n)) {
      flags?.push(`${field}_coerced`);
      return n;
    }
  }
  flags?.push(`${field}_dropped`);
  return null;
}

/** orderIndex, else order_index: any finite number (fractions order too). */
export function orderOf(record: Record<string, unknown>, flags?: string[]): number | null {
  for (const field of ['orderIndex', 'order_index'] as const) {
    const value = record[field];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    if (present(value)) flags?.push(`${field}_dropped`);
  }
  return null;
}

const PATH_FIELDS = ['section_path', 'sectionPath', 'section', 'section_title'] as const;

const HIERARCHY_KEYS = ['part', 'chapter', 'section', 'subsection'] as const;

/**
 * The section path as given: segments that must never be split (section_segments), else the
 * first ' > '-joined string of section_path, sectionPath, section, section_title. A lone heading
 * (`section`, `section_title` when no path is given) is a one-segment path: the cited path and the
 * section the chunk is filed under are the same. Else library_rag's v1 chunks: the headings of
 * `hierarchy` {part, chapter, section, subsection} that are set, else its `title`, as library_rag's
 * ingest builds the path (it leaves `subsection` out, which files every level-4 heading of a
 * document under its parent; kept here, one section per heading, as its v2 chunks have them).
 */
export function sectionPathOf(record: Record<string, unknown>, flags?: string[]): string | string[] | undefined {
  const segments = record.section_segments;
  if (Array.isArray(segments) && segments.every((s) => typeof s === 'string')) return segments as string[];
  if (present(segments)) flags?.push('section_segments_dropped');
  for (const field of PATH_FIELDS) {
    const value = record[field];
    if (typeof value === 'string') return value;
    if (present(value)) flags?.push(`${field}_dropped`);
  }
  const hierarchy = record.hierarchy;
  if (!present(hierarchy)) return undefined;
  if (typeof hierarchy !== 'object' || Array.isArray(hierarchy)) {
    flags?.push('hierarchy_dropped');
    return undefined;
  }
  const headings: string[] = [];
  for (const key of HIERARCHY_KEYS) {
    const heading = (hierarchy as Record<string, unknown>)[key];
    if (typeof heading === 'string' && heading.trim() !== '') headings.push(heading);
  }
  if (headings.length > 0) return headings;
  const title = record.title;
  return typeof title === 'string' && title.trim() !== '' ? title : undefined;
}

/**
 * The level of the chunk's own heading, as library_rag states it: sectionLevel, else section_level,
 * else (a v1 chunk, with `hierarchy`) level. A positive integer, or undefined.
 */
export function headingLevelOf(record: Record<string, unknown>): number | undefined {
  for (const field of ['sectionLevel', 'section_level'] as const) {
    const value = record[field];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  }
  const level = record.level;
  if (present(record.hierarchy) && typeof level === 'number' && Number.isSafeInteger(level) && level > 0) return level;
  return undefined;
}

/** The normalised segments of a path, at most `maxDepth` (deeper ones folded into the last kept). */
export function sectionSegmentsOf(rawPath: string | readonly string[] | undefined, maxDepth: number): { segments: string[]; folded: boolean } {
  if (rawPath === undefined) return { segments: [], folded: false };
  return capDepth(normaliseSegments(rawPath), maxDepth);
}

/** The section_id a tagged chunk carries (checked by count-sections against its own). */
export function taggedSectionIdOf(record: Record<string, unknown>): string | undefined {
  return stringField(record.section_id);
}
