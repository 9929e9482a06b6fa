// Where an item's support is in a source text, and how it matched:
// - exact: the item as written is a substring of the text, on word boundaries;
// - normalised: its tokens occur in sequence after normalisation (evidence-text.ts);
// - partial: one clause (or two adjacent ones) holds at least PARTIAL_MIN of its content words,
//   the score being that share;
// - none: no clause does (the best score is still recorded).
// An item of several sentences with no exact or normalised match is located sentence by sentence
// and is as good as its worst sentence: a true sentence does not carry an invented one.
import { normaliseTokens, normalisedForm, type Clause, type EvidenceText } from './evidence-text.js';

export type MatchKind = 'exact' | 'normalised' | 'partial' | 'none';
export const MATCH_KINDS: readonly MatchKind[] = ['exact', 'normalised', 'partial', 'none'];

/** The share of an item's content words a clause must hold for a partial match. */
export const PARTIAL_MIN = 0.6;

export interface Located {
  match: MatchKind;
  /** 1 for exact and normalised; the covered share of content words otherwise (3 decimals). */
  score: number;
  /** Character spans in the source text, in text order ([] for none). */
  spans: { start: number; end: number }[];
  /** The clause of the text each sentence of the item was found in (for the polarity check). */
  clauses: Clause[];
}

const WORD_CHAR_RE = /[\p{L}\p{N}]/u;
const SENTENCE_SPLIT_RE = /(?<=[.!?;])\s+(?=[\p{Lu}\p{N}"“(])/u;
// Words that carry no claim of their own: a paraphrase may add or drop them freely.
const STOPWORDS = new Set(
  'a an the of to in on at by for from with and or as is are was were be been being it its this that these those there their which who whom than then into onto upon per via during about has have had do does did shall should will would may might can could must also any all each both such same other'.split(' '),
);

const POLARITY_WORDS = new Set(['no', 'not', 'never', 'none', 'neither', 'nor', 'without']);

export function locate(item: string, text: EvidenceText): Located {
  const whole = locateWhole(item, text);
  if (whole.match === 'exact' || whole.match === 'normalised') return whole;
  const sentences = splitSentences(item);
  if (sentences.length < 2) return whole;
  const parts = sentences.map((s) => locateWhole(s.text, text));
  let worst = parts[0]!;
  for (const part of parts) if (rank(part) > rank(worst) || (rank(part) === rank(worst) && part.score < worst.score)) worst = part;
  const match: MatchKind = worst.match === 'exact' || worst.match === 'normalised' ? 'partial' : worst.match;
  return {
    match,
    score: Math.min(...parts.map((p) => p.score)),
    spans: match === 'none' ? [] : mergeSpans(parts.flatMap((p) => p.spans)),
    clauses: parts.flatMap((p) => p.clauses),
  };
}

/** The sentences of an item or a summary, with their offsets in it. */
export function splitSentences(value: string): { text: string; start: number; end: number }[] {
  if (!mayHaveSentenceBreak(value)) {
    // One piece: the split below would give the value itself.
    const trimmed = value.trim();
    if (!WORD_CHAR_RE.test(trimmed)) return [];
    const start = value.indexOf(trimmed);
    return [{ text: trimmed, start, end: start + trimmed.length }];
  }
  const out: { text: string; start: number; end: number }[] = [];
  let at = 0;
  for (const piece of value.split(SENTENCE_SPLIT_RE)) {
    const start = value.indexOf(piece, at);
    at = start + piece.length;
    const trimmed = piece.trim();
    if (WORD_CHAR_RE.test(trimmed)) out.push({ text: trimmed, start: start + piece.indexOf(trimmed), end: start + piece.indexOf(trimmed) + trimmed.length });
  }
  return out;
}

// SENTENCE_SPLIT_RE cuts only after . ! ? or ; followed by whitespace: without such a pair (most
// items: one sentence, its stop at the end) there is nothing to cut. A character beyond ASCII after
// the mark may be Unicode whitespace: the pattern decides then.
function mayHaveSentenceBreak(value: string): boolean {
  const n = value.length - 1;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c === 46 || c === 33 || c === 63 || c === 59) {
      const next = value.charCodeAt(i + 1);
      if (next <= 32 || next >= 128) return true;
    }
  }
  return false;
}

function locateWhole(item: string, text: EvidenceText): Located {
  const trimmed = item.trim();
  const exact = exactAt(trimmed, text.raw);
  if (exact >= 0) {
    const span = { start: exact, end: exact + trimmed.length };
    return { match: 'exact', score: 1, spans: [span], clauses: clausesCovering(text, span) };
  }
  const found = text.findNormalised(normalisedForm(trimmed));
  if (found.length > 0) {
    const { start, end, first } = found[0]!;
    const clause = text.clauseOf(first);
    return { match: 'normalised', score: 1, spans: [{ start, end }], clauses: clause === null ? [] : [clause] };
  }
  return partial(trimmed, text);
}

