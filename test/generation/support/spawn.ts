// Spawns the built bins asynchronously: the fake server lives in this process, so a blocking
// spawnSync would keep it from answering.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../support/golden.js';

// A child without its own RCA_CACHE would use the per-user cache: give every child a throw-away one.
const SCRATCH_CACHE = join(mkdtempSync(join(tmpdir(), 'rca-spawn-cache-')), 'responses.sqlite');
const baseEnv = () => ({ PATH: process.env.PATH ?? '', RCA_CACHE: SCRATCH_CACHE });

export interface Spawned {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  done: Promise<number>;
}

export function spawnBin(bin: string, args: string[], opts: { input?: string; env?: Record<string, string>; readStdout?: boolean } = {}): Spawned {
  const child = spawn(process.execPath, [join(ROOT, 'bin', bin), ...args], {
    cwd: ROOT,
    env: { ...baseEnv(), ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  if (opts.readStdout !== false) child.stdout!.on('data', (d: Buffer) => out.push(d));
  child.stderr!.on('data', (d: Buffer) => err.push(d));
  child.stdin!.on('error', () => {});
  if (opts.input !== undefined) child.stdin!.end(opts.input);
  const done = new Promise<number>((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : -1))));
  return { child, stdout: () => Buffer.concat(out).toString('utf8'), stderr: () => Buffer.concat(err).toString('utf8'), done };
}

/** Runs `bash -o pipefail -c script` from the repository root. */
export function spawnShell(script: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // stdin not a socket: bash would take itself for a remote shell and read ~/.bashrc.
    const child = spawn('bash', ['-o', 'pipefail', '-c', script], { cwd: ROOT, env: { ...baseEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** Peak resident memory of a live process, in MB (Linux /proc). */
export function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

export function waitFor(condition: () => boolean, timeoutMs = 10_000, stepMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const check = () => {
      if (condition()) resolve();
      else if (Date.now() > deadline) reject(new Error('condition not met in time'));
      else setTimeout(check, stepMs);
    };
    check();
  });
}
