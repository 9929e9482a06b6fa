// `make corpus` on inputs as they come: a bad line in one file, a file whose stage fails, DACKAR's
// file names, names make cannot use, and the shard count recorded in OUT/.settings.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/commands/merge.js';
import { VIEW_TYPES } from '../../src/contracts/vocabulary.js';
import { closeServers, serve } from './support/harness.js';
import { chunk } from './support/inputs.js';
import { spawnShell } from './support/spawn.js';

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
// -o dist/.built: the bins are built already; make must not rebuild them under a running test.
const make = (target: string, vars: Record<string, string>, env: Record<string, string> = {}) =>
  spawnShell(`make -s -o dist/.built ${target} ${Object.entries(vars).map(([k, v]) => `${k}=${quote(v)}`).join(' ')}`, env);
const lines = (from: number, n: number) => Array.from({ length: n }, (_, i) => JSON.stringify(chunk(from + i)));

function folder(files: Record<string, string[]>): { inDir: string; outDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rca-corpus-'));
  const inDir = join(dir, 'chunks');
  mkdirSync(inDir);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(inDir, name), `${content.join('\n')}\n`);
  return { inDir, outDir: join(dir, 'out') };
}

describe('make corpus: one file’s trouble never stops the others', () => {
  it('a bad JSON line: the file is built without it, the reject is kept beside it with its line number and counted; exit 0', async () => {
    const { inDir, outDir } = folder({ 'a.chunks.jsonl': lines(0, 3), 'b.chunks.jsonl': [...lines(3, 1), '{"doc_id": "cr1", broken', ...lines(4, 2)], 'c.chunks.jsonl': lines(6, 2) });
    const r = await make('corpus', { IN: inDir, OUT: outDir, BACKEND: 'extractive' });
    expect(r.code).toBe(0);
    for (const name of ['a', 'b', 'c']) expect(existsSync(join(outDir, `${name}.summarized.jsonl`))).toBe(true);
    expect(readFileSync(join(outDir, 'b.summarized.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
    const rejects = readFileSync(join(outDir, 'b.rejects.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rejects).toEqual([expect.objectContaining({ stage: 'tag', source: join(inDir, 'b.chunks.jsonl'), line: 2, code: 'BAD_JSON', input: '{"doc_id": "cr1", broken' })]);
    expect(readdirSync(outDir).filter((f) => f.includes('rejects'))).toEqual(['b.rejects.jsonl']);
    const row = r.stdout.split('\n').find((l) => l.startsWith(join(outDir, 'b.summarized.jsonl')))!;
    expect(row.trim().split(/\s+/).slice(1)).toEqual(['3', String(3 * VIEW_TYPES.length), '0', '0', '0', '1', 'built']);
    expect(r.stdout).toContain('1 input line rejected, each with its line number in OUT/x.rejects.jsonl');
    // rca merge agrees: the bad line is reported, not expected; every other record is there once.
    expect((await make('corpus-verify', { IN: inDir, OUT: outDir })).code).toBe(0);
  }, 60_000);

  it('a file whose stage fails is left unbuilt with its reason; the files after it are built; the table names it and the exit status is not 0; the next run retries it', async () => {
    const { inDir, outDir } = folder({ 'a.chunks.jsonl': lines(0, 2), 'c.chunks.jsonl': lines(2, 2) });
    // A folder where a file should be: rca-tag refuses it before reading anything (exit 2).
    mkdirSync(join(inDir, 'b.chunks.jsonl'));
    const r = await make('corpus', { IN: inDir, OUT: outDir, BACKEND: 'extractive' });
    expect(r.code).toBe(2);
    expect(existsSync(join(outDir, 'a.summarized.jsonl'))).toBe(true);
    expect(existsSync(join(outDir, 'c.summarized.jsonl'))).toBe(true);
    expect(existsSync(join(outDir, 'b.summarized.jsonl'))).toBe(false);
    expect(readFileSync(join(outDir, 'b.failed'), 'utf8')).toBe('rca-tag exited 2\n');
    expect(r.stderr).toContain('make corpus: b: rca-tag exited 2; the other files go on');
    expect(r.stdout).toMatch(/b\.summarized\.jsonl +0 +0 +0 +0 +0 +0 +FAILED: rca-tag exited 2\n/);
    expect(r.stdout).toContain('1 of 3 files failed');
    rmSync(join(inDir, 'b.chunks.jsonl'), { recursive: true });
    writeFileSync(join(inDir, 'b.chunks.jsonl'), `${lines(4, 1).join('\n')}\n`);
    const again = await make('corpus', { IN: inDir, OUT: outDir, BACKEND: 'extractive' });
    expect(again.code).toBe(0);
    // Only b was made: a and c were done.
    expect([...again.stdout.matchAll(/> \S+\/(\w+)\.summarized\.jsonl\n/g)].map((m) => m[1])).toEqual(['b']);
    expect(existsSync(join(outDir, 'b.failed'))).toBe(false);
  }, 60_000);
});

describe('make corpus: file names', () => {
  it('INPUT_SUFFIX=_chunks.jsonl builds DACKAR’s <doc>_chunks.jsonl, and corpus-verify reads them the same way', async () => {
    const { inDir, outDir } = folder({ 'ad61d26ecf6e_chunks.jsonl': lines(0, 2), 'notes.txt': ['x'] });
    const none = await make('corpus', { IN: inDir, OUT: outDir, BACKEND: 'extractive' });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`make corpus: no ${inDir}/*.chunks.jsonl files (IN=dir/ names the folder, INPUT_SUFFIX the ending of its file names)`);
    const r = await make('corpus', { IN: inDir, OUT: outDir, BACKEND: 'extractive', INPUT_SUFFIX: '_chunks.jsonl' });
    expect(r.code).toBe(0);
    // The corpus report is written after the table, and nothing else is left in OUT/ (no temp file).
    expect(readdirSync(outDir).sort()).toEqual(['.settings', 'ad61d26ecf6e.summarized.jsonl', 'ad61d26ecf6e.tagged.jsonl', 'report.html']);
    expect(readFileSync(join(outDir, 'report.html'), 'utf8')).toContain('ad61d26ecf6e');
    expect(r.stdout).toContain(`report: ${outDir}/report.html`);
    expect((await make('corpus-verify', { IN: inDir, OUT: outDir, INPUT_SUFFIX: '_chunks.jsonl' })).code).toBe(0);
  }, 60_000);

  it.each([
    ['a space', 'my report_chunks.jsonl'],
    ['a colon', 'cr:12_chunks.jsonl'],
    ['a quote', "o'neil_chunks.jsonl"],
    ['a dollar sign', 'cost$_chunks.jsonl'],
  ])('a file name with %s is refused with a clear message before anything is built', async (_name, file) => {
    const { inDir, outDir } = folder({ [file]: lines(0, 1), 'fine_chunks.jsonl': lines(1, 1) });
    const r = await make('corpus', { IN: inDir, OUT: outDir, BACKEND: 'extractive', INPUT_SUFFIX: '_chunks.jsonl' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`make corpus: input file names make cannot use (spaces or one of : % # ; $ \` ' " \\ * ? [ ]) in ${inDir}/: '${file}'`);
    expect(existsSync(outDir)).toBe(false);
  });

  it('a folder name with a space is refused with a clear message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rca-corpus-'));
    const inDir = join(dir, 'my chunks');
    mkdirSync(inDir);
    writeFileSync(join(inDir, 'a.chunks.jsonl'), `${lines(0, 1)[0]}\n`);
    const r = await make('corpus', { IN: inDir, OUT: join(dir, 'out'), BACKEND: 'extractive' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`make corpus: IN, OUT and INPUT_SUFFIX cannot hold spaces (make splits names there): IN='${inDir}'`);
  });
});

describe('make corpus: the shard count is recorded and held', () => {
  const FILES = ['cr-1', 'cr-2', 'wo-1', 'wo-2', 'sop-1', 'eca-1'];
  const files = () => Object.fromEntries(FILES.map((f, i) => [`${f}.chunks.jsonl`, lines(i * 2, 2)]));

  it('SHARDS=N with SHARD_FROM and SHARD_OFFSET builds shard index+offset; OUT/.settings records N; another N (the 1/1 accident) or none is refused', async () => {
    const { inDir, outDir } = folder(files());
    const vars = { IN: inDir, OUT: outDir, BACKEND: 'extractive' };
    // 0-based indices, as `--array=0-2` gives: offset 1.
    const runs = await Promise.all([0, 1, 2].map((i) => make('corpus', { ...vars, SHARDS: '3', SHARD_FROM: 'TASK_INDEX', SHARD_OFFSET: '1' }, { TASK_INDEX: String(i) })));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    const built = runs.map((r) => [...r.stdout.matchAll(/> \S+\/([\w-]+)\.summarized\.jsonl\n/g)].map((m) => m[1]!));
    built.forEach((share, i) => expect(share.every((name) => shardOf(`${name}.chunks.jsonl`, 3) === i + 1)).toBe(true));
    expect(built.flat().sort()).toEqual([...FILES].sort());
    expect(readFileSync(join(outDir, '.settings'), 'utf8')).toBe('--backend extractive\nshards 3\n');

    for (const bad of [{ SHARD: '1/1' }, {}, { SHARD: '2/4' }] as Record<string, string>[]) {
      const r = await make('corpus', { ...vars, ...bad });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`make corpus: ${outDir}/ is built in 3 shards (${outDir}/.settings), but this build says ${'SHARD' in bad ? `SHARD=${bad.SHARD}` : 'no SHARD, i.e. 1 shard'}: it would build files that other shards own`);
    }
  }, 60_000);

  it.each<[Record<string, string>, Record<string, string>, string]>([
    [{ SHARD_FROM: 'TASK_INDEX' }, { TASK_INDEX: '1' }, 'SHARD_FROM=TASK_INDEX needs SHARDS=N, the number of shards, written in the job script'],
    [{ SHARDS: '3' }, {}, 'SHARDS=N goes with SHARD_FROM=VARIABLE; or give SHARD=k/N'],
    [{ SHARDS: '3', SHARD: '1/2' }, {}, 'SHARD=1/2 and SHARDS=3 disagree on the number of shards'],
    [{ SHARDS: '3', SHARD_FROM: 'TASK_INDEX' }, {}, "SHARD_FROM=TASK_INDEX holds '' and SHARD_OFFSET is '0': both must be whole numbers"],
    [{ SHARDS: '3', SHARD_FROM: 'TASK_INDEX', SHARD_OFFSET: '1' }, { TASK_INDEX: '3' }, "SHARD must be k/N with 1 <= k <= N, e.g. SHARD=2/3; got '4/3'"],
    [{ SHARDS: '3', SHARD_FROM: 'TASK_INDEX', SHARD: '1/3' }, { TASK_INDEX: '1' }, 'SHARD and SHARD_FROM are two ways to say the same thing'],
  ])('%j with %j is refused', async (vars, env, message) => {
    const { inDir, outDir } = folder(files());
    const r = await make('corpus', { IN: inDir, OUT: outDir, BACKEND: 'extractive', ...vars }, env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('corpus-verify names the shards whose files are missing, as the list to build again', async () => {
    const { inDir, outDir } = folder(files());
    const vars = { IN: inDir, OUT: outDir, BACKEND: 'extractive' };
    await Promise.all([1, 2, 3].map((k) => make('corpus', { ...vars, SHARD: `${k}/3` })));
    const lost = FILES.filter((f) => shardOf(`${f}.chunks.jsonl`, 3) !== 2).slice(0, 1)[0]!;
    rmSync(join(outDir, `${lost}.summarized.jsonl`));
    const k = shardOf(`${lost}.chunks.jsonl`, 3);
    const r = await make('corpus-verify', vars);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`rca merge: shards to build again: ${k} (of 3), e.g. sbatch --array=${k} JOB_SCRIPT`);
    const json = await spawnShell(`./bin/rca merge --inputs ${quote(inDir)} --outputs ${quote(outDir)} --shards 3 --json`);
    expect(JSON.parse(json.stdout)).toMatchObject({ shards: 3, shards_to_rebuild: [k], ok: false });
    const rebuilt = await make('corpus', { ...vars, SHARD: `${k}/3` });
    expect(rebuilt.code).toBe(0);
    expect((await make('corpus-verify', vars)).code).toBe(0);
  }, 60_000);
});

describe('make corpus: a cached re-run of a finished corpus', () => {
  afterEach(closeServers);

  it('sends no request and writes the same records, also for views that ended flagged under --flags-ok', async () => {
    const { inDir, outDir } = folder({ 'a.chunks.jsonl': lines(0, 3), 'b.chunks.jsonl': lines(3, 3) });
    const cache = join(mkdtempSync(join(tmpdir(), 'rca-corpus-cache-')), 'responses.sqlite');
    // Every try of two views comes back flagged (kept under --flags-ok after three attempts each).
    const script = { [`${chunk(1).chunk_id as string} retrieval_summary`]: Array(3).fill('short-scope'), [`${chunk(4).chunk_id as string} rca_frame`]: Array(3).fill('short-scope') };
    const first = await serve(script);
    const vars = (url: string) => ({ IN: inDir, OUT: outDir, BACKEND: 'ollama', CACHE: cache, SERVER_FLAGS: `--host ${url}` });
    const r1 = await make('corpus', vars(first.server.url));
    expect(r1.code, r1.stderr).toBe(0);
    expect(first.server.stats.generations).toBe(6 * VIEW_TYPES.length + 2 * 2);
    const built = ['a', 'b'].map((f) => readFileSync(join(outDir, `${f}.summarized.jsonl`), 'utf8'));
    // -B: remake every file, as a new build of the bins would.
    const again = await serve(script);
    const r2 = await make('-B corpus', vars(again.server.url));
    expect(r2.code, r2.stderr).toBe(0);
    expect(again.server.stats.generations).toBe(0);
    const rebuilt = ['a', 'b'].map((f) => readFileSync(join(outDir, `${f}.summarized.jsonl`), 'utf8').replaceAll('"cached":true', '"cached":false'));
    expect(rebuilt).toEqual(built);
    expect(r2.stdout).toMatch(new RegExp(`total +6 +${6 * VIEW_TYPES.length - 2} +2 +0 +${6 * VIEW_TYPES.length} +0 +built`));
  }, 60_000);
});
