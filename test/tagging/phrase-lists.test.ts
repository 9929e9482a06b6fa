import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPhraseLists, buildPhraseMatcher, surfaceText, TokenBuffer, type DuplicatePolicy, type PhraseSpec } from '../../src/tagging/phrase-matcher.js';

// Several lists share one trie and one pass over the tokens; each must still match exactly as if
// it were scanned on its own.

const WORDS = ['pump', 'Pump', 'PUMP', 'seal', 'in', 'on', 'the', 'check', 'valve', 'o-ring', 'o', 'ring', 'I&C', 'i', 'c', 'approx.', 'PUT', 'put', 'é', 'café'];
const SEPARATORS = [' ', ' ', '  ', '\t', '\n', '-', '', '\u00a0', '.', ', ', '&', '/'];

const phrase = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((words) => words.join(' '));
const spec = fc.record({ phrase, payload: fc.constantFrom('a', 'b', 'c'), caseSensitive: fc.boolean() });
const list = fc.record({ specs: fc.array(spec, { maxLength: 12 }), onDuplicate: fc.constantFrom<DuplicatePolicy>('merge', 'keep-first') });
const text = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), { maxLength: 30 })
  .map((parts) => parts.map(([word, separator]) => word + separator).join(''));

type Found = [start: number, end: number, payloads: string[], first: number, last: number];

function alone(specs: PhraseSpec<string>[], onDuplicate: DuplicatePolicy, input: string): Found[] {
  const found: Found[] = [];
  buildPhraseMatcher(specs, onDuplicate).scan(new TokenBuffer().load(input), (start, end, payloads, first, last) => {
    found.push([start, end, [...payloads], first, last]);
  });
  return found;
}

/** The matching rules written out plainly (every phrase tried at every token), as an oracle. */
function naive(specs: PhraseSpec<string>[], onDuplicate: DuplicatePolicy, input: string): Found[] {
  const words = (tokens: TokenBuffer, from: string) => Array.from({ length: tokens.count }, (_, k) => from.slice(tokens.starts[k], tokens.ends[k]));
  // One entry per phrase (its lowercased tokens): case-insensitive payloads, then exact-case forms.
  const entries = new Map<string, { lower: string[]; payloads: string[]; exact: { words: string[]; payload: string }[] }>();
  for (const { phrase, payload, caseSensitive } of specs) {
    const tokens = new TokenBuffer().load(phrase);
    if (tokens.count === 0) continue;
    const lower = words(tokens, tokens.lower);
    const key = lower.join('\u0000');
    const entry = entries.get(key) ?? { lower, payloads: [], exact: [] };
    if (onDuplicate === 'keep-first' && entries.has(key)) continue;
    entries.set(key, entry);
    const raw = words(tokens, tokens.text);
    if (caseSensitive === true) {
      if (!entry.exact.some((e) => e.payload === payload && e.words.join(' ') === raw.join(' '))) entry.exact.push({ words: raw, payload });
    } else if (!entry.payloads.includes(payload)) entry.payloads.push(payload);
  }
  const tokens = new TokenBuffer().load(input);
  const lower = words(tokens, tokens.lower);
  const raw = words(tokens, tokens.text);
  const found: Found[] = [];
  for (let i = 0; i < tokens.count; ) {
    let best: Found | null = null;
    if (i === 0 || tokens.joined[i - 1] !== 1) {
      for (const entry of entries.values()) {
        const last = i + entry.lower.length - 1;
        if (last >= tokens.count || tokens.joined[last] === 1 || (best !== null && last <= best[4])) continue;
        if (!entry.lower.every((word, k) => lower[i + k] === word)) continue;
        const payloads = [...entry.payloads];
        for (const exact of entry.exact) {
          if (exact.words.every((word, k) => raw[i + k] === word) && !payloads.includes(exact.payload)) payloads.push(exact.payload);
        }
        if (payloads.length > 0) best = [tokens.starts[i]!, tokens.ends[last]!, payloads, i, last];
      }
    }
    if (best === null) i++;
    else {
      found.push(best);
      i = best[4] + 1;
    }
  }
  return found;
}

