// --backend openai through generate and summarize, in process, against the fake server's
// OpenAI-compatible face: the request, the record, the retry paths that are the OpenAI spellings of
// Ollama's (finish_reason "length", 429 with Retry-After), the API key (sent, never shown), and
// the response cache.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VIEW_TYPES } from '../../src/contracts/vocabulary.js';
import { formatOf } from '../../src/generation/requests.js';
import { schemaName } from '../../src/llm/openai-request.js';
import { buildPrompt } from '../../src/views/prompt-text.js';
import { chunk, parseLines, taggedLines } from './support/inputs.js';
import { closeServers, runWith, serve, serveOpenAi, STAGES, tempCache } from './support/harness.js';
import type { Step } from './support/scripted-model.js';
import { runInProcess } from '../support/run-in-process.js';

const KEY = 'sk-test-DISTINCTIVE-5e8c1a7f';
const VIEWS = VIEW_TYPES;
const OPTIONS = { temperature: 0, seed: 42, num_predict: 2048 };
const key = (i: number, view = 'retrieval_summary') => `${chunk(i).chunk_id as string} ${view}`;
const openAi = (url: string) => ['--backend', 'openai', '--base-url', `${url}/v1`];
const withKey = ['--api-key-env', 'RCA_TEST_KEY'];
const KEY_ENV = { RCA_TEST_KEY: KEY };
const unmarked = (jsonl: string) => jsonl.replaceAll('"cached":true', '"cached":false');

afterEach(closeServers);

