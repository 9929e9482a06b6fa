// rca-embed against a real llama-server started with --embedding --pooling mean, serving the tiny
// random-weight model: real vectors of meaningless values, so what is checked is the protocol
// (/v1/embeddings, its list shape and usage), the dimensions, batching, the server's refusal of
// an input over its physical batch (-ub) and rca's splitting of it, the cache, and the index.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from './support/cli.js';
import { MODEL_ALIAS, ROOT, startLlamaServer, type LlamaServer } from './support/llama-server.js';

const bin = process.env.RCA_LLAMA_SERVER!;
const dir = mkdtempSync(join(tmpdir(), 'rca-engine-embed-'));
// llama-server's physical batch: an input of more tokens is refused (500), never cut.
const UBATCH = 128;
let server: LlamaServer;
let records: string;

beforeAll(async () => {
  server = await startLlamaServer({ bin, logFile: join(dir, 'server.log'), slots: 2, ctx: 4096, extraArgs: ['--embedding', '--pooling', 'mean', '-ub', String(UBATCH), '-b', String(UBATCH)] });
  const tagged = execFileSync(process.execPath, [join(ROOT, 'bin/rca-tag'), join(ROOT, 'examples/sample-corpus.jsonl')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  records = join(dir, 'tagged.jsonl');
  writeFileSync(records, tagged);
});

afterAll(async () => {
  await server?.stop();
});

const args = (...more: string[]) => ['--backend', 'openai', '--base-url', `${server.url}/v1`, '--model', MODEL_ALIAS, '--text', 'text', ...more];

describe('rca-embed against llama-server --embedding', () => {
  it('embeds every chunk of the sample: 8-dimension unit vectors, batched, in input order, long texts split at the server\'s batch', async () => {
    const cache = join(dir, 'cache.sqlite');
    // The estimate allows 512 tokens; the server takes 128: the long chunks are refused, then halved.
    const r = await runBin('rca-embed', args('--cache', cache, '--batch', '8', '--max-input-tokens', '512'), { input: records });
    expect(r.code, r.stderr).toBe(0);
    expect(r.records).toHaveLength(32);
    const ids = readFileSync(records, 'utf8').trim().split('\n').map((l) => JSON.parse(l).chunk_id);
    expect(r.records.map((x) => x.chunk_id)).toEqual(ids);
    for (const x of r.records) {
      expect(x.embedding).toMatchObject({ backend: 'openai', model: MODEL_ALIAS, digest: null, dims: 8, normalized: true, error: null });
      expect(x.embedding.vector).toHaveLength(8);
    }
    const split = r.records.filter((x) => x.embedding.input.pieces > 1);
    expect(split.length).toBeGreaterThan(0);
    expect(readFileSync(server.logFile, 'utf8')).toContain('is too large to process');
    // A cached re-run sends no request: the same vectors, all from the cache.
    const again = await runBin('rca-embed', args('--cache', cache, '--batch', '8', '--max-input-tokens', '512', '--overwrite'), { input: records });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/ in 0 requests \(\d+ from the cache\)/);
    expect(again.records.map((x) => x.embedding.vector)).toEqual(r.records.map((x) => x.embedding.vector));
    const embedded = join(dir, 'embedded.jsonl');
    writeFileSync(embedded, r.stdout);
    const db = join(dir, 'index.sqlite');
    execFileSync(process.execPath, [join(ROOT, 'bin/rca'), 'index', '--db', db, embedded], { stdio: 'ignore' });
    const hits = execFileSync(process.execPath, [join(ROOT, 'bin/rca'), 'search', '--db', db, '--mode', 'hybrid', '--base-url', `${server.url}/v1`, '--no-cache', '--json', 'pump vibration'], { encoding: 'utf8' });
    const parsed = hits.trim().split('\n').map((l) => JSON.parse(l));
    expect(parsed.length).toBe(10);
    expect(parsed.every((h) => h.vector !== null || h.keyword !== null)).toBe(true);
  });

  it('with --long refuse, a text the server will not take is written with its error, never cut', async () => {
    const long = join(dir, 'long.jsonl');
    writeFileSync(long, `${JSON.stringify({ chunk_id: 'c', doc_id: 'd', text: Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ') })}\n`);
    const r = await runBin('rca-embed', args('--no-cache', '--long', 'refuse', '--max-input-tokens', '100000'), { input: long });
    expect(r.code).toBe(1);
    expect(r.records[0]!.embedding).toMatchObject({ vector: null, error: { code: 'PROMPT_TOO_LONG' } });
    expect(r.records[0]!.embedding.error.message).toContain('too large to process');
  });
});
