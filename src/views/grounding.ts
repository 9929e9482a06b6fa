import { EvidenceText } from './evidence-text.js';

// Is what the model extracted actually in the chunk? Numbers, equipment ids and quoted phrases
// are looked up in the chunk text after the same normalisation on both sides (Unicode
// compatibility forms, case, hyphen variants, runs of whitespace).

// U+2010 hyphen, U+2011 non-breaking hyphen, U+2012 figure dash, U+2212 minus. En and em dashes
// stay: they separate words ("P-101A—tripped"), they do not join an identifier.
const HYPHENS_RE = /[\u2010\u2011\u2012\u2212]/g;
const APOSTROPHES_RE = /[\u2018\u2019\u02bc]/g;
const WHITESPACE_RE = /\s+/g;
// Thousands groups only when exactly three digits follow ("1,175"); "1,2" is two numbers.
// Digits glued after a letter ("A101", "P-101A", "FT-1102", "CR-2026") belong to an identifier, not
// a value, on both sides of the lookup: "101a" in numbers_limits is not grounded by "P-101A".
const NUMBER_RE = /(?<![\p{L}\d]|\p{L}[-_]|\d\.)\d+(?:,\d{3}(?!\d))*(?:\.\d+)?/gu;
const WORD_CHAR_RE = /[\p{L}\p{N}_]/u;
const ID_CHAR_RE = /[\p{L}\p{N}_-]/u;
// A straight double quote opens only after a non-alphanumeric character, so inch marks
// (`3/4" valve`, `12" pipe`) are not read as quotations; curly quotes are unambiguous. Inside
// curly quotes the phrase runs from its first to its last non-blank character before the next
// quote or line break, each inner blank run followed by a phrase character, so no blank can go to
// either side of it (a lazy phrase between two blank runs made a long blank run quadratic); the
// phrase ends on that quote itself only when no closing quote follows the phrase first.
const QUOTE_RE =
  /(?<![\p{L}\p{N}])"(?=\S)([^"\n]*?\S)"(?![\p{L}\p{N}])|\u201c\s*((?:[^\u201c\u201d\n\s](?:[^\u201c\u201d\n\s]|[^\S\n]+(?=[^\u201c\u201d\n\s]))*(?:[^\S\n]*[\u201c\u201d](?=\s*\u201d))??)|[\u201c\u201d](?=\s*\u201d))\s*\u201d/gu;

/** Text is normalised this many UTF-16 units at a time (see normalisedPieces). */
export const NORMALISE_PIECE_CHARS = 64 * 1024;
// Where a piece may end: just before a run of whitespace.
const PIECE_END_RE = /\S(?=\s)/g;

/** Text as lookups compare it: NFKC, lower case, one kind of hyphen and apostrophe, single spaces, trimmed. */
export function normaliseForGrounding(text: string): string {
  if (text.length <= NORMALISE_PIECE_CHARS) return flat(normalisePiece(text)).trim();
  return normalisedPieces(text).join('');
}

/**
 * The normalised text in pieces of about NORMALISE_PIECE_CHARS, which joined are
 * normaliseForGrounding(text). Done on a whole large text, each step copies it and V8 returns the
 * whitespace replace as a rope of two small strings per match (about 12 bytes per character until
 * read flat); a piece at a time, only the pieces are kept. Pieces end just before a whitespace
 * run, where no step depends on what follows (NFKC composes nothing with whitespace, a final sigma
 * is final before it, a run is collapsed inside one piece), so the result is the same, and no word
 * or number runs from one piece into the next (each but the first starts with a space).
 */
function normalisedPieces(text: string): string[] {
  const pieces: string[] = [];
  for (let from = 0; from < text.length; ) {
    PIECE_END_RE.lastIndex = from + NORMALISE_PIECE_CHARS;
    const end = PIECE_END_RE.exec(text);
    const to = end === null ? text.length : end.index + 1;
    pieces.push(flat(normalisePiece(text.slice(from, to))));
    from = to;
  }
  // As trim() of the joined text: whitespace is single spaces now, at the ends of pieces only.
  while (pieces.length > 0 && (pieces[0] = pieces[0]!.trimStart()) === '') pieces.shift();
  while (pieces.length > 0 && (pieces[pieces.length - 1] = pieces.at(-1)!.trimEnd()) === '') pieces.pop();
  return pieces;
}

// NFKC leaves ASCII as it is: such a piece skips it (and ICU's buffers).
const NON_ASCII_RE = /[^\x00-\x7f]/;
const DIGIT_OR_NON_ASCII_RE = /[0-9]|[^\x00-\x7f]/;

function normalisePiece(text: string): string {
  return (NON_ASCII_RE.test(text) ? text.normalize('NFKC') : text).toLowerCase().replace(HYPHENS_RE, '-').replace(APOSTROPHES_RE, "'").replace(WHITESPACE_RE, ' ');
}

/** The same string, read once so V8 replaces a rope by one flat copy now (and frees the rope). */
export function flat(value: string): string {
  value.indexOf('\u0000');
  return value;
}

