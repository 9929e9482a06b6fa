// The one exit-status rule (runtime/exit-codes.ts, exitStatus) and what the runner does with a
// view kept with quality flags: a warning on stderr, capped per view as rejects are capped per
// code, exit 0; exit 1 only under --fail-on-flags. The tables of the README, docs/errors.md,
// ARCHITECTURE.md and every --help must say the same.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT_HELP, exitStatus, type RunResult } from '../../src/runtime/exit-codes.js';
import { FLAG_OPTIONS } from '../../src/runtime/options.js';
import { defineStage, type JsonObject } from '../../src/runtime/stage.js';
import { runInProcess } from '../support/run-in-process.js';

// The runner names the first 5 flagged views of each view on stderr, as --help says.
const FLAGGED_SHOWN_PER_VIEW = 5;

const clean: RunResult = { interrupted: false, fatal: false, rejected: 0, failed: false, flagged: 0, failOnFlags: false };

describe('exitStatus: one rule, the worst thing that happened wins', () => {
  it.each([
    ['nothing happened', {}, 0],
    ['views kept with flags', { flagged: 40_000 }, 0],
    ['views kept with flags, --fail-on-flags', { flagged: 1, failOnFlags: true }, 1],
    ['--fail-on-flags, no flag', { failOnFlags: true }, 0],
    ['a reject', { rejected: 1 }, 1],
    ['a failed view', { failed: true }, 1],
    ['fatal beats failed and flagged', { fatal: true, failed: true, flagged: 3, failOnFlags: true }, 3],
    ['interrupted beats fatal', { interrupted: true, fatal: true, rejected: 2 }, 130],
  ] as const)('%s → %i', (_name, run, status) => {
    expect(exitStatus({ ...clean, ...run })).toBe(status);
  });
});

// A stage whose records carry view flags, as generate and validate do: { n, flags: [...] } in,
// each of its views flagged as the record says.
const flagStage = defineStage({
  name: 'flagger',
  summary: 'test stage: flags views',
  examples: [],
  options: { ...FLAG_OPTIONS },
  create() {
    return {
      process(record: JsonObject) {
        const flags = (record.flags as string[] | undefined) ?? [];
        return { records: [record], ...(flags.length > 0 ? { flagged: [{ view: String(record.view ?? 'retrieval_summary'), flags }] } : {}) };
      },
    };
  },
});

const lines = (records: JsonObject[]) => records.map((r) => JSON.stringify(r) + '\n').join('');

describe('the runner and flagged views', () => {
  it('a flagged view is written and named on stderr with its line; the run exits 0', async () => {
    const r = await runInProcess(flagStage, [lines([{ n: 1 }, { n: 2, flags: ['few_keywords'] }, { n: 3 }])]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(3);
    expect(r.stderr).toBe('rca-flagger: stdin:2: retrieval_summary: few_keywords\n');
  });

  it('--fail-on-flags makes the same run exit 1, with the same output and lines', async () => {
    const input = lines([{ n: 1 }, { n: 2, flags: ['few_keywords', 'boilerplate'] }]);
    const plain = await runInProcess(flagStage, [input]);
    const strict = await runInProcess(flagStage, [input], ['--fail-on-flags']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toBe(plain.stdout);
    expect(strict.stderr).toBe(plain.stderr);
    expect(strict.stderr).toBe('rca-flagger: stdin:2: retrieval_summary: few_keywords, boilerplate\n');
  });

  it('--flags-ok is the default spelled out; with --fail-on-flags it is a usage error', async () => {
    const input = lines([{ n: 1, flags: ['few_keywords'] }]);
    expect((await runInProcess(flagStage, [input], ['--flags-ok'])).code).toBe(0);
    const both = await runInProcess(flagStage, [input], ['--fail-on-flags', '--flags-ok']);
    expect(both.code).toBe(2);
    expect(both.stdout).toBe('');
    expect(both.stderr).toBe('rca-flagger: --fail-on-flags and --flags-ok say opposite things: give one (see --help)\n');
  });

  it(`stderr names the first ${FLAGGED_SHOWN_PER_VIEW} flagged views of each view, then one count per view`, async () => {
    const records: JsonObject[] = [];
    for (let n = 1; n <= 12; n++) records.push({ n, flags: ['few_keywords'] });
    for (let n = 13; n <= 19; n++) records.push({ n, view: 'rca_frame', flags: ['empty_frame'] });
    records.push({ n: 20, view: 'section_summary', flags: ['few_concepts'] });
    const r = await runInProcess(flagStage, [lines(records)]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(20);
    const shown = (view: string) => r.stderr.split('\n').filter((l) => l.includes(`: ${view}: `));
    expect(shown('retrieval_summary')).toEqual([1, 2, 3, 4, 5].map((n) => `rca-flagger: stdin:${n}: retrieval_summary: few_keywords`));
    expect(shown('rca_frame')).toEqual([13, 14, 15, 16, 17].map((n) => `rca-flagger: stdin:${n}: rca_frame: empty_frame`));
    expect(shown('section_summary')).toEqual(['rca-flagger: stdin:20: section_summary: few_concepts']);
    expect(r.stderr).toContain("rca-flagger: … 7 more flagged retrieval_summary views (each record's flags field names its flags)\n");
    expect(r.stderr).toContain("rca-flagger: … 2 more flagged rca_frame views (each record's flags field names its flags)\n");
    expect(r.stderr).not.toContain('more flagged section_summary');
  });
});

describe('every table of exit statuses says the same', () => {
  const table = (path: string) => {
    const text = readFileSync(path, 'utf8');
    const start = text.indexOf('| status | meaning |');
    return text.slice(start, text.indexOf('\n\n', start));
  };

  it('README and docs/errors.md hold the same table', () => {
    expect(table('docs/errors.md')).toBe(table('README.md'));
  });

  it.each(['README.md', 'docs/errors.md', 'ARCHITECTURE.md'])('%s: 0 takes flagged views, 1 only with --fail-on-flags, 2 is a bad input file', (path) => {
    const rows = Object.fromEntries(table(path).split('\n').slice(2).map((row) => row.split(' | ').map((cell) => cell.replace(/^\| |\s*\|$/g, ''))));
    expect(Object.keys(rows)).toEqual(['0', '1', '2', '3', '130']);
    expect(rows['0']).toMatch(/quality flags are warnings/);
    expect(rows['1']).toMatch(/--fail-on-flags/);
    expect(rows['2']).toMatch(/missing or unreadable input file/);
  });

  it('EXIT_HELP (every --help) says it too', () => {
    expect(EXIT_HELP).toMatch(/^ {2}0 {4}every record was processed; views kept with quality flags are warnings on stderr, not failures$/m);
    expect(EXIT_HELP).toMatch(/^ {2}1 {4}.*a flagged one only with --fail-on-flags/m);
    expect(EXIT_HELP).toMatch(/^ {2}2 {4}usage error \(.*missing or unreadable input file\)$/m);
  });
});
