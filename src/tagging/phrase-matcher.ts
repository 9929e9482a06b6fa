// One-pass phrase matching over a token trie: the text is tokenized once, then every token
// position walks the trie as far as the following tokens allow and keeps the longest phrase that
// ends there. Cost is linear in the text (times the deepest phrase), whatever the phrase count.
//
// Tokens, for phrases and text alike:
// - a word is a maximal run of letters, digits, combining marks and `_` (so `FM_AIR_INLEAK`
//   stays one word);
// - whitespace (any `\s`, NBSP included) only separates tokens, so phrases are
//   whitespace-flexible;
// - a hyphen between two word characters (`o-ring`, `P-101A`) joins a compound: inside a phrase
//   it is equivalent to a space, but a match never starts or ends inside a compound, so `pump`
//   is not found in `pump-house` and `PT` is not found in `PT-1102`;
// - every other character (a stray hyphen included) is a one-character token that must match
//   literally: `I&C`, `I/O`, `approx.`. Classes are per UTF-16 code unit, so characters outside
//   the BMP count as punctuation.
// Words compare case-insensitively and exactly: `pump` does not match `pumps`.

const WORD = 1;
const SPACE = 2;
const HYPHEN = 3;
const PUNCT = 4;

const WORD_CHAR = /^[\p{L}\p{N}\p{M}_]$/u;
const SPACE_CHAR = /^\s$/u;

// Filled lazily: classifying a code unit with a regex once is cheap, doing it per character is not.
const charClasses = new Uint8Array(0x10000);

function classifySlow(code: number): number {
  const char = String.fromCharCode(code);
  let kind = PUNCT;
  if (code === 0x2d || code === 0x2010 || code === 0x2011) kind = HYPHEN;
  else if (WORD_CHAR.test(char)) kind = WORD;
  else if (SPACE_CHAR.test(char)) kind = SPACE;
  charClasses[code] = kind;
  return kind;
}

function charClass(code: number): number {
  const kind = charClasses[code] ?? 0;
  return kind === 0 ? classifySlow(code) : kind;
}

for (let code = 0; code < 128; code++) classifySlow(code);

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
// 30 bits keep the Map keys small integers (no boxed numbers on the lookup path).
const HASH_MASK = 0x3fffffff;
const FIRST_TOKEN_FILTER_BITS = 1 << 16;

/** Tokens of one text, held in typed arrays owned by the buffer: valid until its next `load`. */
export class TokenBuffer {
  text = '';
  /** `text` lowercased, same length (offsets are shared). */
  lower = '';
  count = 0;
  starts = new Int32Array(256);
  ends = new Int32Array(256);
  hashes = new Int32Array(256);
  /** 1 when the token is hyphen-joined to the next one. */
  joined = new Uint8Array(256);

  load(text: string): this {
    let lower = text.toLowerCase();
    // U+0130 is the only code unit whose lowercase is longer; offsets must stay shared.
    if (lower.length !== text.length) lower = text.replace(/\u0130/g, 'I').toLowerCase();
    const n = lower.length;
    // A text has at most one token per code unit: size once, then write without checks. The
    // buffers keep the size of the longest text seen (13 bytes per code unit).
    if (this.starts.length < n) this.grow(n);
    const { starts, ends, hashes, joined } = this;
    const classes = charClasses;
    let count = 0;
    let i = 0;
    while (i < n) {
      const code = lower.charCodeAt(i);
      let kind = classes[code]!;
      if (kind === 0) kind = classifySlow(code);
      if (kind === SPACE) {
        i++;
        continue;
      }
      if (kind !== WORD) {
        starts[count] = i;
        ends[count] = i + 1;
        hashes[count] = Math.imul(FNV_OFFSET ^ code, FNV_PRIME) & HASH_MASK;
        joined[count] = 0;
        count++;
        i++;
        continue;
      }
      const start = i;
      let hash = Math.imul(FNV_OFFSET ^ code, FNV_PRIME);
      i++;
      let next = 0;
      while (i < n) {
        next = lower.charCodeAt(i);
        kind = classes[next]!;
        if (kind === 0) kind = classifySlow(next);
        if (kind !== WORD) break;
        hash = Math.imul(hash ^ next, FNV_PRIME);
        i++;
      }
      starts[count] = start;
      ends[count] = i;
      hashes[count] = hash & HASH_MASK;
      joined[count] = 0;
      if (kind === HYPHEN && i + 1 < n && charClass(lower.charCodeAt(i + 1)) === WORD) {
        joined[count] = 1;
        i++;
      }
      count++;
    }
    this.text = text;
    this.lower = lower;
    this.count = count;
    return this;
  }

