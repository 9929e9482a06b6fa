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

// Content optional so an empty "****" goes too.
const STRONG_RE = /(\*\*|__)(?=\S)((?:[^]*?\S)?)\1/g;
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
  return segment
    .replace(STRONG_RE, '$2')
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
