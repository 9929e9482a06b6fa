// Crash and resume: rca-summarize writing to a file (as `> out.jsonl` does) is killed with SIGKILL
// at seeded random points, more than once, then run again on the ORIGINAL input with the same
// response cache: the final output equals an uninterrupted run's, apart from the `cached` markers.
// The other way back: the complete lines of a killed run's output, followed by the input lines it
// had not reached, go in as input; finished records pass through untouched and only the rest is
// asked for.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VIEW_TYPES } from '../../src/contracts/vocabulary.js';
import { chunk, parseLines, taggedLines } from '../generation/support/inputs.js';
import { closeServers, serve } from '../generation/support/harness.js';
import type { Script } from '../generation/support/scripted-model.js';
import { mulberry32 } from '../support/fault-plan.js';
import { ROOT } from '../support/golden.js';
import type { FakeOllama } from '../support/fake-ollama.js';

const RECORDS = 60;
const key = (i: number, view: string = 'retrieval_summary') => `${chunk(i).chunk_id as string} ${view}`;
// Some views need a second try, or a transport retry, so replayed records carry attempts > 1.
const SCRIPT: Script = {
  [key(3)]: ['not-json'],
  [key(17, 'rca_frame')]: ['short-scope'],
  [key(25)]: ['busy503', 'error500'],
  [key(41, 'rca_frame')]: ['reset'],
  [key(52)]: ['length'],
};
const SERVER = { slots: 4, latencyMs: 8 };
const unmarked = (jsonl: string) => jsonl.replaceAll('"cached":true', '"cached":false');
const completeLines = (text: string) => text.slice(0, text.lastIndexOf('\n') + 1);

const scratch = mkdtempSync(join(tmpdir(), 'rca-crash-'));
let input = '';
let reference = '';
let referenceRequests = 0;

interface FileRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  stderr: string;
  requests: number;
}

/**
 * rca-summarize with stdout going straight to a file, as a shell redirection sets it up; killed
 * with SIGKILL once the server has had `killAfter` generation requests (never, if it ends first).
 */
async function summarizeToFile(server: FakeOllama, stdin: string, args: string[], killAfter = Infinity): Promise<FileRun> {
  const outFile = join(scratch, `out-${process.hrtime.bigint()}.jsonl`);
  const fd = openSync(outFile, 'w');
  const before = server.stats.generations;
  const child = spawn(process.execPath, [join(ROOT, 'bin/rca-summarize'), '--host', server.url, '--concurrency', '4', '--retry-delay', '1', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['pipe', fd, 'pipe'],
  });
  closeSync(fd);
  const err: Buffer[] = [];
  child.stderr!.on('data', (d: Buffer) => err.push(d));
  child.stdin!.on('error', () => {});
  child.stdin!.end(stdin);
  const watch = setInterval(() => {
    if (server.stats.generations - before >= killAfter) child.kill('SIGKILL');
  }, 1);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
  clearInterval(watch);
  const output = readFileSync(outFile, 'utf8');
  rmSync(outFile);
  return { code, signal, output, stderr: Buffer.concat(err).toString('utf8'), requests: server.stats.generations - before };
}

beforeAll(async () => {
  input = await taggedLines(RECORDS);
  const { server } = await serve(SCRIPT, SERVER);
  const whole = await summarizeToFile(server, input, ['--no-cache']);
  expect(whole.code).toBe(0);
  reference = whole.output;
  referenceRequests = whole.requests;
  expect(parseLines(reference).map((r) => r.chunk_id)).toEqual(Array.from({ length: RECORDS }, (_, i) => chunk(i).chunk_id));
  await closeServers();
});
afterEach(closeServers);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.each([1, 2, 3, 4])('kill -9 at random points (seed %i)', (seed) => {
  const random = mulberry32(seed);
  // The first run dies somewhere between 10 % and 90 % of the requests, its resume a few requests in.
  const firstKill = Math.max(1, Math.floor(2 * RECORDS * (0.1 + 0.8 * random())));
  const secondKill = 1 + Math.floor(random() * 8);
  // A writer killed mid-write (a pipe, tee, a slow disk) leaves a torn last line: cut there too.
  const tornAt = random();

  it('re-running on the original input with the same cache ends with the uninterrupted output', async () => {
    const cache = join(mkdtempSync(join(scratch, 'cache-')), 'responses.sqlite');
    const partials: string[] = [];
    for (const killAfter of [firstKill, secondKill]) {
      const { server } = await serve(SCRIPT, SERVER);
      const killed = await summarizeToFile(server, input, ['--cache', cache], killAfter);
      if (killed.signal === 'SIGKILL') partials.push(killed.output);
      else expect(killed.code).toBe(0); // it finished before the kill point: nothing to resume
    }
    expect(partials.length).toBeGreaterThanOrEqual(1);
    // What a killed run left: a prefix of the uninterrupted output, the last line possibly cut.
    for (const partial of partials) expect(reference.startsWith(unmarked(completeLines(partial)))).toBe(true);

    const { server } = await serve(SCRIPT, SERVER);
    const resumed = await summarizeToFile(server, input, ['--cache', cache]);
    expect(resumed.code).toBe(0);
    expect(unmarked(resumed.output)).toBe(reference);
    // Finished views came from the cache: the resume asked for fewer than the whole run did.
    expect(resumed.requests).toBeLessThan(referenceRequests);
    expect(resumed.output).toContain('"cached":true');
  });

  it('feeding the killed output (complete lines) plus the unread input back in passes finished records through', async () => {
    const first = await serve(SCRIPT, SERVER);
    const killed = await summarizeToFile(first.server, input, ['--no-cache'], firstKill);
    expect(killed.signal).toBe('SIGKILL');
    const torn = killed.output.slice(0, Math.floor(killed.output.length * (0.5 + tornAt / 2)));
    const done = completeLines(torn);
    const doneCount = parseLines(done).length;
    const rest = input.split('\n').slice(doneCount).join('\n');

    const again = await serve(SCRIPT, SERVER);
    const statsFile = join(scratch, `stats-${seed}.json`);
    const resumed = await summarizeToFile(again.server, done + rest, ['--no-cache', '--stats', statsFile]);
    expect(resumed.code).toBe(0);
    expect(resumed.output).toBe(reference);
    // The finished records byte for byte, and no request for any of them.
    expect(resumed.output.startsWith(done)).toBe(true);
    const askedRecords = [...again.model.counts.keys()].map((k) => Number(/:sec(\d+) /.exec(k)?.[1]));
    expect(askedRecords.filter((i) => i < doneCount)).toEqual([]);
    expect(new Set(askedRecords).size).toBe(RECORDS - doneCount);
    expect(JSON.parse(readFileSync(statsFile, 'utf8'))).toMatchObject({ records: RECORDS, records_passed_through: doneCount, views: { already_present: VIEW_TYPES.length * doneCount } });
  });
});
