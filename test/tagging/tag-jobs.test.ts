// `rca-tag --jobs N`: worker threads change nothing in what is written. Every case compares the
// threaded run with the one-thread run (--jobs 1) byte for byte, stdout, stderr and exit status.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runStage } from '../../src/runtime/runner.js';
import { detectDocType } from '../../src/tagging/doc-type.js';
import { DETECTION_TEXT_CHARS } from '../../src/tagging/tag-record.js';
import { AUTO_MIN_INPUT_BYTES, autoJobs, autoPlan, BLOCKS_PER_WORKER, MAX_AUTO_JOBS } from '../../src/tagging/tag-pool.js';
import tag from '../../src/transforms/tag.js';
import { expectedOf, goldenCases, ROOT, runBin, type GoldenCase } from '../support/golden.js';
import { runInProcess } from '../support/run-in-process.js';
import { noWorkerTag, parallelTagStage } from './support/tag-stages.js';

const tmp = mkdtempSync(join(tmpdir(), 'rca-tag-jobs-'));
const lines = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
const jsonl = (records: object[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** An input in reads of `size` bytes: each short read is a block of its own, so a few KB make many blocks. */
export function inReads(input: string, size = 8 * 1024): Buffer[] {
  const bytes = Buffer.from(input);
  const reads: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) reads.push(bytes.subarray(at, at + size));
  return reads;
}

/** Runs tag in this process with `--jobs jobs`, plus --stats so the test sees what ran where. */
async function tagWith(jobs: number | 'auto', input: string | Array<string | Buffer>, args: string[] = []) {
  const statsFile = join(tmp, `stats-${Math.random().toString(36).slice(2)}.json`);
  const r = await runInProcess(tag, typeof input === 'string' ? inReads(input) : input, [...args, '--jobs', String(jobs), '--stats', statsFile]);
  return { ...r, stats: JSON.parse(readFileSync(statsFile, 'utf8')) as Record<string, number> };
}

describe('--jobs: choosing the thread count', () => {
  it.each([
    [0, 0, 1],
    [1, 0, 1],
    [1, 3, 1],
    [2, 0, 2],
    [2, 0.4, 2],
    [2, 0.6, 1],
    [2, 10, 1],
    [3, 0, 3],
    [4, 1.2, 3],
    [16, 0, MAX_AUTO_JOBS],
    [16, 14, 2],
  ])('auto on %i CPUs at a load of %d is %i threads', (cpus, load, jobs) => {
    expect(autoJobs(cpus, load)).toBe(jobs);
  });

  it.each([
    ['a file under the crossover: one thread', AUTO_MIN_INPUT_BYTES - 1, 2, { jobs: 1, spawnAfterBytes: Infinity }],
    ['a file at the crossover: the workers at once', AUTO_MIN_INPUT_BYTES, 2, { jobs: 2, spawnAfterBytes: 0 }],
    ['a pipe: the workers once the crossover is read', null, 3, { jobs: 3, spawnAfterBytes: AUTO_MIN_INPUT_BYTES }],
    ['a busy machine: one thread', 10 * AUTO_MIN_INPUT_BYTES, 1, { jobs: 1, spawnAfterBytes: Infinity }],
  ])('auto on %s', (_name, inputBytes, jobs, plan) => {
    expect(autoPlan(inputBytes, jobs)).toEqual(plan);
  });

  it('auto on a small file runs the one-thread tagger', () => {
    const file = join(tmp, 'small.jsonl');
    writeFileSync(file, '{"chunk_id":"a","text":"Pump P-101A."}\n');
    const stats = join(tmp, 'stats-small-file.json');
    expect(runBin('tag', ['--jobs', 'auto', '--stats', stats, file], '').code).toBe(0);
    expect(JSON.parse(readFileSync(stats, 'utf8'))).toMatchObject({ jobs: 1, workers_started: 0 });
  });

  it.each(['0', '1.5', 'two', '', '65', ' '])('--jobs %j is a usage error', (value) => {
    const r = runBin('tag', ['--jobs', value], '{"text":"x"}\n');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rca-tag: --jobs expects auto or a whole number from 1 to 64, got '${value}'\n`);
    expect(r.stdout).toBe('');
  });
});

describe('--jobs: golden cases give their expected output with 1 and 3 threads', () => {
  const cases = goldenCases().filter((c) => c.stage === 'tag');
  it.each(cases.flatMap((c) => ['1', '3'].map((jobs) => [c.name, jobs, c] as const)))('%s with --jobs %s', (_name, jobs, c: GoldenCase) => {
    const r = runBin('tag', [...c.args, '--jobs', jobs], readFileSync(join(c.dir, 'input.jsonl')));
    const expected = expectedOf(c);
    expect(r.stdout).toBe(expected.stdout);
    expect(r.stderr).toBe(expected.stderr);
    expect(r.code).toBe(expected.code);
  });
});

describe('--jobs: a generated corpus of 5,000 records', () => {
  const corpus = spawnSync(process.execPath, [join(ROOT, 'bench/generate-corpus.mjs'), '--records', '5000', '--mb', '1000'], { maxBuffer: 1 << 30 }).stdout;
  const reference = join(ROOT, 'test/fixtures/dackar/tag_keywords_lists.derived.csv');

  it.each([
    ['built-in lexicon', []],
    ['reference lexicon, --doc-type detect', ['--lexicon', reference, '--doc-type', 'detect']],
  ])('is written the same with --jobs 1, 2 and 4 (%s)', (_name, args) => {
    expect(corpus.toString('utf8').split('\n').filter(Boolean)).toHaveLength(5000);
    const outputs = ['1', '2', '4'].map((jobs) => runBin('tag', [...args, '--jobs', jobs], corpus));
    for (const r of outputs) {
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(outputs[0]!.stderr);
      expect(r.stdout).toBe(outputs[0]!.stdout);
    }
    expect(lines(outputs[0]!.stdout)).toHaveLength(5000);
    expect(outputs[0]!.stderr).toMatch(/^rca-tag: 5000 chunks tagged, [^\n]*\n$/);
  });
  it('is written the same with --jobs 1, 2 and auto on text-heavy records', () => {
    const textHeavy = spawnSync(process.execPath, [join(ROOT, 'bench/generate-corpus.mjs'), '--records', '5000', '--mb', '1000', '--profile', 'text-heavy'], { maxBuffer: 1 << 30 }).stdout;
    // From a pipe and under AUTO_MIN_INPUT_BYTES: auto starts no worker (the part-way start is below).
    expect(textHeavy.length).toBeLessThan(AUTO_MIN_INPUT_BYTES);
    const outputs = ['1', '2', 'auto'].map((jobs) => runBin('tag', ['--jobs', jobs], textHeavy));
    for (const r of outputs) {
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(outputs[0]!.stderr);
      expect(r.stdout).toBe(outputs[0]!.stdout);
    }
    expect(lines(outputs[0]!.stdout)).toHaveLength(5000);
  });
});

// Doc ids that are content hashes say nothing about the type: the first chunk's text decides it.
// Later chunks' texts would decide otherwise, and they fall into later batches and other threads.
const DOCS = [
  { key: { doc_id: 'a1b2c3d4e5f6' }, first: 'Condition report CR-2026-0001 on the AFW pump.', later: 'Work order WO-123456 replaced the seal.', type: 'CR' },
  { key: { doc_name: 'notes-a.txt' }, first: 'SOP-101 Valve procedure, section 1.', later: 'See CR-2026-0042 and ECA-2026-0007.', type: 'SOP' },
  { key: { source_path: 'in/notes-b.txt' }, first: 'Event causal evaluation ECA-2026-0003.', later: 'Standard operating procedure SOP-7.', type: 'ECA' },
  { key: { document: { sourceId: '0f1e2d3c4b5a' } }, first: 'Work order WO-2026-1 for the strainer.', later: 'Condition report CR-2026-0009.', type: 'WO' },
];
const CHUNKS_PER_DOC = 300;

function spanningRecords(): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = [];
  DOCS.forEach((doc, d) => {
    for (let k = 0; k < CHUNKS_PER_DOC; k++) {
      const record: Record<string, unknown> = {
        chunk_id: `chunk:${d}:${k}`,
        ...doc.key,
        section_path: `Doc ${d} > Section ${Math.floor(k / 40)}`,
        text: k === 0 ? doc.first : `${doc.later} Pump P-10${k % 10}A vibration ${k % 9}.${k % 7} mils.`,
      };
      // An upstream type: kept under 'auto' (it does not decide the document's type), ignored under 'detect'.
      if (k % 97 === 50) record.doc_type = 'OTHER';
      // Already tagged: rebuilt with its keys in place.
      if (k % 61 === 30) record.context = { stale: true };
      records.push(record);
      // A record naming no document is detected on its own, between the chunks of another.
      if (k % 53 === 7) records.push({ chunk_id: `loose:${d}:${k}`, text: k % 2 ? 'Work order WO-99 notes.' : 'Plain notes.' });
    }
  });
  return records;
}

describe('--jobs: a document whose chunks span batches and threads keeps its first chunk\'s doc type', () => {
  const input = jsonl(spanningRecords());

  it.each(['auto', 'detect', 'CR'])('--doc-type %s: same output with --jobs 1, 2 and 3, and with no worker', async (mode) => {
    const one = await tagWith(1, input, ['--doc-type', mode]);
    expect(one.code).toBe(0);
    expect((await runInProcess(noWorkerTag, inReads(input), ['--doc-type', mode])).stdout).toBe(one.stdout);
    for (const jobs of [2, 3]) {
      const many = await tagWith(jobs, input, ['--doc-type', mode]);
      expect(many.stats.workers_started).toBe(jobs - 1);
      expect(many.stats.blocks_on_workers).toBeGreaterThanOrEqual(2);
      // Blocks 0 and 1 go to the two workers: the second guessed doc 0's type from a later chunk,
      // and its lines were tagged again here.
      if (mode !== 'CR' && jobs === 3) expect(many.stats.lines_redone).toBeGreaterThan(0);
      expect(many.stdout).toBe(one.stdout);
      expect(many.stderr).toBe(one.stderr);
      expect(many.code).toBe(one.code);
    }
  });

  it.each(['auto', 'detect'])('--doc-type %s: every chunk of a document has the type its first chunk decided', async (mode) => {
    const out = lines((await tagWith(3, input, ['--doc-type', mode])).stdout);
    DOCS.forEach((doc, d) => {
      const chunks = out.filter((r) => String(r.chunk_id).startsWith(`chunk:${d}:`));
      expect(chunks).toHaveLength(CHUNKS_PER_DOC);
      const upstream = (r: Record<string, any>) => mode === 'auto' && r.doc_type === 'OTHER';
      for (const r of chunks) expect(r.context.doc_type).toBe(upstream(r) ? 'OTHER' : doc.type);
    });
    // Records tagged before are rebuilt: their context keeps its place and loses what was there.
    const rebuilt = out.filter((r) => /^chunk:\d+:(30|91|152|213|274)$/.test(String(r.chunk_id)));
    expect(rebuilt).toHaveLength(DOCS.length * 5);
    for (const r of rebuilt) {
      expect(Object.keys(r).slice(-4)).toEqual(['context', 'section_id', 'ner_seed', 'tag_flags']);
      expect(r.context.stale).toBeUndefined();
    }
  });

  // Detection reads the start of the first chunk's text; the threads pass only DETECTION_TEXT_CHARS
  // of it along. A type id just inside or outside the window decides alike. (`ECA7` cut short is
  // no hint of any type.)
  const FILLER = 'the pump ran at rated flow and nothing else happened. '.repeat(200);

  it('DETECTION_TEXT_CHARS is exactly the window detectDocType reads', () => {
    expect(detectDocType({ text: `${FILLER.slice(0, DETECTION_TEXT_CHARS - 4)}ECA7` })).toBe('ECA');
    expect(detectDocType({ text: `${FILLER.slice(0, DETECTION_TEXT_CHARS - 3)}ECA7` })).toBe('OTHER');
  });

  it.each([100, 2000, 3000, 3500, 3990, 3996, 3997, 4000, 4010, 6000, 9000])('a type id at character %i of the first chunk', async (at) => {
    const records = [0, 1, 2].flatMap((doc) => [
      { chunk_id: `c${doc}:0`, doc_id: `${doc}bcdef012345`, text: `${FILLER.slice(0, at)}ECA7${doc} started here` },
      ...Array.from({ length: 200 }, (_, k) => ({ chunk_id: `c${doc}:${k + 1}`, doc_id: `${doc}bcdef012345`, text: 'Work order WO-555 follows.' })),
    ]);
    const one = await tagWith(1, jsonl(records));
    const many = await tagWith(3, jsonl(records));
    expect(many.stdout).toBe(one.stdout);
  });
});

// A parser that shows a section's heading only on its first chunk: the chunks after it, with no
// path of their own, continue the section and take its role. Sections run across blocks (reads of
// 8 KB) and so across threads: a block starts with no section open, and its first lines are tagged
// again in input order with the section the block before left open.
const HEADINGS = [
  ['Event Description', 'description'],
  ['Cause of the Event', 'cause_statement'],
  ['Corrective Actions', 'corrective_actions'],
  ['Assessment of Safety Consequences', 'impact'],
] as const;
const SECTION_CHUNKS = 70;

function sectionedRecords(): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = [];
  for (let d = 0; d < 3; d++) {
    for (let h = 0; h < HEADINGS.length * 2; h++) {
      const [heading] = HEADINGS[h % HEADINGS.length]!;
      for (let k = 0; k < SECTION_CHUNKS; k++) {
        records.push({
          chunk_id: `doc${d}:s${h}:c${k}`,
          doc_id: `LER-${d}`,
          doc_type: 'CR',
          // Every other section repeats its path on each chunk; the others give it on the first only.
          ...(k === 0 || h % 2 === 1 ? { section_path: `Licensee Event Report ${d} > ${heading}` } : {}),
          text: `The operators found pump P-10${k % 10}A running at ${k} percent flow and reported it to the shift manager.`,
        });
      }
    }
  }
  return records;
}

describe('--jobs: a section continued across blocks and threads keeps its heading\'s role', () => {
  const input = jsonl(sectionedRecords());

  it('same output with --jobs 1, 2 and 3, and with no worker; lines continuing a section of an earlier block are tagged again', async () => {
    const one = await tagWith(1, input);
    expect(one.code).toBe(0);
    expect((await runInProcess(noWorkerTag, inReads(input), [])).stdout).toBe(one.stdout);
    for (const jobs of [2, 3]) {
      const many = await tagWith(jobs, input);
      expect(many.stats.blocks_on_workers).toBeGreaterThanOrEqual(2);
      expect(many.stats.lines_redone).toBeGreaterThan(0);
      expect(many.stdout).toBe(one.stdout);
      expect(many.stderr).toBe(one.stderr);
      expect(many.code).toBe(one.code);
    }
  });

  it('every chunk of a section has its heading\'s role; the ones without the path are flagged section_role_continued', async () => {
    const out = lines((await tagWith(3, input)).stdout);
    expect(out).toHaveLength(3 * HEADINGS.length * 2 * SECTION_CHUNKS);
    for (const r of out) {
      const [, h, k] = /^doc\d:s(\d+):c(\d+)$/.exec(String(r.chunk_id))!.map(Number);
      expect(r.context.section_role).toBe(HEADINGS[h! % HEADINGS.length]![1]);
      const continued = k! > 0 && h! % 2 === 0;
      expect(r.tag_flags.includes('section_role_continued')).toBe(continued);
    }
  });
});

describe('--jobs: the whole input in one chunk (every line arrives before any is tagged)', () => {
  const record = (n: number, pad: number) => JSON.stringify({ chunk_id: `c${n}`, doc_id: `cr${n % 7}`, text: `Pump P-${n}A vibration; see CR-2026-${n}. ${'x'.repeat(pad)}` });
  it.each([
    ['1,500 small records', 1500, 0],
    ['2,000 records of 600 more characters', 2000, 600],
  ])('%s: same output with --jobs 1, 2, 3 and auto', async (_name, count, pad) => {
    const input = Array.from({ length: count }, (_, n) => record(n, pad)).join('\n') + '\n';
    const one = await tagWith(1, [input]);
    for (const jobs of [2, 3, 'auto'] as const) {
      const many = await tagWith(jobs, [input]);
      expect(many.stdout).toBe(one.stdout);
      expect(many.code).toBe(0);
    }
    expect((await runInProcess(noWorkerTag, [input])).stdout).toBe(one.stdout);
    // A worker that starts part way, as auto's does once the input passes its threshold.
    const lateWorker = parallelTagStage({ spawnAfterBytes: input.length / 2 });
    expect((await runInProcess(lateWorker, [input])).stdout).toBe(one.stdout);
  });
});

describe('--jobs: threads start only when there is work for them', () => {
  it.each([
    ['an empty input with --jobs 3: no worker', '', '3', 0],
    ['a small input with --jobs auto: no worker', '{"chunk_id":"a","text":"Pump P-101A."}\n', 'auto', 0],
    ['a small input with --jobs 3: one worker', '{"chunk_id":"a","text":"Pump P-101A."}\n', '3', 1],
  ])('%s', (_name, input, jobs, workers) => {
    const stats = join(tmp, `stats-${jobs}-${workers}.json`);
    const r = runBin('tag', ['--jobs', jobs, '--stats', stats], input);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(stats, 'utf8')).workers_started).toBe(workers);
  });
});

/** A tag stage on a substitute worker entry with scripted faults (support/faulty-tag-worker.mjs). */
const faultyTag = parallelTagStage({ workerFile: new URL('./support/faulty-tag-worker.mjs', import.meta.url) });

describe('--jobs: a failing worker never crashes the run', () => {
  // Each read of BLOCK lines is a block of its own. The first two blocks go to the one worker (it
  // has room for BLOCKS_PER_WORKER): the fault is in the second one, so the first is written.
  expect(BLOCKS_PER_WORKER).toBeGreaterThanOrEqual(2);
  const BLOCK = 40;
  const faultAt = BLOCK + 10;
  const record = (n: number, fault = '') => ({ chunk_id: `c${n}`, doc_id: 'CR-2026-1', text: `Pump P-${n}A tripped. ${fault}` });
  const input = (fault: string) =>
    Array.from({ length: 5 }, (_, b) => jsonl(Array.from({ length: BLOCK }, (_, k) => record(b * BLOCK + k + 1, b * BLOCK + k + 1 === faultAt ? fault : ''))));
  const firstLines = (n: number) => jsonl(Array.from({ length: n }, (_, k) => record(k + 1)));

  it('an exception on one record: INTERNAL_ERROR for it, exit 3, nothing after it, as on one thread', async () => {
    const r = await runInProcess(faultyTag, input('THROW_IN_RECORD'));
    const before = await tagWith(1, firstLines(faultAt - 1));
    expect(r.stdout).toBe(before.stdout);
    // Input is read ahead of the workers: how far is up to timing; what was written is not.
    expect(r.stderr).toMatch(
      new RegExp(`^rca-tag: stdin:${faultAt}: INTERNAL_ERROR: record blew up\\nrca-tag: stdin:${faultAt}: fatal: internal error: record blew up\\nrca-tag: 1 of \\d+ records rejected\\n` +
        `rca-tag: \\d+ chunks tagged, \\d+ flagged: missing_section_path \\d+\\nrca-tag: stopped after reading \\d+ records; ${faultAt - 1} records written\\n$`),
    );
    expect(r.code).toBe(3);
  });

  it.each([
    ['exits', 'EXIT_WORKER', 'tag worker 1 stopped (exit status 7)'],
    ['throws', 'THROW_IN_WORKER', 'tag worker 1 failed: worker blew up'],
  ])('a worker that %s: fatal with a clear message, exit 3, the blocks before it written', async (_name, fault, message) => {
    const r = await runInProcess(faultyTag, input(fault));
    const before = await tagWith(1, firstLines(BLOCK));
    expect(r.stdout).toBe(before.stdout);
    expect(r.stderr).toMatch(new RegExp(`^rca-tag: stdin:${BLOCK + 1}: fatal: ${message.replace(/[()]/g, '\\$&')}\\nrca-tag: \\d+ chunks tagged, \\d+ flagged: missing_section_path \\d+\\nrca-tag: stopped after reading \\d+ records; ${BLOCK} records written\\n$`));
    expect(r.code).toBe(3);
  });
});

function chunkRecord(n: number): string {
  return JSON.stringify({ chunk_id: `c${n}`, doc_id: `d${Math.floor(n / 50)}`, section_path: 'A > B', text: `Pump P-${n % 1000}A vibration ${n % 9}.${n % 7} mils; see CR-2026-${1000 + n}. ${'The seal may have failed. '.repeat(30)}` }) + '\n';
}

describe('--jobs: interrupt and backpressure', () => {
  it('on SIGINT stops, writes completed records in order, stops its workers and exits 130', async () => {
    const signals = new EventEmitter();
    let sent = 0;
    const stdin = Readable.from(
      (async function* () {
        for (;;) {
          sent++;
          if (sent === 1500) setImmediate(() => signals.emit('SIGINT'));
          yield Buffer.from(chunkRecord(sent));
          if (sent % 100 === 0) await new Promise((r) => setTimeout(r, 1));
          if (sent > 100_000) return;
        }
      })(),
    );
    const out: string[] = [];
    const code = await runStage(tag, 'rca-tag', {
      argv: ['--jobs', '3'],
      stdin,
      stdout: new Writable({ write(c, _e, cb) { out.push(String(c)); cb(); } }),
      stderr: new Writable({ write(_c, _e, cb) { cb(); } }),
      env: {},
      signals,
      version: 't',
    });
    expect(code).toBe(130);
    const written = out.join('');
    const count = written.split('\n').filter(Boolean).length;
    expect(sent).toBeLessThan(5000);
    const expected = await tagWith(1, Array.from({ length: count }, (_, k) => chunkRecord(k + 1)).join(''));
    expect(written).toBe(expected.stdout);
  });

  it('stops reading while stdout is full (bounded memory with a slow consumer)', async () => {
    const total = 12_000;
    let produced = 0;
    const stdin = new Readable({
      read() {
        if (produced >= total) return this.push(null);
        produced++;
        this.push(chunkRecord(produced));
      },
    });
    let writtenLines = 0;
    let maxAhead = 0;
    const stdout = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _e, cb) {
        for (const byte of chunk) if (byte === 0x0a) writtenLines++;
        maxAhead = Math.max(maxAhead, produced - writtenLines);
        setTimeout(cb, 1); // a slow consumer
      },
    });
    const code = await runStage(tag, 'rca-tag', {
      argv: ['--jobs', '2'], stdin, stdout, stderr: new Writable({ write(_c, _e, cb) { cb(); } }), env: {}, signals: new EventEmitter(), version: 't',
    });
    expect(code).toBe(0);
    expect(writtenLines).toBe(total);
    // The reader never ran more than the reorder window (a few hundred lines) and the buffers ahead.
    expect(maxAhead).toBeLessThan(1200);
  });
});