describe('generate with --backend openai', () => {
  it('sends a chat completion with the view schema, and records the openai provenance', async () => {
    const { server } = await serveOpenAi({}, { apiKey: KEY });
    const input = await taggedLines(2);
    const statsFile = join(mkdtempSync(join(tmpdir(), 'rca-openai-')), 'stats.json');
    const r = await runWith('generate', input, [...openAi(server.url), ...withKey, '--seed', '7', '--max-output-tokens', '300', '--stats', statsFile], { env: KEY_ENV });
    expect(r.code).toBe(0);
    const tagged = parseLines(input);
    const out = parseLines(r.stdout);
    expect(out.map((rec) => rec.chunk_id)).toEqual([0, 1].map((i) => chunk(i).chunk_id));
    for (const rec of out) {
      for (const view of VIEWS) {
        expect(rec.generation[view]).toEqual({
          backend: 'openai',
          model: 'mistral:latest',
          model_digest: null,
          options: { ...OPTIONS, seed: 7, num_predict: 300 },
          attempts: 1,
          done_reason: 'stop',
          // The fake, like vLLM without --enable-prompt-tokens-details, says nothing of its cache.
          tokens: { prompt: expect.any(Number), cached: null, output: expect.any(Number) },
          text_cut: null,
          cached: false,
          error: null,
        });
      }
      expect(rec.flags).toEqual(Object.fromEntries(VIEWS.map((view) => [view, []])));
    }
    const chats = server.requests.filter((b) => Array.isArray(b.messages));
    expect(chats).toHaveLength(2 * VIEWS.length);
    for (const view of VIEWS) {
      const schema = formatOf(view);
      // The compact format holds the content fields only: a view is told by its first field.
      const first = Object.keys(schema.properties as object)[0]!;
      const body = chats.find((b) => Object.keys(b.response_format.json_schema.schema.properties)[0] === first && b.messages[0].content.endsWith(`\nCHUNK_TEXT:\n${tagged[0]!.text}`));
      expect(body).toEqual({
        model: 'mistral:latest',
        messages: [{ role: 'user', content: buildPrompt(tagged[0]!.context, tagged[0]!.ner_seed, tagged[0]!.text, view).prompt }],
        response_format: { type: 'json_schema', json_schema: { name: schemaName(schema), schema, strict: true } },
        temperature: 0,
        seed: 7,
        max_tokens: 300,
        stream: true,
        stream_options: { include_usage: true },
        chat_template_kwargs: { enable_thinking: false },
      });
    }
    // The key goes in the header of every request, preflight included, and nowhere else.
    expect(server.authorizations).toEqual(Array(2 * VIEWS.length + 1).fill(`Bearer ${KEY}`));
    const written = readFileSync(statsFile, 'utf8');
    for (const text of [r.stdout, r.stderr, written]) expect(text).not.toContain(KEY);
    expect(JSON.parse(written)).toMatchObject({ backend: 'openai', host: `${server.url}/v1`, model_digest: null, concurrency: 2, window: 16, views: { ok: 2 * VIEWS.length } });
    expect(r.stderr).toMatch(new RegExp(String.raw`^rca-generate: 2 records: views ${2 * VIEWS.length} ok, 0 flagged, 0 failed; ${2 * VIEWS.length} attempts, 0 transport retries; tokens [\d,]+ in \/ [\d,]+ out\n`));
  });

  it('summarize gives the views generate gives', async () => {
    const { server } = await serveOpenAi();
    const input = await taggedLines(3);
    const generated = parseLines((await runWith('generate', input, openAi(server.url))).stdout);
    const summarized = parseLines((await runWith('summarize', input, openAi(server.url))).stdout);
    expect(summarized.map(({ embedding_text: _e, ...rest }) => rest)).toEqual(generated);
  });

  interface RetryCase {
    steps: Step[];
    args?: string[];
    attempts: number;
    requests: number;
    error: string | null;
    transportRetries: number;
    minMs?: number;
  }
  const cases: Record<string, RetryCase> = {
    'finish_reason "length", then a whole reply: the Ollama retry path': { steps: ['length'], attempts: 2, requests: 2, error: null, transportRetries: 0 },
    'finish_reason "length" every time: REPLY_CUT': { steps: ['length', 'length', 'length'], attempts: 3, requests: 3, error: 'REPLY_CUT', transportRetries: 0 },
    'prose, then JSON': { steps: ['not-json'], attempts: 2, requests: 2, error: null, transportRetries: 0 },
    '429 with Retry-After: 1 is waited out, though --retry-delay is 1 ms': {
      steps: [{ fault: { status: 429, body: '{"error":"rate limit reached"}', headers: { 'retry-after': '1' } } }],
      attempts: 1,
      requests: 2,
      error: null,
      transportRetries: 1,
      minMs: 1000,
    },
    'busy (503), then a reply': { steps: ['busy503'], attempts: 1, requests: 2, error: null, transportRetries: 1 },
    'connection reset mid-stream, then a reply': { steps: [{ fault: 'reset' }], attempts: 1, requests: 2, error: null, transportRetries: 1 },
    'a bad request (400) is not retried': { steps: ['error400'], attempts: 1, requests: 1, error: 'HTTP_400', transportRetries: 0 },
  };

  it.each(Object.entries(cases))('%s', async (_name, c) => {
    const { server, model } = await serveOpenAi({ [key(0)]: c.steps });
    const started = performance.now();
    const r = await runWith('generate', await taggedLines(2), [...openAi(server.url), ...(c.args ?? [])]);
    const elapsed = performance.now() - started;
    expect(r.code).toBe(c.error === null ? 0 : 1);
    expect(model.counts.get(key(0))).toBe(c.requests);
    const [first, second] = parseLines(r.stdout);
    const entry = first!.generation.retrieval_summary;
    expect(entry.attempts).toBe(c.attempts);
    if (c.error === null) {
      expect(entry).toMatchObject({ error: null, done_reason: 'stop' });
    } else {
      expect(first!.retrieval_summary).toBeNull();
      expect(entry.error).toMatchObject({ code: c.error, attempts: c.attempts });
    }
    if (c.error === 'REPLY_CUT') expect(entry).toMatchObject({ done_reason: 'length', error: { message: 'reply cut at the output token limit (--max-output-tokens 2048)' } });
    expect(r.stderr).toMatch(new RegExp(`; [\\d,]+ attempts, ${c.transportRetries} transport retr(y|ies); `));
    if (c.minMs !== undefined) expect(elapsed).toBeGreaterThanOrEqual(c.minMs);
    expect(second!.generation.rca_frame.error).toBeNull();
  });
});

