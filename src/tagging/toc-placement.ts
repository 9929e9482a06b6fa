// Where a chunk of a library_rag v2 document goes in its table of contents. Such a chunk names its
// heading alone (`section`, with `section_level`), and the TOC holds only some headings (its basic
// mode keeps levels 1 and 2). As library_rag's own toc_enricher does, a heading that equals a TOC
// title (after the cleaning every path segment gets: markdown, NFC, spaces) takes that entry's full
// path (flatten_toc_with_paths: a flat TOC nests by level, a nested one by children). A heading the
// TOC does not hold goes under the nearest heading before it of a lower level, the stack walk
// library_rag's hierarchy_parser builds its tree with; so every heading is one section, in its
// place, and a chunk whose heading is a TOC entry is filed under that entry, not beside it.
// Per document, in document order (the order its chunks are written in).
import { docIdOf, headingLevelOf } from './chunk-fields.js';
import { normaliseSegments } from './section-path.js';

interface Entry {
  key: string;
  level: number;
  segments: string[];
}

interface Open {
  level: number;
  segments: string[];
}

export class TocPlacement {
  private readonly byKey = new Map<string, Entry[]>();
  private stack: Open[] = [];

  /** null when `toc` is not a TOC (a list of {title, level[, children]}). */
  static of(toc: unknown): TocPlacement | null {
    if (!Array.isArray(toc) || toc.length === 0) return null;
    const placement = new TocPlacement();
    placement.add(toc, []);
    return placement.byKey.size > 0 ? placement : null;
  }

  private add(items: unknown[], parents: Open[]): void {
    const open = [...parents];
    for (const item of items) {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) continue;
      const { title, level, children } = item as Record<string, unknown>;
      const key = typeof title === 'string' ? normaliseSegments([title])[0] : undefined;
      if (key === undefined || key === '') continue;
      const depthLevel = (parents[parents.length - 1]?.level ?? 0) + 1;
      const stated = typeof level === 'number' && Number.isInteger(level) ? level : depthLevel;
      while (open.length > parents.length && open[open.length - 1]!.level >= stated) open.pop();
      const segments = [...(open[open.length - 1]?.segments ?? []), key];
      const entry: Entry = { key, level: stated, segments };
      const same = this.byKey.get(key);
      if (same) same.push(entry);
      else this.byKey.set(key, [entry]);
      open.push({ level: stated, segments });
      if (Array.isArray(children)) this.add(children, open);
    }
  }

  /**
   * The path segments of a chunk whose only heading is `heading`, or null to leave its path as
   * it is (its heading not in the TOC and nothing before it to go under).
   */
  place(heading: string, record: Record<string, unknown>): string[] | null {
    const key = normaliseSegments([heading])[0];
    if (key === undefined || key === '') return null;
    const level = headingLevelOf(record);
    const entries = this.byKey.get(key);
    if (entries) {
      // Two TOC entries of one title: the one at the chunk's level, else the first.
      const entry = entries.find((e) => e.level === level) ?? entries[0]!;
      this.reopen(entry);
      return entry.segments;
    }
    if (level === undefined) return null;
    while (this.stack.length > 0 && this.stack[this.stack.length - 1]!.level >= level) this.stack.pop();
    const parent = this.stack[this.stack.length - 1];
    const segments = parent ? [...parent.segments, key] : null;
    this.stack.push({ level, segments: segments ?? [key] });
    return segments;
  }

  /** A new document: no heading of the last one is open. */
  reset(): void {
    this.stack = [];
  }

  /** After a TOC heading, the open headings are its path. */
  private reopen(entry: Entry): void {
    this.stack = [];
    for (let i = 1; i <= entry.segments.length; i++) {
      const prefix = entry.segments.slice(0, i);
      const known = this.byKey.get(prefix[prefix.length - 1]!)?.find((e) => e.segments.length === i && e.segments.every((s, k) => s === prefix[k]));
      this.stack.push({ level: known?.level ?? i, segments: prefix });
    }
  }
}

/** The lone heading a chunk is filed under when it gives no path (section, section_title), else undefined. */
export function loneHeadingOf(record: Record<string, unknown>): string | undefined {
  if (record.section_segments !== undefined || typeof record.section_path === 'string' || typeof record.sectionPath === 'string') return undefined;
  if (typeof record.section === 'string') return record.section;
  if (typeof record.section_title === 'string') return record.section_title;
  return undefined;
}

/** The TOC placement of each document read, by its DocumentInfo (a document's own `toc`), or one for every record (--toc FILE). */
export class DocumentPlacements {
  private readonly byDocument = new WeakMap<object, TocPlacement | null>();
  /** With one TOC for every record: the document whose headings are open in it. */
  private lastDocId: string | undefined;

  constructor(private readonly fixed: TocPlacement | null = null) {}

  /** The record with `sectionPath` added where its TOC places it (as toc_enricher sets it), else the record itself. */
  place<T extends Record<string, unknown>>(record: T, document: { fields: Record<string, unknown> } | undefined): T {
    const heading = loneHeadingOf(record);
    if (heading === undefined) return record;
    let placement = this.fixed;
    if (placement !== null) {
      const docId = docIdOf(record) ?? '';
      if (docId !== this.lastDocId) placement.reset();
      this.lastDocId = docId;
    } else if (document !== undefined) {
      placement = this.byDocument.get(document) ?? null;
      if (!this.byDocument.has(document)) {
        placement = TocPlacement.of(document.fields.toc);
        this.byDocument.set(document, placement);
      }
    }
    const segments = placement?.place(heading, record);
    if (segments === null || segments === undefined) return record;
    return { ...record, sectionPath: segments.join(' > ') };
  }
}
