// Runs the real bins (bin/rca-*) as child processes, as a user would: stdin from a file, stdout
// and stderr captured, and optionally a signal sent once the run reaches a given point.
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './llama-server.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  records: Record<string, any>[];
  seconds: number;
}

export interface CliOptions {
  input: string;
  env?: Record<string, string>;
  /** Called with the stderr and stdout so far; returning true sends SIGINT (once). */
  interruptWhen?: (progress: { stdout: string; stderr: string }) => boolean;
}

export function runBin(bin: string, args: string[], opts: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const input = openSync(opts.input, 'r');
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [join(ROOT, 'bin', bin), ...args], {
      cwd: ROOT,
      stdio: [input, 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
    });
    closeSync(input);
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    const check = (): void => {
      if (interrupted || opts.interruptWhen === undefined) return;
      if (opts.interruptWhen({ stdout, stderr })) {
        interrupted = true;
        child.kill('SIGINT');
      }
    };
    child.stdout!.on('data', (d) => ((stdout += d), check()));
    child.stderr!.on('data', (d) => ((stderr += d), check()));
    child.once('error', reject);
    child.once('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const records = stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, any>);
      resolve({ code, stdout, stderr, records, seconds });
    });
  });
}
