// Shared benchmark helpers: run a command with a file on stdin and stdout to /dev/null, timing it
// and sampling its peak RSS (VmHWM from /proc, so no external tool is needed).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, statSync, createWriteStream } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT = join(ROOT, 'bench/out');

export function machine() {
  return `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

/** A generated corpus of `mb` MB under bench/out (made once, reused: same seed, same bytes). */
export async function corpus(mb, seed = 42) {
  mkdirSync(OUT, { recursive: true });
  // The generator's version is in the name, so a changed generator never reuses an old file.
  const file = join(OUT, `corpus-v2-${mb}mb-seed${seed}.jsonl`);
  if (existsSync(file) && statSync(file).size > 0) return file;
  await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bench/generate-corpus.mjs'), '--mb', String(mb), '--seed', String(seed)], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.pipe(createWriteStream(file));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`corpus generator exited ${code}`))));
  });
  return file;
}

/** Peak RSS of a running process so far, in kB (0 once it has gone). */
export function vmHwmKb(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Runs `cmd args < input > /dev/null`; returns {seconds, peakMB, code}. */
export function measure(cmd, args, input) {
  return new Promise((resolve, reject) => {
    const inFd = openSync(input, 'r');
    const outFd = openSync('/dev/null', 'w');
    const start = process.hrtime.bigint();
    const child = spawn(cmd, args, { stdio: [inFd, outFd, 'pipe'], cwd: ROOT });
    let peak = 0;
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setInterval(() => (peak = Math.max(peak, vmHwmKb(child.pid))), 10);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      closeSync(inFd);
      closeSync(outFd);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      if (code !== 0) return reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr.slice(0, 300)}`));
      resolve({ seconds, peakMB: peak / 1024, code });
    });
  });
}

export const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};
export const fmt = (x, d = 1) => x.toFixed(d);
