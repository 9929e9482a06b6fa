import type { AuthorityLevel, DocType } from '../contracts/vocabulary.js';
import { DOC_TYPES } from '../contracts/vocabulary.js';
import { buildPattern, escapePattern } from '../runtime/patterns.js';

export interface DocTypeEvidence {
  docName?: string | undefined;
  sourcePath?: string | undefined;
  docId?: string | undefined;
  text?: string | undefined;
}

const TEXT_WINDOW = 4000;

// Written by hand instead of `\b`: `_` is a word character for `\b`, and file names such as
// "example_CR_2026_00123" put ids right after an underscore.
const LEFT = '(?<![\\p{L}\\p{N}])';
const RIGHT = '(?![\\p{L}\\p{N}])';
const ID_SEP = '[-_ ]?';

// The leftmost strong mention in the evidence wins. At each word start (not after a letter or
// digit: `_` counts as a separator, since file names such as "example_CR_2026_00123" put ids right
// after an underscore) the types are tried in DESIGN §2 order (SOP, CR, WO, ECA), then the document
// kinds outside the vocabulary (an FMEA, a bulletin, an operating-experience report, a NUREG),
// which are OTHER. Each is an id — a type then a number ("CR-12345", "SOP 101") or a plant-style
// id of separated segments one of which holds a digit ("SOP-U2-CND-001", "CR:SEC:2026:1042") —
// or a phrase that is a whole word ("condition report", plural allowed).
//
// A scan, not the one regex it replaces (`(?<![\p{L}\p{N}])(?:(s?op(?:[-_ ]?\d|(?:[-_:][\p{L}\p{N}]+)*?[-_:]\p{L}*\p{N}))|…)`,
// held equal by test/patterns/rewrites.property.test.ts): that regex read a chain of segments to
// its end from every type word in it ("cr-cr-cr-…" was quadratic); here whether a chain holds a
// digit is worked out once per separator.
const STRONG_TYPES: ReadonlyArray<{ type: DocType; ids: readonly string[]; phrases: readonly string[] }> = [
  { type: 'SOP', ids: ['sop', 'op'], phrases: [] },
  { type: 'CR', ids: ['cr'], phrases: ['condition report', 'condition reports'] },
  { type: 'WO', ids: ['wo'], phrases: ['work order', 'work orders'] },
  { type: 'ECA', ids: ['eca'], phrases: ['causal evaluation', 'causal evaluations', 'event causal'] },
  {
    type: 'OTHER',
    ids: ['fmea', 'bulletin', 'oe', 'inpo', 'nureg', 'ler', 'ier', 'soer'],
    phrases: ['fmea', 'failure mode and effects', 'failure modes and effects', 'bulletin', 'operating experience'],
  },
];
const ALNUM_RE = /[\p{L}\p{N}]/u;
const NUMBER_RE = /\p{N}/u;

/** The code point at `i` as a string (both halves of a pair). */
function codePointAt(text: string, i: number): string {
  const code = text.codePointAt(i)!;
  return code > 0xffff ? text.slice(i, i + 2) : text[i]!;
}

/** Is there a letter or digit just before `i`? */
function alnumBefore(text: string, i: number): boolean {
  if (i === 0) return false;
  const low = text.charCodeAt(i - 1);
  const from = low >= 0xdc00 && low <= 0xdfff && i >= 2 ? i - 2 : i - 1;
  return ALNUM_RE.test(codePointAt(text, from));
}

class StrongScan {
  // Per separator position: 1 when the chain of segments from it holds a digit, 0 when not.
  private readonly chain = new Map<number, number>();
  constructor(private readonly text: string) {}

  /** `[-_ ]?\d` at `i`. */
  private numberAt(i: number): boolean {
    const t = this.text;
    const digit = (k: number) => k < t.length && t.charCodeAt(k) >= 0x30 && t.charCodeAt(k) <= 0x39;
    return digit(i) || ((t[i] === '-' || t[i] === '_' || t[i] === ' ') && digit(i + 1));
  }

  /** `(?:[-_:][\p{L}\p{N}]+)*?[-_:]\p{L}*\p{N}` at `i`: a chain of separated segments, one holding a digit. */
  private plantIdAt(i: number): boolean {
    const t = this.text;
    const visited: number[] = [];
    let result = 0;
    let p = i;
    for (;;) {
      const known = this.chain.get(p);
      if (known !== undefined) {
        result = known;
        break;
      }
      if (p >= t.length || (t[p] !== '-' && t[p] !== '_' && t[p] !== ':')) break;
      visited.push(p);
      let q = p + 1;
      let digit = false;
      while (q < t.length) {
        const ch = codePointAt(t, q);
        if (!ALNUM_RE.test(ch)) break;
        if (NUMBER_RE.test(ch)) digit = true;
        q += ch.length;
      }
      if (digit) {
        result = 1;
        break;
      }
      // An empty segment ends the chain.
      if (q === p + 1) break;
      p = q;
    }
    for (const v of visited) this.chain.set(v, result);
    return result === 1;
  }

  /** The type whose id or phrase starts at `i`, in group order; null when none does. */
  typeAt(i: number): DocType | null {
    const t = this.text;
    for (const { type, ids, phrases } of STRONG_TYPES) {
      for (const id of ids) {
        if (t.startsWith(id, i) && (this.numberAt(i + id.length) || this.plantIdAt(i + id.length))) return type;
      }
      for (const phrase of phrases) {
        const end = i + phrase.length;
        if (t.startsWith(phrase, i) && (end >= t.length || !ALNUM_RE.test(codePointAt(t, end)))) return type;
      }
    }
    return null;
  }
}