  private grow(minimum: number): void {
    let size = this.starts.length;
    while (size < minimum) size *= 2;
    this.starts = new Int32Array(size);
    this.ends = new Int32Array(size);
    this.hashes = new Int32Array(size);
    this.joined = new Uint8Array(size);
  }
}

export interface PhraseSpec<P> {
  phrase: string;
  payload: P;
  /** Match the phrase's words with their exact case (used for acronyms such as `PUT` or `HR`). */
  caseSensitive?: boolean;
}

export interface PhraseMatch<P> {
  start: number;
  end: number;
  text: string;
  payloads: readonly P[];
}

export type MatchHandler<P> = (start: number, end: number, payloads: readonly P[]) => void;

export interface PhraseMatcher<P> {
  /** Calls `onMatch` for each longest, non-overlapping match, left to right (character offsets). */
  scan(tokens: TokenBuffer, onMatch: MatchHandler<P>): void;
  /** Tokenizes and scans; for tests and one-off use (the hot path reuses a TokenBuffer). */
  matchAll(text: string): PhraseMatch<P>[];
}

/** `merge`: a phrase added twice carries every distinct payload; `keep-first`: later ones are dropped. */
export type DuplicatePolicy = 'merge' | 'keep-first';

interface ExactEntry<P> {
  words: string[];
  payload: P;
}

interface TrieNode<P> {
  token: string;
  /** Next node whose token has the same hash. */
  sibling: TrieNode<P> | null;
  children: Map<number, TrieNode<P>> | null;
  payloads: P[] | null;
  exact: ExactEntry<P>[] | null;
}

function newNode<P>(token: string): TrieNode<P> {
  return { token, sibling: null, children: null, payloads: null, exact: null };
}

function sameToken(lower: string, start: number, end: number, token: string): boolean {
  if (end - start !== token.length) return false;
  for (let k = 0; k < token.length; k++) {
    if (lower.charCodeAt(start + k) !== token.charCodeAt(k)) return false;
  }
  return true;
}

function findChild<P>(children: Map<number, TrieNode<P>>, hash: number, lower: string, start: number, end: number): TrieNode<P> | null {
  let node = children.get(hash) ?? null;
  while (node !== null && !sameToken(lower, start, end, node.token)) node = node.sibling;
  return node;
}

const COLLAPSIBLE = /\s\s|[^\S ]/;
const WHITESPACE_RUN = /\s+/g;

/** The text of a match as written, internal whitespace collapsed to single spaces. */
export function surfaceText(text: string, start: number, end: number): string {
  const raw = text.slice(start, end);
  return COLLAPSIBLE.test(raw) ? raw.replace(WHITESPACE_RUN, ' ') : raw;
}

