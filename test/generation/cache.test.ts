// The response cache through generate and summarize, against the fake server: what is stored,
// what a re-run sends, and resuming a run that stopped part-way.
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openResponseCache } from '../../src/cache/response-cache.js';
import { VIEW_TYPES, type ViewType } from '../../src/contracts/vocabulary.js';
import { GENERATE_OPTIONS, resolveConfig, type GenerateOptionValues } from '../../src/generation/config.js';
import { createGenerator } from '../../src/generation/create.js';
import type { ReplyStore } from '../../src/generation/view-cache.js';
import { parseStageArgs } from '../../src/runtime/options.js';
import { runInProcess } from '../support/run-in-process.js';
import { chunk, parseLines, taggedLines } from './support/inputs.js';
import { closeServers, run, serve, STAGES, tempCache } from './support/harness.js';
import type { Script } from './support/scripted-model.js';
import { spawnBin, waitFor } from './support/spawn.js';

const VIEWS = VIEW_TYPES;
const V = VIEWS.length;
/** Per view, in VIEWS order: the attempts given, 1 for every other view. */
const tries = (given: Partial<Record<ViewType, number>> = {}) => VIEWS.map((view) => given[view] ?? 1);
const key = (i: number, view: string = 'retrieval_summary') => `${chunk(i).chunk_id as string} ${view}`;
/** A re-run's records with its cache markers put back: must equal the first run's bytes. */
const unmarked = (jsonl: string) => jsonl.replaceAll('"cached":true', '"cached":false');
const entries = (path: string) => {
  const cache = openResponseCache(path, { create: false });
  try {
    return cache.stats().entries;
  } finally {
    cache.close();
  }
};
const cachedFlags = (jsonl: string) => parseLines(jsonl).map((rec) => VIEWS.filter((v) => rec.generation?.[v]).map((v) => rec.generation[v].cached));

