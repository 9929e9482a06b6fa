// Several Ollama hosts through the generate stage, in process: spread, failover, preflight and
// the per-host counts of the summary and --stats, checked against the fake servers' own counters.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { VIEW_TYPES } from '../../src/contracts/vocabulary.js';
import type { FakeOpenAi } from '../support/fake-openai.js';
import { chunk, parseLines, taggedLines } from './support/inputs.js';
import { closeServers, runWith, serveHosts, stableStderr } from './support/harness.js';

const VIEWS = VIEW_TYPES;
const OTHER_MODEL = [{ name: 'llama3:8b', digest: 'b'.repeat(64) }];
const chats = (server: FakeOpenAi | undefined) => server?.stats.byPath['/api/chat'] ?? 0;
const hostArgs = (hosts: FakeOpenAi[], slots: (number | null)[] = []) => hosts.flatMap((h, i) => ['--host', slots[i] ? `host=${h.url},slots=${slots[i]}` : h.url]);
const statsFile = () => join(mkdtempSync(join(tmpdir(), 'rca-hosts-')), 'stats.json');
const readStats = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

beforeAll(() => {
  // ollama-js logs non-JSON error bodies; the bins send that to stderr, tests just mute it.
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(closeServers);
afterAll(() => {
  vi.restoreAllMocks();
});

describe('three hosts with different speeds and slots', () => {
  it('a host that dies mid-run and comes back: no record lost, order kept, its share goes to the others and returns', async () => {
    // maxQueue 0: a request beyond a host's slots would be refused (503), so none may arrive.
    const served = await serveHosts([
      { slots: 2, latencyMs: 30, maxQueue: 0 },
      { slots: 2, latencyMs: 15, maxQueue: 0 },
      { slots: 4, latencyMs: 25, maxQueue: 0 },
    ]);
    const { hosts } = served;
    const records = 500;
    const input = await taggedLines(records);
    const stats = statsFile();
    let outage: Promise<unknown> | null = null;
    const watch = setInterval(() => {
      if (outage === null && chats(hosts[1]) >= 60) outage = served.restart(1, 300);
    }, 2);
    const r = await runWith('generate', input, [...hostArgs(hosts, [null, null, 4]), '--stats', stats]);
    clearInterval(watch);
    await outage;

    expect(r.code).toBe(0);
    const out = parseLines(r.stdout);
    expect(out.map((rec) => rec.chunk_id)).toEqual(Array.from({ length: records }, (_, i) => chunk(i).chunk_id));
    for (const rec of out) for (const view of VIEWS) expect(rec.generation[view]).toMatchObject({ error: null, attempts: 1 });

    const dying = served.lives(1);
    expect(dying).toHaveLength(2);
    expect(chats(dying[1])).toBeGreaterThan(0);
    expect(r.stderr).toContain(`rca-generate: stdin:`);
    expect(r.stderr).toMatch(new RegExp(`: host ${dying[0]!.url} rested for 1\\.0 s after (UNREACHABLE|CONNECTION_RESET|STREAM_ERROR|HTTP_5XX): .*; its requests go to the other hosts\\n`));
    expect(r.stderr).toContain(`: host ${dying[0]!.url} is back\n`);

    const perHost = readStats(stats).hosts as { url: string; slots: number; state: string; requests: number; failures: number; tokens: { prompt: number; output: number } }[];
    expect(perHost.map((h) => [h.url, h.slots, h.state])).toEqual([
      [hosts[0]!.url, 2, 'up'],
      [hosts[1]!.url, 2, 'up'],
      [hosts[2]!.url, 4, 'up'],
    ]);
    // The hosts that stayed up saw exactly what the run counted for them, and failed nothing.
    for (const i of [0, 2]) expect(perHost[i]).toMatchObject({ requests: chats(hosts[i]), failures: 0 });
    // The dying host: every request either reached one of its two lives or failed there.
    const reached = dying.reduce((sum, life) => sum + chats(life), 0);
    expect(perHost[1]!.failures).toBeGreaterThan(0);
    expect(perHost[1]!.requests - perHost[1]!.failures).toBeLessThanOrEqual(reached);
    expect(reached).toBeLessThanOrEqual(perHost[1]!.requests);
    // Every view was answered exactly once, somewhere.
    expect(perHost.reduce((sum, h) => sum + h.requests - h.failures, 0)).toBe(records * VIEWS.length);
    for (const life of [...hosts, ...dying]) expect(life.stats.faults).toEqual({});
    // Tokens per host add up to what the records say.
    const recordTokens = out.reduce((sum, rec) => sum + VIEWS.reduce((s, v) => s + rec.generation[v].tokens.prompt, 0), 0);
    expect(perHost.reduce((sum, h) => sum + h.tokens.prompt, 0)).toBe(recordTokens);
  }, 120_000); // 500 records through three hosts and an outage: a bound that catches a hang, not a speed limit

  it('spreads the work over every host, and the summary counts each', async () => {
    const { hosts } = await serveHosts([
      { slots: 1, latencyMs: 20 },
      { slots: 2, latencyMs: 5 },
      { slots: 3, latencyMs: 10 },
    ]);
    const r = await runWith('summarize', await taggedLines(60), hostArgs(hosts, [1, 2, 3]));
    expect(r.code).toBe(0);
    expect(parseLines(r.stdout)).toHaveLength(60);
    hosts.forEach((h, i) => {
      expect(h.stats.maxInFlight).toBeLessThanOrEqual(i + 1);
      expect(chats(h)).toBeGreaterThan(0);
    });
    const lines = stableStderr(r.stderr)
      .split('\n')
      .filter((l) => l.includes(': host '));
    expect(lines).toHaveLength(3);
    hosts.forEach((h, i) => {
      const requests = chats(h);
      expect(lines[i]).toMatch(new RegExp(`^rca-summarize: host ${h.url}: ${i + 1} slots?, ${requests} requests?, 0 failed; tokens [\\d,]+ in / [\\d,]+ out$`));
    });
    expect(hosts.reduce((sum, h) => sum + chats(h), 0)).toBe(60 * VIEWS.length);
  });
});

describe('preflight over several hosts', () => {
  it('leaves out a host without the model, says so, and runs on the others', async () => {
    const { hosts } = await serveHosts([{ slots: 2 }, { slots: 2, models: OTHER_MODEL }, { slots: 2 }]);
    const stats = statsFile();
    const r = await runWith('generate', await taggedLines(6), [...hostArgs(hosts), '--stats', stats]);
    expect(r.code).toBe(0);
    expect(parseLines(r.stdout)).toHaveLength(6);
    expect(r.stderr).toContain(`rca-generate: stdin:1: host ${hosts[1]!.url} left out of the run: model "mistral:latest" not found — run: ollama pull mistral:latest\n`);
    expect(chats(hosts[1])).toBe(0);
    expect(chats(hosts[0]) + chats(hosts[2])).toBe(6 * VIEWS.length);
    expect(r.stderr).toContain(`rca-generate: host ${hosts[1]!.url} (left out): 2 slots, 0 requests, 0 failed; tokens 0 in / 0 out\n`);
    expect(readStats(stats)).toMatchObject({ host: hosts.map((h) => h.url).join(','), concurrency: 4, window: 32 });
  });

  it.each<[string, (typeof OTHER_MODEL)[], RegExp]>([
    ['no host has the model', [OTHER_MODEL, OTHER_MODEL], /^rca-generate: no host can serve model "mistral:latest" — http:\/\/127\.0\.0\.1:\d+: model "mistral:latest" not found — run: ollama pull mistral:latest; http:\/\/127\.0\.0\.1:\d+: model "mistral:latest" not found/],
    [
      'the hosts have different copies of the model',
      [[{ name: 'mistral:latest', digest: 'a'.repeat(64) }], [{ name: 'mistral:latest', digest: 'c'.repeat(64) }]],
      /^rca-generate: model "mistral:latest" differs across hosts: aaaaaaaaaaaa on http:\/\/127\.0\.0\.1:\d+; cccccccccccc on http:\/\/127\.0\.0\.1:\d+ — pull the same version everywhere\n$/,
    ],
  ])('stops before the first record (exit 3) when %s', async (_name, models, message) => {
    const { hosts } = await serveHosts(models.map((m) => ({ models: m })));
    const r = await runWith('generate', await taggedLines(2), hostArgs(hosts));
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    for (const h of hosts) expect(chats(h)).toBe(0);
  });

  it('reads the hosts from OLLAMA_HOSTS', async () => {
    const { hosts } = await serveHosts([{ slots: 1, latencyMs: 5 }, { slots: 1, latencyMs: 5 }]);
    const r = await runWith('generate', await taggedLines(8), [], { env: { OLLAMA_HOSTS: hosts.map((h) => h.url).join(',') } });
    expect(r.code).toBe(0);
    for (const h of hosts) expect(chats(h)).toBeGreaterThan(0);
  });
});

describe('faults over several hosts', () => {
  it('a model removed from one host mid-run leaves that host out; the run goes on without an error', async () => {
    const key = `${chunk(3).chunk_id as string} rca_frame`;
    const { hosts, model } = await serveHosts([{ slots: 1 }, { slots: 1 }], { [key]: ['model404'] });
    const r = await runWith('generate', await taggedLines(10), hostArgs(hosts, [1, 1]));
    expect(r.code).toBe(0);
    expect(model.counts.get(key)).toBe(2);
    expect(parseLines(r.stdout).every((rec) => rec.generation.rca_frame.error === null)).toBe(true);
    expect(r.stderr).toMatch(/: host http:\/\/127\.0\.0\.1:\d+ left out of the run: model "mistral:latest" not found — run: ollama pull mistral:latest\n/);
    expect(r.stderr).toMatch(/: host http:\/\/127\.0\.0\.1:\d+ \(left out\): 1 slot, /);
  });

  it('every host failing every request for --give-up-after stops the run (exit 3), naming the hosts', async () => {
    const failing = Array(1000).fill('error500');
    const script = Object.fromEntries(Array.from({ length: 30 }, (_, i) => i >= 4).flatMap((late, i) => (late ? VIEWS.map((v) => [`${chunk(i).chunk_id as string} ${v}`, failing]) : [])));
    const { hosts } = await serveHosts([{ slots: 1 }, { slots: 1 }], script);
    const r = await runWith('generate', await taggedLines(30), [...hostArgs(hosts), '--give-up-after', '0.4', '--max-transport-retries', '1', '--retry-delay', '20']);
    expect(r.code).toBe(3);
    expect(parseLines(r.stdout).map((rec) => rec.chunk_id)).toEqual([0, 1, 2, 3].map((i) => chunk(i).chunk_id));
    expect(r.stderr).toContain(`fatal: Ollama at ${hosts[0]!.url}, ${hosts[1]!.url} has failed every request for `);
    expect(r.stderr).toContain('stopped after 4 records, all written in input order');
  });
});
