// Acronyms a text defines in place: "high pressure core spray (HPCS) system", "variable frequency
// drives (VFDs)", "power operated relief valve (PORV)". NRC and licensee text defines most of its
// equipment so, once, and then writes the acronym alone. A definition is a run of words right before
// "(" whose initials spell the acronym in the parentheses; the long form then names what the
// acronym does, in every mention of the chunk. One pass over the tokens, and per "(" a bounded
// look back (the long form has at most a few more words than the acronym has letters).
import type { TokenBuffer } from './phrase-matcher.js';

export interface AcronymDefinition {
  /** Token range of the long form. */
  first: number;
  last: number;
  /** Token index of the acronym (inside the parentheses). */
  acronym: number;
  /** The acronym as written, less a plural "s": "VFD" for "(VFDs)". */
  letters: string;
  /** The word token right after the closing parenthesis, or -1: "(HPCS) system". */
  after: number;
}

const MIN_LETTERS = 2;
const MAX_LETTERS = 10;
/** Words a long form may have beyond one per letter (skipped "and", "of", a hyphenated part). */
const EXTRA_WORDS = 3;
/** Letters one word may give beyond its initial, in order inside it ("feedwater" → F, W). */
const INNER_LETTERS = 2;
// Function words that a long form may skip or count: "chemical and volume control (CVCS)",
// "Department of Transportation (DOT)", "loss of coolant accident (LOCA)".
const SKIPPABLE = new Set(['and', 'of', 'the', 'for', 'to', 'in', 'on', 'at', '&']);

const OPEN = 0x28;
const CLOSE = 0x29;
const isUpper = (code: number) => code >= 0x41 && code <= 0x5a;
const isLetter = (code: number) => isUpper(code) || (code >= 0x61 && code <= 0x7a);

/** The acronym's letters (a plural "s" dropped), or null when the token is no acronym. */
export function acronymLetters(word: string): string | null {
  const n = word.length;
  const plural = n > MIN_LETTERS && word.charCodeAt(n - 1) === 0x73;
  const letters = plural ? word.slice(0, -1) : word;
  if (letters.length < MIN_LETTERS || letters.length > MAX_LETTERS) return null;
  for (let k = 0; k < letters.length; k++) if (!isUpper(letters.charCodeAt(k))) return null;
  return letters;
}

/** Every "<long form> (<ACR>)" of the text, left to right. */
export function acronymDefinitions(tokens: TokenBuffer): AcronymDefinition[] {
  const found: AcronymDefinition[] = [];
  const { text, starts, ends, count } = tokens;
  for (let k = 1; k + 2 < count; k++) {
    if (ends[k]! - starts[k]! !== 1 || text.charCodeAt(starts[k]!) !== OPEN) continue;
    const letters = acronymLetters(text.slice(starts[k + 1], ends[k + 1]));
    if (letters === null) continue;
    // The acronym closes the parentheses, or opens a list of codes: "(ESW; EIIS Code: BI)".
    const next = text.charCodeAt(starts[k + 2]!);
    if (ends[k + 2]! - starts[k + 2]! !== 1 || (next !== CLOSE && next !== 0x3b && next !== 0x2c)) continue;
    const first = longFormStart(tokens, k - 1, letters);
    if (first < 0) continue;
    const close = next === CLOSE ? k + 2 : -1;
    const after = close >= 0 && close + 1 < count && isLetter(text.charCodeAt(starts[close + 1]!)) ? close + 1 : -1;
    found.push({ first, last: k - 1, acronym: k + 1, letters, after });
  }
  return found;
}

/**
 * The first token of the shortest run of words ending at `last` whose initials spell `letters`, or
 * -1. Each word gives its initial (a skippable word may give none), and at most INNER_LETTERS more
 * from inside it; the second part of a hyphenated word may give none ("power-operated relief valve").
 */
function longFormStart(tokens: TokenBuffer, last: number, letters: string): number {
  const words: string[] = [];
  const parts: boolean[] = [];
  const lowest = Math.max(0, last - (letters.length + EXTRA_WORDS) + 1);
  for (let j = last; j >= lowest; j--) {
    const start = tokens.starts[j]!;
    if (!isLetter(tokens.text.charCodeAt(start)) && tokens.text.charCodeAt(start) !== 0x26) break;
    words.unshift(tokens.lower.slice(start, tokens.ends[j]));
    parts.unshift(j > 0 && tokens.joined[j - 1] === 1);
    // The long form starts on a word that gives the first letter and is not a skippable one.
    const word = words[0]!;
    if (!parts[0] && !SKIPPABLE.has(word) && word.charCodeAt(0) === (letters.charCodeAt(0) | 0x20) && spells(words, parts, letters.toLowerCase())) return j;
  }
  return -1;
}

