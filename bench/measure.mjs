// Shared benchmark helpers: run a command with a file on stdin and stdout to /dev/null, timing it
// and sampling its peak RSS (VmHWM from /proc, so no external tool is needed).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, renameSync, statSync, createWriteStream } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT = join(ROOT, 'bench/out');

export function machine() {
  return `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

/** The corpus profiles of bench/generate-corpus.mjs (`--profile`). */
export const PROFILES = ['mdparser', 'text-heavy'];

/**
 * A generated corpus of `mb` MB under bench/out (made once, reused: same seed, same bytes).
 * `profile`: `mdparser` (the default corpus, text ~30 % of the bytes) or `text-heavy` (~74 %).
 */
export async function corpus(mb, seed = 42, profile = 'mdparser') {
  if (!PROFILES.includes(profile)) throw new Error(`unknown corpus profile ${profile} (${PROFILES.join(', ')})`);
  mkdirSync(OUT, { recursive: true });
  // The generator's version is in the name, so a changed generator never reuses an old file.
  const name = profile === 'mdparser' ? `corpus-v2-${mb}mb-seed${seed}` : `corpus-${profile}-v1-${mb}mb-seed${seed}`;
  const file = join(OUT, `${name}.jsonl`);
  if (existsSync(file) && statSync(file).size > 0) return file;
  await new Promise((resolve, reject) => {
    const args = [join(ROOT, 'bench/generate-corpus.mjs'), '--mb', String(mb), '--seed', String(seed), '--profile', profile];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    // Written beside and renamed when complete, so a stopped run never leaves a short corpus.
    const sink = createWriteStream(`${file}.part`);
    child.stdout.pipe(sink);
    const closed = new Promise((r) => sink.on('close', r));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`corpus generator exited ${code}`));
      closed.then(() => (renameSync(`${file}.part`, file), resolve()));
    });
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

/** Whether `jq` runs here (the jq baseline is reported only where it is installed). */
export function hasJq() {
  try {
    return spawnSync('jq', ['--version']).status === 0;
  } catch {
    return false;
  }
}