beforeAll(() => {
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(closeServers);
afterAll(() => {
  vi.restoreAllMocks();
});

describe('a re-run of a finished run', () => {
  // Scripts for the first run; the re-run's server would answer every request, and gets none.
  // `attempts`: per record, per view written, in the first run (and so in the replay).
  const ONE_EACH = Array(5).fill(tries());
  const cases: Record<string, { script: Script; args?: string[]; stage?: 'generate' | 'summarize'; attempts: number[][]; cut: number }> = {
    'every view right the first time': { script: {}, attempts: ONE_EACH, cut: 0 },
    'views that needed a second or third try': {
      script: { [key(0)]: ['not-json'], [key(1, 'rca_frame')]: ['short-scope', 'missing-key'], [key(2)]: ['length'] },
      args: ['--truncate-chars', '120'],
      attempts: [tries({ retrieval_summary: 2 }), tries({ rca_frame: 3 }), tries({ retrieval_summary: 2 }), tries(), tries()],
      cut: 1,
    },
    'transport retries on the way': { script: { [key(1)]: ['busy503', 'error500'], [key(3, 'rca_frame')]: ['reset'] }, attempts: ONE_EACH, cut: 0 },
    'every attempt cut with --max-chars': { script: { [key(4)]: ['array'] }, args: ['--max-chars', '90'], attempts: [tries(), tries(), tries(), tries(), tries({ retrieval_summary: 2 })], cut: 5 * V },
    'summarize, one view, combined': { script: { [key(0, 'rca_frame')]: ['not-json'] }, args: ['--views', 'rca_frame', '--combined'], stage: 'summarize', attempts: [[2], [1], [1], [1], [1]], cut: 0 },
  };

  it.each(Object.entries(cases))('%s: sends no request and writes the same records, marked cached', async (_name, c) => {
    const cache = tempCache();
    const stage = c.stage ?? 'generate';
    const args = ['--cache', cache, ...(c.args ?? [])];
    const input = await taggedLines(5);
    const first = await serve(c.script);
    const r1 = await run(stage, first.server, input, args);
    expect(r1.code).toBe(0);
    expect(r1.stdout).not.toContain('"cached":true');
    const written = parseLines(r1.stdout).map((rec) => VIEWS.filter((v) => rec.generation[v]).map((v) => rec.generation[v]));
    expect(written.map((gens) => gens.map((g) => g.attempts))).toEqual(c.attempts);
    expect(written.flat().filter((g) => g.text_cut !== null)).toHaveLength(c.cut);
    const views = stage === 'summarize' ? 5 : 5 * V;
    expect(entries(cache)).toBe(views);

    const again = await serve();
    const r2 = await run(stage, again.server, input, args);
    expect(r2.code).toBe(0);
    expect(again.server.stats.generations).toBe(0);
    expect(unmarked(r2.stdout)).toBe(r1.stdout);
    expect(cachedFlags(r2.stdout).flat()).toEqual(Array(views).fill(true));
    expect(r2.stderr).toMatch(new RegExp(`rca-${stage}: 5 records: views ${views} ok, 0 flagged, 0 failed \\(${views} from the cache\\); 0 attempts, 0 transport retries; tokens 0 in / 0 out\\n`));
  });

  it('the records of a re-run are those of a run without a cache', async () => {
    const input = await taggedLines(4);
    const script: Script = { [key(2)]: ['not-json'] };
    const plain = await run('generate', (await serve(script)).server, input, ['--no-cache']);
    const cache = tempCache();
    await run('generate', (await serve(script)).server, input, ['--cache', cache]);
    const replayed = await run('generate', (await serve()).server, input, ['--cache', cache]);
    expect(unmarked(replayed.stdout)).toBe(plain.stdout);
  });

  it('the --stats FILE counts hits, stores and the cache', async () => {
    const cache = tempCache();
    const statsFile = join(mkdtempSync(join(tmpdir(), 'rca-stats-')), 'stats.json');
    const input = await taggedLines(3);
    await run('generate', (await serve()).server, input, ['--cache', cache]);
    await run('generate', (await serve()).server, input, ['--cache', cache, '--stats', statsFile]);
    const stats = JSON.parse(readFileSync(statsFile, 'utf8'));
    expect(stats).toMatchObject({ cache: { path: cache, refresh: false, hits: 3 * V, stored: 0, error: null }, views: { ok: 3 * V, cached: 3 * V }, attempts: 0 });
  });
});

describe('failed views are not kept', () => {
  it.each<[string, Script, number]>([
    ['prose every time (failed view)', { [key(1)]: ['not-json', 'not-json', 'not-json'] }, 3],
    ['a missing key every time (failed view)', { [key(1)]: ['missing-key', 'missing-key', 'missing-key'] }, 3],
    ['a bad request (400)', { [key(1)]: ['error400'] }, 1],
  ])('%s: the next run asks for that view again, and only that one', async (_name, script, firstRequests) => {
    const cache = tempCache();
    const input = await taggedLines(3);
    const first = await serve(script);
    const r1 = await run('generate', first.server, input, ['--cache', cache, '--flags-ok']);
    expect(first.model.counts.get(key(1))).toBe(firstRequests);
    expect(parseLines(r1.stdout)[1]!.generation.retrieval_summary.cached).toBe(false);
    expect(entries(cache)).toBe(3 * V - 1);

    const again = await serve();
    const r2 = await run('generate', again.server, input, ['--cache', cache]);
    expect(r2.code).toBe(0);
    expect([...again.model.counts]).toEqual([[key(1), 1]]);
    expect(cachedFlags(r2.stdout)).toEqual([0, 1, 2].map((i) => VIEWS.map((view) => !(i === 1 && view === 'retrieval_summary'))));
    expect(entries(cache)).toBe(3 * V);
  });

  it('a stored reply that no longer passes the checks is not used: the view is asked again and replaced', async () => {
    const cache = tempCache();
    const input = await taggedLines(2);
    await run('generate', (await serve()).server, input, ['--cache', cache]);
    const db = new Database(cache);
    db.prepare(`UPDATE responses SET content = '{"scope": "Pump."}'`).run();
    db.close();
    const again = await serve();
    const r2 = await run('generate', again.server, input, ['--cache', cache]);
    expect(r2.code).toBe(0);
    expect(again.server.stats.generations).toBe(2 * V);
    const third = await serve();
    await run('generate', third.server, input, ['--cache', cache]);
    expect(third.server.stats.generations).toBe(0);
  });
});

describe('flagged views: the whole ladder is kept and replayed with its flags', () => {
  // The model is deterministic: asked again, the flagged view comes back flagged, three tries each.
  const FLAGGED: Script = { [key(1)]: ['short-scope', 'short-scope', 'short-scope'], [key(3, 'rca_frame')]: ['short-scope', 'short-scope', 'short-scope'] };
  const flagsOf = (jsonl: string) => parseLines(jsonl).map((rec) => rec.flags ?? null);

  it('a re-run sends no request and writes the same records, flags and all', async () => {
    const cache = tempCache();
    const input = await taggedLines(5);
    const args = ['--cache', cache];
    const first = await serve(FLAGGED);
    const r1 = await run('generate', first.server, input, args);
    expect(r1.code).toBe(0);
    expect(first.server.stats.generations).toBe(5 * V + 2 * 2);
    expect(entries(cache)).toBe(5 * V);
    expect(r1.stderr).toContain(`views ${5 * V - 2} ok, 2 flagged, 0 failed`);

    const again = await serve(FLAGGED);
    const r2 = await run('generate', again.server, input, args);
    expect(r2.code).toBe(0);
    expect(again.server.stats.generations).toBe(0);
    expect(unmarked(r2.stdout)).toBe(r1.stdout);
    expect(flagsOf(r2.stdout)).toEqual(flagsOf(r1.stdout));
    expect(r2.stderr).toContain(`views ${5 * V - 2} ok, 2 flagged, 0 failed (${5 * V} from the cache); 0 attempts`);
    // Under --fail-on-flags the replayed flags count as they did: exit 1, one warning per view.
    const strict = await run('generate', (await serve()).server, input, ['--cache', cache, '--fail-on-flags']);
    expect(strict.code).toBe(1);
    expect(unmarked(strict.stdout)).toBe(r1.stdout);
  });

  it('--retry-flagged asks those views again, and only those; what comes back replaces the entry', async () => {
    const cache = tempCache();
    const input = await taggedLines(5);
    await run('generate', (await serve(FLAGGED)).server, input, ['--cache', cache, '--flags-ok']);
    // The model now answers well: each flagged view takes one request, and is stored as passed.
    const retried = await serve();
    const r = await run('generate', retried.server, input, ['--cache', cache, '--retry-flagged']);
    expect(r.code).toBe(0);
    expect(new Map(retried.model.counts)).toEqual(new Map([
      [key(1), 1],
      [key(3, 'rca_frame'), 1],
    ]));
    expect(r.stderr).toContain(`views ${5 * V} ok, 0 flagged, 0 failed (${5 * V - 2} from the cache)`);
    const after = await serve(FLAGGED);
    const r3 = await run('generate', after.server, input, ['--cache', cache, '--retry-flagged']);
    expect(after.server.stats.generations).toBe(0);
    expect(unmarked(r3.stdout)).toBe(unmarked(r.stdout));
  });

  it('a flagged outcome is asked again when the run allows another number of tries', async () => {
    const cache = tempCache();
    const input = await taggedLines(2);
    await run('generate', (await serve({ [key(1)]: ['short-scope', 'short-scope', 'short-scope'] })).server, input, ['--cache', cache, '--flags-ok']);
    const more = await serve({ [key(1)]: ['short-scope', 'short-scope', 'short-scope', 'short-scope'] });
    await run('generate', more.server, input, ['--cache', cache, '--flags-ok', '--max-tries', '4']);
    expect([...more.model.counts]).toEqual([[key(1), 4]]);
  });

  it('a flagged outcome whose flags today\'s validator no longer gives is asked again', async () => {
    const cache = tempCache();
    const input = await taggedLines(2);
    await run('generate', (await serve({ [key(1)]: ['short-scope', 'short-scope', 'short-scope'] })).server, input, ['--cache', cache, '--flags-ok']);
    const db = new Database(cache);
    expect(db.prepare(`UPDATE responses SET flags = '["SOME_OLD_FLAG"]' WHERE flags IS NOT NULL`).run().changes).toBe(1);
    db.close();
    const again = await serve();
    await run('generate', again.server, input, ['--cache', cache, '--flags-ok']);
    expect([...again.model.counts]).toEqual([[key(1), 1]]);
  });
});

describe('what the key covers', () => {
  const base = ['--seed', '42'];
  it.each<[string, string[], { models?: { name: string; digest: string }[] }, boolean]>([
    ['the same command', base, {}, true],
    ['another --concurrency, --timeout, --keep-alive, --max-tries, --retry-delay', [...base, '--concurrency', '5', '--timeout', '30', '--keep-alive', '1h', '--max-tries', '5', '--retry-delay', '3'], {}, true],
    ['another --seed', ['--seed', '7'], {}, false],
    ['another --max-output-tokens', [...base, '--max-output-tokens', '1000'], {}, false],
    ['another --num-ctx', [...base, '--num-ctx', '4096'], {}, false],
    ['another --max-chars (another prompt)', [...base, '--max-chars', '100'], {}, false],
    ['another --truncate-chars (another third attempt)', [...base, '--truncate-chars', '100'], {}, false],
    ['another --model', [...base, '--model', 'qwen2.5:7b'], { models: [{ name: 'qwen2.5:7b', digest: 'q' }] }, false],
    ['the same model name re-pulled (another digest)', base, { models: [{ name: 'mistral:latest', digest: '0000' }] }, false],
  ])('%s → %s', async (_name, args, serverOptions, hit) => {
    const cache = tempCache();
    const input = await taggedLines(2);
    await run('generate', (await serve()).server, input, ['--cache', cache, ...base]);
    const again = await serve({}, serverOptions);
    const r = await run('generate', again.server, input, ['--cache', cache, ...args]);
    expect(r.code).toBe(0);
    expect(again.server.stats.generations).toBe(hit ? 0 : 2 * V);
    expect(cachedFlags(r.stdout).flat()).toEqual(Array(2 * V).fill(hit));
  });
});

describe('--refresh, --no-cache, and backends without a cache', () => {
  it('--refresh asks again and replaces the entries; the run after it hits them', async () => {
    const cache = tempCache();
    const input = await taggedLines(2);
    await run('generate', (await serve()).server, input, ['--cache', cache]);
    const refreshed = await serve();
    const r = await run('generate', refreshed.server, input, ['--cache', cache, '--refresh']);
    expect(refreshed.server.stats.generations).toBe(2 * V);
    expect(r.stdout).not.toContain('"cached":true');
    expect(entries(cache)).toBe(2 * V);
    const after = await serve();
    await run('generate', after.server, input, ['--cache', cache]);
    expect(after.server.stats.generations).toBe(0);
  });

  it('--no-cache neither reads nor creates a cache (RCA_CACHE is ignored)', async () => {
    const cache = tempCache();
    const { server } = await serve();
    const r = await run('generate', server, await taggedLines(1), ['--no-cache'], { env: { RCA_CACHE: cache } });
    expect(r.code).toBe(0);
    expect(existsSync(cache)).toBe(false);
  });

  it('RCA_CACHE names the cache when --cache is not given', async () => {
    const cache = tempCache();
    const input = await taggedLines(1);
    await run('generate', (await serve()).server, input, ['--cache', cache]);
    const { server } = await serve();
    const r = await runInProcess(STAGES.generate, [input], ['--host', server.url], { env: { RCA_CACHE: cache } });
    expect(r.code).toBe(0);
    expect(server.stats.generations).toBe(0);
    expect(cachedFlags(r.stdout)).toEqual([VIEWS.map(() => true)]);
  });

  it.each([['--dry-run'], ['--backend', 'extractive']])('%s opens no cache', async (...args) => {
    const cache = tempCache();
    const r = await run('summarize', 'http://127.0.0.1:9', await taggedLines(2), ['--cache', cache, ...args]);
    expect(r.code).toBe(0);
    expect(existsSync(cache)).toBe(false);
  });

  it.each<[string, () => string]>([
    ['a folder', () => mkdtempSync(join(tmpdir(), 'rca-not-a-file-'))],
    [
      'a file that is not a cache',
      () => {
        const path = join(mkdtempSync(join(tmpdir(), 'rca-bad-cache-')), 'c.sqlite');
        writeFileSync(path, 'not a database\n'.repeat(100));
        return path;
      },
    ],
  ])('a cache that cannot be opened (%s) stops the run before the first record: exit 3', async (_name, make) => {
    const path = make();
    const { server } = await serve();
    const r = await run('generate', server, await taggedLines(1), ['--cache', path]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^rca-generate: cannot use the response cache: .*${path.replaceAll('/', '\\/')}.* \\(--cache PATH names another file; --no-cache runs without one\\)\\n$`));
    expect(server.stats.generations).toBe(0);
  });

  it.each(['get', 'put'] as const)('a store whose %s fails mid-run: the views are still written, one warning, the cache left alone after', async (failing) => {
    const { server } = await serve();
    const calls = { get: 0, put: 0 };
    const message = '/broken/responses.sqlite: cannot use the cache: disk I/O error';
    const store: ReplyStore = {
      path: '/broken/responses.sqlite',
      get: () => {
        calls.get++;
        if (failing === 'get') throw new Error(message);
        return null;
      },
      put: () => {
        calls.put++;
        if (failing === 'put') throw new Error(message);
      },
      close: () => {},
    };
    const args = parseStageArgs(GENERATE_OPTIONS, ['--host', server.url, '--cache', store.path]).values as GenerateOptionValues;
    const generator = await createGenerator(resolveConfig(args, {}), { openStore: () => store });
    const lines = (await taggedLines(3)).trim().split('\n');
    const outcomes = [];
    for (const [i, raw] of lines.entries()) outcomes.push(await generator.process(JSON.parse(raw), { source: 'stdin', line: i + 1, raw }));
    expect(outcomes.map((o) => o.failed ?? false)).toEqual([false, false, false]);
    expect(outcomes.every((o) => o.records?.length === 1)).toBe(true);
    expect(outcomes.flatMap((o) => o.warnings ?? [])).toEqual([`response cache: ${message}; going on without it`]);
    expect(calls[failing]).toBe(1);
    expect(server.stats.generations).toBe(3 * V);
    expect(generator.stats()).toMatchObject({ cache: { hits: 0, stored: 0, error: message } });
  });
});

describe('resume: a run stopped after N records, run again on the same input with the same cache', () => {
  // Records 0..4 are quick; record 5's views hang until the run is interrupted. Some views need
  // retries, before and after the stop, so the replayed records carry attempts > 1.
  const RECORDS = 12;
  const STOP_AT = 5;
  const base: Script = { [key(1)]: ['not-json'], [key(3, 'rca_frame')]: ['short-scope'], [key(8)]: ['missing-key'], [key(10, 'rca_frame')]: ['busy503'] };
  const hanging: Script = { ...base, ...Object.fromEntries(VIEWS.map((view) => [key(STOP_AT, view), [{ delayMs: 20_000 }]])) };

  it.each([
    ['one request at a time, one record in progress', ['--concurrency', '1', '--window', '1']],
    ['4 requests in flight, a window of 32 records', ['--concurrency', '4']],
  ])('%s: the output equals an uninterrupted run and only the views not done before are asked for', async (_name, args) => {
    const input = await taggedLines(RECORDS);
    const whole = await run('generate', (await serve(base, { slots: 4 })).server, input, ['--no-cache', ...args]);
    expect(whole.code).toBe(0);
    const attemptsOf = (rec: Record<string, any>) => VIEWS.reduce((m, v) => m + (rec.generation[v].attempts as number), 0);
    const wholeRecords = parseLines(whole.stdout);
    const requestsWhole = wholeRecords.reduce((n, rec) => n + attemptsOf(rec), 0);
    const requestsBeforeStop = wholeRecords.slice(0, STOP_AT).reduce((n, rec) => n + attemptsOf(rec), 0);
    const seenBefore = (counts: Map<string, number>) =>
      Array.from({ length: STOP_AT }, (_, i) => VIEWS.reduce((m, v) => m + (counts.get(key(i, v)) ?? 0), 0)).reduce((a, b) => a + b, 0);

    const cache = tempCache();
    const first = await serve(hanging, { slots: 4 });
    const signals = new EventEmitter();
    const timer = setInterval(() => {
      // Once the hanging record is asked for and every request of the records before it was sent,
      // a moment for their replies to land, then Ctrl-C.
      if (first.model.counts.has(key(STOP_AT)) && seenBefore(first.model.counts) >= requestsBeforeStop) {
        clearInterval(timer);
        setTimeout(() => signals.emit('SIGINT'), 50);
      }
    }, 5);
    const stopped = await run('generate', first.server, input, ['--cache', cache, ...args], { signals });
    clearInterval(timer);
    expect(stopped.code).toBe(130);
    expect(parseLines(stopped.stdout).map((rec) => rec.chunk_id)).toEqual(Array.from({ length: STOP_AT }, (_, i) => chunk(i).chunk_id));
    const done = entries(cache);
    expect(done).toBeGreaterThanOrEqual(V * STOP_AT);

    const again = await serve(base, { slots: 4 });
    const resumed = await run('generate', again.server, input, ['--cache', cache, ...args]);
    expect(resumed.code).toBe(0);
    expect(unmarked(resumed.stdout)).toBe(whole.stdout);
    const marks = cachedFlags(resumed.stdout);
    expect(marks.slice(0, STOP_AT).flat()).toEqual(Array(V * STOP_AT).fill(true));
    // Exactly the views not finished before the stop were asked for, each as often as in the uninterrupted run.
    const asked = [...again.model.counts.keys()].sort();
    const notCached = parseLines(resumed.stdout)
      .flatMap((rec) => VIEWS.filter((v) => !rec.generation[v].cached).map((v) => `${rec.chunk_id as string} ${v}`))
      .sort();
    expect(asked).toEqual(notCached);
    expect(notCached).toHaveLength(V * RECORDS - done);
    if (args.includes('--window')) expect(notCached).toHaveLength(V * (RECORDS - STOP_AT));
    const requestsResumed = parseLines(resumed.stdout).reduce((n, rec) => n + VIEWS.reduce((m, v) => m + (rec.generation[v].cached ? 0 : (rec.generation[v].attempts as number)), 0), 0);
    expect(again.server.stats.generations).toBe(requestsResumed);
    expect(requestsResumed).toBeLessThan(requestsWhole);
  });

  it('a process killed with SIGKILL mid-run leaves a cache the next run resumes from', async () => {
    const input = await taggedLines(40);
    const cache = tempCache();
    const slow: Script = {};
    for (let i = 10; i < 40; i++) for (const view of VIEWS) slow[key(i, view)] = [{ delayMs: 20_000 }];
    const first = await serve(slow, { slots: 4 });
    const killed = spawnBin('rca-generate', ['--host', first.server.url, '--concurrency', '4', '--cache', cache], { input });
    // All four slots held by hanging requests: the first ten records' quick ones are answered.
    await waitFor(() => first.server.stats.generations >= V * 10 + 4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    killed.child.kill('SIGKILL');
    await killed.done;
    const again = await serve({}, { slots: 4 });
    const resumed = spawnBin('rca-generate', ['--host', again.server.url, '--concurrency', '4', '--cache', cache], { input });
    expect(await resumed.done).toBe(0);
    const marks = cachedFlags(resumed.stdout());
    expect(marks).toHaveLength(40);
    expect(marks.slice(0, 10).flat()).toEqual(Array(V * 10).fill(true));
    expect(again.server.stats.generations).toBe(marks.flat().filter((c) => !c).length);
  });

  it('two processes on one cache at once (make -j): both finish, and a re-run of either asks nothing', async () => {
    const cache = tempCache();
    const { server } = await serve({}, { slots: 4, latencyMs: 5 });
    const a = await taggedLines(30);
    const b = await taggedLines(30, 30);
    const runs = [a, b].map((input) => spawnBin('rca-summarize', ['--host', server.url, '--concurrency', '2', '--cache', cache], { input }));
    expect(await Promise.all(runs.map((r) => r.done))).toEqual([0, 0]);
    expect(entries(cache)).toBe(60 * V);
    const again = await serve();
    for (const input of [a, b]) {
      const r = spawnBin('rca-summarize', ['--host', again.server.url, '--cache', cache], { input });
      expect(await r.done).toBe(0);
    }
    expect(again.server.stats.generations).toBe(0);
  });
});
