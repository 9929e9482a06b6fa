// Golden cases that need a model: each test/generation/cases/<stage>/<case>/ runs the built bin
// against the fake server and its scripted model, and compares stdout, stderr and the exit status
// with the expected files. Folder: input.jsonl, args (one per line), optional script.json (see
// scripted-model.ts), optional `pipeline` (the input is raw chunks: rca-tag runs first), optional
// server.json ({"face": "openai", "apiKey": "..."}: the run gets --backend openai --base-url
// <fake>/v1 instead of --host <fake>), optional `env` (NAME=value lines for the bin).
// RCA_UPDATE_GOLDEN=1 rewrites the expected files, as `npm run golden` does for test/golden.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheArgs, closeServers, serve, serveOpenAi } from './support/harness.js';
import type { Script } from './support/scripted-model.js';
import { spawnShell } from './support/spawn.js';

const CASES_DIR = join(import.meta.dirname, 'cases');
const FAKE_HOST = { ollama: 'http://fake-ollama', openai: 'http://fake-openai' };
const updating = process.env.RCA_UPDATE_GOLDEN === '1';
if (updating && process.env.CI) throw new Error('refusing to rewrite golden files in CI');

interface ServerSetup {
  face?: 'ollama' | 'openai';
  apiKey?: string;
}

interface Case {
  stage: string;
  name: string;
  dir: string;
}

function cases(): Case[] {
  const found: Case[] = [];
  for (const stage of readdirSync(CASES_DIR).sort()) {
    if (!statSync(join(CASES_DIR, stage)).isDirectory()) continue;
    for (const name of readdirSync(join(CASES_DIR, stage)).sort()) found.push({ stage, name, dir: join(CASES_DIR, stage, name) });
  }
  return found;
}

function byStage(): Record<string, Case[]> {
  const groups: Record<string, Case[]> = {};
  for (const c of cases()) (groups[c.stage] ??= []).push(c);
  return groups;
}

const read = (c: Case, file: string) => (existsSync(join(c.dir, file)) ? readFileSync(join(c.dir, file), 'utf8') : null);
const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

afterEach(closeServers);

describe.each(Object.entries(byStage()))('against the fake server: %s', (_stage, group) => {
  it.each(group.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const script = JSON.parse(read(c, 'script.json') ?? '{}') as Script;
    const setup = JSON.parse(read(c, 'server.json') ?? '{}') as ServerSetup;
    const face = setup.face ?? 'ollama';
    const { server } = face === 'openai' ? await serveOpenAi(script, { slots: 4, apiKey: setup.apiKey ?? null }) : await serve(script, { slots: 4 });
    const where = face === 'openai' ? ['--backend', 'openai', '--base-url', `${server.url}/v1`] : ['--host', server.url];
    const args = (read(c, 'args') ?? '').split('\n').filter((l) => l !== '');
    const env = Object.fromEntries(
      (read(c, 'env') ?? '')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    // Never the per-user cache: a case that is about the cache names its own file in `args`.
    const bin = `./bin/rca-${c.stage} ${[...where, ...cacheArgs(args), ...args].map(quote).join(' ')}`;
    const input = quote(join(c.dir, 'input.jsonl'));
    const r = await spawnShell(existsSync(join(c.dir, 'pipeline')) ? `./bin/rca-tag < ${input} | ${bin}` : `${bin} < ${input}`, env);
    // The server's port and the wall time change from run to run; nothing else may.
    const stdout = r.stdout.replaceAll(server.url, FAKE_HOST[face]);
    const stderr = r.stderr
      .replaceAll(server.url, FAKE_HOST[face])
      .split('\n')
      .filter((l) => !/: wall time [\d.,]+ s, [\d.,]+ records\/s$/.test(l))
      // rca-tag's summary in a pipeline: a second process on the same stderr, in no fixed order.
      .filter((l) => !/^rca-tag: \d+ chunks? tagged, /.test(l))
      .join('\n');
    if (updating) {
      writeFileSync(join(c.dir, 'expected.jsonl'), stdout);
      if (stderr) writeFileSync(join(c.dir, 'expected.stderr'), stderr);
      else rmSync(join(c.dir, 'expected.stderr'), { force: true });
      if (r.code !== 0) writeFileSync(join(c.dir, 'expected.exit'), `${r.code}\n`);
      else rmSync(join(c.dir, 'expected.exit'), { force: true });
    }
    expect(stdout).toBe(read(c, 'expected.jsonl') ?? '');
    expect(stderr).toBe(read(c, 'expected.stderr') ?? '');
    expect(r.code).toBe(Number((read(c, 'expected.exit') ?? '0').trim()));
  });
});
