// The Slurm tier (npm run test:slurm; test/slurm/run.sh has started a one-node cluster): the job
// template scripts/slurm/rca-corpus.sbatch submitted as a real array job over a small corpus,
// against the fake Ollama running as a process of its own on loopback. In order:
//  1. the array of N tasks: every shard built, except one made to fail (its model requests get 400);
//     one task gets SIGTERM mid-run (as --signal=B:TERM@120 sends it before the walltime), stops,
//     requeues itself and finishes from its cache;
//  2. make corpus-verify names the failed shard; it is resubmitted by that list and succeeds;
//  3. a resubmission with the wrong N (what SHARDS=$SLURM_ARRAY_TASK_COUNT gives) is refused;
//  4. the merged output equals a one-machine build's; the task caches, joined by rca cache merge,
//     make a build elsewhere send no request;
//  5. the model server started inside each task (MODEL_SERVER_CMD) on its own localhost port.
// No (chunk, view) is ever asked again once a reply for it was delivered.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/commands/merge.js';
import { chunk } from '../generation/support/inputs.js';
import { ROOT } from '../support/golden.js';

const BASE = process.env.RCA_SLURM_BASE ?? '';
const SHARDS = 4;
const TEMPLATE = join(ROOT, 'scripts/slurm/rca-corpus.sbatch');
const dirs = { in: join(BASE, 'corpus/chunks'), out: join(BASE, 'corpus/out'), logs: join(BASE, 'corpus/logs'), local: join(BASE, 'local'), server: join(BASE, 'server') };
const LOG = join(dirs.server, 'requests.jsonl');
const FAIL_FLAG = join(dirs.server, 'fail-while-present');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function sh(script: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}
const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

interface Logged {
  chunk: string;
  view: string;
  delivered: boolean;
  failed: boolean;
}
const requests = (): Logged[] =>
  existsSync(LOG)
    ? readFileSync(LOG, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Logged)
    : [];

// The corpus: two files per shard; the shard that gets SIGTERM has longer files, so it is still
// running when the signal comes.
const files = new Map<number, string[]>();
for (let i = 1; [...files.values()].flat().length < 2 * SHARDS; i++) {
  const name = `cr-2026-${String(i).padStart(4, '0')}`;
  const k = shardOf(`${name}.chunks.jsonl`, SHARDS);
  const share = files.get(k) ?? [];
  if (share.length < 2) files.set(k, [...share, name]);
}
const TERM_SHARD = 2;
const FAIL_SHARD = 3;
const FAIL_DOC = files.get(FAIL_SHARD)![0]!;
const recordsOf = (k: number) => (k === TERM_SHARD ? 12 : 3);
const docOf = (chunkId: string) => chunkId.slice(0, chunkId.lastIndexOf(':'));
const shardOfChunk = (chunkId: string) => shardOf(`${docOf(chunkId)}.chunks.jsonl`, SHARDS);

let server: ReturnType<typeof spawn> | null = null;
let serverJs = '';
let serverUrl = '';
// The settings reach the tasks through the submitting environment (--export=ALL), as a user's
// exported variables would: values with spaces and quotes need no escaping for sbatch.
async function submit(array: string, extra: Record<string, string> = {}): Promise<string> {
  const settings = { SHARDS: String(SHARDS), IN: dirs.in, OUT: dirs.out, MODEL_URL: serverUrl, RCA_HOME: ROOT, LOCAL_CACHE_ROOT: dirs.local, CONCURRENCY: '2', MODEL_SERVER_CMD: '', ...extra };
  const r = await sh(`sbatch --parsable --array=${array} --output=${quote(join(dirs.logs, '%A_%a.out'))} --export=ALL ${quote(TEMPLATE)}`, settings);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.trim().split(';')[0]!;
}

interface TaskState {
  task: number;
  state: string;
  exit: string;
  restarts: number;
}

async function tasks(jobId: string): Promise<TaskState[]> {
  const r = await sh(`scontrol show job -o ${jobId}`);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const field = (name: string) => new RegExp(`(?:^| )${name}=(\\S*)`).exec(line)?.[1] ?? '';
      return { task: Number(field('ArrayTaskId')), state: field('JobState'), exit: field('ExitCode'), restarts: Number(field('Restarts')) };
    });
}

async function finished(jobId: string, timeoutMs = 6 * 60_000): Promise<TaskState[]> {
  await until(`job ${jobId} to finish`, timeoutMs, async () => (await sh(`squeue -h -j ${jobId}`)).stdout.trim() === '');
  return tasks(jobId);
}

