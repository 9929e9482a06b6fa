// The fast paths of evidence matching against the plain scans they replaced (kept here as the
// reference): the tokenizer's slice-and-lower-case form of ASCII tokens, the partial match read
// from a per-text stem index, and the clause lookup by binary search. Same results, any input.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EvidenceText, tokensOf, type Token } from '../../src/views/evidence-text.js';
import { contentWords, locate, PARTIAL_MIN, stem } from '../../src/views/evidence-match.js';
import { wrapHyphenAt } from '../../src/tagging/layout.js';

// The tokenizer as it was: every character folded and appended one at a time.
const WORD_RE = /[\p{L}\p{N}]/u;
const SYMBOLS = new Set(['%', '°', '<', '>', '≤', '≥', '=', '±']);
function fold(raw: string, i: number): string {
  const c = raw.charCodeAt(i);
  if (c < 128) return c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : raw[i]!;
  const ch = String.fromCodePoint(raw.codePointAt(i)!);
  if (/[\u2010\u2011\u2012\u2212]/.test(ch)) return '-';
  if (/[\u2018\u2019\u02bc]/.test(ch)) return "'";
  const f = ch.normalize('NFKC').toLowerCase();
  return f.length === 1 ? f : f.replace(/[^\p{L}\p{N}]/gu, '') || ' ';
}
const isWord = (ch: string): boolean => WORD_RE.test(ch);
function referenceTokens(raw: string): Token[] {
  const tokens: Token[] = [];
  let norm = '';
  let start = -1;
  let end = -1;
  const flush = (): void => {
    if (norm !== '') tokens.push({ norm: norm.includes('.') ? norm.replace(/^(\d+)\.(\d*?)0+$/, (_m, w: string, f: string) => (f === '' ? w : `${w}.${f}`)) : norm, start, end });
    norm = '';
    start = -1;
  };
  for (let i = 0; i < raw.length; ) {
    const code = raw.charCodeAt(i);
    const width = code >= 0xd800 && code <= 0xdbff && i + 1 < raw.length ? 2 : 1;
    const folded = fold(raw, i);
    if (isWord(folded)) {
      if (start < 0) start = i;
      norm += folded;
      end = i + width;
    } else if (folded === ',' || folded === '.' || folded === '-' || folded === '_') {
      const prev = norm.at(-1) ?? '';
      const next = i + width < raw.length ? fold(raw, i + width) : '';
      if (folded === ',' && /\d/.test(prev) && /^\d{3}(?!\d)/.test(raw.slice(i + 1, i + 5).normalize('NFKC'))) end = i + width;
      else if (folded === '.' && /\d/.test(prev) && /\d/.test(next)) {
        norm += '.';
        end = i + width;
      } else if ((folded === '-' || folded === '_') && prev !== '' && isWord(prev) && isWord(next)) {
        norm += '-';
        end = i + width;
      } else if (code === 45 && start >= 0 && (next === '\n' || next === ' ' || next === '\r' || next === '\t') && wrapHyphenAt(raw, i) !== null) {
        // A word hyphenated at a line end is one token (the layout's rule, read where it is).
        const wrap = wrapHyphenAt(raw, i)!;
        if (!wrap.dropped) norm += '-';
        i = wrap.resume;
        continue;
      } else flush();
    } else if (SYMBOLS.has(folded)) {
      flush();
      tokens.push({ norm: folded, start: i, end: i + width });
    } else flush();
    i += width;
  }
  flush();
  return tokens;
}

// The partial match as it was: every clause and pair of clauses scanned for every item.
function referencePartial(item: string, text: EvidenceText): { score: number; span: [number, number] | null; from: number; to: number } {
  const words = contentWords(item);
  if (words.length === 0 || text.clauses.length === 0) return { score: 0, span: null, from: 0, to: 0 };
  const stems = text.tokens.map((t) => stem(t.norm));
  let best = { score: 0, rank: 0, from: 0, to: 0, tokens: [] as number[] };
  const clauses = text.clauses;
  for (let c = 0; c < clauses.length; c++) {
    for (const width of [1, 2]) {
      if (c + width > clauses.length) break;
      const where = new Map<string, number>();
      for (let t = clauses[c]!.first; t < clauses[c + width - 1]!.last; t++) if (!where.has(stems[t]!)) where.set(stems[t]!, t);
      const hits = words.flatMap((w) => (where.has(w) ? [where.get(w)!] : []));
      const score = hits.length / words.length;
      const rankScore = score - (width === 2 ? 1e-6 : 0);
      if (rankScore > best.rank) best = { score, rank: rankScore, from: c, to: c + width, tokens: hits };
    }
  }
  const score = Math.round(best.score * 1000) / 1000;
  if (best.score < PARTIAL_MIN) return { score, span: null, from: 0, to: 0 };
  const sorted = best.tokens.sort((a, b) => a - b);
  return { score, span: [text.tokens[sorted[0]!]!.start, text.tokens[sorted.at(-1)!]!.end], from: best.from, to: best.to };
}

