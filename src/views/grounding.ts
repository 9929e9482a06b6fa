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
// (`3/4" valve`, `12" pipe`) are not read as quotations; curly quotes are unambiguous.
const QUOTE_RE = /(?<![\p{L}\p{N}])"(?=\S)([^"\n]*?\S)"(?![\p{L}\p{N}])|\u201c\s*([^\u201c\u201d\n]*?\S)\s*\u201d/gu;

export function normaliseForGrounding(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(HYPHENS_RE, '-').replace(APOSTROPHES_RE, "'").replace(WHITESPACE_RE, ' ').trim();
}

/** The numbers written in a string, as written ("1,175", "6.2"). */
export function numbersIn(value: string): string[] {
  return value.normalize('NFKC').match(NUMBER_RE) ?? [];
}

function canonicalNumber(token: string): string {
  return token.replaceAll(',', '');
}

/** Phrases a string presents as quotations ("…" or “…”). */
export function quotedPhrases(value: string): string[] {
  return [...value.matchAll(QUOTE_RE)].map((m) => (m[1] ?? m[2])!);
}

/** The chunk text prepared once for many lookups. */
export class GroundingText {
  private readonly normalised: string;
  private numbers: Set<string> | null = null;
  private prepared: EvidenceText | null = null;

  constructor(readonly raw: string) {
    this.normalised = normaliseForGrounding(raw);
  }

  /** The text prepared for locating items (evidence spans), built on first use. */
  get evidence(): EvidenceText {
    this.prepared ??= new EvidenceText(this.raw);
    return this.prepared;
  }

  /** A number occurs as a whole number token (so "6" is not found in "6.2"). */
  hasNumber(token: string): boolean {
    this.numbers ??= new Set((this.normalised.match(NUMBER_RE) ?? []).map(canonicalNumber));
    return this.numbers.has(canonicalNumber(token.normalize('NFKC')));
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
    const text = this.normalised;
    const checkStart = glued.test(needle[0]!);
    const checkEnd = glued.test(needle[needle.length - 1]!);
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      const before = at > 0 ? text[at - 1]! : '';
      const after = text[at + needle.length] ?? '';
      if (checkStart && before !== '' && glued.test(before)) continue;
      if (checkEnd && after !== '' && glued.test(after)) continue;
      return true;
    }
    return false;
  }
}
