import type { ChunkContext } from '../contracts/chunk.js';
import type { AuthorityLevel, DocType } from '../contracts/vocabulary.js';
import { authorityFor, detectDocType, normaliseDocType, upstreamDocType } from './doc-type.js';
import { sectionRoleInPath } from './section-role.js';
import { readingOf, type Reading } from './layout.js';
import { renameFlags, upstreamRenames } from './added-fields.js';
import { PATH_SEPARATOR, sectionIdOfSegments } from './section-path.js';
import { chunkIdOf, chunkTextOf, DEFAULT_MAX_DEPTH, docIdOf, pageOf, sectionPathOf, sectionSegmentsOf, stringField } from './chunk-fields.js';

export interface ContextOptions {
  /** 'auto' keeps a valid upstream doc_type, 'detect' always detects, or one forced DocType. */
  docTypeMode: string;
  authority: AuthorityLevel | null;
  /** Section paths deeper than this are folded (--max-depth; count-sections must use the same). */
  maxDepth?: number;
}

export interface ChunkFacts {
  context: ChunkContext;
  section_id: string;
  text: string;
  /** The text as a reader reads it (layout.ts): the seed is taken from it. */
  reading: Reading;
  flags: string[];
  /** Upstream fields named like a stage's own, and the names they are kept under. */
  renames: [string, string][];
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
    const chunkId = chunkIdOf(record, flags);
    if (chunkId === undefined) flags.push('missing_chunk_id');
    const docId = docIdOf(record, flags);
    if (docId === undefined) flags.push('missing_doc_id');
    const text = chunkTextOf(record, flags);
    if (text === undefined) flags.push('missing_text');

    const rawPath = sectionPathOf(record, flags);
    if (rawPath === undefined) flags.push('missing_section_path');
    const section = this.sectionOf(docId ?? '', rawPath);
    if (section.folded) flags.push('section_path_folded');

    const pageStart = pageOf(record, 'page_start', flags);
    const pageEnd = pageOf(record, 'page_end', flags);
    // `page` (a table's one page) stands in for either end; read once, so flagged once.
    const page = pageStart === null || pageEnd === null ? pageOf(record, 'page', flags) : null;

    const renames = upstreamRenames(record);
    if (renames.length > 0 || Object.hasOwn(record, 'tag_flags')) flags.push(...renameFlags(record, renames));

    const reading = readingOf(text ?? '');
    const docType = this.docTypeOf(record, docId, text);
    const role = sectionRoleInPath(docType, section.segments);
    if (role.inherited) flags.push('section_role_inherited');
    const context: ChunkContext = {
      doc_id: docId ?? '',
      doc_type: docType,
      chunk_id: chunkId ?? '',
      section_path: section.displayPath,
      page_start: pageStart ?? page,
      page_end: pageEnd ?? page,
      authority_level: this.options.authority ?? authorityFor(docType),
      section_role: role.role,
    };
    return { context, section_id: section.id, text: text ?? '', reading, flags, renames };
  }

  // Consecutive chunks of a document share their doc id and section path, and the facts drawn from
  // them (normalised segments, display path, a sha256 id) cost more than the rest of the context:
  // the last answer is kept. A string path (or no path) is the whole key; segment arrays are rare
  // and always computed.
  private lastSection: SectionFacts | undefined;

  private sectionOf(docId: string, rawPath: string | string[] | undefined): SectionFacts {
    const maxDepth = this.options.maxDepth ?? DEFAULT_MAX_DEPTH;
    if (Array.isArray(rawPath)) return sectionFacts(docId, rawPath, maxDepth);
    const last = this.lastSection;
    if (last !== undefined && last.docId === docId && last.rawPath === rawPath) return last;
    return (this.lastSection = sectionFacts(docId, rawPath, maxDepth));
  }

  private docTypeOf(record: Record<string, unknown>, docId: string | undefined, text: string | undefined): DocType {
    if (this.forced) return this.forced;
    if (this.options.docTypeMode === 'auto') {
      // A kind outside the vocabulary ("FMEA") is OTHER; the record keeps its own doc_type field.
      const upstream = upstreamDocType(record.doc_type);
      if (upstream) return upstream;
    }
    // Decided once per document, from its first chunk (a stream never needs the whole document).
    const key = docId ?? stringField(record.doc_name) ?? stringField(record.source_path);
    const known = key === undefined ? undefined : this.docTypes.get(key);
    if (known) return known;
    const detected = detectDocType({
      docName: stringField(record.doc_name),
      sourcePath: stringField(record.source_path),
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

interface SectionFacts {
  docId: string;
  rawPath: string | string[] | undefined;
  title: string;
  /** The path's segments, ending with the title ([] for a chunk without a path). */
  segments: string[];
  displayPath: string;
  id: string;
  folded: boolean;
}

function sectionFacts(docId: string, rawPath: string | string[] | undefined, maxDepth: number): SectionFacts {
  const { segments, folded } = sectionSegmentsOf(rawPath, maxDepth);
  const title = segments[segments.length - 1] ?? '';
  // The id count-sections gives the same segments: sectionId(doc, []) for a chunk without a path.
  return { docId, rawPath, title, segments, displayPath: segments.join(PATH_SEPARATOR), id: sectionIdOfSegments(docId, segments), folded };
}
