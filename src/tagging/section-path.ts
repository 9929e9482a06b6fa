import { sha256Hex } from '../runtime/sha256.js';

export const PATH_SEPARATOR = ' > ';

// A '>' with whitespace on both sides separates headings. JS `\s` covers U+00A0, U+2007 and
// U+202F, so "A\u00a0>\u00a0B" and "A  >  B" split too: after whitespace collapsing they would
// print as " > " and must not change meaning when the display path is parsed again.
// Lookarounds, not `\s+>\s+`, so "A > > B" (an empty heading) does not leave "> B" behind.
// A bare '>' ("A>B", "x >y") is part of a title.
const SEPARATOR_RE = /(?<=\s)>(?=\s)/;
const WHITESPACE_RE = /\s+/g;
const MARKDOWN_HINT_RE = /[*_`]/;

const BLANK_RE = /\s/;
const LINE_TERMINATOR_RE = /[\n\r\u2028\u2029]/g;

export interface MarkerRules {
  /** Tried in this order at each position: "**" before "*". */
  readonly markers: readonly string[];
  /** An empty pair ("****") goes too, when no pair with content closes first. */
  readonly empty: boolean;
  /** The content may hold line breaks. */
  readonly lines: boolean;
}

/**
 * Markdown markers unwrapped, left to right: at each position the first marker (in `rules`
 * order) that opens before a non-blank character and closes, as soon as it can, after a non-blank
 * one, is replaced by what it wraps. This is `/(M1|M2|…)(?=\S)(CONTENT)(?<=\S)\1/g` with a lazy
 * content (`(?:[^]*?\S)?` or `.+?`) as a scan: that regex, given an opener with no closer, reads to
 * the end of the text from every opener (quadratic), while here the next closer of each marker is
 * found once and reused (test/patterns/rewrites.property.test.ts holds the two equal).
 */
export function unwrapMarkers(text: string, rules: MarkerRules): string {
  const closers = rules.markers.map((marker) => ({ marker, at: -2 }));
  let lineBreak = -2;
  // The first line terminator at or after `from` (text.length when none): `from` only grows.
  const lineBreakFrom = (from: number): number => {
    if (lineBreak >= from || lineBreak === text.length) return lineBreak;
    LINE_TERMINATOR_RE.lastIndex = from;
    lineBreak = LINE_TERMINATOR_RE.exec(text)?.index ?? text.length;
    return lineBreak;
  };
  // The first closer of a marker at or after `from` that follows a non-blank character; -1 when none.
  const closerFrom = (c: { marker: string; at: number }, from: number): number => {
    if (c.at >= from || c.at === -1) return c.at;
    let p = text.indexOf(c.marker, from);
    while (p >= 0 && BLANK_RE.test(text[p - 1]!)) p = text.indexOf(c.marker, p + 1);
    c.at = p;
    return p;
  };
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    let closed = false;
    for (const c of closers) {
      const width = c.marker.length;
      if (!text.startsWith(c.marker, i) || i + width >= text.length || BLANK_RE.test(text[i + width]!)) continue;
      let close = closerFrom(c, i + width + 1);
      if (close < 0 && rules.empty && text.startsWith(c.marker, i + width)) close = i + width;
      // Content starts with a non-blank (a marker's own second character included): no line break before i + 1.
      if (close < 0 || (!rules.lines && close > lineBreakFrom(i + 1))) continue;
      out += text.slice(copied, i) + text.slice(i + width, close);
      i = close + width;
      copied = i;
      closed = true;
      break;
    }
    if (!closed) i++;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

const STRONG: MarkerRules = { markers: ['**', '__'], empty: true, lines: true };
// Single markers only when they wrap text, so "5 * 3 * 2" and "FM_AIR_INLEAK" survive. Built on
// the first segment with a marker: Unicode-aware, they cost a fraction of a millisecond to parse.
let italicRes: { star: RegExp; underscore: RegExp } | undefined;
const italicRegexes = () =>
  (italicRes ??= {
    star: /(?<![*\p{L}\p{N}])\*(?=[^\s*])([^*]*?[^\s*])\*(?![*\p{L}\p{N}])/gu,
    underscore: /(?<![\p{L}\p{N}_])_(?=[^\s_])([^_]*?[^\s_])_(?![\p{L}\p{N}_])/gu,
  });
const BACKTICK_RE = /`+/g;
const MARKUP_ONLY_RE = /^[\s*_`]*$/;

export function stripMarkdown(segment: string): string {
  if (!MARKDOWN_HINT_RE.test(segment)) return segment;
  // A heading left with nothing but markers ("**", "`") has no title to keep.
  if (MARKUP_ONLY_RE.test(segment)) return '';
  const italic = italicRegexes();
  return unwrapMarkers(segment, STRONG)
    .replace(italic.star, '$1')
    .replace(italic.underscore, '$1')
    .replace(BACKTICK_RE, '');
}

// Segment texts repeat across chunks and documents (the document title heads every path of a
// document, "1. Purpose" opens every procedure): cleaning one is several regex passes, remembering
// it is one lookup. Cleared when full, so memory stays bounded whatever the input.
const SEGMENT_MEMO_LIMIT = 4096;
const cleanSegmentMemo = new Map<string, string>();

function normaliseSegment(segment: string): string {
  let clean = cleanSegmentMemo.get(segment);
  if (clean === undefined) {
    clean = stripMarkdown(segment).normalize('NFC').replace(WHITESPACE_RE, ' ').trim();
    if (cleanSegmentMemo.size >= SEGMENT_MEMO_LIMIT) cleanSegmentMemo.clear();
    cleanSegmentMemo.set(segment, clean);
  }
  return clean;
}

function cleanSegments(raw: readonly string[]): string[] {
  const segments: string[] = [];
  for (const segment of raw) {
    const clean = normaliseSegment(segment);
    if (clean !== '') segments.push(clean);
  }
  return segments;
}

// Consecutive chunks of a document share their path, so remembering the last string path
// skips nearly all the work on the tag hot path. Output depends on the input only.
let lastPath: string | undefined;
let lastSegments: readonly string[] = [];
let lastDisplay = '';

function segmentsOfPath(path: string): readonly string[] {
  if (path !== lastPath) {
    lastSegments = cleanSegments(path.split(SEPARATOR_RE));
    lastDisplay = lastSegments.join(PATH_SEPARATOR);
    lastPath = path;
  }
  return lastSegments;
}

/** A string is split on " > "; an array is already segments and is never split. */
export function normaliseSegments(input: string | readonly string[]): string[] {
  return typeof input === 'string' ? [...segmentsOfPath(input)] : cleanSegments(input);
}

export function displaySectionPath(path: string): string {
  segmentsOfPath(path);
  return lastDisplay;
}

/**
 * At most `maxDepth` segments: the deeper ones are folded into the last kept one, joined with
 * " > ", so the display path is unchanged and a record repeats it a bounded number of times (a
 * 2,000-heading path would otherwise make 2,000 sections, each repeating its whole prefix).
 */
export function capDepth(segments: string[], maxDepth: number): { segments: string[]; folded: boolean } {
  if (segments.length <= maxDepth) return { segments, folded: false };
  const keep = Math.max(1, maxDepth);
  return { segments: [...segments.slice(0, keep - 1), segments.slice(keep - 1).join(PATH_SEPARATOR)], folded: true };
}

// JSON of the segment list (not the joined string) so a segment containing " > " cannot
// collide with two segments.
export function sectionId(docId: string, segments: readonly string[]): string {
  return sectionIdOfSegments(docId, normaliseSegments(segments));
}

/** sectionId of segments already normalised (a folded segment is not cleaned a second time). */
export function sectionIdOfSegments(docId: string, segments: readonly string[]): string {
  const canonical = JSON.stringify([docId, ...segments]);
  return 'sec_' + sha256Hex(canonical).slice(0, 16);
}
