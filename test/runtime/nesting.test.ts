// Records nested thousands of levels deep: refused by the one line parser every stage and
// `rca merge` share, with their line number, and the run goes on.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING_DEPTH, nestsDeeperThan, parseRecordLine } from '../../src/runtime/record-line.js';
import { defineStage } from '../../src/runtime/stage.js';
import { ROOT, runBin } from '../support/golden.js';
import { runInProcess } from '../support/run-in-process.js';
import { echoStage } from '../support/stages.js';

const SAMPLE = join(ROOT, 'test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl');
const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);
/** A valid record with one field nested `depth` levels deep (the record itself is one more). */
const deepRecord = (depth: number) => `{"id":"deep","x":${nested(depth)}}`;
/** `good` lines with a deep one put in as line 3. */
function withDeepLine(good: string[], depth: number): string {
  return [...good.slice(0, 2), deepRecord(depth), ...good.slice(2)].join('\n') + '\n';
}
const outLines = (text: string) => text.split('\n').filter(Boolean);

describe('nesting depth check', () => {
  it('counts brackets outside strings only, escapes included', () => {
    expect(nestsDeeperThan('{"a":[[1]]}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a":[[[1]]]}', 3)).toBe(true);
    expect(nestsDeeperThan(`{"a":"${'['.repeat(500)}"}`, 3)).toBe(false);
    expect(nestsDeeperThan(`{"a":"\\"${'['.repeat(500)}\\\\"}`, 3)).toBe(false);
    expect(nestsDeeperThan(`{"a":"\\\\",${'['.repeat(5)}`, 3)).toBe(true);
    expect(nestsDeeperThan('{"a":"unterminated [[[[[[', 3)).toBe(false);
  });

  it('accepts a record exactly at the limit and refuses one level more', () => {
    expect(parseRecordLine(`{"x":${nested(MAX_NESTING_DEPTH - 1)}}`).record).toBeDefined();
    expect(parseRecordLine(`{"x":${nested(MAX_NESTING_DEPTH)}}`).reject?.code).toBe('NESTING_TOO_DEEP');
    expect(parseRecordLine(`{"x":${nested(100_000, '{"a":', '}')}}`).reject?.code).toBe('NESTING_TOO_DEEP');
  });

  it('the runner rejects a line nested 100,000 deep with its line number and goes on', async () => {
    const good = Array.from({ length: 6 }, (_, i) => `{"id":${i}}`);
    const r = await runInProcess(echoStage, [withDeepLine(good, 100_000)]);
    expect(r.code).toBe(1);
    expect(outLines(r.stdout)).toHaveLength(6);
    expect(r.stderr).toBe(
      `rca-echo: stdin:3: NESTING_TOO_DEEP: arrays and objects nest more than ${MAX_NESTING_DEPTH} levels deep\nrca-echo: 1 of 7 records rejected\n`,
    );
  });
});

describe('a fatal error mid-run', () => {
  it('still writes every record produced before it', async () => {
    // An output record that cannot be serialised throws in the runner itself, after the stage.
    const stage = defineStage({
      name: 'bad-output',
      summary: 'test stage',
      examples: [],
      options: {},
      create: () => ({ process: (record) => ({ records: [record.id === 5 ? { n: 1n } : record] }) }),
    });
    const input = Array.from({ length: 8 }, (_, i) => `{"id":${i + 1}}\n`).join('');
    const r = await runInProcess(stage, [input]);
    expect(r.code).toBe(3);
    expect(outLines(r.stdout).map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([1, 2, 3, 4]);
    expect(r.stderr).toContain('fatal: Do not know how to serialize a BigInt');
    expect(r.stderr).not.toContain('cannot read');
    // The summary counts what was written, not what was read.
    expect(r.stderr.endsWith('rca-bad-output: stopped after reading 5 records; 4 records written\n')).toBe(true);
  });
});

describe('every stage and rca merge refuse a record nested 100,000 deep and go on', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'rca-nesting-'));
  const chunks = outLines(readFileSync(SAMPLE, 'utf8'));
  const tagged = outLines(runBin('tag', [], readFileSync(SAMPLE)).stdout);
  const generated = outLines(runBin('generate', ['--backend', 'extractive'], tagged.join('\n') + '\n').stdout);
  const cases: Array<[string, string[], string[]]> = [
    ['tag', [], chunks],
    ['tag', ['--jobs', '2'], chunks],
    ['count-sections', ['--unsorted'], chunks],
    ['prompt', [], tagged],
    ['generate', ['--backend', 'extractive'], tagged],
    ['summarize', ['--backend', 'extractive'], tagged],
    ['validate', [], generated],
    ['flatten', [], generated],
  ];

  it.each(cases)('rca-%s %j', (stage, args, good) => {
    expect(good.length).toBeGreaterThan(3);
    const r = runBin(stage, args, withDeepLine(good, 100_000));
    expect(r.stderr).toContain(`rca-${stage}: stdin:3: NESTING_TOO_DEEP: arrays and objects nest more than ${MAX_NESTING_DEPTH} levels deep\n`);
    expect(r.stderr).not.toContain('call stack');
    expect(r.code).toBe(1);
    const expected = runBin(stage, args, good.join('\n') + '\n');
    expect(r.stdout).toBe(expected.stdout);
  });

  it('rca merge', () => {
    const dir = (name: string) => {
      const path = join(tmp, name);
      mkdirSync(path, { recursive: true });
      return path;
    };
    writeFileSync(join(dir('in'), 'a.chunks.jsonl'), withDeepLine(chunks, 100_000));
    writeFileSync(join(dir('out'), 'a.summarized.jsonl'), chunks.join('\n') + '\n');
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/rca'), 'merge', '--inputs', join(tmp, 'in'), '--outputs', join(tmp, 'out')], { encoding: 'utf8' });
    expect(r.stderr).toContain(`a.chunks.jsonl:3: NESTING_TOO_DEEP: arrays and objects nest more than ${MAX_NESTING_DEPTH} levels deep; not expected in the outputs`);
    expect(r.stderr).toContain('every input record appears exactly once');
    expect(r.status).toBe(0);
  });
});