// First occurrence on word boundaries: "6" is not exactly in "6.2", nor "P-101" in "P-101A".
export function exactAt(needle: string, hay: string): number {
  if (needle === '') return -1;
  const checkStart = isWordChar(needle[0]!);
  const checkEnd = isWordChar(needle.at(-1)!);
  const bounded = (at: number): boolean => {
    if (checkStart && glued(at > 0 ? hay[at - 1]! : '', at >= 2 ? hay[at - 2]! : '')) return false;
    return !(checkEnd && glued(hay[at + needle.length] ?? '', hay[at + needle.length + 1] ?? ''));
  };
  const first = hay.indexOf(needle);
  if (first < 0 || bounded(first)) return first;
  return nextOccurrence(needle, hay, first + 1, bounded);
}

/**
 * The first occurrence of `needle` in `hay` from `from` on that `accept`s, by Knuth-Morris-Pratt:
 * one pass over the hay. indexOf from each next position would compare the needle again at every
 * overlapping start, the needle's length times the hay's on a run of one character (an item that
 * quotes a long token of the text).
 */
function nextOccurrence(needle: string, hay: string, from: number, accept: (at: number) => boolean): number {
  const m = needle.length;
  // fail[i]: the length of the longest proper border of needle[0..i].
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && needle.charCodeAt(i) !== needle.charCodeAt(k)) k = fail[k - 1]!;
    if (needle.charCodeAt(i) === needle.charCodeAt(k)) k++;
    fail[i] = k;
  }
  for (let i = from, k = 0; i < hay.length; i++) {
    const c = hay.charCodeAt(i);
    while (k > 0 && c !== needle.charCodeAt(k)) k = fail[k - 1]!;
    if (c === needle.charCodeAt(k)) k++;
    if (k === m) {
      if (accept(i - m + 1)) return i - m + 1;
      k = fail[k - 1]!;
    }
  }
  return -1;
}

// A neighbour glues when it is a word character, or a joiner ('-', '_', '.') with one beyond it.
function glued(next: string, beyond: string): boolean {
  if (next === '') return false;
  if (isWordChar(next)) return true;
  return (next === '-' || next === '_' || next === '.') && isWordChar(beyond) && (next !== '.' || /\d/.test(beyond));
}

/** WORD_CHAR_RE.test(ch) for one character (or ''), with ASCII read by code. */
function isWordChar(ch: string): boolean {
  if (ch.length === 1) {
    const c = ch.charCodeAt(0);
    if (c < 128) return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
  }
  return WORD_CHAR_RE.test(ch);
}

function partial(item: string, text: EvidenceText): Located {
  const words = contentWords(item);
  if (words.length === 0 || text.clauses.length === 0) return { match: 'none', score: 0, spans: [], clauses: [] };
  // Per clause (and pair of adjacent clauses), how many of the words it holds: read from the
  // text's stem index (built once per text) rather than by scanning every clause for every item.
  const clauses = text.clauses;
  const n = clauses.length;
  const hits = stemHits(text, words);
  const inOne = new Int32Array(n);
  const inBoth = new Int32Array(n);
  for (const list of hits) {
    if (list === undefined) continue;
    for (let k = 0; k < list.length; k += 2) {
      const c = list[k]!;
      inOne[c]!++;
      if (k + 2 < list.length && list[k + 2] === c + 1) inBoth[c]!++;
    }
  }
  let best = { score: 0, rank: 0, from: 0, to: 0 };
  for (let c = 0; c < n; c++) {
    for (const width of [1, 2]) {
      if (c + width > n) break;
      const covered = width === 1 ? inOne[c]! : inOne[c]! + inOne[c + 1]! - inBoth[c]!;
      const score = covered / words.length;
      // A wider window must do strictly better than a single clause to be preferred.
      const rankScore = score - (width === 2 ? 1e-6 : 0);
      if (rankScore > best.rank) best = { score, rank: rankScore, from: c, to: c + width };
    }
  }
  const score = Math.round(best.score * 1000) / 1000;
  if (best.score < PARTIAL_MIN) return { match: 'none', score, spans: [], clauses: [] };
  // Each word's first token in the window: from its first clause, else the next.
  let lo = Infinity;
  let hi = -Infinity;
  for (const list of hits) {
    if (list === undefined) continue;
    for (let k = 0; k < list.length; k += 2) {
      const c = list[k]!;
      if (c >= best.from && c < best.to) {
        const t = list[k + 1]!;
        if (t < lo) lo = t;
        if (t > hi) hi = t;
        break;
      }
    }
  }
  const span = { start: text.tokens[lo]!.start, end: text.tokens[hi]!.end };
  return { match: 'partial', score, spans: [span], clauses: clauses.slice(best.from, best.to) };
}

// Texts with this many partial lookups or fewer are scanned per item; after that the stem index
// is built (most texts see one: the one item of a view not in the text as written).
const SCANNED_LOOKUPS = 2;

