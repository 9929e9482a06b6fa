// The built bins as a user runs them, against the fake server: signals, a slow reader, a pipeline.
import { afterEach, describe, expect, it } from 'vitest';
import { VIEW_TYPES } from '../../src/contracts/vocabulary.js';
import { chunk, chunkLines, parseLines, taggedLines } from './support/inputs.js';
import { closeServers, serve } from './support/harness.js';
import type { Script } from './support/scripted-model.js';
import { peakRssMb, spawnBin, spawnShell, waitFor } from './support/spawn.js';

const key = (i: number, view: string) => `${chunk(i).chunk_id as string} ${view}`;
const VIEWS: readonly string[] = VIEW_TYPES;

afterEach(closeServers);

describe.each(['generate', 'summarize'])('rca-%s as a process', (stage) => {
  it('on SIGINT aborts the requests in flight, writes the finished records in order and exits 130', async () => {
    const slow: Script = {};
    for (let i = 3; i < 40; i++) for (const view of VIEWS) slow[key(i, view)] = [{ delayMs: 20_000 }];
    const { server } = await serve(slow, { slots: 4 });
    const run = spawnBin(`rca-${stage}`, ['--host', server.url, '--concurrency', '4', '--no-cache'], { input: await taggedLines(40) });
    // Three records answered, and the slow requests of the next ones under way.
    await waitFor(() => server.stats.generations >= 3 * VIEWS.length + 4);
    run.child.kill('SIGINT');
    const code = await run.done;
    expect(code).toBe(130);
    // It exited without waiting for the 20 s replies: the server sent only the fast records' ones.
    expect(server.stats.replies).toBe(3 * VIEWS.length);
    const out = parseLines(run.stdout());
    expect(out.map((r) => r.chunk_id)).toEqual([0, 1, 2].map((i) => chunk(i).chunk_id));
    for (const rec of out) for (const view of VIEWS) expect(rec.generation[view].error).toBeNull();
    expect(run.stdout().endsWith('\n')).toBe(true);
    expect(run.stderr()).toMatch(new RegExp(`rca-${stage}: \\d+ unfinished records were not written; the output holds every record before stdin:4 \\(resume from that line\\)\\n`));
    expect(run.stderr()).toContain(`rca-${stage}: interrupted after`);
  });
});

describe('bounded memory', () => {
  it('stops asking the model while stdout is not read, then finishes in order', async () => {
    const { server } = await serve({}, { slots: 8 });
    const records = 1500;
    const run = spawnBin('rca-generate', ['--host', server.url, '--concurrency', '8', '--no-cache'], { input: await taggedLines(records), readStdout: false });
    // Let it run into the full pipe, then check that it stalled instead of buffering everything.
    let last = -1;
    let stableSince = Date.now();
    await waitFor(
      () => {
        if (server.stats.generations !== last) {
          last = server.stats.generations;
          stableSince = Date.now();
        }
        return last > 0 && Date.now() - stableSince > 600;
      },
      20_000,
      50,
    );
    const stalledAt = server.stats.generations;
    const rss = peakRssMb(run.child.pid!);
    expect(stalledAt).toBeLessThan(600); // of 3,000 requests: the window, the pipe and one output batch
    expect(rss).toBeLessThan(250);

    const chunks: Buffer[] = [];
    run.child.stdout!.on('data', (d: Buffer) => chunks.push(d));
    expect(await run.done).toBe(0);
    const out = parseLines(Buffer.concat(chunks).toString('utf8'));
    expect(out).toHaveLength(records);
    expect(out.every((rec, i) => rec.chunk_id === chunk(i).chunk_id)).toBe(true);
  }, 60_000);
});

describe('the headline pipeline', () => {
  it('cat chunks.jsonl | rca-tag | rca-summarize > out.jsonl', async () => {
    const { server } = await serve();
    const input = chunkLines(5);
    const r = await spawnShell(`printf '%s' "$CHUNKS" | ./bin/rca-tag | ./bin/rca-summarize --no-cache`, { CHUNKS: input, OLLAMA_HOST: server.url });
    expect(r.code).toBe(0);
    const out = parseLines(r.stdout);
    expect(out.map((rec) => rec.chunk_id)).toEqual([0, 1, 2, 3, 4].map((i) => chunk(i).chunk_id));
    for (const rec of out) {
      expect(Object.keys(rec)).toEqual(expect.arrayContaining(['context', 'ner_seed', ...VIEWS, 'flags', 'generation', 'embedding_text']));
      expect(rec.embedding_text.retrieval_summary).toMatch(/^SCOPE: /);
    }
    expect(r.stderr).toMatch(new RegExp(`^rca-summarize: 5 records: views ${5 * VIEWS.length} ok, 0 flagged, 0 failed; ${5 * VIEWS.length} attempts, 0 transport retries; `, 'm'));
    expect(r.stderr).toMatch(/^rca-tag: 5 chunks tagged, /m);
  });
});
