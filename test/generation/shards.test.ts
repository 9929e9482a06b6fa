// A corpus built in shards: `make corpus SHARD=k/N` on each "machine" into one shared output
// folder, then `rca merge` checks that every input record is there exactly once. And the merge
// check itself, case by case.
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import merge from '../../src/commands/merge.js';
import { chunk } from './support/inputs.js';
import { spawnShell } from './support/spawn.js';

const FILES = ['cr-2026-0101', 'cr-2026-0102', 'wo-4471', 'wo-4472', 'sop-afw-012', 'sop-afw-013', 'eca-0007', 'eca-0008', 'eca-0009'];
const PER_FILE = 4;

function corpus(): { dir: string; inDir: string; outDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rca-shards-'));
  const inDir = join(dir, 'chunks');
  mkdirSync(inDir);
  FILES.forEach((name, f) => {
    const lines = Array.from({ length: PER_FILE }, (_, i) => JSON.stringify(chunk(f * PER_FILE + i)));
    writeFileSync(join(inDir, `${name}.chunks.jsonl`), `${lines.join('\n')}\n`);
  });
  return { dir, inDir, outDir: join(dir, 'out') };
}

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
// -o dist/.built: the bins are built already; make must not rebuild them under a running test.
const make = (target: string, vars: Record<string, string>) =>
  spawnShell(`make -s -o dist/.built ${target} ${Object.entries(vars).map(([k, v]) => `${k}=${quote(v)}`).join(' ')}`);
const rcaMerge = (args: string[]) => spawnShell(`./bin/rca merge ${args.map(quote).join(' ')}`);
const linesOf = (path: string) => readFileSync(path, 'utf8').split('\n').filter((l) => l !== '');

describe('make corpus SHARD=k/N: three machines, one output folder', () => {
  it('builds disjoint shares of the input files that together are all of them, and rca merge finds every record once; a lost or doubled record is named', async () => {
    const { inDir, outDir } = corpus();
    const vars = { IN: `${inDir}/`, OUT: `${outDir}/`, BACKEND: 'extractive' };
    const runs = await Promise.all([1, 2, 3].map((k) => make('corpus', { ...vars, SHARD: `${k}/3` })));
    expect(runs.map((r) => (r.code === 0 ? 0 : r.stderr))).toEqual([0, 0, 0]);
    const built = runs.map((r) => [...r.stdout.matchAll(/> \S+\/([\w-]+)\.summarized\.jsonl\n/g)].map((m) => m[1]!).sort());
    // Every shard had work, no file was built twice, and every file was built.
    for (const share of built) expect(share.length).toBeGreaterThan(0);
    expect(built.flat().sort()).toEqual([...FILES].sort());
    expect(readdirSync(outDir).filter((f) => f.endsWith('.summarized.jsonl'))).toHaveLength(FILES.length);

    const whole = await rcaMerge(['--inputs', inDir, '--outputs', outDir]);
    expect(whole.stderr).toBe(`rca merge: ${FILES.length * PER_FILE} input records in ${FILES.length} files, ${FILES.length * PER_FILE} output records in ${FILES.length} files: every input record appears exactly once\n`);
    expect(whole.code).toBe(0);
    const viaMake = await make('corpus-verify', vars);
    expect(viaMake.code).toBe(0);

    // A record lost from one output file.
    const victim = join(outDir, 'wo-4471.summarized.jsonl');
    const original = readFileSync(victim, 'utf8');
    const lines = linesOf(victim);
    writeFileSync(victim, `${lines.filter((_, i) => i !== 2).join('\n')}\n`);
    const lost = await rcaMerge(['--inputs', inDir, '--outputs', outDir]);
    expect(lost.code).toBe(1);
    const lostRecord = JSON.parse(lines[2]!);
    expect(lost.stderr).toBe(
      `rca merge: ${join(inDir, 'wo-4471.chunks.jsonl')}:3: missing: doc "${lostRecord.doc_id}" chunk "${lostRecord.chunk_id}" is in no output file\n` +
        `rca merge: 36 input records in 9 files, 35 output records in 9 files: 1 missing, 0 duplicated, 0 unexpected\n`,
    );

    // The same record written by two shards.
    writeFileSync(victim, original);
    appendFileSync(join(outDir, 'eca-0009.summarized.jsonl'), `${lines[1]}\n`);
    const doubled = await rcaMerge(['--inputs', inDir, '--outputs', outDir]);
    expect(doubled.code).toBe(1);
    const doubledRecord = JSON.parse(lines[1]!);
    expect(doubled.stderr).toBe(
      // Output files are read in name order: the copy in eca-0009 is met first.
      `rca merge: ${join(outDir, 'wo-4471.summarized.jsonl')}:2: duplicated: doc "${doubledRecord.doc_id}" chunk "${doubledRecord.chunk_id}" (input ${join(inDir, 'wo-4471.chunks.jsonl')}:2) is already at ${join(outDir, 'eca-0009.summarized.jsonl')}:5\n` +
        `rca merge: 36 input records in 9 files, 37 output records in 9 files: 0 missing, 1 duplicated, 0 unexpected\n`,
    );
    expect((await make('corpus-verify', vars)).code).not.toBe(0);
  }, 60_000);

  it('a shard no file falls in has nothing to do; a bad SHARD is refused', async () => {
    const { inDir, outDir } = corpus();
    const one = join(inDir, 'only');
    mkdirSync(one);
    writeFileSync(join(one, 'a.chunks.jsonl'), `${JSON.stringify(chunk(0))}\n`);
    const shares = await Promise.all([1, 2].map((k) => make('corpus', { IN: one, OUT: outDir, BACKEND: 'extractive', SHARD: `${k}/2` })));
    expect(shares.map((r) => r.code)).toEqual([0, 0]);
    expect(shares.filter((r) => r.stdout.includes('falls in shard')).map((r) => r.stdout.trim())).toEqual([expect.stringMatching(/^make corpus: no file of .*\/only\/ falls in shard [12]\/2; nothing to do$/)]);
    for (const shard of ['3/2', '0/2', '2', 'a/b']) {
      const r = await make('corpus', { IN: inDir, OUT: outDir, SHARD: shard });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`SHARD must be k/N with 1 <= k <= N, e.g. SHARD=2/3; got '${shard}'`);
    }
  });
});

