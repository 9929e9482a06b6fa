// A source text prepared for locating items in it: a normalised copy that keeps, for every
// character, its offset in the original (so a match found after normalisation is still a span of
// the text an analyst reads), its tokens, and its clauses. Normalisation folds what does not
// change meaning: Unicode compatibility forms, case, runs of whitespace, punctuation and markdown
// (table pipes, emphasis), hyphen variants and thousands separators ("1,175" = "1175").
// Hyphens and underscores between letters or digits stay: "P-101A" is one token, and "101a" is not in it.
// A word hyphenated at a line end is one token, as a reader reads it: "equip-\nment" is "equipment",
// "pre-\nexisting" is "pre-existing".

import { wrapHyphenAt } from '../tagging/layout.js';

const HYPHEN_VARIANTS_RE = /[\u2010\u2011\u2012\u2212]/;
const APOSTROPHES_RE = /[\u2018\u2019\u02bc]/;
const WORD_RE = /[\p{L}\p{N}]/u;
const DIGIT_RE = /\d/;
// Symbols that carry meaning in a limit: kept as tokens of their own.
const SYMBOLS = new Set(['%', '°', '<', '>', '≤', '≥', '=', '±']);
// Clause ends for polarity and partial matching: sentence punctuation, line breaks, table rows
// flattened into one line ("| a | b | | c | d |" — an empty cell pair separates two rows), and
// the conjunctions that start a clause of its own ("…, although no cracking was found"). The
// blank run before a conjunction is tried from its first character (after a comma, the comma's),
// or just after a line break (which is a boundary of its own) up to the next one, never again from
// each character of the run, which read it to its end each time. A start given up inside a run
// only ever put a boundary in the same gap between two tokens, which closes no other clause.
const CLAUSE_END_RE = /[.!?;](?=\s|$)|\n|\|\s*\|(?=\s*[^\s|-])|(?:,\s+|(?<![\s,])\s+|(?<=\n)[^\S\n]+)(?:although|but|however|whereas|while|though)\s+/giu;

export interface Token {
  /** The normalised token ("p-101a", "1175", "mils"). */
  norm: string;
  /** Its span in the original text. */
  start: number;
  end: number;
}

export interface Clause {
  start: number;
  end: number;
  /** Indexes into the token list: [first, last). */
  first: number;
  last: number;
}

/**
 * What the matching and claim modules derive from a text, built on first use and held by the
 * text itself: a WeakMap per derivation would cost the collector an ephemeron pass per text.
 */
export interface DerivedOfText {
  stems?: string[];
  quantities?: Map<string, unknown[]>;
  clauseCues?: Map<Clause, number[]>;
  /** claims.ts: the turn words of a clause ("therefore", ", resulting"), where a negation's scope ends. */
  clauseTurns?: Map<Clause, number[]>;
  words?: Set<string>;
  /** Words looked up before the set was built: claims.ts's hasWord. */
  wordsAsked?: Map<string, boolean>;
}

/** A text prepared once for many lookups. */
export class EvidenceText {
  readonly derived: DerivedOfText = {};
  private normText: string | null = null;
  private normStartsOf: Int32Array | null = null;
  readonly tokens: Token[];
  readonly clauses: Clause[];

  constructor(readonly raw: string) {
    // Not through the cache of recent strings: a text is prepared once (GroundingText shares it),
    // and keying the cache by it would hash every text in full.
    this.tokens = tokenizeUncached(raw);
    this.clauses = clausesOf(raw, this.tokens);
  }

  /** Normalised text: the tokens joined by single spaces, with a leading and a trailing space.
   *  Built on first use: only an item that is not in the text as written needs it. */
  get norm(): string {
    if (this.normText === null) {
      const starts = new Int32Array(this.tokens.length);
      const parts: string[] = [' '];
      let at = 1;
      this.tokens.forEach((token, i) => {
        starts[i] = at;
        parts.push(token.norm, ' ');
        at += token.norm.length + 1;
      });
      this.normText = parts.join('');
      this.normStartsOf = starts;
    }
    return this.normText;
  }

  /** Position in `norm` of each token's first character, ascending (a typed array, not a map:
   *  a chunk of many megabytes has millions of tokens). */
  private get normStarts(): Int32Array {
    if (this.normStartsOf === null) void this.norm;
    return this.normStartsOf!;
  }

