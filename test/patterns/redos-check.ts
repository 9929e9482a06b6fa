// The ReDoS check of one pattern: two checkers, and what each says.
// - scslre (what eslint-plugin-regexp's no-super-linear-backtracking/-move run): a static analysis
//   of attack strings that repeat one character; fast and exact about assertions and
//   back-references, blind to attacks that repeat two or more characters.
// - recheck: the general checker; it decides a pattern by its automaton (ambiguity of the NFA,
//   sound and complete for what it covers) and falls back to seeded fuzzing where the automaton
//   cannot express it (lookaround, back-references). A fuzzed "safe" is evidence, not proof.
// A pattern passes when scslre reports nothing and recheck's automaton calls it safe; one the
// automaton cannot take (lookaround, back-references, size) is "undecided" and needs its reason in
// undecided.ts.
import { RegExpParser } from '@eslint-community/regexpp';
import { check } from 'recheck';
import { analyse } from 'scslre';

export type Verdict =
  | { kind: 'linear'; by: 'automaton' | 'literal' }
  | { kind: 'undecided'; fuzzed: string }
  | { kind: 'super-linear'; why: string };

// recheck's automaton verdicts are exact and do not depend on time; its fuzzing runs each attack
// for at most 1 s (unlimited, a super-linear attack runs for minutes), so a fuzzed verdict
// depends on the machine's load, and on lookbehinds it reported quadratic time for patterns V8
// runs in one pass (SENTENCE_END_RE, ACTION_RE). So only the automaton decides; a pattern it could
// not take is "undecided", whatever the fuzzing said (shown as a hint), and needs its reason.
const RECHECK = { randomSeed: 42, timeout: 60_000 } as const;

/** Is the source only literal characters (escaped or not), so that matching it is a string search? */
export function isLiteral(source: string, flags: string): boolean {
  // What new RegExp('') shows as its source.
  if (source === '(?:)') return true;
  const pattern = new RegExpParser({ ecmaVersion: 2025 }).parsePattern(source, undefined, undefined, { unicode: flags.includes('u'), unicodeSets: flags.includes('v') });
  return pattern.alternatives.length === 1 && pattern.alternatives[0]!.elements.every((e) => e.type === 'Character');
}

export async function verdict(source: string, flags: string): Promise<Verdict> {
  if (isLiteral(source, flags)) return { kind: 'linear', by: 'literal' };
  // As a literal: RegExp's own source escapes the "/" a string-built pattern may hold.
  const literal = new RegExpParser({ ecmaVersion: 2025 }).parseLiteral(`/${new RegExp(source, flags).source}/${flags}`);
  const reports = analyse(literal, { reportTypes: { Move: true, Self: true, Trade: true } }).reports;
  if (reports.length > 0) {
    const r = reports[0]!;
    const quant = 'quant' in r ? r.quant.raw : '';
    const kinds: Record<string, string> = {
      Move: 'a match attempt from each position of a run re-reads the rest of it',
      Self: 'a quantifier inside a quantifier splits the same characters in many ways',
      Trade: 'two quantifiers next to each other trade characters on a run',
    };
    const exp = r.exponential ? 'exponential' : 'polynomial';
    return { kind: 'super-linear', why: `scslre: ${exp} backtracking (${r.type}) at ${quant}: ${kinds[r.type] ?? r.type}, on a run of ${JSON.stringify(r.character.literal.source)}` };
  }
  const result = await check(source, flags, RECHECK);
  if (result.status === 'unknown') return { kind: 'undecided', fuzzed: `recheck could not check it (${result.error.kind})` };
  const what =
    result.status === 'vulnerable'
      ? `${result.complexity.summary} backtracking (attack: ${result.attack.pattern}; hotspot: ${result.hotspot.map((h) => source.slice(h.start, h.end)).join(', ')})`
      : 'no attack found';
  if (result.checker === 'fuzz') return { kind: 'undecided', fuzzed: `recheck's fuzzing: ${what}` };
  return result.status === 'vulnerable' ? { kind: 'super-linear', why: `recheck: ${what}` } : { kind: 'linear', by: 'automaton' };
}