const piece = fc.constantFrom('Pump', 'pumps', 'P-101A', 'P_2', 'tripped', 'trip', '1,175', '1,2', '5.00', '6.20', '.', ',', '-', '_', ' ', '  ', '\n', '. ', '; ', '|', '| |', 'no', 'not', 'but', 'although', 'Ｐｕｍｐ', 'ﬁlter', '½', 'P‑101', '−5', '°F', '≤', '%', 'Ärger', '𝐀𝐁', 'é', "don't", 'Valve', 'VALVES', 'seal', '(', ')', '/', ':', '#', '*', '+', '"', "'", '<', '>', '=', '!', '?', '@', '~', '\t', '[x]', '5<6', 'a=b');
const textArb = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''));
const wordArb = fc.constantFrom('pump', 'Pumps', 'trip', 'tripped', 'valve', 'seal', 'P-101A', '1175', 'filter', 'ärger', 'the', 'no', 'leak');

describe('evidence fast paths match the plain scans', () => {
  it.each(['Pump-\nPump', 'equip-\nment failed', 'a pre-\nexisting leak', 'valve 1-\nFCV-62 closed', 'end -\n next', 'Pump- \r\n  seal'])('tokens: a word hyphenated at a line end, %j', (raw) => {
    expect(tokensOf(raw)).toEqual(referenceTokens(raw));
  });

  it('tokens: the same norms and spans as folding one character at a time', () => {
    fc.assert(
      fc.property(textArb, (raw) => {
        expect(tokensOf(raw)).toEqual(referenceTokens(raw));
      }),
      { numRuns: 2000 },
    );
  });

  it('partial match from the stem index: the same score, span and clauses as scanning every clause', () => {
    fc.assert(
      fc.property(textArb, fc.array(wordArb, { minLength: 1, maxLength: 6 }), (raw, words) => {
        const text = new EvidenceText(raw);
        const item = `${words.join(' ')} zzqx`; // never exact: reaches the partial match
        const got = locate(item, text);
        const want = referencePartial(item, text);
        expect(got.score).toBe(want.score);
        if (want.span === null) expect(got.match).toBe('none');
        else {
          expect(got.match).toBe('partial');
          expect(got.spans).toEqual([{ start: want.span[0], end: want.span[1] }]);
          expect(got.clauses).toEqual(text.clauses.slice(want.from, want.to));
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('an exact match keeps every clause its span touches (binary search, not a filter of all)', () => {
    fc.assert(
      fc.property(textArb, fc.nat(), fc.nat(), (raw, a, b) => {
        const text = new EvidenceText(raw);
        if (text.tokens.length === 0) return;
        const first = text.tokens[a % text.tokens.length]!;
        const last = text.tokens[Math.max(a % text.tokens.length, b % text.tokens.length)]!;
        const item = raw.slice(first.start, last.end);
        const got = locate(item, text);
        if (got.match !== 'exact') return;
        const span = got.spans[0]!;
        expect(got.clauses).toEqual(text.clauses.filter((c) => c.end > span.start && c.start < span.end));
      }),
      { numRuns: 1000 },
    );
  });

  it('clauseOf by binary search: the clause a linear scan finds, or none', () => {
    fc.assert(
      fc.property(textArb, (raw) => {
        const text = new EvidenceText(raw);
        for (let i = -1; i <= text.tokens.length; i++) expect(text.clauseOf(i)).toBe(text.clauses.find((c) => i >= c.first && i < c.last) ?? null);
      }),
      { numRuns: 500 },
    );
  });
});