interface MergeCase {
  inputs: Record<string, string[]>;
  outputs: Record<string, string[]>;
  args?: string[];
  code: number;
  stderr: string[];
  stdout?: unknown;
}

const rec = (i: number, extra: Record<string, unknown> = {}) => JSON.stringify({ ...chunk(i), ...extra });
// The stages' fields in their own shapes (a value of another shape would be an upstream field, kept
// under its upstream_ name and compared there).
const CONTEXT = { doc_id: 'x', doc_type: 'CR', chunk_id: 'c', section_path: '', page_start: null, page_end: null, authority_level: 'informational', section_role: 'unknown' };
const tagged = (i: number) => rec(i, { context: CONTEXT, section_id: 'sec_0123456789abcdef', ner_seed: null, tag_flags: [], retrieval_summary: null, rca_frame: {}, flags: {}, generation: {}, embedding_text: {} });
const label = (i: number) => `doc "${chunk(i).doc_id as string}" chunk "${chunk(i).chunk_id as string}"`;

const MERGE_CASES: Record<string, MergeCase> = {
  'the stages’ fields, another key order and spacing: the same records': {
    inputs: { 'a.chunks.jsonl': [rec(0), rec(1)] },
    outputs: { 'a.summarized.jsonl': [tagged(1), JSON.stringify(JSON.parse(tagged(0)), null, 0).replace('{', '{ ')] },
    code: 0,
    stderr: ['2 input records in 1 file, 2 output records in 1 file: every input record appears exactly once'],
  },
  'a missing record, named by its input line': {
    inputs: { 'a.chunks.jsonl': [rec(0), rec(1), rec(2)] },
    outputs: { 'a.summarized.jsonl': [tagged(0), tagged(2)] },
    code: 1,
    stderr: [`IN/a.chunks.jsonl:2: missing: ${label(1)} is in no output file`, '3 input records in 1 file, 2 output records in 1 file: 1 missing, 0 duplicated, 0 unexpected'],
  },
  'a record written twice in one file': {
    inputs: { 'a.chunks.jsonl': [rec(0)] },
    outputs: { 'a.summarized.jsonl': [tagged(0), tagged(0)] },
    code: 1,
    stderr: [`OUT/a.summarized.jsonl:2: duplicated: ${label(0)} (input IN/a.chunks.jsonl:1) is already at OUT/a.summarized.jsonl:1`, '1 input record in 1 file, 2 output records in 1 file: 0 missing, 1 duplicated, 0 unexpected'],
  },
  'a record whose text changed: missing, and an output from nowhere': {
    inputs: { 'a.chunks.jsonl': [rec(0)] },
    outputs: { 'a.summarized.jsonl': [rec(0, { text: 'another text' })] },
    code: 1,
    stderr: [`OUT/a.summarized.jsonl:1: unexpected: matches no input record (${label(0)})`, `IN/a.chunks.jsonl:1: missing: ${label(0)} is in no output file`, '1 input record in 1 file, 1 output record in 1 file: 1 missing, 0 duplicated, 1 unexpected'],
  },
  'an input holding one record twice needs it twice': {
    inputs: { 'a.chunks.jsonl': [rec(0), rec(0)] },
    outputs: { 'a.summarized.jsonl': [tagged(0)] },
    code: 1,
    stderr: [`IN/a.chunks.jsonl:2: missing: ${label(0)} is in no output file`, '2 input records in 1 file, 1 output record in 1 file: 1 missing, 0 duplicated, 0 unexpected'],
  },
  'an input line that is not a JSON object is reported and not expected': {
    inputs: { 'a.chunks.jsonl': [rec(0), '{not json', '[1]'] },
    outputs: { 'a.summarized.jsonl': [tagged(0)] },
    code: 0,
    stderr: ['IN/a.chunks.jsonl:2: not a JSON object; not expected in the outputs', 'IN/a.chunks.jsonl:3: not a JSON object; not expected in the outputs', '1 input record in 1 file, 1 output record in 1 file: every input record appears exactly once'],
  },
  'an output line that is not JSON is unexpected': {
    inputs: { 'a.chunks.jsonl': [rec(0)] },
    outputs: { 'a.summarized.jsonl': [tagged(0), 'garbage'] },
    code: 1,
    stderr: ['OUT/a.summarized.jsonl:2: unexpected: not a JSON object', '1 input record in 1 file, 2 output records in 1 file: 0 missing, 0 duplicated, 1 unexpected'],
  },
  'records moved between files and shards still count once': {
    inputs: { 'a.chunks.jsonl': [rec(0), rec(1)], 'b.chunks.jsonl': [rec(2)] },
    outputs: { 'x.summarized.jsonl': [tagged(2), tagged(0)], 'y.summarized.jsonl': [tagged(1)], 'a.tagged.jsonl': [tagged(0)] },
    code: 0,
    stderr: ['3 input records in 2 files, 3 output records in 2 files: every input record appears exactly once'],
  },
  '--max-report caps the lines, not the counts; --json counts on stdout': {
    inputs: { 'a.chunks.jsonl': [rec(0), rec(1), rec(2), rec(3)] },
    outputs: { 'a.summarized.jsonl': [tagged(3)] },
    args: ['--max-report', '1', '--json'],
    code: 1,
    stderr: [`IN/a.chunks.jsonl:1: missing: ${label(0)} is in no output file`, '… and 2 more missing (--max-report N shows more)', '4 input records in 1 file, 1 output record in 1 file: 3 missing, 0 duplicated, 0 unexpected'],
    stdout: { input_files: 1, output_files: 1, input_records: 4, output_records: 1, unreadable_inputs: 0, missing: 3, duplicated: 0, unexpected: 0, ok: false },
  },
};