const taskLog = (jobId: string, task: number) => readFileSync(join(dirs.logs, `${jobId}_${task}.out`), 'utf8');
const make = (target: string, vars: Record<string, string>) => sh(`make -s -o dist/.built ${target} ${Object.entries(vars).map(([k, v]) => `${k}=${quote(v)}`).join(' ')}`);
const merged = (out: string) =>
  readdirSync(out)
    .filter((f) => f.endsWith('.summarized.jsonl'))
    .sort()
    .map((f) => readFileSync(join(out, f), 'utf8'))
    .join('')
    // A replayed view says so; otherwise the records are the same bytes.
    .replaceAll('"cached":true', '"cached":false');

const report: string[] = [];

beforeAll(async () => {
  if (BASE === '') throw new Error('run through npm run test:slurm (test/slurm/run.sh starts the cluster)');
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  let i = 0;
  for (const [k, names] of files) {
    for (const name of names) {
      const lines = Array.from({ length: recordsOf(k) }, (_, j) => JSON.stringify({ ...chunk(i++), doc_id: name, chunk_id: `${name}:${j}`, doc_name: `${name}.pdf` }));
      writeFileSync(join(dirs.in, `${name}.chunks.jsonl`), `${lines.join('\n')}\n`);
    }
  }
  // The fake server as its own process: compiled to plain JavaScript first.
  const built = join(BASE, 'fake-server-js');
  const tsc = await sh(`npx tsc -p test/slurm/tsconfig.json --outDir ${quote(built)} && echo '{"type":"module"}' > ${quote(join(built, 'package.json'))}`);
  expect(tsc.stdout + tsc.stderr).toBe('');
  writeFileSync(FAIL_FLAG, '');
  serverJs = join(built, 'slurm/fake-model-server.js');
  server = spawn(process.execPath, [serverJs, '--log', LOG, '--latency-ms', '250', '--fail-doc', FAIL_DOC, '--fail-while', FAIL_FLAG], { stdio: ['ignore', 'pipe', 'inherit'] });
  serverUrl = await new Promise<string>((resolve, reject) => {
    server!.stdout!.once('data', (d: Buffer) => resolve(d.toString('utf8').trim()));
    server!.once('exit', (code) => reject(new Error(`fake server exited ${code}`)));
  });
  expect(serverUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
}, 120_000);

afterAll(async () => {
  if (server !== null && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server!.once('exit', r));
  }
  if (report.length > 0) {
    const text = `Slurm tier (${SHARDS} shards, ${[...files.values()].flat().length} files):\n${report.map((l) => `  ${l}`).join('\n')}\n`;
    process.stdout.write(text);
    if (process.env.RCA_SLURM_REPORT) writeFileSync(process.env.RCA_SLURM_REPORT, text);
  }
});