  /** The index of the token whose normalised form starts at `at` in `norm`, if one does. */
  private tokenAtNorm(at: number): number | undefined {
    let lo = 0;
    let hi = this.normStarts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.normStarts[mid]!;
      if (v === at) return mid;
      if (v < at) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /**
   * Spans (first and last token) where the needle occurs on token boundaries, in text order. The
   * needle is given normalised (normalisedForm).
   */
  findNormalised(needle: string, limit = 1): { start: number; end: number; first: number; last: number }[] {
    if (needle === '') return [];
    // Token norms hold no space, so a match starts with a token whose norm is the needle's first
    // token: a text without one has no match, and its joined copy need not be built to say so.
    if (this.normText === null) {
      const space = needle.indexOf(' ');
      const first = space < 0 ? needle : needle.slice(0, space);
      if (!this.tokens.some((t) => t.norm === first)) return [];
    }
    const count = needle.split(' ').length;
    const found: { start: number; end: number; first: number; last: number }[] = [];
    const target = ` ${needle} `;
    for (let at = this.norm.indexOf(target); at >= 0 && found.length < limit; at = this.norm.indexOf(target, at + 1)) {
      const first = this.tokenAtNorm(at + 1);
      if (first === undefined) continue;
      const last = first + count - 1;
      found.push({ start: this.tokens[first]!.start, end: this.tokens[last]!.end, first, last });
    }
    return found;
  }

  /** The clause holding token `index`. */
  clauseOf(index: number): Clause | null {
    // Clauses are consecutive token ranges in text order: a binary search.
    const { clauses } = this;
    let lo = 0;
    let hi = clauses.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const clause = clauses[mid]!;
      if (index < clause.first) hi = mid - 1;
      else if (index >= clause.last) lo = mid + 1;
      else return clause;
    }
    return null;
  }
}

/** The tokens of a string with their offsets (what EvidenceText holds for a text). */
export function tokensOf(value: string): readonly Token[] {
  return tokenize(value);
}


/** The normalised tokens of a string (what EvidenceText holds for a text). */
export function normaliseTokens(value: string): string[] {
  return tokenize(value).map((t) => t.norm);
}

/** The normalised form of a string, tokens joined by single spaces. */
export function normalisedForm(value: string): string {
  return normaliseTokens(value).join(' ');
}

// One pass over the text: each character is folded (NFKC, lower case) and either joins the
// current token, separates tokens, or is a symbol token of its own. Thousands separators and
// decimal points between digits join, hyphens and underscores between word characters join.
// Items are tokenized several times (located, checked for units, entities, negation): the last
// strings seen are kept, so each is read once. A few records' worth: an item's checks follow one
// another, and an item repeated in a record reuses its findings (evidence.ts); thousands of kept
// token lists only lived long enough to cost the collector.
const TOKEN_CACHE_MAX = 256;
const tokenCache = new Map<string, Token[]>();

function tokenize(raw: string): Token[] {
  const cached = tokenCache.get(raw);
  if (cached !== undefined) return cached;
  const tokens = tokenizeUncached(raw);
  if (raw.length <= 2000) {
    if (tokenCache.size >= TOKEN_CACHE_MAX) tokenCache.clear();
    tokenCache.set(raw, tokens);
  }
  return tokens;
}

// Token strings are built a character at a time, which V8 keeps as a chain of pieces; interning
// flattens each once and shares the repeats (a large chunk repeats its words many times).
const INTERN_MAX = 65_536;
let interned = new Map<string, string>();
function intern(value: string): string {
  const known = interned.get(value);
  if (known !== undefined) return known;
  if (interned.size >= INTERN_MAX) interned = new Map();
  interned.set(value, value);
  return value;
}

// Texts up to this many characters are tokenized without interning (their token strings are few
// and flat already); larger ones share the repeats of their words.
const INTERN_FROM_CHARS = 64 * 1024;