/** The numbers written in a string, as written ("1,175", "6.2"). */
export function numbersIn(value: string): string[] {
  // Digits come only from ASCII digits or, through NFKC, from other characters.
  if (!DIGIT_OR_NON_ASCII_RE.test(value)) return [];
  return (NON_ASCII_RE.test(value) ? value.normalize('NFKC') : value).match(NUMBER_RE) ?? [];
}

function canonicalNumber(token: string): string {
  return token.replaceAll(',', '');
}

/** Phrases a string presents as quotations ("…" or “…”). */
export function quotedPhrases(value: string): string[] {
  // Most strings hold no quote at all: no need to run the pattern.
  if (!value.includes('"') && !value.includes('\u201c')) return [];
  return [...value.matchAll(QUOTE_RE)].map((m) => (m[1] ?? m[2])!);
}

let lastMade: WeakRef<GroundingText> | null = null;

/**
 * The chunk text prepared once for many lookups. The normalised text is kept in pieces, never
 * joined: for a chunk of many megabytes, joining would hold it twice.
 */
export class GroundingText {
  private readonly pieces: string[];
  private numbers: Set<string> | null = null;
  private prepared: EvidenceText | null = null;
  /** What evidence.ts keeps per text (its item findings, the context's words): held with the text. */
  readonly derived: { findings?: unknown; context?: unknown } = {};

  constructor(readonly source: string) {
    this.pieces = source.length <= NORMALISE_PIECE_CHARS ? [normaliseForGrounding(source)] : normalisedPieces(source);
  }

  /**
   * The GroundingText of `text`, shared while one is in use: generate checks every view against
   * the chunk text, and the extractive rules look seed terms up in the same text; a second
   * normalised copy of a large chunk would be as large again. Held weakly: nothing is kept after.
   */
  static of(text: string): GroundingText {
    const last = lastMade?.deref();
    if (last !== undefined && last.source === text) return last;
    const made = new GroundingText(text);
    lastMade = new WeakRef(made);
    return made;
  }

  /** The text prepared for locating items (evidence spans), built on first use. */
  get evidence(): EvidenceText {
    this.prepared ??= new EvidenceText(this.source);
    return this.prepared;
  }

  /** A number occurs as a whole number token (so "6" is not found in "6.2"). */
  hasNumber(token: string): boolean {
    // Straight into the set: an array of every number token first would be as long as the text.
    if (this.numbers === null) {
      this.numbers = new Set();
      // No number runs from one piece into the next (see normalisedPieces).
      for (const piece of this.pieces) for (const m of piece.matchAll(NUMBER_RE)) this.numbers.add(canonicalNumber(m[0]));
    }
    return this.numbers.has(canonicalNumber(NON_ASCII_RE.test(token) ? token.normalize('NFKC') : token));
  }

  /** An identifier occurs with no letter, digit, '_' or '-' glued to either side ("P-101" is not in "P-101A"). */
  hasIdentifier(id: string): boolean {
    return this.occurs(normaliseForGrounding(id), ID_CHAR_RE);
  }

  /** A phrase occurs on word boundaries. */
  hasPhrase(phrase: string): boolean {
    return this.occurs(normaliseForGrounding(phrase), WORD_CHAR_RE);
  }

  private occurs(needle: string, glued: RegExp): boolean {
    if (needle === '') return false;
    const { pieces } = this;
    const checkStart = glued.test(needle[0]!);
    const checkEnd = glued.test(needle[needle.length - 1]!);
    const clear = (i: number, at: number): boolean => {
      const before = at > 0 ? pieces[i]![at - 1]! : i > 0 ? pieces[i - 1]!.at(-1)! : '';
      const after = this.charAt(i, at + needle.length);
      return !(checkStart && before !== '' && glued.test(before)) && !(checkEnd && after !== '' && glued.test(after));
    };
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      for (let at = piece.indexOf(needle); at >= 0; at = piece.indexOf(needle, at + 1)) if (clear(i, at)) return true;
      // Occurrences that start in this piece and end in the next ones (a phrase across a space).
      if (needle.length > 1 && i + 1 < pieces.length) {
        const tailStart = Math.max(0, piece.length - (needle.length - 1));
        const across = piece.slice(tailStart) + this.headOf(i + 1, needle.length - 1);
        for (let at = across.indexOf(needle); at >= 0 && tailStart + at < piece.length; at = across.indexOf(needle, at + 1)) {
          if (clear(i, tailStart + at)) return true;
        }
      }
    }
    return false;
  }

  /** The character at offset `at` from the start of piece `i` (running on into later pieces), or ''. */
  private charAt(i: number, at: number): string {
    for (let j = i; j < this.pieces.length; j++) {
      const piece = this.pieces[j]!;
      if (at < piece.length) return piece[at]!;
      at -= piece.length;
    }
    return '';
  }

  /** The first `chars` characters of the text from piece `i` on. */
  private headOf(i: number, chars: number): string {
    let head = '';
    for (let j = i; j < this.pieces.length && head.length < chars; j++) head += this.pieces[j]!.slice(0, chars - head.length);
    return head;
  }
}
