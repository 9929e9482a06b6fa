// A large record's heavy work goes to the run's worker thread (runtime/off-thread.ts); nothing of
// what a run writes may depend on it. Each stage that sends work there runs the same input three
// ways — every record on this thread, the default threshold (records just under and just over
// it), every record on the worker — and stdout, stderr, --rejects, --stats (less its timing) and
// the exit status must be the same bytes.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OFF_THREAD_CHARS, OffThread } from '../../src/runtime/off-thread.js';
import type { Stage } from '../../src/runtime/stage.js';
import generate from '../../src/transforms/generate.js';
import prompt from '../../src/transforms/prompt.js';
import summarize from '../../src/transforms/summarize.js';
import tag from '../../src/transforms/tag.js';
import validate from '../../src/transforms/validate.js';
import { ROOT } from '../support/golden.js';
import { runInProcess } from '../support/run-in-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'rca-off-thread-'));
const sample = readFileSync(join(ROOT, 'examples/sample-corpus.jsonl'), 'utf8').split('\n').filter(Boolean);
const prose = sample.map((l) => String((JSON.parse(l) as { text: string }).text)).join('\n\n');

/** The record of `line` with its text cut or padded (spaces) so that its line is `chars` characters. */
function sized(line: string, chars: number, id: string): string {
  const rec = JSON.parse(line) as Record<string, unknown>;
  rec.chunk_id = id;
  let text = String(rec.text);
  while (text.length < chars) text += `\n\n${prose}`;
  for (;;) {
    const out = JSON.stringify({ ...rec, text });
    if (out.length === chars) return out;
    text = out.length > chars ? text.slice(0, text.length - Math.max(1, Math.floor((out.length - chars) / 2))) : text + ' '.repeat(chars - out.length);
  }
}

/** Small records, a line just under the threshold, a bad line, one just over, small records. */
function around(lines: string[], big: string, extra: string[] = []): string {
  return [...lines.slice(0, 3), sized(big, OFF_THREAD_CHARS - 1, 'BIG:under'), 'not json', sized(big, OFF_THREAD_CHARS + 1, 'BIG:over'), ...extra, ...lines.slice(3, 6)].join('\n') + '\n';
}

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  rejects: string;
  stats: Record<string, unknown>;
  jobs: number;
}

async function run(stage: Stage, input: string, argv: string[], threshold: number, readBytes: number): Promise<RunResult> {
  const name = Math.random().toString(36).slice(2);
  const statsFile = join(tmp, `${name}.stats.json`);
  const rejectsFile = join(tmp, `${name}.rejects.jsonl`);
  const offThread = new OffThread(threshold);
  const reads: Buffer[] = [];
  const bytes = Buffer.from(input);
  for (let at = 0; at < bytes.length; at += readBytes) reads.push(bytes.subarray(at, at + readBytes));
  const r = await runInProcess(stage, reads, [...argv, '--stats', statsFile, '--rejects', rejectsFile], { offThread });
  const { wall_seconds: _w, records_per_second: _r, slowest_record: _s, ...stats } = JSON.parse(readFileSync(statsFile, 'utf8')) as Record<string, unknown>;
  return { ...r, rejects: readFileSync(rejectsFile, 'utf8'), stats, jobs: offThread.jobs };
}

/** The same run with every record here, with the default threshold, and with every record on the worker. */
async function expectSameEveryWay(stage: Stage, input: string, argv: string[], sentAtDefault: number, readBytes = 256 * 1024): Promise<RunResult> {
  const here = await run(stage, input, argv, Infinity, readBytes);
  const byDefault = await run(stage, input, argv, OFF_THREAD_CHARS, readBytes);
  const all = await run(stage, input, argv, 0, readBytes);
  expect(here.jobs).toBe(0);
  expect(byDefault.jobs, 'records sent to the worker at the default threshold').toBe(sentAtDefault);
  expect(all.jobs).toBeGreaterThanOrEqual(sentAtDefault);
  for (const other of [byDefault, all]) {
    expect(other.code).toBe(here.code);
    expect(other.stdout === here.stdout, 'stdout').toBe(true);
    expect(other.stderr).toBe(here.stderr);
    expect(other.rejects).toBe(here.rejects);
    expect(other.stats).toEqual(here.stats);
  }
  return here;
}

const bigRaw = JSON.stringify({ doc_id: 'BIG', chunk_id: 'BIG', section_path: 'Procedure > Steps', page_start: 3, text: prose });
// Tag's own field on the input: the record is rebuilt, not appended to.
const rebuilt = sized(JSON.stringify({ ...(JSON.parse(bigRaw) as object), tag_flags: 'upstream' }), OFF_THREAD_CHARS + 10, 'BIG:rebuilt');
const raw = around(sample, bigRaw, [rebuilt]);
const lineOf = (out: string, id: string) => out.split('\n').find((l) => l.includes(`"chunk_id":"${id}"`))!;

describe('a large record on the worker thread: the same bytes as on this thread', () => {
  let tagged = '';
  let summarized = '';
  const smallTagged = () => tagged.split('\n').filter((l) => l !== '' && l.length < 10_000);
  const bigTagged = () => lineOf(tagged, 'BIG:over');

  it('rca-tag (one thread): context, doc type, seed, flags', async () => {
    const r = await expectSameEveryWay(tag, raw, ['--jobs', '1'], 2);
    expect(r.code).toBe(1);
    expect(r.rejects).toContain('BAD_JSON');
    tagged = r.stdout;
    const records = tagged.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { chunk_id: string; ner_seed: { equipment_ids: string[] } });
    expect(records.map((rec) => rec.chunk_id)).toContain('BIG:over');
    expect(records.find((rec) => rec.chunk_id === 'BIG:over')!.ner_seed.equipment_ids.length).toBeGreaterThan(0);
  }, 120_000);

  it('rca-tag --jobs 2: a line too long for a block, tagged on the worker thread in its turn', async () => {
    // Read 64 KiB at a time, a line still unfinished after 1 MiB leaves the blocks (block-source.ts)
    // and comes alone, in its turn; the lines around the threshold go in blocks to the tag workers.
    const input = raw + sized(bigRaw, OFF_THREAD_CHARS + 200_000, 'BIG:long') + '\n' + sample[8] + '\n';
    const r = await expectSameEveryWay(tag, input, ['--jobs', '2'], 1, 64 * 1024);
    expect(r.stdout.startsWith(tagged)).toBe(true);
  }, 120_000);

  it('rca-prompt', async () => {
    const input = around(smallTagged(), bigTagged(), [JSON.stringify({ chunk_id: 'untagged', text: 'x' })]);
    const r = await expectSameEveryWay(prompt, input, [], 1);
    expect(r.rejects).toContain('NOT_TAGGED');
  }, 120_000);

  it('rca-generate --backend extractive', async () => {
    await expectSameEveryWay(generate, around(smallTagged(), bigTagged()), ['--backend', 'extractive'], 1);
  }, 120_000);

  it('rca-summarize --backend extractive (flagged views, --fail-on-flags)', async () => {
    const r = await expectSameEveryWay(summarize, around(smallTagged(), bigTagged()), ['--backend', 'extractive', '--no-flatten', '--fail-on-flags'], 1);
    expect(r.stderr).toMatch(/few_keywords|ungrounded/);
    summarized = r.stdout;
  }, 120_000);

  it('rca-validate', async () => {
    const lines = summarized.split('\n').filter(Boolean);
    await expectSameEveryWay(validate, around(lines.filter((l) => l.length < 10_000), lineOf(summarized, 'BIG:over')), [], 1);
  }, 120_000);
});
