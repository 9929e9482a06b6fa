import type { ChunkContext } from '../contracts/chunk.js';
import type { AuthorityLevel, DocType } from '../contracts/vocabulary.js';
import { authorityFor, detectDocType, normaliseDocType } from './doc-type.js';
import { sectionRole } from './section-role.js';
import { displaySectionPath, normaliseSegments, sectionId } from './section-path.js';

export interface ContextOptions {
  /** 'auto' keeps a valid upstream doc_type, 'detect' always detects, or one forced DocType. */
  docTypeMode: string;
  authority: AuthorityLevel | null;
}

export interface ChunkFacts {
  context: ChunkContext;
  section_id: string;
  text: string;
  flags: string[];
}

/** Documents arrive contiguously; remembering the last few thousand keeps memory bounded. */
const DOC_TYPE_MEMORY = 4096;
const HEX_HASH = /^[0-9a-f]{8,}$/i;

/**
 * Builds the trusted context of chunk records: the same code for tag, and for validate when it
 * audits records produced elsewhere. Holds the per-document doc-type decisions.
 */
export class ContextBuilder {
  private readonly docTypes = new Map<string, DocType>();
  private readonly forced: DocType | null;

  constructor(private readonly options: ContextOptions) {
    this.forced = normaliseDocType(options.docTypeMode);
  }

  build(record: Record<string, unknown>): ChunkFacts {
    const flags: string[] = [];
    const chunkId = str(record.chunk_id);
    if (chunkId === undefined) flags.push('missing_chunk_id');
    const docId = str(record.doc_id) ?? str(objectField(record.document, 'sourceId'));
    if (docId === undefined) flags.push('missing_doc_id');
    const text = str(record.text) ?? str(record.raw_text);
    if (text === undefined) flags.push('missing_text');

    const rawPath = sectionPathOf(record);
    if (rawPath === undefined) flags.push('missing_section_path');
    const segments = rawPath === undefined ? [] : normaliseSegments(rawPath);
    const title = rawPath !== undefined ? segments[segments.length - 1] ?? '' : str(record.section_title) ?? str(record.section) ?? '';
    const displayPath = rawPath === undefined ? displaySectionPath(title) : segments.join(' > ');

    const docType = this.docTypeOf(record, docId, text);
    const context: ChunkContext = {
      doc_id: docId ?? '',
      doc_type: docType,
      chunk_id: chunkId ?? '',
      section_path: displayPath,
      page_start: page(record.page_start) ?? page(record.page),
      page_end: page(record.page_end) ?? page(record.page),
      authority_level: this.options.authority ?? authorityFor(docType),
      section_role: sectionRole(docType, title),
    };
    return { context, section_id: sectionId(docId ?? '', segments), text: text ?? '', flags };
  }

  private docTypeOf(record: Record<string, unknown>, docId: string | undefined, text: string | undefined): DocType {
    if (this.forced) return this.forced;
    if (this.options.docTypeMode === 'auto') {
      const upstream = normaliseDocType(record.doc_type);
      if (upstream) return upstream;
    }
    // Decided once per document, from its first chunk (a stream never needs the whole document).
    const key = docId ?? str(record.doc_name) ?? str(record.source_path);
    const known = key === undefined ? undefined : this.docTypes.get(key);
    if (known) return known;
    const detected = detectDocType({
      docName: str(record.doc_name),
      sourcePath: str(record.source_path),
      // A content hash (DACKAR's 12 hex digits) says nothing about the type, and "eca1…" would mislead.
      docId: docId !== undefined && HEX_HASH.test(docId) ? undefined : docId,
      text,
    });
    if (key !== undefined) {
      if (this.docTypes.size >= DOC_TYPE_MEMORY) this.docTypes.delete(this.docTypes.keys().next().value!);
      this.docTypes.set(key, detected);
    }
    return detected;
  }
}

/** The section path as given: a ' > '-joined string, or segments that must never be split. */
export function sectionPathOf(record: Record<string, unknown>): string | string[] | undefined {
  const segments = record.section_segments;
  if (Array.isArray(segments) && segments.every((s) => typeof s === 'string')) return segments as string[];
  return str(record.section_path) ?? str(record.sectionPath);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function objectField(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

/** A page number we can cite: a non-negative safe integer (DACKAR writes -1 for "unknown"). */
function page(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}
