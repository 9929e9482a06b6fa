import type { ChunkContext } from '../contracts/chunk.js';
import type { AuthorityLevel, DocType } from '../contracts/vocabulary.js';
import { authorityFor, detectDocForm, normaliseDocType, TYPE_OF_SUBTYPE, upstreamDocType, type DocForm } from './doc-type.js';
import { CARRIED_BY_SHAPE, chunkRole, NOT_INHERITED, type ChunkRole } from './section-role.js';
import { readingOf, type Reading } from './layout.js';
import { renameFlags, upstreamRenames } from './added-fields.js';
import { PATH_SEPARATOR, sectionIdOfSegments } from './section-path.js';
import { chunkIdOf, chunkTextOf, DEFAULT_MAX_DEPTH, docIdOf, pageOf, sectionPathOf, sectionSegmentsOf, stringField } from './chunk-fields.js';

export interface ContextOptions {
  /** 'auto' keeps a valid upstream doc_type, 'detect' always detects, or one forced DocType. */
  docTypeMode: string;
  /** The document form every record gets, type and subtype (tag --jobs: a line tagged again in its turn). */
  form?: DocForm;
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
  /** The section continued from the chunk before (RoleCarry), as this chunk read and left it. */
  carry: CarryFacts;
}

/**
 * The section a chunk leaves open for the next chunk of its document: its document's key, its
 * section path, and the role a chunk continuing it takes. Plain data: `tag --jobs` sends it
 * between threads and compares it.
 */
export interface RoleCarry {
  doc: string;
  path: string;
  role: string;
}

export interface CarryFacts {
  /** The chunk's role depended on the section before it (it has nothing of its own: RoleSource `open`). */
  depends: boolean;
  /** What the builder held before the chunk, and after it. */
  before: RoleCarry | null;
  after: RoleCarry | null;
}

export function sameCarry(a: RoleCarry | null, b: RoleCarry | null): boolean {
  return a === b || (a !== null && b !== null && a.doc === b.doc && a.path === b.path && a.role === b.role);
}

/** Documents arrive contiguously; remembering the last few thousand keeps memory bounded. */
const DOC_TYPE_MEMORY = 4096;
const HEX_HASH = /^[0-9a-f]{8,}$/i;

/**
 * Builds the trusted context of chunk records: the same code for tag, and for validate when it
 * audits records produced elsewhere. Holds the per-document doc-type decisions.
 */
export class ContextBuilder {
  private readonly docForms = new Map<string, DocForm>();
  private readonly forced: DocType | null;
  /**
   * The section the last chunk left open (a chunk that continues it takes its role). Set from
   * outside only by tag --jobs, which decides it in input order across threads.
   */
  carry: RoleCarry | null = null;

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
    const form = this.formOf(record, docId, text, section.displayPath);
    const docType = form.type;
    const own = chunkRole(docType, form.subtype, section.segments, reading.summary, reading.text);
    if (own.inherited) flags.push('section_role_inherited');
    const carry = this.continueSection(record, docId, section, own);
    if (carry.continued) flags.push('section_role_continued');
    const role = carry.continued ? carry.after! : own;
    const context: ChunkContext = {
      doc_id: docId ?? '',
      doc_type: docType,
      doc_subtype: form.subtype,
      chunk_id: chunkId ?? '',
      section_path: section.displayPath,
      page_start: pageStart ?? page,
      page_end: pageEnd ?? page,
      authority_level: this.options.authority ?? authorityFor(docType, form.subtype),
      section_role: role.role,
    };
    return { context, section_id: section.id, text: text ?? '', reading, flags, renames, carry: carry.facts };
  }

  /**
   * A chunk with no role of its own (no path role, no heading, no telling shape) that continues
   * the section the chunk before it left open — same document, and the same section path or none
   * — takes that section's role: a parser cuts a long section into chunks, and only the first
   * shows the heading. The section stays open while chunks continue it; a chunk with a role of
   * its own from its path or heading opens its own; any other chunk closes it.
   */
  private continueSection(record: Record<string, unknown>, docId: string | undefined, section: SectionFacts, own: ChunkRole): { continued: boolean; after: RoleCarry | null; facts: CarryFacts } {
    const before = this.carry;
    const doc = docId ?? stringField(record.doc_name) ?? stringField(record.source_path);
    const depends = own.source === 'open' && doc !== undefined;
    let after: RoleCarry | null = null;
    let continued = false;
    if (depends && before !== null && before.doc === doc && (section.segments.length === 0 || section.displayPath === before.path)) {
      after = before;
      continued = true;
    } else if (doc !== undefined && ((own.source === 'section' && !NOT_INHERITED.has(own.role)) || (own.source === 'shape' && CARRIED_BY_SHAPE.has(own.role)))) {
      after = { doc, path: section.displayPath, role: own.role };
    }
    this.carry = after;
    return { continued, after, facts: { depends, before, after } };
  }

  /**
   * The record's doc form alone, decided (and remembered per document) as build() decides it:
   * tag --jobs decides forms in input order on its main thread, which needs no layout or role.
   */
  form(record: Record<string, unknown>): DocForm {
    const flags: string[] = [];
    const docId = docIdOf(record, flags);
    const text = chunkTextOf(record, flags);
    const section = this.sectionOf(docId ?? '', sectionPathOf(record, flags));
    return this.formOf(record, docId, text, section.displayPath);
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

  /**
   * The record's doc type and subtype. The type is a forced one, else (auto) a valid upstream
   * doc_type, else the detected one; the subtype is the detected form's when it belongs to that
   * type (an upstream "SOP" whose form is an EOP is an EOP), else null.
   */
  private formOf(record: Record<string, unknown>, docId: string | undefined, text: string | undefined, title: string): DocForm {
    if (this.options.form !== undefined) return this.options.form;
    let fixed: DocType | null = this.forced;
    // A kind outside the vocabulary ("FMEA") is OTHER; the record keeps its own doc_type field.
    if (fixed === null && this.options.docTypeMode === 'auto') fixed = upstreamDocType(record.doc_type);
    const detected = this.detectedForm(record, docId, text, title);
    if (fixed === null || fixed === detected.type) return detected;
    return { type: fixed, subtype: detected.subtype !== null && TYPE_OF_SUBTYPE[detected.subtype] === fixed ? detected.subtype : null };
  }

  // Decided once per document, from its first chunk (a stream never needs the whole document).
  private detectedForm(record: Record<string, unknown>, docId: string | undefined, text: string | undefined, title: string): DocForm {
    const key = docId ?? stringField(record.doc_name) ?? stringField(record.source_path);
    const known = key === undefined ? undefined : this.docForms.get(key);
    if (known) return known;
    const detected = detectDocForm({
      docName: stringField(record.doc_name),
      sourcePath: stringField(record.source_path),
      // A content hash (DACKAR's 12 hex digits) says nothing about the type, and "eca1…" would mislead.
      docId: docId !== undefined && HEX_HASH.test(docId) ? undefined : docId,
      title,
      text,
    });
    if (key !== undefined) {
      if (this.docForms.size >= DOC_TYPE_MEMORY) this.docForms.delete(this.docForms.keys().next().value!);
      this.docForms.set(key, detected);
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
