// A server that is not up when the run starts (a closed port; a fake server brought up later on
// it) is waited for the same way on both backends, and the wait is said at once: the first line on
// stderr names the server, the deadline (--give-up-after) and the backoff, while rca is still
// waiting, not when it gives up. Real processes (the bins), real sockets on loopback.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../support/golden.js';
import { closeServers, serve, serveOpenAi } from './support/harness.js';
import { parseLines, taggedLines } from './support/inputs.js';

afterEach(closeServers);

interface Watched {
  /** stderr as it was when its first line came, and whether the process had exited by then. */
  firstLine: Promise<{ line: string; exitedBefore: boolean }>;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function watch(stage: string, args: string[], input: string): Watched {
  const child = spawn(process.execPath, [join(ROOT, 'bin', `rca-${stage}`), ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let exited = false;
  let sawLine: (value: { line: string; exitedBefore: boolean }) => void = () => {};
  const firstLine = new Promise<{ line: string; exitedBefore: boolean }>((resolve) => (sawLine = resolve));
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => {
    stderr += c;
    const end = stderr.indexOf('\n');
    if (end >= 0) sawLine({ line: stderr.slice(0, end), exitedBefore: exited });
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      exited = true;
      sawLine({ line: stderr.split('\n')[0] ?? '', exitedBefore: true });
      resolve({ code, stdout, stderr });
    }),
  );
  child.stdin.end(input);
  return { firstLine, done };
}

async function closedPort(): Promise<number> {
  const { server } = await serve();
  await server.close();
  return Number(new URL(server.url).port);
}

const BACKENDS = {
  ollama: { args: (url: string) => ['--host', url], server: (url: string) => `Ollama at ${url}`, refused: (url: string) => `cannot reach Ollama at ${url} — is it running? (or use --backend extractive)` },
  openai: { args: (url: string) => ['--backend', 'openai', '--base-url', `${url}/v1`], server: (url: string) => `the server at ${url}/v1`, refused: (url: string) => `cannot reach the OpenAI-compatible server at ${url}/v1 — is it running?` },
} as const;

describe.each(Object.keys(BACKENDS) as (keyof typeof BACKENDS)[])('--backend %s against a server that is not running', (backend) => {
  const b = BACKENDS[backend];

  it('says at once what it waits for, until when and how; gives up at --give-up-after with exit 3', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    // 2 s: long enough that a line said only when rca gives up would come after the exit it precedes.
    const run = watch('summarize', [...b.args(url), '--no-cache', '--give-up-after', '2'], await taggedLines(1));
    const first = await run.firstLine;
    expect(first.exitedBefore).toBe(false);
    expect(first.line).toBe(
      `rca-summarize: waiting for ${b.server(url)} to start for up to 2 s (--give-up-after SECONDS), trying again with backoff (random waits of up to 0.5 s, doubling to 2 s); Ctrl-C stops. Now: ${b.refused(url)}`,
    );
    const r = await run.done;
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').slice(1)).toEqual([`rca-summarize: ${b.refused(url)} (no answer within --give-up-after 2 s; a larger value waits longer)`, '']);
  }, 30_000);

  it('a server that comes up while rca waits: the run goes on, and says how long it waited', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const run = watch('summarize', [...b.args(url), '--no-cache', '--retry-delay', '20', '--views', 'rca_frame'], await taggedLines(1));
    expect((await run.firstLine).line).toMatch(/^rca-summarize: waiting for .* to start for up to 120 s/);
    if (backend === 'ollama') await serve({}, { port });
    else await serveOpenAi({}, { port });
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(parseLines(r.stdout)[0]!.generation.rca_frame.error).toBeNull();
    expect(r.stderr).toMatch(new RegExp(`\\nrca-summarize: stdin:1: waited [\\d.]+ s for ${b.server(url).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} to start \\(\\d+ tr(y|ies); last: `));
  }, 30_000);
});
