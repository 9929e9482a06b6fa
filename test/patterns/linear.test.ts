// Every regular expression in src/ runs in linear time: the regex literals of the built code
// (dist/, read by acorn), and the patterns built at run time through src/runtime/patterns.ts,
// built here with the built-in lists. A pattern either checker flags fails with where it is and
// why; one only fuzzing could call safe must have its reason in undecided.ts (and is run on
// generated hostile inputs below, where a super-linear one would hang). No wall-clock limit: the
// checkers are the guard.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RegExpParser } from '@eslint-community/regexpp';
import { literalPattern } from '../../src/runtime/patterns.js';
import { allBuiltPatterns } from './built-patterns.js';
import { distPatterns } from './dist-patterns.js';
import { isLiteral, verdict, type Verdict } from './redos-check.js';
import { UNDECIDED, undecidedKey } from './undecided.js';
import { hostileInputs } from './hostile-inputs.js';

interface Checked {
  readonly where: string;
  /** Where without the line: the file and const name, or the buildPattern site. */
  readonly label: string;
  readonly source: string;
  readonly flags: string;
  readonly verdict: Verdict;
}

const dist = distPatterns();
const built = allBuiltPatterns();

async function checkAll(): Promise<Checked[]> {
  const all = [
    ...dist.literals.map((l) => {
      const file = l.where.replace(/:\d+$/, '');
      return { where: l.name ? `${l.where} (${l.name})` : l.where, label: l.name ? `${file} ${l.name}` : file, source: l.source, flags: l.flags };
    }),
    ...built.map((b) => ({ where: `buildPattern('${b.site}')`, label: `buildPattern('${b.site}')`, source: b.source, flags: b.flags })),
  ];
  // The same pattern at two places is checked once.
  const verdicts = new Map<string, Promise<Verdict>>();
  const out: Checked[] = [];
  for (const p of all) {
    const key = `/${p.source}/${p.flags}`;
    if (!verdicts.has(key)) verdicts.set(key, verdict(p.source, p.flags));
    out.push({ ...p, verdict: await verdicts.get(key)! });
  }
  return out;
}

const checked = checkAll();

describe('every regular expression in src/ is linear', () => {
  it('builds no pattern at run time except through src/runtime/patterns.ts', () => {
    const outside = dist.constructorCalls.filter((where) => !where.startsWith('dist/runtime/patterns.js:'));
    expect(outside, 'a RegExp built at run time outside src/runtime/patterns.ts: use buildPattern(site, source, flags) (or literalPattern for a term), so the ReDoS check sees it').toEqual([]);
    expect(dist.unnamedSites, 'buildPattern needs a string literal site name as its first argument').toEqual([]);
  });

  it('builds every buildPattern site of src/ here, so each is checked as compiled', () => {
    const reached = new Set(built.map((b) => b.site));
    const missed = dist.sites.filter((site) => !reached.has(site));
    expect(missed, 'a buildPattern site this test does not reach: use it in test/patterns/built-patterns.ts').toEqual([]);
    expect(new Set(dist.sites).size, 'two buildPattern calls with one site name').toBe(dist.sites.length);
  });

  it('has no pattern that either checker finds super-linear', async () => {
    const bad = (await checked).filter((c) => c.verdict.kind === 'super-linear');
    const lines = bad.map((c) => `${c.where}: /${c.source}/${c.flags}\n    ${(c.verdict as { why: string }).why}`);
    expect(lines, 'super-linear patterns (rewrite them: ARCHITECTURE.md, "Linear time")').toEqual([]);
  }, 300_000);

  it('gives every pattern the automaton could not decide its reason in undecided.ts, and keeps no stale one', async () => {
    const undecided = (await checked).filter((c) => c.verdict.kind === 'undecided');
    const keyOf = (c: Checked) => undecidedKey(c.label, c.source, c.flags);
    const keys = new Set(undecided.map(keyOf));
    const missing = undecided
      .filter((c) => !UNDECIDED.has(keyOf(c)))
      .map((c) => `${keyOf(c)}  /${c.source}/${c.flags}\n    (${(c.verdict as { fuzzed: string }).fuzzed})`);
    expect(missing, 'patterns the automaton checker cannot decide: rewrite them, or say in test/patterns/undecided.ts why each is linear').toEqual([]);
    const stale = [...UNDECIDED.keys()].filter((k) => !keys.has(k));
    expect(stale, 'undecided.ts entries no pattern of src/ has any more').toEqual([]);
  }, 300_000);

  it('runs each undecided pattern through generated hostile inputs (a hang here is a super-linear pattern)', async () => {
    const undecided = (await checked).filter((c) => c.verdict.kind === 'undecided');
    for (const c of undecided) {
      const re = new RegExp(c.source, c.flags.replace('y', '') + (c.flags.includes('g') ? '' : 'g'));
      for (const input of hostileInputs(c.source, c.flags)) {
        let n = 0;
        for (const m of input.matchAll(re)) n += m[0].length + 1;
        expect(n).toBeGreaterThanOrEqual(0);
      }
    }
  }, 300_000);

  it('makes a term pattern that matches the term as written and nothing else (linear: a string search)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (term) => {
        const re = literalPattern(term, 'gi');
        expect(isLiteral(re.source, re.flags)).toBe(true);
        if (term !== '') expect(re.test(`x${term}y`)).toBe(true);
      }),
      { numRuns: 2000 },
    );
    // A hostile lexicon's terms: pattern syntax, and the nested-quantifier shapes that backtrack.
    for (const term of ['(a+)+$', '[A-Z]{1,8}(?:[-_ ]?[A-Z0-9]+)*', '.*.*.*=', '\\', '(?<=x)', 'a|b|', '\\1(a)']) {
      const re = literalPattern(term, 'gi');
      expect(isLiteral(re.source, re.flags)).toBe(true);
      expect(re.test(term)).toBe(true);
    }
  });

  it('flags the pattern that stalled an EOP step table, and others of its kinds, saying why', async () => {
    const eop = await verdict(String.raw`\b[A-Z]{1,8}(?:[-_ ]?[A-Z0-9]+)*[-_ ]?\d[\w.-]*`, 'g');
    expect(eop.kind).toBe('super-linear');
    expect((eop as { why: string }).why).toMatch(/exponential/);
    // A blank run retried from each of its characters; a lazy body and a back-reference.
    expect((await verdict(String.raw`\s*(?:\u2026|\.{3,})$`, 'u')).kind).toBe('super-linear');
    // A back-reference is past the automaton: undecided, so it fails until someone gives a reason.
    expect((await verdict(String.raw`(\*\*|__)(?=\S)((?:[^]*?\S)?)\1`, 'g')).kind).toBe('undecided');
    // Built from strings: a "/" in the source is fine.
    expect((await verdict('(?:a|a)*/', '')).kind).toBe('super-linear');
    expect(new RegExpParser({ ecmaVersion: 2025 }).parseLiteral('/a+/u').flags.unicode).toBe(true);
  }, 120_000);
});