function sink(): { stream: Writable; text: () => string } {
  const parts: Buffer[] = [];
  return {
    stream: new Writable({
      write(part: Buffer, _enc, done) {
        parts.push(part);
        done();
      },
    }),
    text: () => Buffer.concat(parts).toString('utf8'),
  };
}

async function runMerge(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = sink();
  const err = sink();
  const code = await merge.run({ argv, stdout: out.stream, stderr: err.stream, env: {} });
  return { code, stdout: out.text(), stderr: err.text() };
}

describe('rca merge', () => {
  it.each(Object.entries(MERGE_CASES))('%s', async (_name, c) => {
    const dir = mkdtempSync(join(tmpdir(), 'rca-merge-'));
    const write = (sub: string, files: Record<string, string[]>) => {
      mkdirSync(join(dir, sub));
      for (const [name, lines] of Object.entries(files)) writeFileSync(join(dir, sub, name), `${lines.join('\n')}\n`);
    };
    write('in', c.inputs);
    write('out', c.outputs);
    const r = await runMerge(['--inputs', join(dir, 'in'), '--outputs', join(dir, 'out'), ...(c.args ?? [])]);
    const stderr = r.stderr.replaceAll(`${join(dir, 'in')}/`, 'IN/').replaceAll(`${join(dir, 'out')}/`, 'OUT/');
    expect(stderr).toBe(c.stderr.map((l) => `rca merge: ${l}\n`).join(''));
    expect(r.code).toBe(c.code);
    expect(r.stdout === '' ? undefined : JSON.parse(r.stdout)).toEqual(c.stdout);
  });

  it.each<[string, (dir: string) => string[], string]>([
    ['no --inputs', (d) => ['--outputs', d], 'rca merge: --inputs is needed (see rca merge --help)\n'],
    ['a folder without input files', (d) => ['--inputs', d, '--outputs', d], `rca merge: --inputs: no *.chunks.jsonl files in '%DIR%'\n`],
    ['a path that does not exist', (d) => ['--inputs', join(d, 'nope'), '--outputs', d], `rca merge: cannot read --inputs '%DIR%/nope': no such file or folder\n`],
    ['a stray argument', (d) => ['--inputs', d, 'extra'], "rca merge: Unexpected argument 'extra'. This command does not take positional arguments (see rca merge --help)\n"],
    ['a bad --max-report', (d) => ['--inputs', d, '--outputs', d, '--max-report', 'all'], "rca merge: --max-report expects a whole number, got 'all'\n"],
  ])('%s is a usage error', async (_name, args, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'rca-merge-'));
    const r = await runMerge(args(dir));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(message.replaceAll('%DIR%', dir));
  });

  it('--help shows the usage and is listed by rca --help', async () => {
    expect((await runMerge(['--help'])).stdout).toMatch(/^Usage: rca merge --inputs DIR\|FILE\.\.\. --outputs DIR\|FILE\.\.\./);
    const help = await spawnShell('./bin/rca --help');
    expect(help.stdout).toMatch(/\n {2}merge +check that the outputs of a sharded corpus build hold every input record exactly once/);
  });
});
