// count-sections with a table of contents: the section records the tree builder writes are matched
// to the TOC entries (by whole normalised segments; an abridged TOC title matches the segment it
// abridges), take the TOC's title and level, and are flagged when no entry matches; every entry
// that no chunk reached is written too, after the document's other sections, as a section with
// no chunks (direct_count and total_count 0), children before their parent. Without a TOC the
// records pass untouched.
import type { RecordMeta } from '../runtime/stage.js';
import type { DocumentInfo } from '../runtime/sources/source.js';
import { PATH_SEPARATOR, sectionId } from '../tagging/section-path.js';
import type { SectionRecord } from './section-tree.js';
import { matchToc, parseToc, type Toc, type TocEntry } from './toc.js';

export const TOC_DESCRIPTION = `With a table of contents (--toc FILE, or the "toc" of a library_rag document read as input), every
TOC entry is a section: matched to the chunk sections by whole normalised segments (a TOC title
ending in "..." or "\u2026" matches the segment it abridges: flag toc_abridged), with the title and
level the TOC states and toc_index (its place in the TOC). An entry no chunk reached is written
before its parent, as every section is, with direct_count and total_count 0 (flag toc_only); sections
whose path is in no TOC entry are kept and flagged not_in_toc (toc_index null). Flat TOCs (levels
give the nesting) and nested ones (children) alike. A chunk that names only its heading (library_rag
v2: section, section_level) is placed in the TOC as rca-tag places it. Without a TOC, the tree is as above.`;

/** A section record with the TOC's fields: toc_index is the entry's place in the TOC (null: none). */
export type TocSectionRecord = SectionRecord & { toc_index?: number | null };

export type TocStats = {
  documents_with_toc: number;
  toc_entries: number;
  toc_entries_matched: number;
  toc_entries_abridged: number;
  /** Entries no chunk reached, written with direct_count and total_count 0. */
  toc_only_sections: number;
  /** Matched entries with no chunk of their own (their chunks are in subsections). */
  toc_sections_without_direct_chunks: number;
  sections_not_in_toc: number;
  chunks_not_in_toc: number;
};

interface OpenDocument {
  docId: string;
  toc: Toc;
  /** Entries some section matched. */
  matched: Set<TocEntry>;
  /** TOC-only entries already written (before their parent, as --bottom-up needs). */
  written: Set<TocEntry>;
  /** For an entry matched by its abridged title: the segment it abridges (the path of its
   *  TOC-only children goes through that segment, as the chunks' paths do). */
  segmentOf: Map<TocEntry, string>;
}

export class TocSections {
  /** The TOC each document's chunks came with, until its sections are written. */
  private readonly tocs = new Map<string, Toc>();
  private readonly parsed = new WeakMap<DocumentInfo, Toc | null>();
  private readonly late = new Set<DocumentInfo>();
  private open: OpenDocument | null = null;
  private readonly counts: TocStats = {
    documents_with_toc: 0,
    toc_entries: 0,
    toc_entries_matched: 0,
    toc_entries_abridged: 0,
    toc_only_sections: 0,
    toc_sections_without_direct_chunks: 0,
    sections_not_in_toc: 0,
    chunks_not_in_toc: 0,
  };
  private readonly notes: string[] = [];

  /** `fixed`: the TOC of --toc FILE, for every document; else each document's own `toc` field. */
  constructor(private readonly fixed: Toc | null) {}

  /** Called for each chunk before the tree sees it: notes which TOC its document has. */
  observe(docId: string, meta: RecordMeta): void {
    if (this.tocs.has(docId)) return;
    const toc = this.fixed ?? this.tocOfDocument(meta.document);
    if (toc) this.tocs.set(docId, toc);
  }

  /** The tree's output with the TOC applied; a document's TOC-only sections follow its last record. */
  apply(records: SectionRecord[]): TocSectionRecord[] {
    if (this.tocs.size === 0 && this.open === null) return records;
    const out: TocSectionRecord[] = [];
    for (const record of records) {
      if (record.doc_id !== this.open?.docId) {
        this.closeDocument(out);
        this.openDocument(record.doc_id);
      }
      if (this.open) {
        const entry = this.decorate(this.open, record);
        // Children before their parent: the entry's children no chunk reached are written now (a
        // chunk section under it would have come before it), not after the document.
        if (entry) for (const child of entry.children) this.writeTocOnly(this.open, child, out);
      }
      out.push(record);
    }
    return out;
  }

  /** End of input: the last document's TOC-only sections. */
  finish(out: TocSectionRecord[]): void {
    this.closeDocument(out);
  }

  stats(): TocStats {
    return { ...this.counts };
  }