describe('what stops a run with --backend openai', () => {
  it.each<[string, Record<string, string>, string[], string]>([
    ['a key the server refuses', { RCA_TEST_KEY: 'sk-wrong-DISTINCTIVE-0b9d' }, withKey, 'rejected the API key (401) — check the variable named by --api-key-env'],
    ['no key where one is needed', {}, [], 'requires an API key (401) — name the variable that holds it with --api-key-env'],
  ])('%s: exit 3 before the first record, and no key in any message', async (_name, env, args, message) => {
    const { server } = await serveOpenAi({}, { apiKey: KEY });
    const r = await runWith('generate', await taggedLines(1), [...openAi(server.url), ...args], { env });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`rca-generate: the OpenAI-compatible server at ${server.url}/v1 ${message}\n`);
    for (const value of [KEY, ...Object.values(env)]) expect(r.stderr).not.toContain(value);
    expect(server.stats.generations).toBe(0);
  });

  it('a key revoked mid-run stops the run with the records before it written', async () => {
    const revoked = `Incorrect API key provided: ${KEY}.`;
    const { server } = await serveOpenAi({ [key(3)]: [{ fault: { status: 401, body: JSON.stringify({ error: revoked }) } }] }, { apiKey: KEY });
    const r = await runWith('generate', await taggedLines(8), [...openAi(server.url), ...withKey, '--concurrency', '1', '--window', '1'], { env: KEY_ENV });
    expect(r.code).toBe(3);
    expect(parseLines(r.stdout).map((rec) => rec.chunk_id)).toEqual([0, 1, 2].map((i) => chunk(i).chunk_id));
    expect(r.stderr).toContain(
      `rca-generate: stdin:4: fatal: the OpenAI-compatible server at ${server.url}/v1 rejected the API key (401) — check the variable named by --api-key-env; stopped after 3 records, all written in input order\n`,
    );
    expect(r.stderr + r.stdout).not.toContain(KEY);
  });

  it('a model the server does not serve: exit 3 naming what it serves', async () => {
    const { server } = await serveOpenAi();
    const r = await runWith('generate', await taggedLines(1), [...openAi(server.url), '--model', 'Qwen/Qwen2.5-7B-Instruct']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`rca-generate: model "Qwen/Qwen2.5-7B-Instruct" is not served by the OpenAI-compatible server at ${server.url}/v1 (it serves: mistral:latest)\n`);
  });

  it('a model removed mid-run stops the run', async () => {
    const { server } = await serveOpenAi({ [key(2)]: ['model404'] });
    const r = await runWith('generate', await taggedLines(6), [...openAi(server.url), '--concurrency', '1', '--window', '1']);
    expect(r.code).toBe(3);
    expect(parseLines(r.stdout)).toHaveLength(2);
    expect(r.stderr).toMatch(/rca-generate: stdin:3: fatal: model "mistral:latest" not found at the OpenAI-compatible server at http:\/\/127\.0\.0\.1:\d+\/v1 \(404\): .*; stopped after 2 records/);
  });

  it('an unreachable server: the wait is said at once; exit 3 once --give-up-after has passed', async () => {
    const { server } = await serveOpenAi();
    await server.close();
    const r = await runWith('summarize', await taggedLines(1), [...openAi(server.url), '--give-up-after', '0.4', '--retry-delay', '20']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `rca-summarize: waiting for the server at ${server.url}/v1 to start for up to 0.4 s (--give-up-after SECONDS), trying again with backoff (random waits of up to 0.02 s, doubling to 2 s); Ctrl-C stops. Now: cannot reach the OpenAI-compatible server at ${server.url}/v1 — is it running?\n` +
      `rca-summarize: cannot reach the OpenAI-compatible server at ${server.url}/v1 — is it running? (no answer within --give-up-after 0.4 s; a larger value waits longer)\n`,
    );
  });

  it('a server still loading its model (503 "Loading model" on every route) is waited for, and the wait reported', async () => {
    const { server } = await serveOpenAi({}, { loadingMs: 500 });
    const r = await runWith('generate', await taggedLines(1), [...openAi(server.url), '--views', 'rca_frame', '--retry-delay', '20']);
    expect(r.code).toBe(0);
    expect(server.stats.faults.loading503).toBeGreaterThan(0);
    expect(r.stderr).toMatch(
      new RegExp(`^rca-generate: waiting for the server at ${server.url}/v1 to start for up to 120 s .*Now: the OpenAI-compatible server at ${server.url}/v1 is busy \\(503\\): Loading model\nrca-generate: stdin:1: waited [\\d.]+ s for the server at ${server.url}/v1 to start \\(\\d+ tries; last: the OpenAI-compatible server at ${server.url}/v1 is busy \\(503\\): Loading model\\)\n`),
    );
    expect(parseLines(r.stdout)[0]!.generation.rca_frame.error).toBeNull();
  });

  it('a server that is not listening yet (connection refused) is waited for', async () => {
    const { server: probe } = await serveOpenAi();
    const port = probe.port;
    await probe.close();
    const run = runWith('generate', await taggedLines(1), [...openAi(`http://127.0.0.1:${port}`), '--views', 'rca_frame', '--retry-delay', '20']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await serveOpenAi({}, { port });
    const r = await run;
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^rca-generate: waiting for the server at http:\/\/127\.0\.0\.1:\d+\/v1 to start for up to 120 s .*\nrca-generate: stdin:1: waited [\d.]+ s for the server at http:\/\/127\.0\.0\.1:\d+\/v1 to start \(\d+ tr(?:y|ies); last: cannot reach the OpenAI-compatible server/);
  });
});

