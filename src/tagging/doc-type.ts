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

// One alternation, one pass: the leftmost match in the evidence wins; the group says which type.
// Group order follows DESIGN §2 (SOP, CR, WO, ECA) for the impossible case of two matches at one
// spot; the last group is the document kinds outside the vocabulary (an FMEA, a bulletin, an
// operating-experience report, a NUREG), which are OTHER. Ids are a type then a number
// ("CR-12345", "SOP 101") or a plant-style id of separated segments holding a digit
// ("SOP-U2-CND-001", "CR:SEC:2026:1042").
const PLANT_ID = `(?:[-_:][\\p{L}\\p{N}]+)*?[-_:](?:\\p{L}*\\p{N})`;
const idOf = (prefix: string): string => `${prefix}(?:${ID_SEP}\\d|${PLANT_ID})`;
// The regexes are built on first use: a Unicode-aware pattern costs a fraction of a millisecond to
// parse, and a run on empty input (or one whose doc types all come from upstream) needs none.
const buildStrongRe = (): RegExp => buildPattern(
  'tagging/doc-type: strong',
  LEFT +
    '(?:' +
    `(${idOf('s?op')})` +
    `|(${idOf('cr')}|condition reports?${RIGHT})` +
    `|(${idOf('wo')}|work orders?${RIGHT})` +
    `|(${idOf('eca')}|(?:causal evaluations?|event causal)${RIGHT})` +
    `|(${idOf('(?:fmea|bulletin|oe|inpo|nureg|ler|ier|soer)')}|(?:fmea|failure modes? and effects|bulletin|operating experience)${RIGHT})` +
    ')',
  'u',
);
let strongRe: RegExp | undefined;
const STRONG_GROUP_TYPES: readonly DocType[] = ['SOP', 'CR', 'WO', 'ECA', 'OTHER'];

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

function strongType(haystack: string): DocType | null {
  const match = (strongRe ??= buildStrongRe()).exec(haystack);
  if (match === null) return null;
  for (let i = 0; i < STRONG_GROUP_TYPES.length; i++) {
    if (match[i + 1] !== undefined) return STRONG_GROUP_TYPES[i] ?? null;
  }
  return null;
}

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