/** Per word: [clause, first token with that stem in the clause, …], clauses ascending; as the stem index gives it. */
function stemHits(text: EvidenceText, words: readonly string[]): (number[] | undefined)[] {
  const lookups = (text.derived.partialLookups ?? 0) + 1;
  text.derived.partialLookups = lookups;
  if (lookups > SCANNED_LOOKUPS || text.derived.stemIndex !== undefined) {
    const index = stemIndexOf(text);
    return words.map((w) => index.get(w));
  }
  // A stem is a prefix of its word (stem() only cuts its end): a token whose start differs from
  // every word is not stemmed at all.
  const hits: (number[] | undefined)[] = words.map(() => undefined);
  const { tokens, clauses } = text;
  for (let c = 0; c < clauses.length; c++) {
    const clause = clauses[c]!;
    for (let t = clause.first; t < clause.last; t++) {
      const norm = tokens[t]!.norm;
      let stemmed: string | null = null;
      for (let j = 0; j < words.length; j++) {
        const w = words[j]!;
        if (norm.charCodeAt(0) !== w.charCodeAt(0) || !norm.startsWith(w)) continue;
        stemmed ??= stem(norm);
        if (stemmed !== w) continue;
        const list = (hits[j] ??= []);
        if (list.length === 0 || list[list.length - 2] !== c) list.push(c, t);
      }
    }
  }
  return hits;
}

// Per stem of a text: [clause, first token of the stem in that clause, …], clauses ascending.
function stemIndexOf(text: EvidenceText): Map<string, number[]> {
  let index = text.derived.stemIndex;
  if (index !== undefined) return index;
  index = new Map();
  const stems = stemsOf(text);
  text.clauses.forEach((clause, c) => {
    for (let t = clause.first; t < clause.last; t++) {
      const s = stems[t]!;
      let list = index!.get(s);
      if (list === undefined) index!.set(s, (list = []));
      if (list.length === 0 || list[list.length - 2] !== c) list.push(c, t);
    }
  });
  text.derived.stemIndex = index;
  return index;
}

function stemsOf(text: EvidenceText): string[] {
  return (text.derived.stems ??= text.tokens.map((t) => stem(t.norm)));
}

/** Content words of a string, normalised and stemmed, each once. */
export function contentWords(value: string): string[] {
  // Negation words are left out too: where an item is found must not depend on its polarity,
  // which is checked on its own (claims.ts), against the clause it was found in.
  const words = normaliseTokens(value).filter((w) => !STOPWORDS.has(w) && !POLARITY_WORDS.has(w) && /[\p{L}\p{N}]/u.test(w));
  return [...new Set(words.map(stem))];
}

/** A light suffix fold, the same on both sides: "tripped" ~ "trip", "pumps" ~ "pump". */
export function stem(word: string): string {
  if (word.length <= 3 || !allLetters(word)) return word;
  let base = word;
  if (word.endsWith('ing') && word.length >= 6) base = word.slice(0, -3);
  else if (word.endsWith('ed') && word.length >= 5) base = word.slice(0, -2);
  // "switches", "boxes", "passes": -es; "tubes", "valves": -s.
  else if (/(?:ch|sh|ss|x|z)es$/.test(word)) base = word.slice(0, -2);
  else if (word.endsWith('s') && !word.endsWith('ss')) base = word.slice(0, -1);
  // "tripped" → "tripp" → "trip"
  if (base !== word && base.length > 3 && base.at(-1) === base.at(-2) && !base.endsWith('ss') && !base.endsWith('ll')) base = base.slice(0, -1);
  // "started"/"starting" → "start"; "closed" → "clos" and "close" → "close": fold a final e.
  if (base.length > 3 && base.endsWith('e')) base = base.slice(0, -1);
  return base;
}

// /^\p{L}+$/u, with ASCII read by code (every text word is stemmed).
function allLetters(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 128) return LETTERS_RE.test(word);
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90))) return false;
  }
  return true;
}
const LETTERS_RE = /^\p{L}+$/u;

function rank(l: Located): number {
  return MATCH_KINDS.indexOf(l.match);
}

// Clauses are in text order and do not overlap: the ones a span touches are a run, found by
// binary search for the first that ends after the span starts.
function clausesCovering(text: EvidenceText, span: { start: number; end: number }): Clause[] {
  const clauses = text.clauses;
  let lo = 0;
  let hi = clauses.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (clauses[mid]!.end > span.start) hi = mid;
    else lo = mid + 1;
  }
  const out: Clause[] = [];
  for (let i = lo; i < clauses.length && clauses[i]!.start < span.end; i++) if (clauses[i]!.end > span.start) out.push(clauses[i]!);
  return out;
}

function mergeSpans(spans: { start: number; end: number }[]): { start: number; end: number }[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const out: { start: number; end: number }[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last !== undefined && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}