  summary(): string[] {
    const lines = [...this.notes];
    for (const info of this.late) {
      if (info.fields.toc !== undefined) lines.push(`${info.source}: its toc comes after its records and was not used; run again with --toc ${info.source}`);
    }
    const c = this.counts;
    if (c.documents_with_toc === 0) return lines;
    lines.push(
      `toc: ${c.toc_entries} entries in ${c.documents_with_toc} document${c.documents_with_toc === 1 ? '' : 's'}, ${c.toc_entries_matched} with chunks ` +
        `(${c.toc_entries_abridged} by an abridged title, ${c.toc_sections_without_direct_chunks} with none of their own), ${c.toc_only_sections} without chunks; ` +
        `${c.sections_not_in_toc} sections (${c.chunks_not_in_toc} chunks) not in the toc`,
    );
    return lines;
  }

  private tocOfDocument(info: DocumentInfo | undefined): Toc | null {
    if (!info) return null;
    let toc = this.parsed.get(info);
    if (toc === undefined) {
      toc = parseToc(info.fields.toc);
      this.parsed.set(info, toc);
      if (info.fields.toc === undefined) this.late.add(info);
      else if (!toc) this.notes.push(`${info.source}: its toc is not a list and was not used`);
      for (const skipped of toc?.skipped ?? []) this.notes.push(`${info.source}: ${skipped}: not a toc entry`);
    }
    return toc;
  }

  private openDocument(docId: string): void {
    const toc = this.tocs.get(docId);
    this.tocs.delete(docId);
    this.open = toc ? { docId, toc, matched: new Set(), written: new Set(), segmentOf: new Map() } : null;
    if (toc) {
      this.counts.documents_with_toc++;
      this.counts.toc_entries += toc.entries.length;
    }
  }

  /** The flags this class put on the records it wrote, counted (the run summary adds them). */
  readonly flagCounts = new Map<string, number>();

  private flag(flags: string[], flag: string): void {
    flags.push(flag);
    this.flagCounts.set(flag, (this.flagCounts.get(flag) ?? 0) + 1);
  }

  private decorate(doc: OpenDocument, record: TocSectionRecord): TocEntry | null {
    const flags = record.flags as string[];
    const match = record.segments.length ? matchToc(doc.toc, record.segments) : null;
    if (!match) {
      this.flag(flags, 'not_in_toc');
      record.toc_index = null;
      this.counts.sections_not_in_toc++;
      this.counts.chunks_not_in_toc += record.direct_count;
      return null;
    }
    const { entry, abridged } = match;
    if (!doc.matched.has(entry)) {
      doc.matched.add(entry);
      if (abridged) doc.segmentOf.set(entry, record.segments[record.segments.length - 1]!);
      this.counts.toc_entries_matched++;
      if (abridged) this.counts.toc_entries_abridged++;
      if (record.direct_count === 0) this.counts.toc_sections_without_direct_chunks++;
    }
    if (abridged) this.flag(flags, 'toc_abridged');
    record.title = entry.title;
    record.level = entry.level;
    record.toc_index = entry.index;
    return entry;
  }

  /** An entry no chunk reached, and its subtree, children first; once. */
  private writeTocOnly(doc: OpenDocument, entry: TocEntry, out: TocSectionRecord[]): void {
    if (doc.matched.has(entry) || doc.written.has(entry)) return;
    for (const child of entry.children) this.writeTocOnly(doc, child, out);
    doc.written.add(entry);
    const segments = [...this.segmentsOf(doc, entry)];
    const parent = entry.parent ? this.segmentsOf(doc, entry.parent) : null;
    this.counts.toc_only_sections++;
    this.flagCounts.set('toc_only', (this.flagCounts.get('toc_only') ?? 0) + 1);
    out.push({
      kind: 'section',
      section_id: sectionId(doc.docId, segments),
      doc_id: doc.docId,
      section_path: segments.join(PATH_SEPARATOR),
      segments,
      title: entry.title,
      level: entry.level,
      parent_id: parent ? sectionId(doc.docId, parent) : null,
      parent_path: parent ? parent.join(PATH_SEPARATOR) : null,
      direct_count: 0,
      total_count: 0,
      child_count: entry.children.length,
      chunk_ids: [],
      page_start: null,
      page_end: null,
      first_order: null,
      last_order: null,
      text: '',
      text_truncated: false,
      flags: ['toc_only'] as unknown as SectionRecord['flags'],
      toc_index: entry.index,
    });
  }

  private segmentsOf(doc: OpenDocument, entry: TocEntry): readonly string[] {
    return [...(entry.parent ? this.segmentsOf(doc, entry.parent) : []), doc.segmentOf.get(entry) ?? entry.key];
  }

  private closeDocument(out: TocSectionRecord[]): void {
    const doc = this.open;
    this.open = null;
    if (!doc) return;
    for (const root of doc.toc.roots) this.writeTocOnly(doc, root, out);
  }
}

/** The TOC of --toc FILE: a document's `toc` field, or a file that is the list itself. */
export function tocFromFile(file: { array?: unknown[]; fields: Record<string, unknown>; problems: string[] }, path: string): Toc {
  const toc = parseToc(file.array ?? file.fields.toc);
  if (!toc) throw new Error(`--toc '${path}' has no toc: expected a JSON list of {title, level} or a document with a "toc" list${file.problems.length ? ` (${file.problems[0]})` : ''}`);
  return toc;
}