describe('the response cache with --backend openai', () => {
  it('a re-run sends nothing; another server, or Ollama, under the same model name is asked again', async () => {
    const cache = tempCache();
    const input = await taggedLines(3);
    const first = await serveOpenAi();
    const r1 = await runWith('generate', input, [...openAi(first.server.url), '--cache', cache]);
    expect(r1.code).toBe(0);
    expect(first.server.stats.generations).toBe(3 * VIEWS.length);

    const again = await runWith('generate', input, [...openAi(first.server.url), '--cache', cache]);
    expect(first.server.stats.generations).toBe(3 * VIEWS.length);
    expect(unmarked(again.stdout)).toBe(r1.stdout);
    expect(again.stderr).toContain(`views ${3 * VIEWS.length} ok, 0 flagged, 0 failed (${3 * VIEWS.length} from the cache)`);

    // No digest to tell two servers' models apart: the base URL is part of the key.
    const other = await serveOpenAi();
    await runWith('generate', input, [...openAi(other.server.url), '--cache', cache]);
    expect(other.server.stats.generations).toBe(3 * VIEWS.length);
    // Ollama under the same model name is another backend.
    const ollama = await serve();
    const viaOllama = await runInProcess(STAGES.generate, [input], ['--host', ollama.server.url, '--cache', cache]);
    expect(viaOllama.code).toBe(0);
    expect(ollama.server.stats.generations).toBe(3 * VIEWS.length);
  });

  it('--model-id stands for the base URL in the key: servers at other URLs with the same weights share entries, other weights do not', async () => {
    const cache = tempCache();
    const input = await taggedLines(3);
    const first = await serveOpenAi();
    const r1 = await runWith('generate', input, [...openAi(first.server.url), '--cache', cache, '--model-id', 'sha256:aaaa']);
    expect(r1.code).toBe(0);
    expect(first.server.stats.generations).toBe(3 * VIEWS.length);
    const other = await serveOpenAi();
    const r2 = await runWith('generate', input, [...openAi(other.server.url), '--cache', cache, '--model-id', 'sha256:aaaa']);
    expect(other.server.stats.generations).toBe(0);
    expect(unmarked(r2.stdout)).toBe(r1.stdout);
    const otherWeights = await serveOpenAi();
    await runWith('generate', input, [...openAi(otherWeights.server.url), '--cache', cache, '--model-id', 'sha256:bbbb']);
    expect(otherWeights.server.stats.generations).toBe(3 * VIEWS.length);
  });

  it('--model-id is refused for Ollama and when not a plain token', async () => {
    const ollama = await serve();
    const input = await taggedLines(1);
    const r = await runInProcess(STAGES.generate, [input], ['--host', ollama.server.url, '--model-id', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--model-id is for --backend openai');
    const first = await serveOpenAi();
    const spaced = await runWith('generate', input, [...openAi(first.server.url), '--model-id', 'two words']);
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toContain("--model-id expects 1 to 200 printable characters without spaces, got 'two words'");
  });
});