export function buildPhraseMatcher<P>(specs: Iterable<PhraseSpec<P>>, onDuplicate: DuplicatePolicy = 'merge'): PhraseMatcher<P> {
  const root = new Map<number, TrieNode<P>>();
  const buffer = new TokenBuffer();
  // Most tokens start no phrase: one bit test skips their Map lookup.
  const firstTokens = new Uint8Array(FIRST_TOKEN_FILTER_BITS >>> 3);

  for (const spec of specs) {
    const tokens = buffer.load(spec.phrase);
    if (tokens.count === 0) continue;
    let children = root;
    let node: TrieNode<P> | null = null;
    const firstHash = tokens.hashes[0]! & (FIRST_TOKEN_FILTER_BITS - 1);
    firstTokens[firstHash >>> 3]! |= 1 << (firstHash & 7);
    for (let k = 0; k < tokens.count; k++) {
      const start = tokens.starts[k] ?? 0;
      const end = tokens.ends[k] ?? 0;
      const hash = tokens.hashes[k] ?? 0;
      let child = findChild(children, hash, tokens.lower, start, end);
      if (child === null) {
        child = newNode<P>(tokens.lower.slice(start, end));
        child.sibling = children.get(hash) ?? null;
        children.set(hash, child);
      }
      node = child;
      if (k < tokens.count - 1) children = node.children ??= new Map();
    }
    if (node === null) continue;
    if (onDuplicate === 'keep-first' && (node.payloads !== null || node.exact !== null)) continue;
    if (spec.caseSensitive === true) {
      const words: string[] = [];
      for (let k = 0; k < tokens.count; k++) words.push(tokens.text.slice(tokens.starts[k], tokens.ends[k]));
      const exact = (node.exact ??= []);
      if (!exact.some((e) => e.payload === spec.payload && e.words.join(' ') === words.join(' '))) {
        exact.push({ words, payload: spec.payload });
      }
    } else {
      const payloads = (node.payloads ??= []);
      if (!payloads.includes(spec.payload)) payloads.push(spec.payload);
    }
  }

  // Payloads of `node` that accept the tokens first..last; null when none does.
  function accepted(node: TrieNode<P>, tokens: TokenBuffer, first: number): readonly P[] | null {
    if (node.exact === null) return node.payloads;
    let extra: P[] | null = null;
    for (const entry of node.exact) {
      let same = true;
      for (let k = 0; k < entry.words.length && same; k++) {
        same = sameToken(tokens.text, tokens.starts[first + k] ?? 0, tokens.ends[first + k] ?? 0, entry.words[k] ?? '');
      }
      if (!same) continue;
      extra ??= node.payloads === null ? [] : [...node.payloads];
      if (!extra.includes(entry.payload)) extra.push(entry.payload);
    }
    return extra ?? node.payloads;
  }

  function scan(tokens: TokenBuffer, onMatch: MatchHandler<P>): void {
    const { count, starts, ends, hashes, joined, lower } = tokens;
    let i = 0;
    while (i < count) {
      // A match may not start inside a hyphenated compound.
      if (i > 0 && joined[i - 1] === 1) {
        i++;
        continue;
      }
      const firstHash = hashes[i]! & (FIRST_TOKEN_FILTER_BITS - 1);
      if ((firstTokens[firstHash >>> 3]! & (1 << (firstHash & 7))) === 0) {
        i++;
        continue;
      }
      let children: Map<number, TrieNode<P>> | null = root;
      let bestLast = -1;
      let bestPayloads: readonly P[] | null = null;
      for (let j = i; j < count && children !== null; j++) {
        const child: TrieNode<P> | null = findChild(children, hashes[j] ?? 0, lower, starts[j] ?? 0, ends[j] ?? 0);
        if (child === null) break;
        if (joined[j] !== 1 && (child.payloads !== null || child.exact !== null)) {
          const payloads = accepted(child, tokens, i);
          if (payloads !== null) {
            bestLast = j;
            bestPayloads = payloads;
          }
        }
        children = child.children;
      }
      if (bestPayloads === null) {
        i++;
        continue;
      }
      onMatch(starts[i] ?? 0, ends[bestLast] ?? 0, bestPayloads);
      i = bestLast + 1;
    }
  }

  return {
    scan,
    matchAll(text: string): PhraseMatch<P>[] {
      const matches: PhraseMatch<P>[] = [];
      scan(new TokenBuffer().load(text), (start, end, payloads) => {
        matches.push({ start, end, text: surfaceText(text, start, end), payloads });
      });
      return matches;
    },
  };
}
