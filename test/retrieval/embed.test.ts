// rca-embed, the built bin, against the fake Ollama (/api/embed) and the fake OpenAI-compatible
// server (/v1/embeddings, llama-server's physical batch limit): vectors in input order, batching,
// the cache, retries, refusals, and no input ever cut.
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.js';
import { spawnBin } from '../generation/support/spawn.js';
import { tempCache } from '../generation/support/harness.js';

const EMBED_MODEL = { name: 'nomic-embed-text:latest', digest: 'e'.repeat(64), capabilities: ['embedding'], contextLength: 2048, dims: 32 };
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function ollama(opts: Parameters<typeof startFakeOllama>[0] = {}): Promise<FakeOllama> {
  const s = await startFakeOllama({ models: [EMBED_MODEL], slots: 2, ...opts });
  servers.push(s);
  return s;
}

async function openai(opts: Parameters<typeof startFakeOpenAi>[0] = {}): Promise<FakeOpenAi> {
  const s = await startFakeOpenAi({ models: [{ name: 'tiny', digest: 't'.repeat(64), dims: 16 }], slots: 2, ...opts });
  servers.push(s);
  return s;
}

const chunk = (i: number, text: string) => JSON.stringify({ chunk_id: `c${i}`, doc_id: 'd', text, embedding_text: { combined: `SCOPE: ${text}` } });
const lines = (out: string) => out.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, any>);