function tokenizeUncached(raw: string): Token[] {
  const tokens: Token[] = [];
  const share = raw.length > INTERN_FROM_CHARS;
  // While a token is made only of ASCII characters that fold to themselves or their lower case,
  // each one taken as it is ("simple"), its normalised form is a slice of the text, lower-cased at
  // its end; otherwise it is built a character at a time (`norm`). The state lives in locals,
  // not in closures over them (which would keep it in a heap context read on every character):
  // ending a token is pushToken and a reset, written out where it happens.
  let simple = true;
  let norm = '';
  let start = -1;
  let end = -1;
  const n = raw.length;
  for (let i = 0; i < n; ) {
    const code = raw.charCodeAt(i);
    if (code < 128 && ((code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90))) {
      // An ASCII letter or digit: joins the token.
      if (start < 0) start = i;
      if (!simple) norm += code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : raw[i]!;
      end = i + 1;
      i++;
      continue;
    }
    // Any other ASCII character but the joiners (, . - _) and the symbols (% < > =) only ends a
    // token (spaces, most punctuation): as the general path below does, without folding it.
    if (code < 128 && code !== 44 && code !== 46 && code !== 45 && code !== 95 && code !== 37 && code !== 60 && code !== 62 && code !== 61) {
      if (start >= 0) pushToken(tokens, raw, start, end, simple, norm, share);
      norm = '';
      start = -1;
      simple = true;
      i++;
      continue;
    }
    const width = code >= 0xd800 && code <= 0xdbff && i + 1 < n ? 2 : 1;
    const folded = fold(raw, i);
    // Leaving the slice form (`built` below): the token so far, as it would have been built.
    if (isWord(folded)) {
      if (simple) {
        norm = start >= 0 ? raw.slice(start, i).toLowerCase() : '';
        simple = false;
      }
      if (start < 0) start = i;
      norm += folded;
      end = i + width;
      i += width;
      continue;
    }
    let ends = true;
    if (folded === ',' || folded === '.' || folded === '-' || folded === '_') {
      const prev = start < 0 ? '' : simple ? raw[i - 1]! : (norm.at(-1) ?? '');
      const next = i + width < n ? fold(raw, i + width) : '';
      if (folded === ',' && DIGIT_RE.test(prev) && /^\d{3}(?!\d)/.test(raw.slice(i + 1, i + 5).normalize('NFKC'))) {
        // "1,175": the separator is dropped, the number stays one token.
        if (simple) {
          norm = start >= 0 ? raw.slice(start, i).toLowerCase() : '';
          simple = false;
        }
        end = i + width;
        ends = false;
      } else if (folded === '.' && DIGIT_RE.test(prev) && DIGIT_RE.test(next)) {
        if (code !== 46 && simple) {
          norm = start >= 0 ? raw.slice(start, i).toLowerCase() : '';
          simple = false;
        }
        if (!simple) norm += '.';
        end = i + width;
        ends = false;
      } else if ((folded === '-' || folded === '_') && prev !== '' && isWord(prev) && isWord(next)) {
        if (code !== 45 && simple) {
          norm = start >= 0 ? raw.slice(start, i).toLowerCase() : '';
          simple = false;
        }
        if (!simple) norm += '-';
        end = i + width;
        ends = false;
      } else if (code === 45 && start >= 0 && (next === '\n' || next === ' ' || next === '\r' || next === '\t')) {
        // A word hyphenated at a line end: one token, as a reader reads it (tagging/layout.ts):
        // "equip-\nment" is "equipment", "pre-\nexisting" is "pre-existing".
        const wrap = wrapHyphenAt(raw, i);
        if (wrap !== null) {
          if (simple) {
            norm = raw.slice(start, i).toLowerCase();
            simple = false;
          }
          if (!wrap.dropped) norm += '-';
          i = wrap.resume;
          continue;
        }
      }
    }
    if (ends) {
      if (start >= 0) pushToken(tokens, raw, start, end, simple, norm, share);
      norm = '';
      start = -1;
      simple = true;
      if (SYMBOLS.has(folded)) tokens.push({ norm: folded, start: i, end: i + width });
    }
    i += width;
  }
  if (start >= 0) pushToken(tokens, raw, start, end, simple, norm, share);
  return tokens;
}

/** Ends the token [start, end) of `raw`: its normalised form (the slice lower-cased, or `norm` as built), numbers without trailing zeros. */
function pushToken(tokens: Token[], raw: string, start: number, end: number, simple: boolean, norm: string, share: boolean): void {
  let value = simple ? raw.slice(start, end).toLowerCase() : norm;
  // Number formatting: "5.0" and "5.00" are "5", "6.20" is "6.2".
  if (value.includes('.')) value = withoutTrailingZeros(value);
  if (value !== '') tokens.push({ norm: share ? intern(value) : value, start, end });
}

function isWord(ch: string): boolean {
  if (ch.length === 1) {
    const c = ch.charCodeAt(0);
    if (c < 128) return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
  }
  return WORD_RE.test(ch);
}

// The folded form of the character at i: ASCII by table, anything else through NFKC.
function fold(raw: string, i: number): string {
  const c = raw.charCodeAt(i);
  if (c < 128) return c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : raw[i]!;
  const ch = String.fromCodePoint(raw.codePointAt(i)!);
  if (HYPHEN_VARIANTS_RE.test(ch)) return '-';
  if (APOSTROPHES_RE.test(ch)) return "'";
  const f = ch.normalize('NFKC').toLowerCase();
  // A compatibility form that expands ("ﬁ", "½") keeps only its word characters.
  return f.length === 1 ? f : f.replace(/[^\p{L}\p{N}]/gu, '') || ' ';
}

function clausesOf(raw: string, tokens: Token[]): Clause[] {
  const bounds: number[] = [];
  for (const m of raw.matchAll(CLAUSE_END_RE)) bounds.push(m.index!);
  const clauses: Clause[] = [];
  let first = 0;
  let b = 0;
  for (let i = 0; i <= tokens.length; i++) {
    const token = tokens[i];
    // A clause closes before the first token that starts after the next boundary.
    while (b < bounds.length && token !== undefined && token.start > bounds[b]!) {
      if (i > first) clauses.push({ start: tokens[first]!.start, end: tokens[i - 1]!.end, first, last: i });
      first = i;
      b++;
    }
    if (token === undefined && i > first) clauses.push({ start: tokens[first]!.start, end: tokens[i - 1]!.end, first, last: i });
  }
  return clauses;
}

/**
 * "5.0" and "5.00" → "5", "6.20" → "6.2": digits, a point, digits ending in zeros; anything else as
 * it is. One pass: `^(\d+)\.(\d*?)0+$` tries every split of the zeros between its two quantifiers.
 */
export function withoutTrailingZeros(value: string): string {
  const point = value.indexOf('.');
  if (point <= 0 || !value.endsWith('0')) return value;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (i !== point && (code < 0x30 || code > 0x39)) return value;
  }
  let end = value.length;
  while (end > point + 1 && value.charCodeAt(end - 1) === 0x30) end--;
  return value.slice(0, end === point + 1 ? point : end);
}
