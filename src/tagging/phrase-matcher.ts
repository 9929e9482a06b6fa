// One-pass phrase matching over a token trie: the text is tokenized once, then every token
// position walks the trie as far as the following tokens allow and keeps the longest phrase that
// ends there. Cost is linear in the text (times the deepest phrase), whatever the phrase count.
// Several phrase lists can share one trie and one pass (buildPhraseLists), each keeping its own
// matches; and one TokenBuffer can serve several matchers, so a text is tokenized once in all.
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
// Words compare case-insensitively and exactly: `pump` does not match `pumps`, unless the phrase
// asks for its plural (PhraseSpec.plural): then its last word also matches that word's regular
// plurals (regularPlurals), added to the trie as phrases of their own, so the scan is unchanged.
import { collapseWhitespace } from './spacing.js';

const WORD = 1;
const SPACE = 2;
const HYPHEN = 3;
const PUNCT = 4;

// Outside ASCII, a code unit is classified by these regexes on first sight; they are built then
// (a Unicode-aware regex costs a fraction of a millisecond to parse, and much text is all ASCII).
let charRes: { word: RegExp; space: RegExp } | undefined;

// Filled lazily: classifying a code unit with a regex once is cheap, doing it per character is not.
const charClasses = new Uint8Array(0x10000);

function classifySlow(code: number): number {
  const char = String.fromCharCode(code);
  let kind = PUNCT;
  charRes ??= { word: /^[\p{L}\p{N}\p{M}_]$/u, space: /^\s$/u };
  if (code === 0x2d || code === 0x2010 || code === 0x2011) kind = HYPHEN;
  else if (charRes.word.test(char)) kind = WORD;
  else if (charRes.space.test(char)) kind = SPACE;
  charClasses[code] = kind;
  return kind;
}

function charClass(code: number): number {
  const kind = charClasses[code] ?? 0;
  return kind === 0 ? classifySlow(code) : kind;
}

// ASCII up front, without the regexes: there they give words of letters, digits and `_`, and
// spaces of tab to carriage return and the space itself.
for (let code = 0; code < 128; code++) {
  const letter = (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
  const digit = code >= 0x30 && code <= 0x39;
  charClasses[code] =
    letter || digit || code === 0x5f ? WORD : (code >= 0x09 && code <= 0x0d) || code === 0x20 ? SPACE : code === 0x2d ? HYPHEN : PUNCT;
}

const SPACE_CODE = 0x20;
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
  /**
   * No word token holds a character outside ASCII: then the word tokens' starts are exactly where
   * a run of regex `\w` characters starts (the pattern extractors read their candidates from them).
   */
  asciiWords = true;

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
    // The two characters outside ASCII whose lowercase is ASCII ("İ" → "i", KELVIN SIGN → "k"):
    // the runs below are read in `lower`, where they would pass for ASCII.
    let asciiWords = lower.length === text.length && !text.includes('\u212a') && !text.includes('\u0130');
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
      // Code units of the run ORed together: 128 or more means a non-ASCII word character.
      let units = code;
      i++;
      let next = 0;
      while (i < n) {
        next = lower.charCodeAt(i);
        kind = classes[next]!;
        if (kind === 0) kind = classifySlow(next);
        if (kind !== WORD) break;
        hash = Math.imul(hash ^ next, FNV_PRIME);
        units |= next;
        i++;
      }
      if (units >= 128) asciiWords = false;
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
    this.asciiWords = asciiWords;
    return this;
  }

  /**
   * The text of tokens first..last as written, internal whitespace collapsed to single spaces:
   * surfaceText(text, starts[first], ends[last]) without its regex test on the common path. Between
   * two tokens lie only whitespace or a compound's hyphen, so when every gap is empty, one space or
   * that hyphen, there is nothing to collapse.
   */
  surface(first: number, last: number): string {
    const { text, starts, ends, joined } = this;
    for (let k = first; k < last; k++) {
      const gap = starts[k + 1]! - ends[k]!;
      if (gap === 0 || joined[k] === 1 || (gap === 1 && text.charCodeAt(ends[k]!) === SPACE_CODE)) continue;
      return surfaceText(text, starts[first]!, ends[last]!);
    }
    return text.slice(starts[first], ends[last]);
  }

  /**
   * A number that stands for surface(first, last).toLowerCase() among the matches of one phrase
   * (`phrase`, as ListMatchHandler gives it), or -1 where none is given: then compare the strings.
   * The phrase fixes the lowercased words, so what remains is each gap between them, nothing or
   * whitespace (which surface collapses to one space): one bit per gap. Only where every word
   * token is ASCII (asciiWords): then lowercasing the surface is lowercasing its tokens one by one,
   * as the phrase's words were (no "İ", no final sigma). A hyphen-joined gap, more than 8 gaps or
   * a large phrase number give -1.
   */
  surfaceKey(first: number, last: number, phrase: number): number {
    if (phrase < 0 || phrase >= 1 << 21 || last - first > 8 || !this.asciiWords) return -1;
    const { starts, ends, joined } = this;
    let gaps = 1;
    for (let k = first; k < last; k++) {
      if (joined[k] === 1) return -1;
      gaps = (gaps << 1) | (starts[k + 1]! > ends[k]! ? 1 : 0);
    }
    return phrase * 512 + gaps;
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
  /**
   * Also match the phrase with its last word in a regular plural ("tank" → "tanks", "switch" →
   * "switches", "battery" → "batteries"), with the same payload. A phrase given as such elsewhere
   * in the list keeps its own payloads: a plural form only fills a phrase nobody wrote. Ignored
   * with caseSensitive.
   */
  plural?: boolean;
  /** The payload of the plural forms, where it is not `payload` (the gazetteer marks a bare plural noun). */
  pluralPayload?: P;
}

