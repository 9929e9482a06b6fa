// A document's table of contents as library_rag writes it: a list of {title, level}, flat (the
// levels give the nesting) or nested (children), or both. Each entry becomes a node with its
// normalised title, so chunk paths are matched to it by whole segments, and an abridged title
// ("2. But before all else...") matches the one segment it abridges.
import { normaliseSegments } from '../tagging/section-path.js';

export interface TocEntry {
  /** Position in the TOC as written (depth-first, 0-based). */
  index: number;
  /** The title and level as the TOC states them. */
  title: string;
  level: number;
  /** The title normalised as path segments are. */
  key: string;
  /** For an abridged title ("…" or "..." at the end): what comes before the ellipsis. */
  stem: string | null;
  parent: TocEntry | null;
  children: TocEntry[];
  /** The children by key and by stem, built on first use. */
  childIndex?: ChildIndex;
}

/** Lookups among siblings: TOCs reach 100k+ entries on one level, so never a scan. */
export interface ChildIndex {
  byKey: Map<string, TocEntry>;
  byStem: Map<string, TocEntry>;
  longestStem: number;
}

export interface Toc {
  roots: TocEntry[];
  /** The roots by key and by stem (see childIndex). */
  rootIndex: ChildIndex;
  entries: TocEntry[];
  /** Items that could not be entries (no title), as "toc[i]: why". */
  skipped: string[];
}

const SPACE_RE = /\s/;

/**
 * The title without a trailing ellipsis ("…" or three dots or more) and the white space before
 * it, or null when it has none. Scanned back from the end: a regex ending in `\s*(?:…|\.{3,})$`
 * retries the blank run at each of its characters.
 */
export function ellipsisStem(title: string): string | null {
  let start = title.length;
  if (title.endsWith('\u2026')) start--;
  else {
    while (start > 0 && title.charCodeAt(start - 1) === 0x2e) start--;
    if (title.length - start < 3) return null;
  }
  while (start > 0 && SPACE_RE.test(title[start - 1]!)) start--;
  return title.slice(0, start);
}

/** Builds the TOC from the value of a document's `toc` field; null when it is not a list. */
export function parseToc(value: unknown): Toc | null {
  if (!Array.isArray(value)) return null;
  const toc: Toc = { roots: [], rootIndex: { byKey: new Map(), byStem: new Map(), longestStem: 0 }, entries: [], skipped: [] };
  addItems(toc, value, null, 'toc');
  toc.rootIndex = indexOf(toc.roots);
  return toc;
}

function addItems(toc: Toc, items: unknown[], parent: TocEntry | null, where: string): void {
  // Within one list, an entry's parent is the nearest entry before it with a smaller level.
  const open: TocEntry[] = [];
  items.forEach((item, i) => {
    const at = `${where}[${i}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      toc.skipped.push(`${at}: not an object`);
      return;
    }
    const { title, level, children } = item as Record<string, unknown>;
    const normal = typeof title === 'string' ? normaliseSegments([title])[0] : undefined;
    // One string when normalising changed nothing (the usual case): TOCs reach 100k+ entries.
    const key = normal === title ? (title as string) : normal;
    if (typeof title !== 'string' || key === undefined || key === '') {
      toc.skipped.push(`${at}: no title`);
      return;
    }
    const depthLevel = (parent?.level ?? 0) + 1;
    const stated = typeof level === 'number' && Number.isInteger(level) ? level : depthLevel;
    while (open.length > 0 && open[open.length - 1]!.level >= stated) open.pop();
    const up = open[open.length - 1] ?? parent;
    const stem = ellipsisStem(key);
    const entry: TocEntry = { index: toc.entries.length, title, level: stated, key, stem: stem === '' ? null : stem, parent: up, children: [] };
    toc.entries.push(entry);
    (up ? up.children : toc.roots).push(entry);
    open.push(entry);
    if (Array.isArray(children)) addItems(toc, children, entry, `${at}.children`);
  });
}

export interface TocMatch {
  entry: TocEntry;
  /** The last segment matched the entry's abridged title, not its whole title. */
  abridged: boolean;
}

/** The entry whose path is `segments`, segment by segment: the same title, else an abridged one. */
export function matchToc(toc: Toc, segments: readonly string[]): TocMatch | null {
  let found: TocMatch | null = null;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (i === 0) found = matchAmong(toc.rootIndex, segment);
    else {
      const parent = found!.entry;
      // A few children are scanned; an index (two maps) per entry would cost more than the TOC.
      found = parent.children.length <= SCAN_CHILDREN ? scan(parent.children, segment) : matchAmong((parent.childIndex ??= indexOf(parent.children)), segment);
    }
    if (!found) return null;
  }
  return found;
}

const SCAN_CHILDREN = 16;

function scan(entries: readonly TocEntry[], segment: string): TocMatch | null {
  let best: TocEntry | null = null;
  for (const entry of entries) {
    if (entry.key === segment) return { entry, abridged: false };
    if (entry.stem !== null && segment.startsWith(entry.stem) && (best === null || entry.stem.length > best.stem!.length)) best = entry;
  }
  return best ? { entry: best, abridged: true } : null;
}

function matchAmong(index: ChildIndex, segment: string): TocMatch | null {
  const exact = index.byKey.get(segment);
  if (exact) return { entry: exact, abridged: false };
  // The longest stem that begins the segment: one lookup per length, longest first.
  for (let n = Math.min(index.longestStem, segment.length); n > 0 && index.byStem.size > 0; n--) {
    const entry = index.byStem.get(segment.slice(0, n));
    if (entry) return { entry, abridged: true };
  }
  return null;
}

function indexOf(entries: readonly TocEntry[]): ChildIndex {
  const index: ChildIndex = { byKey: new Map(), byStem: new Map(), longestStem: 0 };
  for (const entry of entries) {
    // The first of two same titles wins, as a scan in TOC order would.
    if (!index.byKey.has(entry.key)) index.byKey.set(entry.key, entry);
    if (entry.stem !== null && !index.byStem.has(entry.stem)) {
      index.byStem.set(entry.stem, entry);
      index.longestStem = Math.max(index.longestStem, entry.stem.length);
    }
  }
  return index;
}
