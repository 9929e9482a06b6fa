import type { AuthorityLevel, DocType } from '../contracts/vocabulary.js';
import { DOC_TYPES } from '../contracts/vocabulary.js';

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

// One alternation, one pass: the leftmost match in the evidence wins; the group says which type.
// Group order follows DESIGN §2 (SOP, CR, WO, ECA) for the impossible case of two matches at one spot.
const STRONG_RE = new RegExp(
  LEFT +
    '(?:' +
    `(s?op${ID_SEP}\\d)` +
    `|(cr${ID_SEP}\\d|condition reports?${RIGHT})` +
    `|(wo${ID_SEP}\\d|work orders?${RIGHT})` +
    `|(eca${ID_SEP}\\d|(?:causal evaluations?|event causal)${RIGHT})` +
    ')',
  'u',
);
const STRONG_GROUP_TYPES: readonly DocType[] = ['SOP', 'CR', 'WO', 'ECA'];

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

function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Phrases ending in a letter are whole words (an optional plural "s" allowed); "cr-"-style
// prefixes end in a hyphen and need only the left boundary. Longest first so the alternation
// prefers "operating procedure" over "procedure" at the same position.
function buildHintRe(): RegExp {
  const sorted = [...HINTS.map(([phrase]) => phrase)].sort((a, b) => b.length - a.length);
  const words = sorted.filter((p) => /\p{L}$/u.test(p)).map(escapeRegExp);
  const prefixes = sorted.filter((p) => !/\p{L}$/u.test(p)).map(escapeRegExp);
  return new RegExp(`${LEFT}(?:(${words.join('|')})s?${RIGHT}|(${prefixes.join('|')}))`, 'gu');
}
const HINT_RE = buildHintRe();

function evidenceText(evidence: DocTypeEvidence): string {
  const parts = [evidence.docName, evidence.sourcePath, evidence.docId, evidence.text?.slice(0, TEXT_WINDOW)];
  return parts.filter((part): part is string => typeof part === 'string' && part !== '').join('\n').toLowerCase();
}

function strongType(haystack: string): DocType | null {
  const match = STRONG_RE.exec(haystack);
  if (match === null) return null;
  for (let i = 0; i < STRONG_GROUP_TYPES.length; i++) {
    if (match[i + 1] !== undefined) return STRONG_GROUP_TYPES[i] ?? null;
  }
  return null;
}

function hintType(haystack: string): DocType | null {
  let best: DocType | null = null;
  let bestLength = 0;
  HINT_RE.lastIndex = 0;
  for (let match = HINT_RE.exec(haystack); match !== null; match = HINT_RE.exec(haystack)) {
    const phrase = match[1] ?? match[2] ?? '';
    // Strictly longer only: on equal length the earlier phrase in the evidence keeps the win.
    if (phrase.length > bestLength) {
      best = HINT_TYPE.get(phrase) ?? null;
      bestLength = phrase.length;
    }
    // Step one character, not past the match, so a longer phrase starting inside this one is seen.
    HINT_RE.lastIndex = match.index + 1;
  }
  return best;
}

/**
 * Evidence is doc name, source path, doc id and the first 4,000 characters of text, joined in
 * that order. The first strong id by position wins, so the file name outranks what the text
 * cites (an SOP that mentions "CR-12" stays an SOP).
 */
export function detectDocType(evidence: DocTypeEvidence): DocType {
  const haystack = evidenceText(evidence);
  if (haystack === '') return 'OTHER';
  return strongType(haystack) ?? hintType(haystack) ?? 'OTHER';
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

export function authorityFor(docType: DocType): AuthorityLevel {
  return docType === 'SOP' ? 'mandatory' : 'informational';
}