/** Whether `words` (all of them) spell `letters` as longFormStart says; memoised, so linear in words × letters. */
function spells(words: readonly string[], parts: readonly boolean[], letters: string): boolean {
  const memo = new Map<number, boolean>();
  const from = (w: number, l: number): boolean => {
    if (w === words.length) return l === letters.length;
    const key = w * 64 + l;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const word = words[w]!;
    let ok = false;
    // Give nothing: a skippable word or a hyphenated part.
    if ((SKIPPABLE.has(word) || parts[w]!) && w > 0) ok = from(w + 1, l);
    // Give the initial, then up to INNER_LETTERS letters found in order inside the word.
    if (!ok && l < letters.length && word.charCodeAt(0) === letters.charCodeAt(l)) {
      ok = from(w + 1, l + 1);
      let at = 0;
      for (let extra = 1; !ok && extra <= INNER_LETTERS && l + extra < letters.length; extra++) {
        at = word.indexOf(letters[l + extra]!, at + 1);
        if (at < 0) break;
        ok = from(w + 1, l + extra + 1);
      }
    }
    memo.set(key, ok);
    return ok;
  };
  return from(0, 0);
}

/** A lexicon match as the acronym rule reads it: its tokens and the seed fields it routes to (a bit set). */
export interface TermSpan {
  first: number;
  last: number;
  fields: number;
}

/**
 * The class of a long form from the lexicon's matches `terms` (in text order; pure: `equipment` is
 * the bit set of the fields the rule fills, `headOf` the field whose terms end in a word, -1 if
 * none or another's): the term that ends the long form decides, whatever its field ("loss of coolant accident (LOCA)" is an event, no
 * equipment); else the long form's last word as a head noun of the lexicon ("high pressure
 * injection": "injection" ends several system terms); else the word after the parentheses ("(HPCS)
 * system"); else the equipment terms inside it, when they agree and its last word heads nothing else.
 */
export function longFormClass(
  definition: AcronymDefinition,
  terms: readonly TermSpan[],
  equipment: number,
  headOf: (word: string) => { field: number; other: boolean },
  wordAt: (k: number) => string,
): number {
  const fieldOf = (fields: number): number => {
    const mine = fields & equipment;
    return mine === 0 ? -1 : 31 - Math.clz32(mine & -mine);
  };
  let ending: TermSpan | null = null;
  let inside = 0;
  // `terms` are in text order: only those from the long form's first token on are read.
  let lo = 0;
  let hi = terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (terms[mid]!.first < definition.first) lo = mid + 1;
    else hi = mid;
  }
  for (let k = lo; k < terms.length && terms[k]!.first <= definition.last; k++) {
    const term = terms[k]!;
    if (term.last > definition.last) continue;
    if (term.last === definition.last && (ending === null || term.first < ending.first)) ending = term;
    inside |= term.fields & equipment;
  }
  if (ending !== null) return fieldOf(ending.fields);
  const head = headOf(wordAt(definition.last));
  if (head.field >= 0) return head.field;
  if (definition.after >= 0) {
    const after = headOf(wordAt(definition.after));
    if (after.field >= 0) return after.field;
  }
  if (head.other || inside === 0 || (inside & (inside - 1)) !== 0) return -1;
  return fieldOf(inside);
}

/** One item the rule adds: tokens first..last, in the field `field`, at token `first` in text order. */
export interface AcronymItem {
  first: number;
  last: number;
  field: number;
}

/**
 * The items of the defined acronyms of the text whose long form has a class: each long form, and
 * every mention of the acronym in the chunk, before or after it, singular or plural ("SG", "SGs"),
 * as written. Sorted by token. An acronym defined twice keeps its first class.
 */
export function acronymItems(tokens: TokenBuffer, definitions: readonly AcronymDefinition[], classOf: (d: AcronymDefinition) => number): AcronymItem[] {
  const items: AcronymItem[] = [];
  const fieldOfLetters = new Map<string, number>();
  for (const definition of definitions) {
    const field = classOf(definition);
    if (field < 0) continue;
    items.push({ first: definition.first, last: definition.last, field });
    if (!fieldOfLetters.has(definition.letters)) fieldOfLetters.set(definition.letters, field);
  }
  if (fieldOfLetters.size === 0) return items;
  const { text, starts, ends, count } = tokens;
  for (let k = 0; k < count; k++) {
    const start = starts[k]!;
    if (!isUpper(text.charCodeAt(start))) continue;
    // Not the tail of a compound ("RHR-SW"), nor its head.
    if ((k > 0 && tokens.joined[k - 1] === 1) || tokens.joined[k] === 1) continue;
    const letters = acronymLetters(text.slice(start, ends[k]));
    const field = letters === null ? undefined : fieldOfLetters.get(letters);
    if (field !== undefined) items.push({ first: k, last: k, field });
  }
  return items.sort((a, b) => a.first - b.first || b.last - a.last);
}
