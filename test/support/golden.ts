import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const GOLDEN_DIR = join(ROOT, 'test/golden');

/**
 * One golden case: the folder test/golden/<stage>/<case>/ holding
 *   input.jsonl      what the stage reads on stdin
 *   args             its arguments, one a line (optional)
 *   env              NAME=value lines added to its environment (optional)
 *   pipeline         present: the input is raw chunks, and rca-tag runs first (optional)
 *   server.json      present: the run gets a fake model server, {"face": "ollama"} (--host <fake>)
 *                    or {"face": "openai", "apiKey": "..."} (--backend openai --base-url <fake>/v1),
 *                    and --no-cache unless args name a cache (optional)
 *   script.json      what the fake server's model answers (test/generation/support/scripted-model.ts)
 *   setup            present: a bash script run first from the repository root with $WORK a fresh
 *                    temporary folder, which `{work}` in args stands for (and in the output)
 *   expected.jsonl, expected.stderr, expected.exit   stdout, stderr and the exit status; an
 *                    absent file stands for empty output and status 0
 */
export interface GoldenCase {
  stage: string;
  name: string;
  dir: string;
  args: string[];
  env: Record<string, string>;
  pipeline: boolean;
  server: { face: 'ollama' | 'openai'; apiKey: string | null } | null;
  setup: string | null;
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
      const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : null);
      const lines = (f: string) => (read(f) ?? '').split('\n').filter((l) => l !== '');
      const env = Object.fromEntries(lines('env').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      const serverJson = read('server.json');
      const setup = serverJson === null ? null : (JSON.parse(serverJson) as { face?: 'ollama' | 'openai'; apiKey?: string });
      const server = setup === null ? null : { face: setup.face ?? 'ollama', apiKey: setup.apiKey ?? null };
      cases.push({ stage, name, dir, args: lines('args'), env, pipeline: existsSync(join(dir, 'pipeline')), server, setup: read('setup') });
    }
  }
  return cases;
}

export interface BinResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** The command line of a case's tool: bin/rca-<stage>, or `bin/rca <command>` for an rca command. */
export function toolOf(stage: string): string {
  return existsSync(join(ROOT, 'bin', `rca-${stage}`)) ? `./bin/rca-${stage}` : `./bin/rca ${stage}`;
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

/** Rewrites a case's expected files from the current output (`npm run golden`). */
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
