import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const GOLDEN_DIR = join(ROOT, 'test/golden');

export interface GoldenCase {
  stage: string;
  name: string;
  dir: string;
  args: string[];
}

/** Every test/golden/<stage>/<case>/ folder that has an input.jsonl. */
export function goldenCases(): GoldenCase[] {
  const cases: GoldenCase[] = [];
  for (const stage of readdirSync(GOLDEN_DIR).sort()) {
    const stageDir = join(GOLDEN_DIR, stage);
    if (!statSync(stageDir).isDirectory()) continue;
    for (const name of readdirSync(stageDir).sort()) {
      const dir = join(stageDir, name);
      if (!existsSync(join(dir, 'input.jsonl'))) continue;
      const argsFile = join(dir, 'args');
      const args = existsSync(argsFile) ? readFileSync(argsFile, 'utf8').split('\n').filter((l) => l !== '') : [];
      cases.push({ stage, name, dir, args });
    }
  }
  return cases;
}

export interface BinResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs bin/rca-<stage> from the repository root, as a user would. */
export function runBin(stage: string, args: string[], input: string | Buffer, env: Record<string, string> = {}): BinResult {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', `rca-${stage}`), ...args], {
    cwd: ROOT,
    input,
    env: { PATH: process.env.PATH ?? '', ...env },
    maxBuffer: 256 * 1024 * 1024,
  });
  return { stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8'), code: r.status ?? -1 };
}

export function runCase(c: GoldenCase): BinResult {
  return runBin(c.stage, c.args, readFileSync(join(c.dir, 'input.jsonl')));
}

/** Rewrites a case's expected files from the current output (the documented `npm run golden`). */
export function updateCase(c: GoldenCase, r: BinResult): void {
  writeFileSync(join(c.dir, 'expected.jsonl'), r.stdout);
  const stderrFile = join(c.dir, 'expected.stderr');
  const exitFile = join(c.dir, 'expected.exit');
  if (r.stderr) writeFileSync(stderrFile, r.stderr);
  else rmSync(stderrFile, { force: true });
  if (r.code !== 0) writeFileSync(exitFile, `${r.code}\n`);
  else rmSync(exitFile, { force: true });
}

export function expectedOf(c: GoldenCase): BinResult {
  const read = (f: string) => (existsSync(join(c.dir, f)) ? readFileSync(join(c.dir, f), 'utf8') : null);
  return {
    stdout: read('expected.jsonl') ?? '',
    stderr: read('expected.stderr') ?? '',
    code: Number((read('expected.exit') ?? '0').trim()),
  };
}