describe('scripts/slurm/rca-corpus.sbatch as a real job array', () => {
  let jobId = '';

  it('an array of N tasks: every shard built but the one made to fail; a task stopped by SIGTERM requeues itself and finishes from its cache', async () => {
    expect(new Set(files.keys())).toEqual(new Set([1, 2, 3, 4]));
    jobId = await submit(`1-${SHARDS}`);
    const termTask = `${jobId}_${TERM_SHARD}`;
    const termChunks = () => requests().filter((r) => shardOfChunk(r.chunk) === TERM_SHARD);
    // Mid-run: some of its views answered, most not.
    await until('the SIGTERM shard to be half-way', 120_000, async () => termChunks().filter((r) => r.delivered).length >= 6);
    const signalled = await sh(`scancel --signal=TERM --batch ${termTask}`);
    expect(signalled.code).toBe(0);
    // Stopped and requeued: pending again, with one restart.
    await until('the requeue', 60_000, async () => {
      const t = (await tasks(termTask))[0];
      return t !== undefined && t.restarts === 1 && t.state !== 'RUNNING' && t.state !== 'COMPLETING';
    });
    const firstPass = termChunks();
    const states = await finished(jobId);

    const byTask = new Map(states.map((t) => [t.task, t]));
    for (let k = 1; k <= SHARDS; k++) expect(byTask.get(k)?.state, `task ${k}`).toBe(k === FAIL_SHARD ? 'FAILED' : 'COMPLETED');
    expect(byTask.get(TERM_SHARD)!.restarts).toBe(1);
    for (const [k, names] of files) {
      for (const name of names) expect(existsSync(join(dirs.out, `${name}.summarized.jsonl`)), name).toBe(name !== FAIL_DOC);
    }
    expect(readFileSync(join(dirs.out, `${FAIL_DOC}.failed`), 'utf8')).toBe('rca-summarize exited 1\n');
    expect(readFileSync(join(dirs.out, '.settings'), 'utf8')).toContain(`shards ${SHARDS}\n`);

    // The stopped task: SIGTERM passed on, the cache copied out, requeued; the second run took the
    // views the first had finished from the cache, and asked only for the others.
    const log = taskLog(jobId, TERM_SHARD);
    expect(log).toContain('SIGTERM: stopping the build');
    expect(log).toContain('requeueing this task: it finishes from the cache');
    expect(log).toMatch(/rca-summarize: interrupted/);
    const all = termChunks();
    const views = 2 * 2 * recordsOf(TERM_SHARD);
    const delivered = all.filter((r) => r.delivered && !r.failed);
    expect(new Set(delivered.map((r) => `${r.chunk} ${r.view}`)).size).toBe(views);
    // A reply the server finished sending as the signal landed may be dropped by the stopping
    // task and asked again after the requeue: at most one per request in flight (CONCURRENCY 2),
    // the same allowance as the cache count below.
    expect(delivered.length).toBeGreaterThanOrEqual(views);
    expect(delivered.length).toBeLessThanOrEqual(views + 2);
    const requeue = all.slice(firstPass.length);
    const fromCache = Number(/\((\d+) from the cache\)/.exec(log.slice(log.indexOf('restart 1]: shard')))?.[1] ?? 0);
    const deliveredFirst = firstPass.filter((r) => r.delivered).length;
    expect(fromCache).toBeGreaterThanOrEqual(deliveredFirst - 2);
    report.push(
      `first pass (job ${jobId}, ${SHARDS} tasks): ${requests().length} requests; the SIGTERM task ${termTask}: ${firstPass.length} before the signal ` +
        `(${deliveredFirst} answered, ${firstPass.length - deliveredFirst} cut short), ${requeue.length} after the requeue, ${fromCache} views from its cache, ` +
        `0 answered views asked again`,
    );
  });

  it('make corpus-verify names the failed shard; resubmitted by that list, it is built, and the corpus is whole', async () => {
    const before = requests().length;
    const verify = await make('corpus-verify', { IN: dirs.in, OUT: dirs.out });
    expect(verify.code).not.toBe(0);
    const listed = /shards to build again: ([\d,]+) \(of (\d+)\)/.exec(verify.stderr);
    expect(listed?.slice(1)).toEqual([String(FAIL_SHARD), String(SHARDS)]);
    report.push(`corpus-verify after the first pass: ${verify.stderr.split('\n').filter((l) => l.startsWith('rca merge:') && !l.includes(': missing: ')).join(' / ')}`);

    rmSync(FAIL_FLAG);
    const again = await submit(listed![1]!);
    const states = await finished(again);
    expect(states.map((t) => [t.task, t.state])).toEqual([[FAIL_SHARD, 'COMPLETED']]);
    const resubmitted = requests().slice(before);
    // Only the views that had failed were asked; the rest of the shard came from its cache.
    expect(resubmitted.every((r) => docOf(r.chunk) === FAIL_DOC)).toBe(true);
    expect(resubmitted).toHaveLength(2 * recordsOf(FAIL_SHARD));
    const whole = await make('corpus-verify', { IN: dirs.in, OUT: dirs.out });
    expect(whole.code).toBe(0);
    expect(whole.stderr).toContain('every input record appears exactly once');
    report.push(`resubmitted --array=${listed![1]} (job ${again}): ${resubmitted.length} requests (the failed views only); corpus-verify: ${whole.stderr.trim().split('\n').at(-1)}`);
  });

  it('a resubmission with the wrong N (SHARDS=1, what SLURM_ARRAY_TASK_COUNT gives a task resubmitted alone) is refused and builds nothing', async () => {
    const before = requests().length;
    const outputs = readdirSync(dirs.out).sort();
    const wrong = await submit('1', { SHARDS: '1' });
    const states = await finished(wrong);
    expect(states.map((t) => t.state)).toEqual(['FAILED']);
    expect(taskLog(wrong, 1)).toContain(`make corpus: ${dirs.out}/ is built in ${SHARDS} shards (${dirs.out}/.settings), but this build says SHARD=1/1`);
    expect(requests().length).toBe(before);
    expect(readdirSync(dirs.out).sort()).toEqual(outputs);
    report.push(`a resubmission with SHARDS=1 (job ${wrong}): refused (${states[0]!.state}, exit ${states[0]!.exit}), nothing built, 0 requests`);
  });

  it('the merged output equals a one-machine build; the task caches joined by rca cache merge make a build elsewhere send no request', async () => {
    const sharded = merged(dirs.out);
    const before = requests().length;
    const one = join(BASE, 'one-machine');
    const oneRun = await make('corpus', { IN: dirs.in, OUT: one, BACKEND: 'ollama', CACHE: join(BASE, 'one-machine.sqlite'), SERVER_FLAGS: `--host ${serverUrl}` });
    expect(oneRun.code, oneRun.stderr).toBe(0);
    expect(merged(one)).toBe(sharded);
    const views = [...files].reduce((n, [k, names]) => n + names.length * recordsOf(k) * 2, 0);
    expect(requests().length - before).toBe(views);

    const caches = readdirSync(join(dirs.out, '.cache')).filter((f) => /^shard-\d+\.sqlite$/.test(f)).map((f) => join(dirs.out, '.cache', f));
    expect(caches).toHaveLength(SHARDS);
    const joined = join(BASE, 'joined.sqlite');
    const join1 = await sh(`./bin/rca cache merge --cache ${quote(joined)} ${caches.map(quote).join(' ')}`);
    expect(join1.code, join1.stderr).toBe(0);
    const join2 = await sh(`./bin/rca cache merge --cache ${quote(joined)} --json ${caches.map(quote).join(' ')}`);
    expect(JSON.parse(join2.stdout)).toMatchObject({ added: 0, replaced: 0, entries: views });
    const warmBefore = requests().length;
    const warm = await make('corpus', { IN: dirs.in, OUT: join(BASE, 'warm'), BACKEND: 'ollama', CACHE: joined, SERVER_FLAGS: `--host ${serverUrl}` });
    expect(warm.code, warm.stderr).toBe(0);
    expect(requests().length).toBe(warmBefore);
    expect(merged(join(BASE, 'warm'))).toBe(sharded);
    // Across the whole run, no view was asked again once a reply for it was delivered, but for
    // the SIGTERM shard's replies in flight when the signal landed (at most CONCURRENCY, 2).
    const answered = new Set<string>();
    const askedAgain: string[] = [];
    const sharedRun = requests().slice(0, before);
    for (const r of sharedRun) {
      const id = `${r.chunk} ${r.view}`;
      if (answered.has(id)) askedAgain.push(id);
      if (r.delivered && !r.failed) answered.add(id);
    }
    expect(askedAgain.length, askedAgain.join(', ')).toBeLessThanOrEqual(2);
    for (const id of askedAgain) expect(shardOfChunk(id.split(' ')[0]!), id).toBe(TERM_SHARD);
    report.push(
      `merged output (${sharded.split('\n').length - 1} records) byte-identical to a one-machine build (${views} requests) apart from the cached marker; ` +
        `rca cache merge of ${caches.length} task caches: ${join1.stdout.trim().split('\n').at(-1)}; a build from it: 0 requests`,
    );
  });

  it('the model server started inside each task on localhost (MODEL_SERVER_CMD) builds the same corpus, and is stopped with the task', async () => {
    const out = join(BASE, 'corpus/out-task-servers');
    const log = join(dirs.server, 'task-servers.jsonl');
    const command = `${quote(process.execPath)} ${quote(serverJs)} --log ${quote(log)} --port $MODEL_PORT`;
    const job = await submit('1-2', { SHARDS: '2', OUT: out, MODEL_URL: '', MODEL_SERVER_CMD: command, LOCAL_CACHE_ROOT: join(BASE, 'local-task-servers') });
    const states = await finished(job);
    expect(states.map((t) => [t.task, t.state]).sort()).toEqual([
      [1, 'COMPLETED'],
      [2, 'COMPLETED'],
    ]);
    const views = [...files].reduce((n, [k, names]) => n + names.length * recordsOf(k) * 2, 0);
    const asked = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(asked).toHaveLength(views);
    expect(merged(out)).toBe(merged(dirs.out));
    // No server outlived its task: the template's ports (20000 + task id) answer no more.
    for (const port of [20001, 20002]) {
      await expect(fetch(`http://127.0.0.1:${port}/api/version`), `port ${port}`).rejects.toThrow();
    }
    expect(taskLog(job, 1)).toContain('shard 1 of 2: make exited 0');
    report.push(`MODEL_SERVER_CMD (a server inside each of 2 tasks, on its own localhost port; job ${job}): ${asked.length} requests, output equal, no server left running`);
  });
});