/**
 * The regular plurals of a noun, in lower case: -s, -es after s/x/z/ch/sh, -ies for a consonant's
 * -y. An acronym (all capitals: "MOV", "EDG") takes -s. None for a word that already ends in -s (a
 * plural, "bellows") but -ss/-us, for a past participle ("deenergized") or a word with a digit.
 */
export function regularPlurals(word: string): string[] {
  if (word.length < 2 || !/^[A-Za-z]+$/.test(word)) return [];
  const lower = word.toLowerCase();
  if (word === word.toUpperCase()) return [`${lower}s`];
  if (lower.endsWith('ed')) return [];
  if (lower.endsWith('s')) return lower.endsWith('ss') || lower.endsWith('us') ? [`${lower}es`] : [];
  if (/(?:x|z|ch|sh)$/.test(lower)) return [`${lower}es`];
  if (/[^aeiou]y$/.test(lower)) return [`${lower.slice(0, -1)}ies`];
  return [`${lower}s`];
}

export interface PhraseMatch<P> {
  start: number;
  end: number;
  text: string;
  payloads: readonly P[];
}

/** `first` and `last` are the token indexes of the match in the scanned TokenBuffer. */
export type MatchHandler<P> = (start: number, end: number, payloads: readonly P[], first: number, last: number) => void;

export interface PhraseMatcher<P> {
  /** Calls `onMatch` for each longest, non-overlapping match, left to right (character offsets). */
  scan(tokens: TokenBuffer, onMatch: MatchHandler<P>): void;
  /** Tokenizes and scans; for tests and one-off use (the hot path reuses a TokenBuffer). */
  matchAll(text: string): PhraseMatch<P>[];
}

/** `merge`: a phrase added twice carries every distinct payload; `keep-first`: later ones are dropped. */
export type DuplicatePolicy = 'merge' | 'keep-first';

export interface PhraseList<P> {
  specs: Iterable<PhraseSpec<P>>;
  onDuplicate?: DuplicatePolicy;
}

/**
 * `list` is the index of the phrase list the match belongs to. `phrase` names the matched phrase
 * of that list: the same number for every match of the same words (compared case-insensitively),
 * a different one for different words; -1 where the list has case-sensitive phrases ending there
 * (then the payloads may depend on the case, and the words alone do not name them).
 */
export type ListMatchHandler<P> = (list: number, start: number, end: number, payloads: readonly P[], first: number, last: number, phrase: number) => void;

/**
 * Several phrase lists matched in one pass: each list keeps its own longest, non-overlapping
 * matches, exactly as if it were scanned alone, but a token is looked up once for all of them.
 */
export interface PhraseListsMatcher<P> {
  /** Calls `onMatch` for each list's matches, left to right within each list. Not re-entrant. */
  scan(tokens: TokenBuffer, onMatch: ListMatchHandler<P>): void;
}

/** Lists are told apart by one bit each in the first-token filter. */
const MAX_LISTS = 8;

