// Negated and ruled-out mentions: where a text says a condition did not happen or was excluded
// ("no evidence of fouling", "did not trip", "Tube fouling is contradicted by…", "was ruled out").
//
// A cue opens a scope that is bounded by its clause. Forward cues ("no", "not consistent with",
// "without any indication of", "neither", "did not", "rather than") cover the text after them up
// to the clause end; backward cues ("… was ruled out", "… is contradicted by", "… was not found",
// "… not the source of") cover the clause before them. Clause ends are sentence ends, semicolons,
// dashes between spaces, line breaks and table pipes, and a contrastive conjunction ("although",
// "but", "however", "while", "whereas", "yet", "though", "except"), so "Leakage was observed,
// although no cracking was found" rules out cracking and keeps leakage. A backward scope also
// stops at a comma: it reaches back over the subject, not over the sentence. Lists ("no fouling,
// scaling, or debris") stay inside one scope. Hedges are not cues: "possible", "if leak
// confirmed" stay conjectures.
//
// Pure and allocation-light: one precompiled regex finds the cues, and a text without any cue word
// costs that one scan.

import { TokenBuffer } from './phrase-matcher.js';
import { buildPattern } from '../runtime/patterns.js';
import {
  CONTRADICTION, EVIDENCE_NOUNS, EXCLUSION_PARTICIPLES, FAILED_TO_VERBS, FORWARD_EXCLUSIONS, FORWARD_PHRASES, LIMIT_PHRASES, NOUN_PHRASE_CUES, TURN_AFTER_COMMA, TURN_WORDS,
  cueFirstWords,
} from './negation-cues.js';

/** Seed lists a negated scope takes mentions out of: the conditions a text can rule out. */
export const NEGATABLE_FIELDS = ['mechanisms', 'outcomes'] as const;

export interface NegationScope {
  /** Character offsets of the scope [start, end). */
  start: number;
  end: number;
  /** The cue as written. */
  cue: string;
  /** Character offsets of the cue [cueStart, cueEnd): a mention inside the cue is no mention at all. */
  cueStart: number;
  cueEnd: number;
}

const L = '(?<![\\p{L}\\p{N}_])';
const R = '(?![\\p{L}\\p{N}_])';
const S = '\\s+';
// The cue words come from the one negation vocabulary (negation-cues.ts); this file adds the grammar
// of their scopes. A phrase's words are joined by blank runs.
const phrase = (p: string): string => p.split(' ').join(S);
const anyOf = (list: readonly string[]): string => `(?:${list.map(phrase).join('|')})`;
const EVIDENCE = anyOf(EVIDENCE_NOUNS);
/** Of FAILED_TO_VERBS, the searches whose definite object was there to be found. */
const MISSED_VERBS: readonly string[] = ['identify', 'detect'];
/** The words after `first` of the limit phrases that open with it. */
const limitsAfter = (first: string): string[] => LIMIT_PHRASES.filter((p) => p.startsWith(`${first} `)).map((p) => p.slice(first.length + 1));
const COPULA = '(?:is|are|was|were|has been|have been|had been|been|being)';
const NOT = `(?:${S}not|n[\u2019']t)`;

// Backward cues: the ruled-out mention precedes the cue.
const BACKWARD = [
  `${COPULA}(?:${S}\\p{L}+ly)?${S}${anyOf([...EXCLUSION_PARTICIPLES, CONTRADICTION])}`,
  phrase(CONTRADICTION),
  `${COPULA}${NOT}${S}(?:found|observed|detected|identified|present|seen|noted|evident|indicated|reproduced|experienced|reported)`,
  // What an event report says did not happen: "A reactor trip did not occur", "no release resulted".
  `(?:did|does|do)${NOT}${S}(?:occur|happen|result|exist)(?!${S}in${R})`,
  `(?:${COPULA}${S})?not${S}(?:the|a)${S}(?:\\p{L}+${S})?(?:source|cause|origin)(?:${S}of)?`,
];

// Forward cues, longest forms first: the leftmost cue wins, and at one position the first listed.
const FORWARD = [
  `no${S}${EVIDENCE}${S}of`,
  `without${S}(?:any${S})?${EVIDENCE}${S}of`,
  // "The FMEA failed to identify the inability …": a definite object of identifying or detecting is
  // what the search missed, which was there; "failed to reveal any cracking", "failed to reproduce
  // the chatter" rule it out.
  `failed${S}to${S}(?:${anyOf(FAILED_TO_VERBS.filter((v) => !MISSED_VERBS.includes(v)))}|${anyOf(MISSED_VERBS)}(?!${S}(?:the|this|that|these|those)${R}))(?:${S}any)?(?:${S}${EVIDENCE}${S}of)?`,
  `(?:${COPULA}${S})?(?:not${S}consistent|inconsistent)${S}with`,
  anyOf(FORWARD_EXCLUSIONS),
  anyOf(FORWARD_PHRASES),
  // What a vendor or licensee reports knowing of none of: "is not aware of any other similar failures".
  `(?:${COPULA}${S})?not${S}aware${S}of`,
  `neither`,
  `never`,
  `none${S}of`,
  // "none" standing for the things looked for: "checked the log and found none to have been
  // activated", "none were found damaged".
  `none(?=${S}(?:to|was|were|is|are|had|has|have)${R})`,
  `(?:did|does|do|has|have|had|was|were|is|are|could|can|would|will)${NOT}`,
  `cannot`,
  // Limits are not negations ("no more than 2.5", "not to exceed"), nor "not only", "not yet" (a
  // fact still open).
  `no(?!${S}${anyOf(limitsAfter('no'))}${R})(?!\\.)(?=${S}\\p{L})`,
  `not(?!${S}${anyOf([...limitsAfter('not'), 'only', 'yet'])}${R})`,
  `without`,
];

// Doubt about an exclusion is a hedge, not a negation: "cannot be ruled out", "not yet excluded".
// Matched first so that its "cannot"/"not" opens no scope.
const HEDGED = [
  `(?:${COPULA}${NOT}|cannot|can${S}not|could${NOT}|can[\u2019']t|(?:has|have|had)${NOT}${S}been|not)(?:${S}yet)?(?:${S}be(?:en)?)?${S}${anyOf(FORWARD_EXCLUSIONS)}`,
  // Who was not told of a thing is no ruling-out of it: "NRC was not notified of the defect", "did
  // not inform the operators of the leak" keep the defect and the leak. ("No injuries were
  // reported" stays a cue: an event report's way of saying there were none.)
  `${COPULA}${NOT}${S}(?:notified|informed|told|advised)`,
  `(?:did|does|do)${NOT}${S}(?:notify|inform|tell|advise)`,
];

// Sticky: tried only where HEAD_RE finds a word a cue can open with, which gives what one global scan
// of it would (every alternative opens with such a word, at a word start); the global scan tried
// its whole alternation at every character. Built on the first head word: a Unicode-aware regex
// this size costs ~0.4 ms to parse, and an empty input needs none.
/** The cue regex's source, for the test that holds the head-word search to one global scan of it. */
export const CUE_SOURCE = `${L}(?:(${HEDGED.join('|')})|(${BACKWARD.join('|')})|(${FORWARD.join('|')}))${R}`;
let cueRe: RegExp | undefined;