async function runEmbed(args: string[], input: string) {
  const run = spawnBin('rca-embed', ['--retry-delay', '1', ...args], { input });
  const code = await run.done;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

describe('rca-embed against Ollama /api/embed', () => {
  it('adds each record its vector, in input order, batched, with the provenance of the vector', async () => {
    const server = await ollama();
    const input = Array.from({ length: 40 }, (_, i) => chunk(i, `pump ${i} vibration ${i % 3 === 0 ? 'alarm' : 'trend'}`)).join('\n');
    const r = await runEmbed(['--host', server.url, '--no-cache', '--batch', '8'], input);
    expect(r.code, r.stderr).toBe(0);
    const out = lines(r.stdout);
    expect(out.map((o) => o.chunk_id)).toEqual(Array.from({ length: 40 }, (_, i) => `c${i}`));
    const e = out[0]!.embedding;
    expect(e).toMatchObject({ backend: 'ollama', model: 'nomic-embed-text', digest: EMBED_MODEL.digest, dims: 32, normalized: true, prefix: '', input: { field: 'embedding_text.combined', chars: 'SCOPE: pump 0 vibration alarm'.length, pieces: 1 }, error: null });
    expect(e.vector).toHaveLength(32);
    // Every request body was a batch, never more than --batch texts, never cut.
    const embeds = server.requests.filter((b) => Array.isArray(b?.input));
    expect(embeds.every((b) => b.input.length <= 8 && b.truncate === false)).toBe(true);
    expect(embeds.reduce((n, b) => n + b.input.length, 0)).toBe(40);
    expect(embeds.length).toBeLessThan(40);
    // The fake's vectors are bags of words: records that share words are nearer than others.
    const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    expect(dot(out[0]!.embedding.vector, out[3]!.embedding.vector)).toBeGreaterThan(dot(out[0]!.embedding.vector, out[1]!.embedding.vector));
  });

  it('records the prefix, embeds the text it names, and refuses a record without it', async () => {
    const server = await ollama();
    const input = [chunk(1, 'discharge pressure'), JSON.stringify({ chunk_id: 'c2', doc_id: 'd', text: 'no views here' })].join('\n');
    const r = await runEmbed(['--host', server.url, '--no-cache', '--prefix', 'search_document: '], input);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('stdin:2: NO_EMBEDDING_TEXT');
    const out = lines(r.stdout);
    expect(out).toHaveLength(1);
    expect(out[0]!.embedding.prefix).toBe('search_document: ');
    expect(server.requests.find((b) => Array.isArray(b?.input))!.input).toEqual(['search_document: SCOPE: discharge pressure']);
    const text = await runEmbed(['--host', server.url, '--no-cache', '--text', 'text'], input);
    expect(text.code, text.stderr).toBe(0);
    expect(lines(text.stdout).map((o) => o.embedding.input.field)).toEqual(['text', 'text']);
  });

  it('splits a text longer than the model takes into pieces, never cuts it, and says so', async () => {
    const server = await ollama();
    const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const r = await runEmbed(['--host', server.url, '--no-cache', '--text', 'text', '--max-input-tokens', '200'], chunk(1, long));
    expect(r.code, r.stderr).toBe(0);
    const e = lines(r.stdout)[0]!.embedding;
    expect(e.input.pieces).toBeGreaterThan(1);
    expect(e.normalized).toBe(true);
    const sent = server.requests.filter((b) => Array.isArray(b?.input)).flatMap((b) => b.input as string[]);
    expect(sent.join('')).toBe(long);
    const refused = await runEmbed(['--host', server.url, '--no-cache', '--text', 'text', '--max-input-tokens', '200', '--long', 'refuse'], chunk(1, long));
    expect(refused.code).toBe(1);
    expect(lines(refused.stdout)[0]!.embedding).toMatchObject({ vector: null, error: { code: 'INPUT_TOO_LONG' } });
  });

  it('halves a piece the server refuses as too long (truncate: false), until each fits', async () => {
    const server = await ollama({ models: [{ ...EMBED_MODEL, contextLength: 50 }] });
    const long = Array.from({ length: 120 }, (_, i) => `w${i}`).join(' ');
    // The estimate lets the text through; the server (50 tokens) refuses it, and its halves.
    const r = await runEmbed(['--host', server.url, '--no-cache', '--text', 'text', '--max-input-tokens', '100000'], chunk(1, long));
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)[0]!.embedding.input.pieces).toBeGreaterThan(1);
    expect(server.stats.faults.inputTooLong).toBeGreaterThan(0);
  });

  it('retries transport faults and 503s, and keeps vectors in the cache so a re-run sends nothing', async () => {
    const server = await ollama({ embedFault: (req) => (req.index % 3 === 0 ? 'busy503' : req.index % 3 === 1 ? 'error500' : null) });
    const cache = tempCache();
    const input = Array.from({ length: 6 }, (_, i) => chunk(i, `text ${i}`)).join('\n');
    const first = await runEmbed(['--host', server.url, '--cache', cache, '--batch', '2'], input);
    expect(first.code, first.stderr).toBe(0);
    expect(server.stats.faults.busy503).toBeGreaterThan(0);
    const before = server.stats.embeds;
    const again = await runEmbed(['--host', server.url, '--cache', cache, '--batch', '2', '--overwrite'], first.stdout);
    expect(again.code, again.stderr).toBe(0);
    expect(server.stats.embeds).toBe(before);
    expect(lines(again.stdout).map((o) => o.embedding.vector)).toEqual(lines(first.stdout).map((o) => o.embedding.vector));
    expect(again.stderr).toContain('6 from the cache');
  });

  it('passes records already embedded by this model untouched, byte for byte', async () => {
    const server = await ollama();
    const first = await runEmbed(['--host', server.url, '--no-cache'], chunk(1, 'a b c'));
    const again = await runEmbed(['--host', server.url, '--no-cache'], first.stdout);
    expect(again.stdout).toBe(first.stdout);
    expect(again.stderr).toContain('1 already embedded passed through');
  });

  it('fails at once, exit 3, when the model is not on the server; an empty input needs no server', async () => {
    const server = await ollama();
    const r = await runEmbed(['--host', server.url, '--no-cache', '--model', 'missing-model'], chunk(1, 'x'));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('missing-model');
    const empty = await runEmbed(['--host', 'http://127.0.0.1:9', '--no-cache'], '');
    expect(empty.code).toBe(0);
  });

  it('spreads batches over several hosts (the host pool), vectors still in input order', async () => {
    const [a, b] = [await ollama({ latencyMs: 20 }), await ollama({ latencyMs: 20 })];
    const input = Array.from({ length: 24 }, (_, i) => chunk(i, `text ${i}`)).join('\n');
    const r = await runEmbed(['--host', a.url, '--host', b.url, '--no-cache', '--batch', '2', '--concurrency', '1'], input);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout).map((o) => o.chunk_id)).toEqual(Array.from({ length: 24 }, (_, i) => `c${i}`));
    expect(a.stats.embeds).toBeGreaterThan(0);
    expect(b.stats.embeds).toBeGreaterThan(0);
  });

  it('refuses an embedding field it did not write', async () => {
    const server = await ollama();
    const r = await runEmbed(['--host', server.url, '--no-cache'], JSON.stringify({ chunk_id: 'c', doc_id: 'd', embedding: [1, 2], embedding_text: { combined: 'x' } }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('FIELD_IN_USE');
  });
});

describe('rca-embed against an OpenAI-compatible /v1/embeddings', () => {
  it('embeds through the OpenAI face with llama-server\'s batch limit: long inputs are split, never cut', async () => {
    const server = await openai({ embedBatchTokens: 64 });
    const long = Array.from({ length: 150 }, (_, i) => `t${i}`).join(' ');
    const input = [chunk(1, 'short text'), chunk(2, long)].join('\n');
    // The estimate (512 tokens, 2.5 characters each) lets the long text through; the server refuses it at 64.
    const r = await runEmbed(['--backend', 'openai', '--base-url', `${server.url}/v1`, '--model', 'tiny', '--no-cache', '--text', 'text'], input);
    expect(r.code, r.stderr).toBe(0);
    const out = lines(r.stdout);
    expect(out.map((o) => o.embedding.dims)).toEqual([16, 16]);
    expect(out[1]!.embedding.input.pieces).toBeGreaterThan(1);
    expect(out[0]!.embedding).toMatchObject({ backend: 'openai', model: 'tiny', digest: null });
    expect(server.stats.faults.inputTooLarge).toBeGreaterThan(0);
  });
});