interface ExactEntry<P> {
  words: string[];
  payload: P;
}

interface TrieNode<P> {
  /** Number of the node in the edge table (the root is 0); set once the trie is built. */
  id: number;
  token: string;
  /** Next node whose token has the same hash. */
  sibling: TrieNode<P> | null;
  children: Map<number, TrieNode<P>> | null;
  /** Bit set of the lists that end a phrase here. */
  lists: number;
  /** Per list: payloads of its case-insensitive phrases ending here. */
  payloads: (P[] | null)[];
  /** Per list: its case-sensitive phrases ending here, with their words as written. */
  exact: (ExactEntry<P>[] | null)[];
}

function newNode<P>(token: string, listCount: number): TrieNode<P> {
  return { id: -1, token, sibling: null, children: null, lists: 0, payloads: new Array<null>(listCount).fill(null), exact: new Array<null>(listCount).fill(null) };
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

/** The text of a match as written, internal whitespace collapsed to single spaces. */
export function surfaceText(text: string, start: number, end: number): string {
  return collapseWhitespace(text.slice(start, end));
}

export function buildPhraseLists<P>(lists: readonly PhraseList<P>[]): PhraseListsMatcher<P> {
  if (lists.length > MAX_LISTS) throw new Error(`at most ${MAX_LISTS} phrase lists can share one matcher`);
  const trie = new PhraseTrie<P>(lists.length);
  const plurals: Array<[number, PhraseSpec<P>]> = [];
  lists.forEach(({ specs, onDuplicate = 'merge' }, list) => {
    for (const spec of specs) {
      trie.add(list, spec, onDuplicate);
      if (spec.plural === true && spec.caseSensitive !== true) plurals.push([list, spec]);
    }
  });
  // After every phrase as written: a plural form never adds to a phrase a list gives itself.
  for (const [list, spec] of plurals) trie.addPlurals(list, spec);
  return listsScanner(trie.firstTokens, new EdgeTable(trie.root), lists.length);
}

/**
 * Most tokens start no phrase: one bit test skips their lookup. The bit set is 8 KB, small enough
 * to stay in the fastest cache; only a token that passes it reads, from a larger table, which
 * lists have a phrase whose first token has that hash.
 */
class FirstTokens {
  readonly any = new Int32Array(FIRST_TOKEN_FILTER_BITS >>> 5);
  readonly lists = new Uint8Array(FIRST_TOKEN_FILTER_BITS);

  add(hash: number, list: number): void {
    const slot = hash & (FIRST_TOKEN_FILTER_BITS - 1);
    this.any[slot >>> 5]! |= 1 << (slot & 31);
    this.lists[slot]! |= 1 << list;
  }
}

/** The phrases of every list in one trie of tokens, built phrase by phrase. */
class PhraseTrie<P> {
  readonly root = new Map<number, TrieNode<P>>();
  readonly firstTokens = new FirstTokens();
  private readonly buffer = new TokenBuffer();

  /** Nodes that only plural forms end a phrase at (per list bit), which later plural forms may join. */
  private readonly pluralOnly = new Map<TrieNode<P>, number>();

  constructor(private readonly listCount: number) {}

  /** The phrase's plural forms (PhraseSpec.plural), where the list has no phrase of those words. */
  addPlurals(list: number, spec: PhraseSpec<P>): void {
    const tokens = this.buffer.load(spec.phrase);
    if (tokens.count === 0) return;
    const lastStart = tokens.starts[tokens.count - 1]!;
    const lastEnd = tokens.ends[tokens.count - 1]!;
    const phrase = spec.phrase;
    const bit = 1 << list;
    for (const plural of regularPlurals(phrase.slice(lastStart, lastEnd))) {
      const variant = this.buffer.load(phrase.slice(0, lastStart) + plural + phrase.slice(lastEnd));
      const node = this.nodeFor(variant);
      const only = this.pluralOnly.get(node) ?? 0;
      if ((node.lists & bit) !== 0 && (only & bit) === 0) continue;
      this.pluralOnly.set(node, only | bit);
      this.firstTokens.add(variant.hashes[0]!, list);
      node.lists |= bit;
      const payload = spec.pluralPayload ?? spec.payload;
      const payloads = (node.payloads[list] ??= []);
      if (!payloads.includes(payload)) payloads.push(payload);
    }
  }

  add(list: number, spec: PhraseSpec<P>, onDuplicate: DuplicatePolicy): void {
    const tokens = this.buffer.load(spec.phrase);
    if (tokens.count === 0) return;
    this.firstTokens.add(tokens.hashes[0]!, list);
    const node = this.nodeFor(tokens);
    const bit = 1 << list;
    if (onDuplicate === 'keep-first' && (node.lists & bit) !== 0) return;
    node.lists |= bit;
    if (spec.caseSensitive === true) {
      const words: string[] = [];
      for (let k = 0; k < tokens.count; k++) words.push(tokens.text.slice(tokens.starts[k], tokens.ends[k]));
      const exact = (node.exact[list] ??= []);
      if (!exact.some((e) => e.payload === spec.payload && e.words.join(' ') === words.join(' '))) {
        exact.push({ words, payload: spec.payload });
      }
    } else {
      const payloads = (node.payloads[list] ??= []);
      if (!payloads.includes(spec.payload)) payloads.push(spec.payload);
    }
  }

  /** The node of the phrase's last token, the path to it added where missing. */
  private nodeFor(tokens: TokenBuffer): TrieNode<P> {
    let children = this.root;
    let node: TrieNode<P> | null = null;
    for (let k = 0; k < tokens.count; k++) {
      const start = tokens.starts[k] ?? 0;
      const end = tokens.ends[k] ?? 0;
      const hash = tokens.hashes[k] ?? 0;
      let child = findChild(children, hash, tokens.lower, start, end);
      if (child === null) {
        child = newNode<P>(tokens.lower.slice(start, end), this.listCount);
        child.sibling = children.get(hash) ?? null;
        children.set(hash, child);
      }
      node = child;
      if (k < tokens.count - 1) children = node.children ??= new Map();
    }
    return node!;
  }
}

/**
 * Every edge of the trie again, in one open-addressing table keyed by (parent node, token hash):
 * probing typed arrays is cheaper than a Map.get per step, and a third of all text tokens start a
 * walk. The value is the first node of the parent's children with that hash (its siblings share
 * it). The root is node 0; building the table numbers the nodes.
 */
class EdgeTable<P> {
  readonly mask: number;
  readonly parents: Int32Array;
  readonly hashes: Int32Array;
  readonly nodes: (TrieNode<P> | null)[];

  constructor(root: Map<number, TrieNode<P>>) {
    const edges: Array<[number, number, TrieNode<P>]> = [];
    let nodeCount = 1;
    const collectEdges = (parent: number, children: Map<number, TrieNode<P>>): void => {
      for (const [hash, node] of children) {
        for (let n: TrieNode<P> | null = node; n !== null; n = n.sibling) n.id = nodeCount++;
        edges.push([parent, hash, node]);
      }
      for (const node of children.values()) {
        for (let n: TrieNode<P> | null = node; n !== null; n = n.sibling) if (n.children !== null) collectEdges(n.id, n.children);
      }
    };
    collectEdges(0, root);
    let size = 16;
    while (size < edges.length * 2) size *= 2;
    this.mask = size - 1;
    this.parents = new Int32Array(size).fill(-1);
    this.hashes = new Int32Array(size);
    this.nodes = new Array<TrieNode<P> | null>(size).fill(null);
    for (const [parent, hash, node] of edges) {
      let slot = edgeSlot(parent, hash, this.mask);
      while (this.parents[slot] !== -1) slot = (slot + 1) & this.mask;
      this.parents[slot] = parent;
      this.hashes[slot] = hash;
      this.nodes[slot] = node;
    }
  }
}

function edgeSlot(parent: number, hash: number, mask: number): number {
  return (Math.imul(parent, 0x9e3779b1) ^ hash) & mask;
}

/** Payloads of `node` in `list` that accept the tokens from `first` on; null when none does. */
function accepted<P>(node: TrieNode<P>, list: number, tokens: TokenBuffer, first: number): readonly P[] | null {
  const payloads = node.payloads[list] ?? null;
  const exact = node.exact[list] ?? null;
  if (exact === null) return payloads;
  let extra: P[] | null = null;
  for (const entry of exact) {
    let same = true;
    for (let k = 0; k < entry.words.length && same; k++) {
      same = sameToken(tokens.text, tokens.starts[first + k] ?? 0, tokens.ends[first + k] ?? 0, entry.words[k] ?? '');
    }
    if (!same) continue;
    extra ??= payloads === null ? [] : [...payloads];
    if (!extra.includes(entry.payload)) extra.push(entry.payload);
  }
  return extra ?? payloads;
}

/**
 * The one pass over a text's tokens for every list. A closure over the tables, not a class: the
 * walk reads them as constants of its context (as a class's fields, rca-tag took about 3 % more
 * CPU on the text-heavy corpus, bench/stage-cpu.mjs --stages tag --vs).
 */
function listsScanner<P>(firstTokens: FirstTokens, edges: EdgeTable<P>, listCount: number): PhraseListsMatcher<P> {
  const anyFirstToken = firstTokens.any;
  const firstTokenLists = firstTokens.lists;
  const { mask: edgeMask, parents: edgeParents, hashes: edgeHashes, nodes: edgeNodes } = edges;

  /** The child of node `parent` for the token [start, end) of `lower` with hash `hash`, or null. */
  function step(parent: number, hash: number, lower: string, start: number, end: number): TrieNode<P> | null {
    let slot = edgeSlot(parent, hash, edgeMask);
    for (;;) {
      const owner = edgeParents[slot]!;
      if (owner === -1) return null;
      if (owner === parent && edgeHashes[slot] === hash) break;
      slot = (slot + 1) & edgeMask;
    }
    let node: TrieNode<P> | null = edgeNodes[slot]!;
    while (node !== null && !sameToken(lower, start, end, node.token)) node = node.sibling;
    return node;
  }

  // Per-list scan state, reused from call to call (hence not re-entrant).
  const nextStart = new Int32Array(listCount);
  const bestLast = new Int32Array(listCount);
  const bestPayloads: (readonly P[] | null)[] = new Array<null>(listCount).fill(null);
  const bestPhrase = new Int32Array(listCount);

  function scan(tokens: TokenBuffer, onMatch: ListMatchHandler<P>): void {
    const { count, starts, ends, hashes, joined, lower } = tokens;
    nextStart.fill(0);
    // The largest nextStart: past it no list is inside its last match.
    let blockedUntil = 0;
    for (let i = 0; i < count; i++) {
      // A match may not start inside a hyphenated compound.
      if (i > 0 && joined[i - 1] === 1) continue;
      const firstHash = hashes[i]! & (FIRST_TOKEN_FILTER_BITS - 1);
      if ((anyFirstToken[firstHash >>> 5]! & (1 << (firstHash & 31))) === 0) continue;
      let active = firstTokenLists[firstHash]!;
      // A list still inside its own last match does not start another one here.
      if (i < blockedUntil) for (let list = 0; list < listCount; list++) if (nextStart[list]! > i) active &= ~(1 << list);
      if (active === 0) continue;
      let found = 0;
      let parent = 0;
      let more = true;
      for (let j = i; j < count && more; j++) {
        const child: TrieNode<P> | null = step(parent, hashes[j]!, lower, starts[j]!, ends[j]!);
        if (child === null) break;
        const ending = child.lists & active;
        // The longest phrase of each list wins, but not one that stops inside a compound.
        if (ending !== 0 && joined[j] !== 1) {
          for (let list = 0; list < listCount; list++) {
            if ((ending & (1 << list)) === 0) continue;
            const payloads = accepted(child, list, tokens, i);
            if (payloads === null) continue;
            bestLast[list] = j;
            bestPayloads[list] = payloads;
            bestPhrase[list] = child.exact[list] === null ? child.id * listCount + list : -1;
            found |= 1 << list;
          }
        }
        parent = child.id;
        more = child.children !== null;
      }
      for (let list = 0; found !== 0; list++, found >>>= 1) {
        if ((found & 1) === 0) continue;
        const last = bestLast[list]!;
        onMatch(list, starts[i]!, ends[last]!, bestPayloads[list]!, i, last, bestPhrase[list]!);
        nextStart[list] = last + 1;
        if (last + 1 > blockedUntil) blockedUntil = last + 1;
      }
    }
  }

  return { scan };
}

export function buildPhraseMatcher<P>(specs: Iterable<PhraseSpec<P>>, onDuplicate: DuplicatePolicy = 'merge'): PhraseMatcher<P> {
  const lists = buildPhraseLists([{ specs, onDuplicate }]);
  const scan = (tokens: TokenBuffer, onMatch: MatchHandler<P>): void =>
    lists.scan(tokens, (_list, start, end, payloads, first, last) => onMatch(start, end, payloads, first, last));
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