/** The first strong mention's type in `haystack` (lower case), or null. */
export function strongType(haystack: string): DocType | null {
  const scan = new StrongScan(haystack);
  for (let i = 0; i < haystack.length; i++) {
    // Every id and phrase starts with a letter in a..w: a cheap test before the word-start test.
    const code = haystack.charCodeAt(i);
    if (code < 0x61 || code > 0x77 || alnumBefore(haystack, i)) continue;
    const found = scan.typeAt(i);
    if (found !== null) return found;
  }
  return null;
}

const HINTS: ReadonlyArray<readonly [string, DocType]> = [
  ['standard operating procedure', 'SOP'],
  ['operating procedure', 'SOP'],
  ['procedure', 'SOP'],
  ['sop', 'SOP'],
  ['condition report', 'CR'],
  ['cr-', 'CR'],
  ['work order', 'WO'],
  ['wo-', 'WO'],
  ['event causal analysis', 'ECA'],
  ['causal evaluation', 'ECA'],
  ['root cause', 'ECA'],
  ['eca-', 'ECA'],
];
const HINT_TYPE = new Map<string, DocType>(HINTS);

// Phrases ending in a letter are whole words (an optional plural "s" allowed); "cr-"-style
// prefixes end in a hyphen and need only the left boundary. Longest first so the alternation
// prefers "operating procedure" over "procedure" at the same position.
function buildHintRe(): RegExp {
  const sorted = [...HINTS.map(([phrase]) => phrase)].sort((a, b) => b.length - a.length);
  const words = sorted.filter((p) => /\p{L}$/u.test(p)).map(escapePattern);
  const prefixes = sorted.filter((p) => !/\p{L}$/u.test(p)).map(escapePattern);
  return buildPattern('tagging/doc-type: hint', `${LEFT}(?:(${words.join('|')})s?${RIGHT}|(${prefixes.join('|')}))`, 'gu');
}
let hintRe: RegExp | undefined;


function hintType(haystack: string): DocType | null {
  let best: DocType | null = null;
  let bestLength = 0;
  const re = (hintRe ??= buildHintRe());
  re.lastIndex = 0;
  for (let match = re.exec(haystack); match !== null; match = re.exec(haystack)) {
    const phrase = match[1] ?? match[2] ?? '';
    // Strictly longer only: on equal length the earlier phrase in the evidence keeps the win.
    if (phrase.length > bestLength) {
      best = HINT_TYPE.get(phrase) ?? null;
      bestLength = phrase.length;
    }
    // Step one character, not past the match, so a longer phrase starting inside this one is seen.
    re.lastIndex = match.index + 1;
  }
  return best;
}

/**
 * The document's own identity first: its name, then its source path, then its id, each on its own
 * (a strong id in it, else a type phrase such as "Procedure"); only then what its text says (the
 * first strong id by position in the first 4,000 characters, else the longest type phrase). So an
 * FMEA whose text cites "SOP-U2-CND-001" stays OTHER, and "Condenser Vacuum Procedure" responding
 * to a CR stays an SOP.
 */
export function detectDocType(evidence: DocTypeEvidence): DocType {
  for (const own of [evidence.docName, evidence.sourcePath, evidence.docId]) {
    if (typeof own !== 'string' || own === '') continue;
    const lower = own.toLowerCase();
    const found = strongType(lower) ?? hintType(lower);
    if (found !== null) return found;
  }
  const text = evidence.text;
  if (typeof text !== 'string' || text === '') return 'OTHER';
  const lower = text.slice(0, TEXT_WINDOW).toLowerCase();
  return strongType(lower) ?? hintType(lower) ?? 'OTHER';
}

const DOC_TYPE_SET: ReadonlySet<string> = new Set(DOC_TYPES);

export function isDocType(value: unknown): value is DocType {
  return typeof value === 'string' && DOC_TYPE_SET.has(value);
}

/** Case-insensitive and trimmed; null for anything outside the vocabulary (e.g. "BULLETIN"). */
export function normaliseDocType(value: unknown): DocType | null {
  if (typeof value !== 'string') return null;
  const upper = value.trim().toUpperCase();
  return isDocType(upper) ? upper : null;
}

// Upstream names of the four types, beside their codes.
const UPSTREAM_NAMES = new Map<string, DocType>([
  ['procedure', 'SOP'],
  ['standard operating procedure', 'SOP'],
  ['operating procedure', 'SOP'],
  ['condition report', 'CR'],
  ['work order', 'WO'],
  ['event causal analysis', 'ECA'],
  ['event causal evaluation', 'ECA'],
  ['causal evaluation', 'ECA'],
]);

/**
 * The doc type an upstream `doc_type` value states: a type of the vocabulary (or its name,
 * "Condition Report"); any other kind ("FMEA", "BULLETIN") is OTHER, never the type of what the
 * document cites; null when there is no value (blank or not a string) and the type is detected.
 */
export function upstreamDocType(value: unknown): DocType | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  const known = normaliseDocType(trimmed);
  if (known !== null) return known;
  const name = trimmed.toLowerCase().replace(/[\s_-]+/g, ' ');
  return UPSTREAM_NAMES.get(name) ?? UPSTREAM_NAMES.get(name.replace(/s$/, '')) ?? 'OTHER';
}

export function authorityFor(docType: DocType): AuthorityLevel {
  return docType === 'SOP' ? 'mandatory' : 'informational';
}