const HEAD_CHAR_RE = /[A-Za-z'\u2019]/;
// A cheap test first: no text without one of these words holds a cue (the first words of the
// vocabulary's cues). ASCII word boundaries and no "u" flag keep it one fast scan; a cue after a
// non-ASCII letter is rare and only loses the test.
const PREFILTER_WORDS = cueFirstWords().join('|');
// The words a cue can open with: the vocabulary's first words, and the auxiliaries and copulas of
// the negated and backward forms.
const HEAD_WORDS = `${PREFILTER_WORDS}|can|could|would|will|did|does|do|is|are|was|were|has|have|had|been|being`;
let heads: { head: RegExp; prefilter: RegExp } | undefined;
const headRes = () =>
  (heads ??= {
    head: buildPattern('tagging/negation: head words', `\\b(?:${HEAD_WORDS}|[a-z]+n['\u2019]t)\\b`, 'gi'),
    prefilter: buildPattern('tagging/negation: prefilter', `\\b(?:${PREFILTER_WORDS})\\b|n['\u2019]t\\b`, 'i'),
  });

// Where a forward scope ends: sentence end, semicolon, colon, spaced dash, line break, pipe, or a
// contrastive or consequential conjunction (after a comma or not): "shipped without the screw
// locked and therefore the settings could drift from vibration" keeps the vibration.
// A new predicate after "and" ("… is NOT expected with fouling and is diagnostic for …") ends it too,
// and so does a new subject after a comma and "and" ("did not close, and the leak continued").
// A blank run before a conjunction is tried from its first character only (after a comma, the
// comma's): from each of its characters the run would be read to its end again, quadratic on a
// long one. Where the search starts is its own first character (clauseEndAfter searches a slice),
// and a later character inside the run can never be the first match, since the run's start matches too.
// Built on the first forward cue.
let clauseEndRe: RegExp | undefined;
const clauseEndRegex = (): RegExp =>
  (clauseEndRe ??=
    buildPattern(
      'tagging/negation: clause end',
      `[.!?](?=\\s|$)|[;:|\\n\\r]|\\s[-\u2013\u2014]\\s|[\u2013\u2014]|(?:,|(?<![\\s,]))\\s+${anyOf(TURN_WORDS)}${R}|,\\s+${anyOf(TURN_AFTER_COMMA)}${R}|(?:,|(?<![\\s,]))\\s+and\\s+(?=(?:is|are|was|were|should|shall|must|has|have|had|will|can|may)${R})|,\\s+and\\s+(?=(?:the|it|they|this|there)${R})`,
      'giu',
    ));
// Where a backward scope starts (searching back from the cue): the same, and any comma.
const BACKWARD_STOPS = new Set([0x2e, 0x21, 0x3f, 0x3b, 0x3a, 0x7c, 0x0a, 0x0d, 0x2c, 0x2013, 0x2014]);

/** The negated scopes of a text, in text order; [] when it has no cue. */
export function negationScopes(text: string): NegationScope[] {
  const { head: HEAD_RE, prefilter } = headRes();
  if (!prefilter.test(text)) return [];
  const scopes: NegationScope[] = [];
  HEAD_RE.lastIndex = 0;
  const heads = new HeadsSeen();
  const ends = new ClauseEnds(text);
  // test(), not exec(): no match array per head word; the word's start is found back from its end.
  while (HEAD_RE.test(text)) {
    const headEnd = HEAD_RE.lastIndex;
    if (heads.seen(headEnd)) continue;
    const from = cueAt(text, headEnd, scopes, ends);
    if (from >= 0) HEAD_RE.lastIndex = from;
  }
  return scopes;
}

/**
 * negationScopes(tokens.text) from the text's word tokens, with no regex pass of its own over the
 * text: the same head words are found by their token hashes. Only where every word token is ASCII
 * (TokenBuffer.asciiWords): then a word token is exactly a run of regex `\w` characters, which is
 * what PREFILTER_RE's and HEAD_RE's `\b` delimit. Otherwise the regexes run.
 */
export function negationScopesOfTokens(tokens: TokenBuffer): NegationScope[] {
  const text = tokens.text;
  if (!tokens.asciiWords) return negationScopes(text);
  const { count, starts } = tokens;
  const words = (wordTables ??= { head: wordTable(HEAD_WORDS), prefilter: wordTable(PREFILTER_WORDS) });
  let k = 0;
  for (; k < count; k++) if (isWordIn(tokens, k, words.prefilter) || endsNt(tokens, k)) break;
  if (k === count) return [];
  const scopes: NegationScope[] = [];
  // `from` plays HEAD_RE.lastIndex: a head is the first word token at or after it that is a head
  // word or a `[a-z]+n't` form; a cue may move it back, so the token index follows it both ways.
  let from = 0;
  const heads = new HeadsSeen();
  const ends = new ClauseEnds(text);
  k = 0;
  for (;;) {
    while (k > 0 && starts[k - 1]! >= from) k--;
    while (k < count && starts[k]! < from) k++;
    let headEnd = -1;
    for (; k < count; k++) {
      if (isWordIn(tokens, k, words.head)) {
        headEnd = tokens.ends[k]!;
        break;
      }
      if (lettersNt(tokens, k)) {
        headEnd = tokens.ends[k + 2]!;
        break;
      }
    }
    if (headEnd < 0) return scopes;
    if (heads.seen(headEnd)) {
      from = headEnd;
      continue;
    }
    const next = cueAt(text, headEnd, scopes, ends);
    from = next >= 0 ? next : headEnd;
  }
}

/**
 * The head words a scan has handled, by where they end. A cue that ends before its head word
 * ("not'no") sends the search back before that head, to meet it (or one before it) again; handling
 * it again would repeat forever, so a head met again is passed over. A scan that never goes back
 * meets its heads in order and only ever compares with the last one.
 */
class HeadsSeen {
  private last = -1;
  private readonly all: number[] = [];

  /** Whether the head ending at `headEnd` was handled already; if not, it is now. */
  seen(headEnd: number): boolean {
    if (headEnd <= this.last && this.all.includes(headEnd)) return true;
    this.all.push(headEnd);
    if (headEnd > this.last) this.last = headEnd;
    return false;
  }
}

/**
 * The cue whose head word ends at `headEnd`, if any, added to `scopes` (a hedge adds nothing);
 * returns where the head search goes on after the cue, or -1 when no cue starts there.
 */
function cueAt(text: string, headEnd: number, scopes: NegationScope[], ends: ClauseEnds): number {
  let headStart = headEnd;
  while (headStart > 0 && HEAD_CHAR_RE.test(text[headStart - 1]!)) headStart--;
  const cue = (cueRe ??= buildPattern('tagging/negation: cue', CUE_SOURCE, 'iuy'));
  cue.lastIndex = headStart;
  const m = cue.exec(text);
  if (m === null) return -1;
  const next = m.index + m[0].length;
  const cueStart = m.index;
  const cueEnd = cueStart + m[0].length;
  if (m[1] !== undefined) return next;
  // "Do not attribute …", "Never open …": a prohibition instructs; it states nothing did not happen.
  if (m[3] !== undefined && PROHIBITION_RE.test(m[0]) && opensClause(text, cueStart)) return next;
  if (conditional(text, cueStart, m[0]) || (m[3] !== undefined && (counterfactual(text, cueStart) || counterfactualNot(text, cueStart, cueEnd, m[0])))) return next;
  if (m[2] !== undefined) {
    // Kept even when empty: a mention inside the cue is still no mention.
    scopes.push({ start: clauseStartBefore(text, cueStart), end: cueStart, cue: m[0], cueStart, cueEnd });
  } else {
    const end = frontedClauseEnd(text, cueStart, cueEnd, ends.after(cueEnd));
    scopes.push({ start: cueEnd, end, cue: m[0], cueStart, cueEnd });
  }
  return next;
}

/** Words that open a fronted subordinate clause, which ends at its comma: "Although no fire occurred, the cable showed damage." */
const FRONTED_OPENERS = new Set(['although', 'though', 'while', 'whereas', 'because', 'since']);
// How far back a fronted clause's opener is looked for, and forward its comma: bounded, so a text of
// many cues in one long sentence is not scanned again from every cue.
const FRONTED_CHARS = 200;

/**
 * The end of a forward scope whose cue sits in a sentence-opening "Although …," clause: the clause's
 * comma when it comes before `end`, else `end`. The main clause after the comma is asserted.
 */
export function frontedClauseEnd(text: string, cueStart: number, cueEnd: number, end: number): number {
  let i = cueStart;
  const stop = Math.max(0, cueStart - FRONTED_CHARS);
  while (i > stop) {
    const code = text.charCodeAt(i - 1);
    if (code === 0x2c) return end; // a comma before the cue: the cue is past the fronted clause
    if (code === 0x2e || code === 0x21 || code === 0x3f || code === 0x3b || code === 0x3a || code === 0x0a) break;
    i--;
  }
  if (i === stop && stop > 0) return end;
  while (i < cueStart && !WORD_CHAR_RE.test(text[i]!)) i++;
  let w = i;
  while (w < cueStart && WORD_CHAR_RE.test(text[w]!)) w++;
  if (!FRONTED_OPENERS.has(text.slice(i, w).toLowerCase())) return end;
  const limit = Math.min(end, cueEnd + FRONTED_CHARS);
  for (let k = cueEnd; k < limit; k++) if (text.charCodeAt(k) === 0x2c) return k;
  return end;
}

// The head and prefilter words (less their `n't` forms), by token hash: the tables are made on the
// first text.
let wordTables: { head: WordTable; prefilter: WordTable } | undefined;

interface WordTable {
  /** One bit per low 16 bits of a word's hash: most tokens fail this test and skip the Map. */
  filter: Uint8Array;
  words: Map<number, string[]>;
}

function wordTable(list: string): WordTable {
  const table: WordTable = { filter: new Uint8Array(1 << 13), words: new Map() };
  const buffer = new TokenBuffer();
  for (const word of list.split('|')) {
    const hash = buffer.load(word).hashes[0]!;
    table.filter[(hash & 0xffff) >>> 3]! |= 1 << (hash & 7);
    const same = table.words.get(hash);
    if (same === undefined) table.words.set(hash, [word]);
    else same.push(word);
  }
  return table;
}

/** Whether token k is one of the words of `table` (ASCII case folded: the text is lowercased). */
function isWordIn(tokens: TokenBuffer, k: number, table: WordTable): boolean {
  const hash = tokens.hashes[k]!;
  if ((table.filter[(hash & 0xffff) >>> 3]! & (1 << (hash & 7))) === 0) return false;
  const words = table.words.get(hash);
  if (words === undefined) return false;
  const start = tokens.starts[k]!;
  const length = tokens.ends[k]! - start;
  const lower = tokens.lower;
  for (const word of words) {
    if (word.length !== length) continue;
    let same = true;
    for (let i = 0; i < length && same; i++) same = lower.charCodeAt(start + i) === word.charCodeAt(i);
    if (same) return true;
  }
  return false;
}

const APOSTROPHE = 0x27;
const RIGHT_QUOTE = 0x2019;
const LOWER_T = 0x74;
const LOWER_N = 0x6e;

/** Token k ends in "n", then an apostrophe, then the word "t": PREFILTER_RE's `n['’]t\b`. */
function endsNt(tokens: TokenBuffer, k: number): boolean {
  if (k + 2 >= tokens.count) return false;
  const end = tokens.ends[k]!;
  const lower = tokens.lower;
  if (lower.charCodeAt(end - 1) !== LOWER_N) return false;
  const quote = lower.charCodeAt(end);
  if (quote !== APOSTROPHE && quote !== RIGHT_QUOTE) return false;
  // The apostrophe is token k+1 (punctuation is one token per character), "t" is token k+2.
  return tokens.starts[k + 2] === end + 1 && tokens.ends[k + 2] === end + 2 && lower.charCodeAt(end + 1) === LOWER_T;
}

/** endsNt with token k all letters and at least two of them: HEAD_RE's `\b[a-z]+n['’]t\b`. */
function lettersNt(tokens: TokenBuffer, k: number): boolean {
  const start = tokens.starts[k]!;
  const end = tokens.ends[k]!;
  if (end - start < 2 || !endsNt(tokens, k)) return false;
  const lower = tokens.lower;
  for (let i = start; i < end; i++) {
    const code = lower.charCodeAt(i);
    if (code < 0x61 || code > 0x7a) return false;
  }
  return true;
}

const PROHIBITION_RE = /^(?:do(?:\s+not|n['\u2019]t)|never)$/i;

// A counterfactual rules nothing out: "earlier detection could have prevented the fire" (the fire
// happened), "would not have precluded it". Read as the words before the cue, a modal, "not",
// "have", "been": a hand scan of at most COUNTERFACTUAL_CHARS characters.
const COUNTERFACTUAL_CHARS = 40;
const PARTICIPLE_END_RE = /(?:ed|en|wn)$/;
const MODALS = new Set(['could', 'would', 'might', 'may', 'should', 'must']);
const BLANKS_RE = /\s+/;
function counterfactual(text: string, cueStart: number): boolean {
  const words = text.slice(Math.max(0, cueStart - COUNTERFACTUAL_CHARS), cueStart).toLowerCase().split(BLANKS_RE);
  let k = words.length - 1;
  if (words[k] === '') k--;
  if (words[k] === 'been') k--;
  if (words[k] !== 'have') return false;
  k--;
  if (words[k] === 'not') k--;
  const modal = (words[k] ?? '').replace(CONTRACTED_NOT_RE, '');
  return MODALS.has(modal);
}
const CONTRACTED_NOT_RE = /n['\u2019]t$/;
const EXCLUSION_HEADS = new Set(FORWARD_EXCLUSIONS.map((p) => p.split(' ')[0]!));
/**
 * The "not" of a counterfactual exclusion ("would not have precluded", "might not have prevented"):
 * the exclusion decides; and the "not" of "did not prevent", which asserts what followed.
 */
function counterfactualNot(text: string, cueStart: number, cueEnd: number, cue: string): boolean {
  const words = cue.toLowerCase().split(BLANKS_RE);
  const last = words[words.length - 1]!;
  if (last !== 'not' && !CONTRACTED_NOT_RE.test(last)) return false;
  const after = text.slice(cueEnd, cueEnd + COUNTERFACTUAL_CHARS).toLowerCase().split(BLANKS_RE).filter((w) => w !== '');
  // "did not prevent the release": the release happened.
  if (after[0] === 'prevent' || after[0] === 'preclude') return true;
  let k = 0;
  if (after[k] !== 'have') return false;
  k++;
  if (after[k] === 'been') k++;
  let modal = words.length > 1 ? words[0]! : last.replace(CONTRACTED_NOT_RE, '');
  if (!MODALS.has(modal)) {
    // A bare "not": the modal is the word before it ("might not have prevented").
    const before = text.slice(Math.max(0, cueStart - COUNTERFACTUAL_CHARS), cueStart).toLowerCase().split(BLANKS_RE).filter((w) => w !== '');
    modal = before[before.length - 1] ?? '';
  }
  // "should not have caused the RPS trip": what should not have happened did.
  // "should not have any leakage" is a requirement: "have" is the verb there, no participle follows.
  if (modal === 'should' && PARTICIPLE_END_RE.test(after[k] ?? '')) return true;
  return EXCLUSION_HEADS.has(after[k] ?? '') && MODALS.has(modal);
}

// A negation inside a condition states no fact: "IF SI has NOT actuated, THEN …", "if one has not
// occurred", "unless the pump is not running", "when reactor trip is not verified" (an entry
// condition). Read back over the cue's clause (to a comma or a clause mark, at most CONDITION_CHARS):
// "if", "unless" or "whether" there makes it a condition; "when"/"whenever" only with a present
// auxiliary ("when the pump did not start, …" is what happened).
const CONDITION_CHARS = 120;
const CLAUSE_WORD_RE = /[A-Za-z]+/g;
const PRESENT_CUE_RE = /^(?:is|are|does|do|has|have)(?:\s+not|n['\u2019]t)$/i;
function conditional(text: string, cueStart: number, cue: string): boolean {
  const from = Math.max(0, cueStart - CONDITION_CHARS);
  let i = cueStart;
  while (i > from && !BACKWARD_STOPS.has(text.charCodeAt(i - 1))) i--;
  const present = PRESENT_CUE_RE.test(cue);
  CLAUSE_WORD_RE.lastIndex = i;
  for (let w = CLAUSE_WORD_RE.exec(text); w !== null && w.index < cueStart; w = CLAUSE_WORD_RE.exec(text)) {
    const word = w[0].toLowerCase();
    if (word === 'if' || word === 'unless' || word === 'whether') return true;
    if (present && (word === 'when' || word === 'whenever')) return true;
  }
  return false;
}

/** Whether only a clause boundary (or a step number) precedes `at`. */
function opensClause(text: string, at: number): boolean {
  const before = text.slice(Math.max(0, at - 24), at);
  return endsAtClauseStart(before) || /(?:^|[\s(])(?:step\s+)?\d+(?:\.\d+)*[.)]?\s+$/i.test(before);
}

const CLAUSE_OPENERS = new Set([0x2e, 0x21, 0x3f, 0x3b, 0x3a, 0x7c, 0x2013, 0x2014, 0x2d]);
const SPACE_RE = /\s/;

/**
 * Whether `before` ends, blanks aside, at a clause boundary: nothing, a sentence or clause mark, a
 * line break, or a blank and "and"/"then". Scanned back from the end: `(?:^|[.!?;:|–—\n-]|\sand|\sthen)\s*$`
 * as a regex retries the trailing blanks from each of its characters.
 */
export function endsAtClauseStart(before: string): boolean {
  let end = before.length;
  let lineBreak = false;
  while (end > 0 && SPACE_RE.test(before[end - 1]!)) {
    if (before.charCodeAt(end - 1) === 0x0a) lineBreak = true;
    end--;
  }
  if (lineBreak || end === 0 || CLAUSE_OPENERS.has(before.charCodeAt(end - 1))) return true;
  const word = (w: string): boolean =>
    end > w.length && before.slice(end - w.length, end).toLowerCase() === w && SPACE_RE.test(before[end - w.length - 1]!);
  return word('and') || word('then');
}

/**
 * clauseEndAfter for one text's cues, remembering the last answer: no clause end starts between
 * where that search began and what it found, so a later cue before that end gets the same one.
 * Without it a text of cues and no clause end ("no no no …") was read to its end from every cue.
 */
class ClauseEnds {
  private from = -1;
  private end = -1;
  constructor(private readonly text: string) {}

  after(from: number): number {
    if (from < this.from || from > this.end) {
      this.from = from;
      this.end = clauseEndAfter(this.text, from);
    }
    return this.end;
  }
}

export function clauseEndAfter(text: string, from: number): number {
  const re = clauseEndRegex();
  re.lastIndex = 0;
  // A slice (no copy in V8): the blank-run guard sees where the search starts as a run's start.
  const m = re.exec(from === 0 ? text : text.slice(from));
  return m === null ? text.length : from + m.index;
}

function clauseStartBefore(text: string, before: number): number {
  let i = before;
  while (i > 0) {
    const code = text.charCodeAt(i - 1);
    if (BACKWARD_STOPS.has(code)) {
      // A decimal point ("1.82") is not a sentence end.
      if (code === 0x2e && i < text.length && /\S/.test(text[i] ?? '')) {
        i--;
        continue;
      }
      break;
    }
    // A spaced hyphen is a dash.
    if (code === 0x2d && text.charCodeAt(i - 2) === 0x20 && text.charCodeAt(i) === 0x20) break;
    i--;
  }
  return i;
}

// A heading label opens a text, line, cell or sentence: one to four words, the first capitalised,
// then a colon and a space ("Failure Mode:", "Expected symptoms:", "Immediate corrective action:").
// Found from the colons (most texts have few), looking back at most LABEL_CHARS characters. The
// regexes are built on the first colon that may end a label.
let labelRes: { label: RegExp; body: RegExp } | undefined;
const LABEL_CHARS = 60;

/** Spans [start, end) of the heading labels of a text. */
export function labelSpans(text: string): Array<readonly [number, number]> {
  const spans: Array<readonly [number, number]> = [];
  for (let colon = text.indexOf(':'); colon >= 0; colon = text.indexOf(':', colon + 1)) {
    const after = text.charCodeAt(colon + 1);
    if (!(after === 0x20 || after === 0x09 || after === 0x0a || after === 0x0d || after === 0xa0)) continue;
    let end = colon;
    while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\t')) end--;
    const res = (labelRes ??= { label: /^\p{Lu}[\p{L}/&-]*(?:[ \t]+[\p{L}/&()-]+){0,3}$/u, body: /[\p{L}/&()\- \t]/u });
    let start = end;
    while (start > 0 && end - start < LABEL_CHARS && res.body.test(text[start - 1]!)) start--;
    while (start < end && (text[start] === ' ' || text[start] === '\t')) start++;
    if (start === end || !opensLabel(text, start)) continue;
    if (res.label.test(text.slice(start, end))) spans.push([start, end]);
  }
  return spans;
}

/** A label starts the text, a line or a cell, or follows a sentence end and a space. */
function opensLabel(text: string, start: number): boolean {
  let i = start;
  while (i > 0 && (text[i - 1] === ' ' || text[i - 1] === '\t')) i--;
  if (i === 0) return true;
  const before = text[i - 1]!;
  if (before === '\n' || before === '\r' || before === '|') return true;
  return i < start && (before === '.' || before === '!' || before === '?');
}

/** Lookups over the negated scopes and heading labels of one text (a chunk has few: a linear walk beats any index). */
export class ScopeIndex {
  // A text can hold a scope per sentence and a lexicon match per few words: a scan of every scope
  // per match was quadratic (a 15 MB chunk took minutes). Spans sorted by start with the running
  // maximum of their ends answer "does any span reach here" by one binary search.
  private readonly cues: SpanIndex;
  private readonly labelIndex: SpanIndex;
  // scopeOf: scopes by start, made active as the queries' starts pass them, in a tree of maxima
  // over the scopes' own order, whose leftmost end ≥ the query's is the first scope holding it.
  private readonly byStart: number[];
  private readonly tree: Float64Array;
  private readonly leaves: number;
  private active = 0;
  private lastStart = -Infinity;

  constructor(
    readonly scopes: readonly NegationScope[],
    readonly labels: ReadonlyArray<readonly [number, number]> = [],
  ) {
    this.cues = new SpanIndex(scopes.map((sc) => [sc.cueStart, sc.cueEnd] as const));
    this.labelIndex = new SpanIndex(labels);
    this.byStart = scopes.map((_, i) => i).sort((x, y) => scopes[x]!.start - scopes[y]!.start || x - y);
    let leaves = 1;
    while (leaves < scopes.length) leaves *= 2;
    this.leaves = leaves;
    this.tree = new Float64Array(2 * leaves).fill(-Infinity);
  }

  /** Whether [start, end) overlaps a cue: such a span is part of the cue, not a mention. */
  inCue(start: number, end: number): boolean {
    // Some cue starts before `end` and ends after `start`.
    return this.cues.maxEndOfStartsBefore(end, false) > start;
  }

  /** Whether [start, end) lies inside a heading label. */
  inLabel(start: number, end: number): boolean {
    return this.labelIndex.maxEndOfStartsBefore(start, true) >= end;
  }

  /** The first scope holding [start, end), or null. */
  scopeOf(start: number, end: number): NegationScope | null {
    // Matches come in text order; one that does not is answered by the plain scan.
    if (start < this.lastStart) {
      for (const sc of this.scopes) if (start >= sc.start && end <= sc.end) return sc;
      return null;
    }
    this.lastStart = start;
    while (this.active < this.byStart.length && this.scopes[this.byStart[this.active]!]!.start <= start) {
      const i = this.byStart[this.active++]!;
      for (let node = this.leaves + i, value = this.scopes[i]!.end; node >= 1; node >>= 1) this.tree[node] = Math.max(this.tree[node]!, value);
    }
    if (this.tree[1]! < end) return null;
    let node = 1;
    while (node < this.leaves) node = this.tree[2 * node]! >= end ? 2 * node : 2 * node + 1;
    return this.scopes[node - this.leaves]!;
  }
}

/** Spans sorted by start, with the largest end among each prefix. */
class SpanIndex {
  private readonly starts: number[];
  private readonly maxEnds: number[];
  constructor(spans: ReadonlyArray<readonly [number, number]>) {
    const sorted = [...spans].sort((x, y) => x[0] - y[0]);
    this.starts = sorted.map((sp) => sp[0]);
    let max = -Infinity;
    this.maxEnds = sorted.map((sp) => (max = Math.max(max, sp[1])));
  }

  /** The largest end among spans starting before `at` (or at it, when `inclusive`); -Infinity when none. */
  maxEndOfStartsBefore(at: number, inclusive: boolean): number {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! < at || (inclusive && this.starts[mid] === at)) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? -Infinity : this.maxEnds[lo - 1]!;
  }
}

// States an event report says a unit, a system or the public was spared ("Unit 1 is not affected",
// "was not damaged", "remained unaffected"): the participle is the outcome ruled out. Predicative
// only (after a negated copula, or the un- form), so "the affected detectors" rules nothing out.
// "was not released", "was not lost", "was not breached": what an event report says a barrier, a
// power supply or radioactive material was spared (predicative only; these have no un- form).
// "The condition did not affect the ENS", "has not impacted": the active form, past or perfect
// (what did not happen; "does not affect" is a general claim), the verb is the outcome ruled out.
// "Units 1 and 2 are unaffected", "the operator was unharmed": the un- form with no agent after it
// is the state as written; "unaffected by accumulated cycles" rules out "affected by" them, the
// participle. "remained intact", "was intact": a barrier or a part said to be undamaged, as written.
const SPARED_RE = /\b(?:(?:is|was|were|are|been|be)\s+not\s+(affected|impacted|damaged|injured|challenged|compromised|released|lost|breached)|un(affected|impacted|damaged|injured|challenged|compromised|harmed))\b/gi;
const INTACT_RE = /\b(?:is|was|were|are|been|be|remained|remains|remain)\s+intact\b/gi;
const AGENT_AFTER_RE = /^[ \t]+by\b/i;
const SPARED_ACTIVE_RE = /\b(?:did|has|have|had)\s+not\s+(affect|impact|damage|injure|challenge|compromise|harm)(?:ed)?\b/gi;
const SPARED_HINT_RE = /affected|impacted|damaged|injured|challenged|compromised|released|lost|breached|affect|impact|damage|injure|challenge|compromise|harm|intact/i;

/** The outcomes a text says did not befall something: the participle, with its cue. */
export function sparedStates(text: string): Array<{ text: string; cue: string }> {
  if (!SPARED_HINT_RE.test(text)) return [];
  const out: Array<{ text: string; cue: string }> = [];
  SPARED_RE.lastIndex = 0;
  for (let m = SPARED_RE.exec(text); m !== null; m = SPARED_RE.exec(text)) {
    const state = m[1] ?? m[2]!;
    if (m[1] !== undefined) out.push({ text: state, cue: m[0].slice(0, m[0].length - state.length).trimEnd() });
    else if (AGENT_AFTER_RE.test(text.slice(m.index + m[0].length, m.index + m[0].length + 8))) out.push({ text: state, cue: `un${state}` });
    else out.push({ text: m[0], cue: m[0] });
  }
  INTACT_RE.lastIndex = 0;
  for (let m = INTACT_RE.exec(text); m !== null; m = INTACT_RE.exec(text)) {
    const state = m[0].slice(m[0].length - 'intact'.length);
    out.push({ text: state, cue: state });
  }
  SPARED_ACTIVE_RE.lastIndex = 0;
  for (let m = SPARED_ACTIVE_RE.exec(text); m !== null; m = SPARED_ACTIVE_RE.exec(text)) {
    const verb = m[0].slice(m[0].toLowerCase().lastIndexOf(m[1]!.toLowerCase()));
    out.push({ text: verb, cue: m[0].slice(0, m[0].length - verb.length).trimEnd() });
  }
  return out;
}

// Work a text says was not done: "the strainer had not been worked", "the relay was not replaced",
// "were not tested". The participle right after a negated copula or perfect passive; tag-record
// keeps it only where it is a maintenance or surveillance action (the lexicon's, or WORK_DONE), so
// "was not met", "was not required" rule nothing out here.
const NOT_DONE_RE = /\b(?:(?:is|are|was|were)\s+not|(?:has|have|had)\s+not\s+been|not\s+been)\s+([a-z]+ed|done)\b/gi;
const NOT_DONE_HINT_RE = /\bnot\s/i;
/** Participles of doing work that the lexicon may not list. */
export const WORK_DONE = new Set(['worked', 'performed', 'completed', 'conducted', 'accomplished', 'done']);

/** The participles a text says were not done, with their cue. */
export function notDoneActions(text: string): Array<{ text: string; cue: string }> {
  if (!NOT_DONE_HINT_RE.test(text)) return [];
  const out: Array<{ text: string; cue: string }> = [];
  NOT_DONE_RE.lastIndex = 0;
  for (let m = NOT_DONE_RE.exec(text); m !== null; m = NOT_DONE_RE.exec(text)) {
    const action = m[1]!;
    const cue = m[0].slice(0, m[0].length - action.length).trimEnd();
    // "If the filter was not replaced, …": a condition states no fact.
    if (conditional(text, m.index, cue)) continue;
    out.push({ text: action, cue });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The noun phrase a cue rules out, whatever the lexicon knows: "there were no injuries, releases
// or damage", "these conditions did not exist", "did not contain such a set screw", "No emergency
// was declared". Read from a cue's scope by a hand scan of its words, as the grammar of a negation
// puts the phrase: after a cue that takes a noun ("no", "without", "none of", "absence of", "no
// evidence of" …, each item of a list after it), after a negated past verb of finding or having
// ("did not identify", "has not experienced", "did not result in"), or before a cue that says a thing
// did not happen or was not found (the subject of "… did not occur", "… was not observed"). The
// phrase ends at a function word, a verb form, a number or punctuation, and is at most
// PHRASE_WORDS words, its determiners left out. "No personnel were injured": the state
// (injured, affected, damaged …) is what is ruled out, not the subject.

/** A phrase a cue rules out: its text as written, the cue, and whether it is a spared state. */
export interface RuledOutPhrase {
  text: string;
  cue: string;
  start: number;
  end: number;
  /** Where the cue's scope ends. */
  scopeEnd: number;
  state: boolean;
  /** When the phrase opens with "such" or a demonstrative that refers back ("such a set screw"): the phrase without it. */
  bare?: string;
  /** The subject of a clause that says it did not act ("No safety relief valves lifted"): equipment the lexicon knows may be what is ruled out. */
  subject?: boolean;
  /** For an abbreviation in parentheses ("(PORVs)"): the phrase it abbreviates, whose kind it takes. */
  abbreviates?: string;
}

const PHRASE_WORDS = 4;
const WORD_RE = /[\p{L}\p{N}]+(?:['\u2019/-][\p{L}\p{N}]+)*|[^\s\p{L}\p{N}]/gu;

const wordSet = (list: string) => new Set(list.split(' '));
// Left out at a phrase's start: articles, determiners and quantifiers.
const DETERMINERS = wordSet('a an the any such these this those that its their his her our all some other another further additional similar more');
// A phrase ends at these: prepositions, conjunctions, pronouns, auxiliaries and copulas.
const PHRASE_STOPS = wordSet(
  'of to in on at from by for with within during after before since until into onto over under through between among against about upon per as than via and or nor but because so if when while whereas although though that which who whom whose where there it they them he she we you i is are was were be been being has have had do does did will would shall should can could may might must not no never yet also either neither being due',
);
// Words that are no thing ruled out.
const NOT_A_THING = wordSet('one ones way time times other others more longer further less matter reason need doubt anything nothing something everything problem basis such same');
// Heads of what a document asks for or expects, not what happened: "No further action", "requires no
// specific action or written response", "no questions".
const NOT_AN_EVENT = wordSet('action actions response responses reply replies question questions comment comments');
// Forward cues that take a noun phrase.
const NOUN_CUE_RE = /^(?:no|without|neither|none of|absence of|free of|free from|(?:(?:is|are|was|were|has been|have been|had been|been|being) )?not aware of|(?:no|without(?: any)?) (?:evidence|signs?|indications?|traces?|history|symptoms?) of|failed to \p{L}+(?: any)?(?: (?:evidence|signs?|indications?|traces?|history|symptoms?) of)?)$/u;
const NOUN_CUES = new Set<string>(NOUN_PHRASE_CUES);
// A negated auxiliary, then one of these verbs of finding, having or causing: its object is ruled out.
// Past or perfect only: what did not happen; "X does not cause Y" is a general claim, "could not" a
// hypothesis, and a cause ruled out ("did not cause") says nothing of the effect.
const VERB_CUE_RE = /^(?:did|has|have|had)(?: not|n['\u2019]t)$/;
const FINDING_VERBS = wordSet(
  'find found identify identified detect detected observe observed reveal revealed show shown showed confirm confirmed contain contained have had experience experienced exhibit exhibited indicate indicated produce produced involve involved see seen note noted receive received sustain sustained suffer suffered declare declared',
);
// Backward cues whose clause before them is the thing that did not happen or was not found.
const SUBJECT_CUE_RE = /(?:occur|happen|result|exist|found|observed|detected|identified|present|seen|noted|evident|indicated|reproduced|experienced|reported)$/;
// After "No <subject> was/were": a reporting participle keeps the subject ruled out; a spared state is itself what is ruled out.
const REPORTING = wordSet('found observed detected identified noted seen reported evident present experienced declared required needed received');
const SPARED = wordSet('affected impacted damaged injured challenged compromised harmed contaminated exposed released lost breached');
// After "No <subject>": what says it did not happen ("No ECCS injection occurred"), not a reduced clause.
const HAPPENED = wordSet('occurred happened resulted existed developed ensued');
const COPULAS = wordSet('is are was were been be');
// What is needed, not what happened: "no additional corrective work required".
const NEED_WORDS = wordSet('required needed');
// "there was no", "there have been no": the words before the cue (a short tail of text).
const EXISTENTIAL_RE = /\bthere\s+(?:was|were|is|are|(?:has|have|had)\s+been)\s+$/i;
// Adverbs that open a predicate after a subject ("no systems out of service", "no pumps off").
const PARTICLES = wordSet('out off up down back');

interface Word {
  text: string;
  lower: string;
  start: number;
  end: number;
}

/** The words of text[start, end), at most `max` of them. */
function wordsOf(text: string, start: number, end: number, max: number): Word[] {
  const words: Word[] = [];
  WORD_RE.lastIndex = start;
  for (let m = WORD_RE.exec(text); m !== null && m.index < end && words.length < max; m = WORD_RE.exec(text)) {
    const wordEnd = Math.min(end, m.index + m[0].length);
    words.push({ text: text.slice(m.index, wordEnd), lower: text.slice(m.index, wordEnd).toLowerCase(), start: m.index, end: wordEnd });
  }
  return words;
}

// Letters only (a hyphenated compound too): a word with a digit is an id or a number, no thing ruled out.
const isLetterWord = (w: Word | undefined): boolean => w !== undefined && /^\p{L}[\p{L}'\u2019/-]*$/u.test(w.text);
/** A word that may stand in a noun phrase: letters (a hyphenated compound too), not a function word, not a verb's -ed form past the first word. */
const inPhrase = (w: Word | undefined, index: number): boolean =>
  w !== undefined && isLetterWord(w) && !PHRASE_STOPS.has(w.lower) && !DETERMINERS.has(w.lower) && !PARTICLES.has(w.lower) && !(index > 0 && /ed$/.test(w.lower) && w.lower.length > 4);

/**
 * The noun phrase starting at words[i] (determiners skipped): [first, last] word indexes, or null.
 */
function phraseAt(words: readonly Word[], i: number): { first: number; last: number } | null {
  let k = i;
  while (k < words.length && DETERMINERS.has(words[k]!.lower) && k - i < 3) k++;
  const first = k;
  while (k < words.length && k - first < PHRASE_WORDS && inPhrase(words[k], k - first)) k++;
  if (k === first) return null;
  // A gerund takes its particle: "instead of tripping off", "without shutting down".
  if (k - first < PHRASE_WORDS && /ing$/.test(words[k - 1]!.lower) && PARTICLES.has(words[k]?.lower ?? '')) k++;
  // A phrase cut by the length bound is no whole phrase.
  if (k - first === PHRASE_WORDS && inPhrase(words[k], PHRASE_WORDS)) return null;
  const last = k - 1;
  if ((first === last && NOT_A_THING.has(words[first]!.lower)) || NOT_AN_EVENT.has(words[last]!.lower)) return null;
  return { first, last };
}

/** The phrase before words[end] (the words of a backward cue's clause): up to PHRASE_WORDS words back, determiners left out. */
function phraseBefore(words: readonly Word[], end: number): { first: number; last: number } | null {
  const last = end - 1;
  let first = end;
  while (first > 0 && end - first < PHRASE_WORDS && inPhrase(words[first - 1], 1) && !DETERMINERS.has(words[first - 1]!.lower)) first--;
  if (first === end) return null;
  // The clause must begin with the phrase (a determiner or the clause start before it): "the reactor did not trip" yes, "operators verified X was not found" no.
  if (first > 0 && !DETERMINERS.has(words[first - 1]!.lower)) return null;
  if (first === last && NOT_A_THING.has(words[first]!.lower)) return null;
  return { first, last };
}

/** How many words of a forward scope are read (a list of phrases), and how far back a backward cue's clause is. */
const SCOPE_WORDS = 24;
const SUBJECT_CHARS = 200;

/** The phrases the scopes of a text rule out (see above), in scope order. */
export function ruledOutPhrases(text: string, scopes: readonly NegationScope[]): RuledOutPhrase[] {
  const found: RuledOutPhrase[] = [];
  // "did not contain such a set screw", "these conditions did not exist": the phrase refers back to
  // what the text stated before and rules out its like here, so it keeps its anaphor and stays
  // ruled out though the text states the bare phrase elsewhere. "such" anywhere; a demonstrative
  // only as the subject of what did not exist or occur (after a verb of finding, "did not identify
  // this condition", the condition is presupposed).
  const add = (words: readonly Word[], p: { first: number; last: number }, scope: NegationScope, subject = false, actor = false) => {
    let first = p.first;
    const before = words[first - 1]?.lower;
    if ((before === 'a' || before === 'an') && words[first - 2]?.lower === 'such') first -= 2;
    else if (before === 'such' || (subject && (before === 'these' || before === 'those'))) first -= 1;
    const start = words[first]!.start;
    const end = words[p.last]!.end;
    const phrase: RuledOutPhrase = { text: text.slice(start, end), cue: scope.cue, start, end, scopeEnd: scope.end, state: false };
    if (first < p.first) phrase.bare = text.slice(words[p.first]!.start, end);
    if (actor) phrase.subject = true;
    found.push(phrase);
  };
  for (const scope of scopes) {
    const cue = scope.cue.toLowerCase().replace(WHITESPACE_RUN, ' ');
    if (scope.end <= scope.cueStart) {
      // A backward cue: its clause ends at the cue. Read from a word start at most SUBJECT_CHARS back.
      if (!SUBJECT_CUE_RE.test(cue)) continue;
      let from = Math.max(scope.start, scope.cueStart - SUBJECT_CHARS);
      while (from > scope.start && from < scope.cueStart && WORD_CHAR_RE.test(text[from - 1]!)) from++;
      const words = wordsOf(text, from, scope.cueStart, SCOPE_WORDS);
      const p = phraseBefore(words, words.length);
      // Cut short, the window's first word is no clause start.
      if (p !== null && (from === scope.start || p.first > 0)) add(words, p, scope, true);
      continue;
    }
    const words = wordsOf(text, scope.start, scope.end, SCOPE_WORDS);
    let i = 0;
    if (VERB_CUE_RE.test(cue)) {
      if (words[0]?.lower === 'result' && words[1]?.lower === 'in') i = 2;
      else if (FINDING_VERBS.has(words[0]?.lower ?? '')) i = 1;
      else continue;
    } else if (!(NOUN_CUES.has(cue) || NOUN_CUE_RE.test(cue)) || formAnswer(text, scope.cueStart)) continue;
    // "without stopping the pump": a verb, not a thing.
    else if (cue === 'without' && /ing$/.test(words[0]?.lower ?? '')) continue;
    // A list of phrases: "no injuries, releases or damage".
    const list: Array<{ first: number; last: number }> = [];
    let next = i;
    for (;;) {
      const p = phraseAt(words, next);
      if (p === null) break;
      // "…, or the original projection on the key was removed": an item with a predicate of its own
      // opens a new clause; the list ended before it.
      if (list.length > 0 && opensOwnClause(words, next, p.last)) break;
      list.push(p);
      next = p.last + 1;
      // An abbreviation in parentheses names the item again: "No electromatic (EMRVs) or safety relief valves lifted".
      if (words[next]?.text === '(' && isLetterWord(words[next + 1]) && words[next + 2]?.text === ')') {
        list.push({ first: next + 1, last: next + 1 });
        next += 3;
      }
      const sep = words[next]?.lower;
      if (sep === ',' || sep === 'or' || sep === 'nor') {
        next++;
        if (words[next]?.lower === 'or' || words[next]?.lower === 'nor') next++;
      } else if (sep === 'and' && next + 1 < words.length) {
        // "and" joins a last item only: "no injuries, releases and damage."
        const q = phraseAt(words, next + 1);
        if (q === null || q.last !== words.length - 1) break;
        next++;
      } else break;
      if (words[next]?.lower === 'no' || words[next]?.lower === 'any') next++;
    }
    if (list.length === 0) continue;
    const firstFound = found.length;
    const lastItem = list[list.length - 1]!;
    // Past the parenthesised abbreviation of the last item.
    const afterAt = words[lastItem.last + 1]?.text === ')' ? lastItem.last + 2 : lastItem.last + 1;
    const after = words[afterAt];
    let actor = false;
    // "No personnel were injured": the state is ruled out; "No leakage was observed": the subject;
    // "No structures or systems were inoperable": what they were (the lexicon's term), not them.
    if (after !== undefined && COPULAS.has(after.lower)) {
      const participle = words[list[list.length - 1]!.last + 2];
      if (participle !== undefined && SPARED.has(participle.lower)) {
        found.push({ text: participle.text, cue: scope.cue, start: participle.start, end: participle.end, scopeEnd: scope.end, state: true });
        continue;
      }
      if (participle === undefined || !REPORTING.has(participle.lower)) continue;
    } else if (after !== undefined && isLetterWord(after) && !HAPPENED.has(after.lower) && (/ed$/.test(after.lower) || PARTICLES.has(after.lower))) {
      // "There were no adverse impacts reported", "there was no fire observed": after an
      // existential, a reporting participle keeps the subject ruled out (a terse "no anomalies
      // noted" stays as it was: the note's subject). "No safety relief valves lifted": a sentence that opens with "No"
      // and a past verb says its subject did not act. Otherwise "without the screw locked", "no
      // safety systems out of service": the subject of what follows.
      if (REPORTING.has(after.lower) && !NEED_WORDS.has(after.lower) && EXISTENTIAL_RE.test(text.slice(Math.max(0, scope.cueStart - 32), scope.cueStart))) {
        // "There were no adverse impacts reported": kept.
      } else if (cue === 'no' && /ed$/.test(after.lower) && !REPORTING.has(after.lower) && endsAtClauseStart(text.slice(Math.max(0, scope.cueStart - 24), scope.cueStart))) actor = true;
      else continue;
    }
    for (const p of list) {
      add(words, p, scope, false, actor);
      if (words[p.first - 1]?.text === '(' && found.length - 1 > firstFound) found[found.length - 1]!.abbreviates = found[found.length - 2]!.text;
    }
  }
  if (found.length === 0) return found;
  const elsewhere = statedElsewhere(text, scopes, found);
  return found.filter((p) => p.state || p.bare !== undefined || !elsewhere.has(p.text.toLowerCase()));
}

/**
 * Whether the list item at words[at..last] ("the original projection") is the subject of a
 * predicate of its own: it opens with a determiner and a copula follows within a few words.
 */
function opensOwnClause(words: readonly Word[], at: number, last: number): boolean {
  if (!DETERMINERS.has(words[at]?.lower ?? '')) return false;
  for (let k = last + 1; k < words.length && k <= last + OWN_CLAUSE_WORDS; k++) {
    const w = words[k]!.lower;
    if (COPULAS.has(w)) return true;
    if (w === ',' || w === 'or' || w === 'and' || w === 'nor') return false;
  }
  return false;
}
const OWN_CLAUSE_WORDS = 5;

/**
 * "[ ] YES [X] NO", "Yes  No", '"N" = No copy': "no" as a form's answer or a legend's value, not
 * a negation: a "yes" or an equals sign shortly before it on its line.
 */
function formAnswer(text: string, cueStart: number): boolean {
  const window = text.slice(Math.max(0, cueStart - 16), cueStart);
  const before = window.slice(window.lastIndexOf('\n') + 1).toLowerCase();
  return /(?:^|[^\p{L}])yes(?:[^\p{L}]|$)|=\s*$/u.test(before);
}

/**
 * The phrases of `found` (lower case) that are also written outside every negated scope of the
 * text: stated there, they stay positive (as lexicon terms do). Whole words: one pass over the
 * text's words, each the end of a phrase of each length the phrases have, the last few words in a
 * ring (constant memory, whatever the text's length).
 */
function statedElsewhere(text: string, scopes: readonly NegationScope[], found: readonly RuledOutPhrase[]): Set<string> {
  const keyOf = (phrase: string) => wordsOf(phrase, 0, phrase.length, PHRASE_WORDS + 1).map((w) => w.lower).join(' ');
  const wanted = new Map<number, Set<string>>();
  for (const p of found) {
    const key = keyOf(p.text);
    const length = key.split(' ').length;
    let set = wanted.get(length);
    if (set === undefined) wanted.set(length, (set = new Set()));
    set.add(key);
  }
  const spans = scopes.map((sc) => [Math.min(sc.start, sc.cueStart), Math.max(sc.end, sc.cueEnd)] as const).sort((x, y) => x[0] - y[0]);
  const stated = new Set<string>();
  const ring = PHRASE_WORDS + 1;
  const lowers: string[] = new Array<string>(ring).fill('');
  const inside: boolean[] = new Array<boolean>(ring).fill(false);
  let span = 0;
  let reach = -1;
  let count = 0;
  WORD_RE.lastIndex = 0;
  for (let m = WORD_RE.exec(text); m !== null; m = WORD_RE.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    while (span < spans.length && spans[span]![0] <= start) reach = Math.max(reach, spans[span++]![1]);
    const at = count % ring;
    lowers[at] = m[0].toLowerCase();
    inside[at] = reach >= end;
    count++;
    for (const [length, keys] of wanted) {
      if (length > count) continue;
      let outside = false;
      let key = '';
      for (let k = count - length; k < count; k++) {
        outside ||= !inside[k % ring];
        key = key === '' ? lowers[k % ring]! : `${key} ${lowers[k % ring]!}`;
      }
      if (outside && keys.has(key)) stated.add(key);
    }
  }
  return new Set(found.map((p) => p.text.toLowerCase()).filter((t) => stated.has(keyOf(t))));
}
/** A letter or digit of any script. */
export const WORD_CHAR_RE = /[\p{L}\p{N}]/u;

const WHITESPACE_RUN = /\s+/g;

// ---------------------------------------------------------------------------------------------
// A mention that is no assertion, though outside every negation scope: one under a hedge ("could
// cause a fire", "may result in injury", "very unlikely to cause injury", "the potential for a
// fire"), one its clause calls unconfirmed ("Fire within the Protected Area not verified"), or one
// naming an alarm ("the fire alarm", "radiation alarms"), which sounds for an event, not states it.
// Such an occurrence does not keep a term that the text also rules out positive. A hand scan of
// the clause's words, at most WEAK_WORDS back and forward.
const WEAK_WORDS = 6;
const HEDGE_WORDS = new Set(['could', 'may', 'might', 'would', 'can', 'unlikely', 'potential', 'potentially', 'possible', 'possibly', 'risk', 'if']);
const UNCONFIRMED_WORDS = new Set(['verified', 'confirmed', 'validated']);
const ALARM_WORDS = new Set(['alarm', 'alarms', 'annunciator', 'annunciators', 'annunciation']);
const LETTERS_RE = /[A-Za-z]+/g;
const NEXT_WORD_RE = /^[ \t]+([A-Za-z]+)/;

/** The lower-cased words of text[from, to), in order. */
function wordsBetween(text: string, from: number, to: number): string[] {
  const words: string[] = [];
  LETTERS_RE.lastIndex = from;
  for (let w = LETTERS_RE.exec(text); w !== null && w.index < to; w = LETTERS_RE.exec(text)) words.push(w[0].toLowerCase());
  return words;
}

/**
 * Whether the mention at text[start, end) is hedged, unconfirmed or an alarm's name (see above):
 * 'alarm' for an alarm's name, true for the others, false for an assertion.
 */
export function weakStatement(text: string, start: number, end: number): boolean | 'alarm' {
  const clauseStart = clauseStartBefore(text, start);
  const before = wordsBetween(text, Math.max(clauseStart, start - 80), start).slice(-WEAK_WORDS);
  if (before.some((w) => HEDGE_WORDS.has(w))) return true;
  let clauseEnd = end;
  while (clauseEnd < text.length && clauseEnd < end + 120 && !BACKWARD_STOPS.has(text.charCodeAt(clauseEnd))) clauseEnd++;
  const after = wordsBetween(text, end, clauseEnd);
  const next = NEXT_WORD_RE.exec(text.slice(end, end + 20));
  if (next !== null && ALARM_WORDS.has(next[1]!.toLowerCase())) return 'alarm';
  const near = after.slice(0, WEAK_WORDS);
  for (let k = 1; k < near.length; k++) if (near[k - 1] === 'not' && UNCONFIRMED_WORDS.has(near[k]!)) return true;
  return false;
}
