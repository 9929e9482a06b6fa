// The golden cases: every test/golden/<stage>/<case>/ (its files: GoldenCase in
// support/golden.ts) runs the built bin from the repository root, as a user would, and its stdout,
// stderr and exit status must equal the expected files. A case with server.json runs against the
// fake Ollama or OpenAI-compatible server, driven by its script.json.
//
// `npm run golden` (vitest's --update) rewrites the expected files from the current code; review
// the diff like code. CI never rewrites them: under CI the update refuses to run.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheArgs, closeServers, serve, serveOpenAi } from './generation/support/harness.js';
import type { Script } from './generation/support/scripted-model.js';
import { spawnShell } from './generation/support/spawn.js';
import { expectedOf, goldenCases, toolOf, updateCase, type BinResult, type GoldenCase } from './support/golden.js';

// What a fake server's address is written as in the expected files: its port changes per run.
const FAKE_HOST = { ollama: 'http://fake-ollama', openai: 'http://fake-openai' };

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

afterEach(closeServers);

async function runCase(c: GoldenCase): Promise<BinResult> {
  let where: string[] = [];
  let url: string | null = null;
  if (c.server) {
    const script = existsSync(join(c.dir, 'script.json')) ? (JSON.parse(readFileSync(join(c.dir, 'script.json'), 'utf8')) as Script) : {};
    const { server } = c.server.face === 'openai' ? await serveOpenAi(script, { slots: 4, apiKey: c.server.apiKey }) : await serve(script, { slots: 4 });
    url = server.url;
    // Never the per-user cache: a case that is about the cache names its own file in `args`.
    where = [...(c.server.face === 'openai' ? ['--backend', 'openai', '--base-url', `${url}/v1`] : ['--host', url]), ...cacheArgs(c.args)];
  }
  // A case with a setup script (an index to search) gets a fresh folder, {work} in its args and output.
  const work = c.setup === null ? null : mkdtempSync(join(tmpdir(), 'rca-golden-'));
  if (work !== null) {
    const prepared = await spawnShell(c.setup!, { ...c.env, WORK: work });
    if (prepared.code !== 0) throw new Error(`setup of ${c.stage}/${c.name} exited ${prepared.code}: ${prepared.stderr}`);
  }
  const args = work === null ? c.args : c.args.map((a) => a.replaceAll('{work}', work));
  const bin = `${toolOf(c.stage)} ${[...where, ...args].map(quote).join(' ')}`;
  const input = quote(join(c.dir, 'input.jsonl'));
  const r = await spawnShell(c.pipeline ? `./bin/rca-tag < ${input} | ${bin}` : `${bin} < ${input}`, c.env);
  if (work !== null) rmSync(work, { recursive: true, force: true });
  const unwork = (text: string) => (work === null ? text : text.replaceAll(work, '{work}'));
  const unport = (text: string) => unwork(url === null || c.server === null ? text : text.replaceAll(url, FAKE_HOST[c.server.face]));
  const stderr = unport(r.stderr)
    .split('\n')
    // The wall time changes from run to run; nothing else may.
    .filter((l) => !/: wall time [\d.,]+ s, [\d.,]+ records\/s$/.test(l))
    .filter((l) => !/: slowest record: .*, [\d.]+ s$/.test(l))
    // rca-tag's summary in a pipeline: a second process on the same stderr, in no fixed order.
    .filter((l) => !(c.pipeline && /^rca-tag: \d+ chunks? tagged, /.test(l)))
    .join('\n');
  return { stdout: unport(r.stdout), stderr, code: r.code };
}

describe.each(Object.entries(groupByStage()))('golden: %s', (_stage, cases) => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    // vitest's --update (`npm run golden`) is the one switch that rewrites the expected files.
    const updating = expect.getState().snapshotState.snapshotUpdateState === 'all';
    if (updating && process.env.CI) throw new Error('refusing to rewrite golden files in CI');
    const actual = await runCase(c);
    if (updating) updateCase(c, actual);
    const expected = expectedOf(c);
    expect(actual.stdout).toBe(expected.stdout);
    expect(actual.stderr).toBe(expected.stderr);
    expect(actual.code).toBe(expected.code);
  });
});

function groupByStage() {
  const groups: Record<string, GoldenCase[]> = {};
  for (const c of goldenCases()) (groups[c.stage] ??= []).push(c);
  return groups;
}