describe('buildPhraseMatcher', () => {
  it('follows the matching rules (longest phrase, case-insensitive words, exact-case acronyms, no match inside a compound)', () => {
    fc.assert(
      fc.property(list, text, ({ specs, onDuplicate }, input) => {
        expect(alone(specs, onDuplicate, input)).toEqual(naive(specs, onDuplicate, input));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('buildPhraseLists', () => {
  it('matches each list as if it were scanned alone', () => {
    fc.assert(
      fc.property(fc.array(list, { minLength: 1, maxLength: 5 }), text, (lists, input) => {
        const together: Found[][] = lists.map(() => []);
        buildPhraseLists(lists).scan(new TokenBuffer().load(input), (index, start, end, payloads, first, last) => {
          together[index]!.push([start, end, [...payloads], first, last]);
        });
        expect(together).toEqual(lists.map(({ specs, onDuplicate }) => alone(specs, onDuplicate, input)));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses more lists than its filter has bits', () => {
    expect(() => buildPhraseLists(Array.from({ length: 9 }, () => ({ specs: [] })))).toThrow(/at most 8/);
  });
});

describe('TokenBuffer.surface', () => {
  it('is surfaceText of the span of tokens first..last', () => {
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (input, a, b) => {
        const tokens = new TokenBuffer().load(input);
        if (tokens.count === 0) return;
        const first = a % tokens.count;
        const last = first + (b % (tokens.count - first));
        expect(tokens.surface(first, last)).toBe(surfaceText(input, tokens.starts[first]!, tokens.ends[last]!));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('phrase numbers and TokenBuffer.surfaceKey', () => {
  // Texts with case, gaps, compounds and the characters whose lowercase is not one ASCII letter.
  const KEY_WORDS = [...WORDS, 'İ', 'ΟΔΟΣ', 'Σ', '\u212a', 'i', 'I'];
  const keyText = fc
    .array(fc.tuple(fc.constantFrom(...KEY_WORDS), fc.constantFrom(...SEPARATORS)), { maxLength: 30 })
    .map((parts) => parts.map(([word, separator]) => word + separator).join(''));
  type Seen = { list: number; phrase: number; key: number; words: string; lowered: string };
  const scanned = (lists: { specs: PhraseSpec<string>[]; onDuplicate: DuplicatePolicy }[], input: string): Seen[] => {
    const tokens = new TokenBuffer().load(input);
    const seen: Seen[] = [];
    buildPhraseLists(lists).scan(tokens, (list, _start, _end, _payloads, first, last, phrase) => {
      const words = Array.from({ length: last - first + 1 }, (_, k) => tokens.lower.slice(tokens.starts[first + k], tokens.ends[first + k])).join(' ');
      seen.push({ list, phrase, key: tokens.surfaceKey(first, last, phrase), words, lowered: tokens.surface(first, last).toLowerCase() });
    });
    return seen;
  };

  it('a phrase number names the lowercased words of its list, or is -1 where the list has case-sensitive phrases there', () => {
    fc.assert(
      fc.property(fc.array(list, { minLength: 1, maxLength: 4 }), keyText, (lists, input) => {
        const byPhrase = new Map<number, string>();
        const byWords = new Map<string, number>();
        for (const { list: l, phrase, words } of scanned(lists, input)) {
          if (phrase < 0) continue;
          expect(byPhrase.get(phrase) ?? `${l}:${words}`).toBe(`${l}:${words}`);
          expect(byWords.get(`${l}:${words}`) ?? phrase).toBe(phrase);
          byPhrase.set(phrase, `${l}:${words}`);
          byWords.set(`${l}:${words}`, phrase);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('equal keys of one list are equal lowercased surfaces, and back; -1 unless every word token is ASCII', () => {
    fc.assert(
      fc.property(fc.array(list, { minLength: 1, maxLength: 4 }), keyText, (lists, input) => {
        const ascii = new TokenBuffer().load(input).asciiWords;
        const keyOf = new Map<string, number>();
        const surfaceOf = new Map<string, string>();
        for (const { list: l, key, lowered } of scanned(lists, input)) {
          if (!ascii) expect(key).toBe(-1);
          if (key < 0) continue;
          expect(surfaceOf.get(`${l}:${key}`) ?? lowered).toBe(lowered);
          expect(keyOf.get(`${l}:${lowered}`) ?? key).toBe(key);
          surfaceOf.set(`${l}:${key}`, lowered);
          keyOf.set(`${l}:${lowered}`, key);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('is -1 without a phrase number, and for hyphen-joined gaps', () => {
    const tokens = new TokenBuffer().load('o-ring pump  seal');
    expect(tokens.surfaceKey(0, 1, -1)).toBe(-1);
    expect(tokens.surfaceKey(0, 1, 7)).toBe(-1);
    expect(tokens.surfaceKey(2, 3, 7)).toBe(7 * 512 + 0b11);
  });
});

describe('TokenBuffer character classes', () => {
  // ASCII is classified up front without regexes, the rest by the Unicode classes on first sight:
  // both must agree with the definition (word: \p{L}\p{N}\p{M}_; space: \s; hyphen: - and U+2010/11).
  const kindOf = (char: string): string =>
    char === '-' || char === '\u2010' || char === '\u2011' ? 'hyphen' : /^[\p{L}\p{N}\p{M}_]$/u.test(char) ? 'word' : /^\s$/u.test(char) ? 'space' : 'punct';
  const tokensOf = (char: string): string => {
    const tokens = new TokenBuffer().load(`x${char}y`);
    if (tokens.count === 1) return 'word';
    if (tokens.count === 3) return 'punct';
    return tokens.joined[0] === 1 ? 'hyphen' : 'space';
  };
  const ascii = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));
  it.each([...ascii, '\u00e9', '\u0301', '\u00a0', '\u2009', '\u2010', '\u2011', '\u2013', '\u00b7', '\u0660'].map((char) => [char.charCodeAt(0).toString(16), char]))(
    'U+%s',
    (_code, char) => {
      expect(tokensOf(char)).toBe(kindOf(char));
    },
  );
});
