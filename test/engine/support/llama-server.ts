// The engine tier's real server: llama.cpp's llama-server (built once per machine by
// scripts/build-llama-server.sh into the per-user cache) serving the tiny random-weight model of
// test/fixtures/models on a free loopback port. Also compiled for bench/engine-throughput.mjs.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
export const MODEL_FILE = join(ROOT, 'test/fixtures/models/llama-2-tiny-random.gguf');
export const TEMPLATE_FILE = join(ROOT, 'test/fixtures/models/llama-2-tiny-random.jinja');
/** The name the server serves the model under (--alias): what rca's --model says. */
export const MODEL_ALIAS = 'tiny';

function findRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'scripts/build-llama-server.sh'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no scripts/build-llama-server.sh above ${from}`);
    dir = up;
  }
  return dir;
}

/** The llama-server binary: $RCA_LLAMA_SERVER, else the build script's (which builds it when missing). */
export function locateLlamaServer(): string {
  const given = process.env.RCA_LLAMA_SERVER;
  if (given !== undefined && given !== '') return given;
  const out = execFileSync('bash', [join(ROOT, 'scripts/build-llama-server.sh')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  return out.trim().split('\n').at(-1)!;
}

/** What the build script wrote beside the binary: its build time and llama.cpp's version. */
export function buildInfo(bin: string): { buildSeconds: number | null; version: string | null } {
  const read = (name: string): string | null => {
    try {
      return readFileSync(join(dirname(bin), name), 'utf8').trim();
    } catch {
      return null;
    }
  };
  const seconds = read('build-seconds');
  return { buildSeconds: seconds === null ? null : Number(seconds), version: read('llama-cpp-version') };
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

export interface SlotState {
  id: number;
  is_processing: boolean;
  id_task: number;
}

export interface LlamaServer {
  url: string;
  port: number;
  slots: number;
  logFile: string;
  /** GET /slots: which slots are generating, and the last task each one ran. */
  slotStates(): Promise<SlotState[]>;
  stop(): Promise<void>;
}

export interface StartOptions {
  bin: string;
  logFile: string;
  port?: number;
  /** -np: parallel slots (requests served at once). */
  slots?: number;
  /** -c: the context of all slots together (each slot gets ctx / slots). */
  ctx?: number;
  /** Wait for /health to say ok (default true). */
  waitReady?: boolean;
  /** More llama-server flags (--embedding --pooling mean, -ub N). */
  extraArgs?: string[];
}

const READY_TIMEOUT_MS = 60_000;

export async function startLlamaServer(opts: StartOptions): Promise<LlamaServer> {
  const port = opts.port ?? (await freePort());
  const slots = opts.slots ?? 2;
  const ctx = opts.ctx ?? 8192;
  const log = openSync(opts.logFile, 'a');
  const child: ChildProcess = spawn(
    opts.bin,
    ['-m', MODEL_FILE, '--alias', MODEL_ALIAS, '--host', '127.0.0.1', '--port', String(port), '-c', String(ctx), '-np', String(slots), '--chat-template-file', TEMPLATE_FILE, ...(opts.extraArgs ?? [])],
    { stdio: ['ignore', log, log] },
  );
  closeSync(log);
  let exited: number | null | undefined;
  const exit = new Promise<void>((done) => child.once('exit', (code, signal) => ((exited = code ?? (signal === null ? null : -1)), done())));
  const url = `http://127.0.0.1:${port}`;
  const server: LlamaServer = {
    url,
    port,
    slots,
    logFile: opts.logFile,
    async slotStates() {
      const response = await fetch(`${url}/slots`);
      return (await response.json()) as SlotState[];
    },
    async stop() {
      if (exited !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exit;
      clearTimeout(timer);
    },
  };
  if (opts.waitReady === false) return server;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (exited !== undefined) throw new Error(`llama-server exited (${exited}) before it was ready: see ${opts.logFile}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) return server;
      await response.body?.cancel();
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`llama-server was not ready within ${READY_TIMEOUT_MS} ms: see ${opts.logFile}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
