import { EventEmitter } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { VIEW_TYPES } from '../../src/contracts/vocabulary.js';
import { formatOf } from '../../src/generation/requests.js';
import { GroundingTally } from '../../src/views/evidence.js';
import { buildPrompt } from '../../src/views/prompt-text.js';
import { GENERATE_OPTIONS, resolveConfig, type GenerateOptionValues } from '../../src/generation/config.js';
import { createGenerator } from '../../src/generation/create.js';
import { parseStageArgs } from '../../src/runtime/options.js';
import { DEFAULT_MODELS, startFakeOllama } from '../support/fake-ollama.js';
import { chunk, parseLines, taggedLines } from './support/inputs.js';
import { closeServers, run, serve, stableStderr, STAGES } from './support/harness.js';
import { runInProcess } from '../support/run-in-process.js';
import { scriptedModel, type Script, type Step } from './support/scripted-model.js';

const key = (i: number, view = 'retrieval_summary') => `${chunk(i).chunk_id as string} ${view}`;
const DIGEST = DEFAULT_MODELS[0]!.digest;
const OPTIONS = { temperature: 0, seed: 42, num_predict: 2048, num_ctx: 8192 };
// Every registered view is asked for; the cases below fault retrieval_summary and rca_frame.
const VIEWS = VIEW_TYPES;
const V = VIEWS.length;
const noFlags = (views: readonly string[] = VIEWS) => Object.fromEntries(views.map((view) => [view, []]));
const besides = (...views: string[]) => VIEWS.filter((view) => !views.includes(view));
/** The grounding of the views the records hold, tallied as the stage tallies it. */
function groundingOf(records: Record<string, any>[]): GroundingTally {
  const tally = new GroundingTally();
  for (const rec of records) for (const view of VIEWS) if (rec.evidence?.[view]) tally.add(rec.evidence[view]);
  return tally;
}

beforeAll(() => {
  // ollama-js logs non-JSON error bodies; the bins send that to stderr, tests just mute it.
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(closeServers);
afterAll(() => {
  vi.restoreAllMocks();
});

describe('generate against the fake server', () => {
  it('writes both views, their flags and generation entries, and a summary', async () => {
    const { server } = await serve();
    const r = await run('generate', server, await taggedLines(3));
    expect(r.code).toBe(0);
    const out = parseLines(r.stdout);
    expect(out.map((rec) => rec.chunk_id)).toEqual([0, 1, 2].map((i) => chunk(i).chunk_id));
    for (const rec of out) {
      expect(rec.retrieval_summary).toMatchObject({ chunk_id: rec.chunk_id, view_type: 'retrieval_summary' });
      expect(rec.rca_frame).toMatchObject({ chunk_id: rec.chunk_id, view_type: 'rca_frame' });
      expect(rec.flags).toEqual(noFlags());
      for (const view of VIEWS) {
        expect(rec.generation[view]).toEqual({
          backend: 'ollama',
          model: 'mistral:latest',
          model_digest: DIGEST,
          options: OPTIONS,
          attempts: 1,
          done_reason: 'stop',
          // Ollama reports no count of prompt tokens from its cache: unknown, not 0.
          tokens: { prompt: expect.any(Number), cached: null, output: expect.any(Number) },
          text_cut: null,
          cached: false,
          error: null,
        });
      }
    }
    expect(stableStderr(r.stderr)).toMatch(
      new RegExp(String.raw`^rca-generate: 3 records: views ${3 * V} ok, 0 flagged, 0 failed; ${3 * V} attempts, 0 transport retries; tokens [\d,]+ in \/ [\d,]+ out\nrca-generate: grounding: ${groundingOf(out).items} items: exact [\d.]+%, normalised [\d.]+%, partial [\d.]+%, none 0\.0%; novel entities 0 of \d+\n$`),
    );
    expect(r.stderr).toMatch(/rca-generate: wall time [\d.]+ s, [\d.]+ records\/s\n/);
  });

  it('sends the view schema as format, temperature 0, the seed, num_predict, num_ctx and keep_alive', async () => {
    const { server } = await serve();
    const input = await taggedLines(1);
    const r = await run('generate', server, input, ['--seed', '7', '--max-output-tokens', '300', '--num-ctx', '4096', '--keep-alive', '1h', '--model', 'mistral']);
    expect(r.code).toBe(0);
    const tagged = parseLines(input)[0]!;
    // The preflight loads the model first: a chat without messages, on its own deadline.
    expect(server.requests).toContainEqual({ model: 'mistral', messages: [], keep_alive: '1h', options: { num_ctx: 4096 }, stream: false });
    const chats = server.requests.filter((b) => Array.isArray(b.messages) && b.messages.length > 0);
    expect(chats).toHaveLength(V);
    for (const view of VIEWS) {
      // The compact format holds the content fields only: a view is told by its own first one.
      const body = chats.find((b) => Object.keys(b.format.properties)[0] === Object.keys(formatOf(view).properties as object)[0]);
      expect(body).toEqual({
        model: 'mistral',
        messages: [{ role: 'user', content: buildPrompt(tagged.context, tagged.ner_seed, tagged.text, view).prompt }],
        format: formatOf(view),
        options: { temperature: 0, seed: 7, num_predict: 300, num_ctx: 4096 },
        keep_alive: '1h',
        think: false,
        truncate: false,
        stream: true,
      });
    }
  });

  it('reads host, model and num_ctx from the environment when no flag is given', async () => {
    const { server } = await serve({}, { models: [{ name: 'qwen2.5:7b', digest: 'q' }] });
    const r = await runInProcess(STAGES.generate, [await taggedLines(1)], ['--views', 'rca_frame', '--no-cache'], {
      env: { OLLAMA_HOST: server.url, OLLAMA_BASE_URL: 'http://127.0.0.1:9', OLLAMA_MODEL: 'qwen2.5:7b', OLLAMA_NUM_CTX: '2048' },
    });
    expect(r.code).toBe(0);
    expect(parseLines(r.stdout)[0]!.generation.rca_frame).toMatchObject({ model: 'qwen2.5:7b', model_digest: 'q', options: { ...OPTIONS, num_ctx: 2048 } });
  });

  it.each([1, 3, 8])('keeps input order under random latencies at --concurrency %i', async (concurrency) => {
    // Deterministic pseudo-random delays per (chunk, view).
    const script: Script = {};
    for (let i = 0; i < 30; i++) {
      for (const view of ['retrieval_summary', 'rca_frame']) script[key(i, view)] = [{ delayMs: (i * 37 + view.length * 11) % 60 }];
    }
    const { server } = await serve(script, { slots: 8 });
    const r = await run('generate', server, await taggedLines(30), ['--concurrency', String(concurrency)]);
    expect(r.code).toBe(0);
    const out = parseLines(r.stdout);
    expect(out.map((rec) => rec.chunk_id)).toEqual(Array.from({ length: 30 }, (_, i) => chunk(i).chunk_id));
    for (const rec of out) expect(rec.retrieval_summary.scope).toContain(`Chunk ${rec.chunk_id as string}:`);
    expect(server.stats.maxInFlight).toBeLessThanOrEqual(concurrency);
    if (concurrency > 1) expect(server.stats.maxInFlight).toBeGreaterThan(1);
  });
});

interface FaultCase {
  steps: Step[];
  args?: string[];
  status: 'ok' | 'failed' | 'flagged';
  attempts: number;
  requests: number;
  error?: string;
  feedback?: string;
  exit: number;
}

describe('fault paths (one view of the first record; the other record is untouched)', () => {
  const cases: Record<string, FaultCase> = {
    'server busy (503), then a reply': { steps: ['busy503'], status: 'ok', attempts: 1, requests: 2, exit: 0 },
    'runner crashed (500), then a reply': { steps: ['error500'], status: 'ok', attempts: 1, requests: 2, exit: 0 },
    'connection reset before the reply': { steps: ['reset'], status: 'ok', attempts: 1, requests: 2, exit: 0 },
    'connection reset mid-stream': { steps: [{ fault: 'reset' }], status: 'ok', attempts: 1, requests: 2, exit: 0 },
    'error object mid-stream': { steps: ['midStreamError'], status: 'ok', attempts: 1, requests: 2, exit: 0 },
    'rate limited (429) with Retry-After': {
      steps: [{ fault: { status: 429, body: '{"error":"slow down"}', headers: { 'retry-after': '0' } } }],
      status: 'ok',
      attempts: 1,
      requests: 2,
      exit: 0,
    },
    'no headers before --timeout, then a reply': { steps: [{ fault: 'slowHeaders', delayMs: 2000 }], args: ['--timeout', '0.3'], status: 'ok', attempts: 1, requests: 2, exit: 0 },
    'stalled body past --timeout, then a reply': { steps: [{ fault: 'slowBody', delayMs: 2000 }], args: ['--timeout', '0.3'], status: 'ok', attempts: 1, requests: 2, exit: 0 },
    'bad request (400) is not retried': { steps: ['error400'], status: 'failed', attempts: 1, requests: 1, error: 'HTTP_400', exit: 1 },
    // One request at a time, so the other view is answered while this one fails: a fault of this
    // request, not an outage (see the outage tests below).
    'transport retries run out while the server answers others': { steps: ['error500', 'error500', 'error500'], args: ['--max-transport-retries', '2', '--concurrency', '1'], status: 'failed', attempts: 1, requests: 3, error: 'HTTP_5XX', exit: 1 },
    'prose, then JSON': { steps: ['not-json'], status: 'ok', attempts: 2, requests: 2, feedback: 'no JSON object found in reply "Sure! Here is the summary you asked for."', exit: 0 },
    'an array, then an object': { steps: ['array'], status: 'ok', attempts: 2, requests: 2, feedback: 'reply is JSON an array, not an object', exit: 0 },
    'a quality flag, then a clean view': { steps: ['short-scope'], status: 'ok', attempts: 2, requests: 2, feedback: 'scope must say what the chunk covers in at least 15 characters', exit: 0 },
    'a missing key, then a whole view': { steps: ['missing-key'], status: 'ok', attempts: 2, requests: 2, feedback: 'key "scope" is missing', exit: 0 },
    'cut at the token limit, then whole': { steps: ['length'], status: 'ok', attempts: 2, requests: 2, feedback: 'cut off at the output token limit', exit: 0 },
    'a busy server between two bad replies': { steps: ['not-json', 'busy503', 'short-scope'], status: 'ok', attempts: 3, requests: 4, exit: 0 },
    'prose every time': { steps: ['not-json', 'not-json', 'not-json'], status: 'failed', attempts: 3, requests: 3, error: 'REPLY_NOT_JSON', exit: 1 },
    'a missing key every time': { steps: ['missing-key', 'missing-key', 'missing-key'], status: 'failed', attempts: 3, requests: 3, error: 'REPLY_INVALID', exit: 1 },
    'cut every time': { steps: ['length', 'length', 'length'], status: 'failed', attempts: 3, requests: 3, error: 'REPLY_CUT', exit: 1 },
    // A view kept with flags is a processed record with a warning (exit 0); --fail-on-flags makes it 1.
    'flagged every time: kept with its flags': { steps: ['short-scope', 'short-scope', 'short-scope'], status: 'flagged', attempts: 3, requests: 3, exit: 0 },
    'flagged every time with --flags-ok (the default, spelled out)': { steps: ['short-scope', 'short-scope', 'short-scope'], args: ['--flags-ok'], status: 'flagged', attempts: 3, requests: 3, exit: 0 },
    'flagged every time with --fail-on-flags': { steps: ['short-scope', 'short-scope', 'short-scope'], args: ['--fail-on-flags'], status: 'flagged', attempts: 3, requests: 3, exit: 1 },
    '--max-tries 1 takes the first reply': { steps: ['not-json'], args: ['--max-tries', '1'], status: 'failed', attempts: 1, requests: 1, error: 'REPLY_NOT_JSON', exit: 1 },
  };

  it.each(Object.entries(cases))('%s', async (_name, c) => {
    const { server, model } = await serve({ [key(0)]: c.steps });
    const r = await run('generate', server, await taggedLines(2), c.args ?? []);
    expect(r.code).toBe(c.exit);
    const [first, second] = parseLines(r.stdout);
    const entry = first!.generation.retrieval_summary;
    expect(model.counts.get(key(0))).toBe(c.requests);
    expect(entry.attempts).toBe(c.attempts);
    if (c.status === 'failed') {
      expect(first!.retrieval_summary).toBeNull();
      expect(first!.flags).toEqual(noFlags(besides('retrieval_summary')));
      expect(entry.error).toMatchObject({ code: c.error, attempts: c.attempts });
      expect(r.stderr).toContain(`rca-generate: stdin:1: retrieval_summary: failed after ${c.attempts} attempt`);
    } else {
      expect(first!.retrieval_summary).toMatchObject({ chunk_id: chunk(0).chunk_id, view_type: 'retrieval_summary' });
      expect(entry.error).toBeNull();
      expect(first!.flags.retrieval_summary).toEqual(c.status === 'ok' ? [] : ['scope_too_short']);
      // Flagged or not, the view is named on stderr only when it carries flags.
      if (c.status === 'flagged') expect(r.stderr).toContain('rca-generate: stdin:1: retrieval_summary: scope_too_short');
    }
    if (c.feedback) {
      const retry = model.seen.filter((p) => `${p.chunkId} ${p.view}` === key(0))[1]!;
      expect(retry.feedback).toContain(c.feedback);
    }
    // The rest of the run is unaffected.
    expect(first!.generation.rca_frame.attempts).toBe(1);
    expect(second!.flags).toEqual(noFlags());
  });

  it('the third attempt cuts the chunk text at a sentence boundary to --truncate-chars', async () => {
    const { server, model } = await serve({ [key(0)]: ['not-json', 'not-json', 'good'] });
    const r = await run('generate', server, await taggedLines(1), ['--truncate-chars', '120']);
    expect(r.code).toBe(0);
    const texts = model.seen.filter((p) => `${p.chunkId} ${p.view}` === key(0)).map((p) => p.text.trim());
    const whole = chunk(0).text as string;
    expect(texts[0]).toBe(whole);
    expect(texts[1]).toBe(whole);
    expect(whole.startsWith(texts[2]!)).toBe(true);
    expect(texts[2]!.length).toBeLessThanOrEqual(120);
    expect(texts[2]!.endsWith('.')).toBe(true);
    const entry = parseLines(r.stdout)[0]!.generation.retrieval_summary;
    expect(entry.text_cut).toEqual({ text_chars: whole.length, kept_chars: texts[2]!.length, cut_at: 'sentence' });
  });

  it('a busy server (503) narrows the requests in flight; every record still comes back', async () => {
    const { server } = await serve({}, { slots: 1, maxQueue: 0, latencyMs: 10 });
    const r = await run('generate', server, await taggedLines(12), ['--concurrency', '4', '--max-transport-retries', '20']);
    expect(r.code).toBe(0);
    expect(parseLines(r.stdout)).toHaveLength(12);
    expect(server.stats.faults.busy503).toBeGreaterThan(0);
    expect(r.stderr).toMatch(new RegExp(`views ${12 * V} ok, 0 flagged, 0 failed; ${12 * V} attempts, [1-9][\\d,]* transport retr`));
  });
});

describe('preflight and fatal errors', () => {
  it('exits 3 when the server cannot be reached, after saying at once what it waits for and until when', async () => {
    const gone = await startFakeOllama();
    await gone.close();
    const r = await run('generate', gone.url, await taggedLines(1), ['--give-up-after', '0.3', '--retry-delay', '20']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    const refused = `cannot reach Ollama at ${gone.url} — is it running? (or use --backend extractive)`;
    expect(r.stderr).toBe(
      `rca-generate: waiting for Ollama at ${gone.url} to start for up to 0.3 s (--give-up-after SECONDS), trying again with backoff (random waits of up to 0.02 s, doubling to 2 s); Ctrl-C stops. Now: ${refused}\n` +
        `rca-generate: ${refused} (no answer within --give-up-after 0.3 s; a larger value waits longer)\n`,
    );
  });

  it('exits 3 when the model is not pulled', async () => {
    const { server } = await serve();
    const r = await run('summarize', server, await taggedLines(1), ['--model', 'llama3:8b']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('rca-summarize: model "llama3:8b" not found — run: ollama pull llama3:8b\n');
    expect(server.stats.generations).toBe(0);
  });

  it('records the digest the server reports for the model', async () => {
    const { server } = await serve({}, { models: [{ name: 'qwen2.5:7b', digest: 'abc123' }] });
    const r = await run('generate', server, await taggedLines(1), ['--model', 'qwen2.5:7b', '--views', 'rca_frame']);
    expect(r.code).toBe(0);
    const rec = parseLines(r.stdout)[0]!;
    expect(rec.generation).toEqual({ rca_frame: expect.objectContaining({ model: 'qwen2.5:7b', model_digest: 'abc123' }) });
    expect(rec).not.toHaveProperty('retrieval_summary');
  });

  it('exits 3 at the preflight for a model that cannot chat (no completion capability), sending no view', async () => {
    const { server } = await serve({}, { models: [{ name: 'nomic-embed-text:latest', digest: 'e'.repeat(64), capabilities: ['embedding'] }] });
    const r = await run('generate', server, await taggedLines(3), ['--model', 'nomic-embed-text']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`rca-generate: model "nomic-embed-text" at Ollama at ${server.url} cannot chat (its capabilities: embedding) — is it an embedding model?\n`);
    expect(server.stats.generations).toBe(0);
  });

  it('warns when --num-ctx is more than the model\'s context length (model_info)', async () => {
    const { server } = await serve({}, { models: [{ name: 'small:latest', digest: 's'.repeat(64), contextLength: 2048 }] });
    const r = await run('generate', server, await taggedLines(1), ['--model', 'small', '--num-ctx', '4096', '--views', 'rca_frame']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^rca-generate: stdin:1: --num-ctx 4096 is more than the context length of small \(2048 tokens\): the server runs it at 2048\n/);
  });

  it('loads the model first on --load-timeout, not on the first request\'s --timeout', async () => {
    const { server } = await serve({}, { loadMs: 600 });
    const r = await run('generate', server, await taggedLines(1), ['--timeout', '0.3', '--views', 'rca_frame']);
    expect(r.code).toBe(0);
    expect(server.stats.loads).toBe(1);
    expect(parseLines(r.stdout)[0]!.generation.rca_frame.error).toBeNull();
  });

  it('a load that outlasts --load-timeout is exit 3, saying so', async () => {
    const { server } = await serve({}, { loadMs: 5_000 });
    const r = await run('generate', server, await taggedLines(1), ['--load-timeout', '0.2']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`rca-generate: Ollama at ${server.url} did not load model "mistral:latest" within 0.2 s (--load-timeout)\n`);
    expect(server.stats.generations).toBe(0);
  });

  it('a name in another case still finds the digest (Mistral is mistral:latest)', async () => {
    const { server } = await serve();
    const r = await run('generate', server, await taggedLines(1), ['--model', 'Mistral', '--views', 'rca_frame']);
    expect(r.code).toBe(0);
    expect(parseLines(r.stdout)[0]!.generation.rca_frame.model_digest).toBe(DEFAULT_MODELS[0]!.digest);
  });

  it('a prompt estimated not to fit --num-ctx minus --max-output-tokens is sent with its chunk text cut, recorded and said', async () => {
    const { server } = await serve();
    const tagged = parseLines(await taggedLines(1))[0]!;
    tagged.text = `${tagged.text} `.repeat(60);
    const r = await run('generate', server, JSON.stringify(tagged) + '\n', ['--num-ctx', '2048', '--max-output-tokens', '300', '--views', 'rca_frame']);
    expect(r.code).toBe(0);
    const g = parseLines(r.stdout)[0]!.generation.rca_frame;
    expect(g).toMatchObject({ error: null, attempts: 1 });
    expect(g.text_cut.text_chars).toBe(tagged.text.length);
    expect(g.text_cut.kept_chars).toBeLessThan(tagged.text.length);
    const sent = server.requests.find((b) => Array.isArray(b.messages) && b.messages.length > 0)!;
    expect(Math.ceil(sent.messages[0].content.length / 2.5)).toBeLessThanOrEqual(2048 - 300);
    expect(r.stderr).toMatch(/rca-generate: stdin:1: rca_frame: prompt of about \d+ tokens does not fit --num-ctx minus --max-output-tokens \(1748\): chunk text cut to \d+ characters\n/);
  });

  it('stops with exit 3 when the model disappears mid-run, keeping what was done', async () => {
    const { server } = await serve({ [key(3)]: ['model404'] });
    const r = await run('generate', server, await taggedLines(8), ['--concurrency', '1', '--window', '1']);
    expect(r.code).toBe(3);
    expect(parseLines(r.stdout).map((rec) => rec.chunk_id)).toEqual([0, 1, 2].map((i) => chunk(i).chunk_id));
    expect(r.stderr).toContain('rca-generate: stdin:4: fatal: model "mistral:latest" not found — run: ollama pull mistral:latest; stopped after 3 records, all written in input order\n');
  });

  it('gives up when every request has failed for --give-up-after, writing the records before it in order', async () => {
    const failing: Script = {};
    for (let i = 5; i < 40; i++) for (const view of VIEWS) failing[key(i, view)] = Array(1000).fill('error500');
    const { server } = await serve(failing);
    const r = await run('generate', server, await taggedLines(40), ['--give-up-after', '0.4', '--max-transport-retries', '2', '--retry-delay', '20', '--concurrency', '1']);
    expect(r.code).toBe(3);
    // It gave up instead of working through the 35 failing records: few of them were asked for.
    expect(server.stats.faults.error500).toBeLessThan(35 * V * 3);
    const out = parseLines(r.stdout);
    expect(out.map((rec) => rec.chunk_id)).toEqual([0, 1, 2, 3, 4].map((i) => chunk(i).chunk_id));
    expect(r.stderr).toMatch(
      /rca-generate: stdin:6: fatal: Ollama at http:\/\/127\.0\.0\.1:\d+ has failed every request for 0\.\d s \(last: HTTP_5XX: .*llama runner process has terminated.*\); stopped after 5 records, all written in input order\n/,
    );
    expect(r.stderr).toMatch(/\d+ unfinished records were not written; the output holds every record before stdin:6 \(resume from that line\)/);
    expect(r.stderr).not.toContain('retrieval_summary: failed');
  });
});

describe('an outage', () => {
  it('does not fail views while the server answers nobody; they go on once it is back', async () => {
    const model = scriptedModel();
    // Down for its first 8 chat requests (counted, not timed: a loaded machine tags slowly).
    let failures = 0;
    const server = await startFakeOllama({ respond: (req) => (failures < 8 ? (failures++, { fault: 'error500' }) : model.respond(req)) });
    try {
      const r = await run('generate', server, await taggedLines(6), ['--max-transport-retries', '1', '--retry-delay', '20', '--give-up-after', '30']);
      expect(r.code).toBe(0);
      expect(parseLines(r.stdout).map((rec) => VIEWS.map((view) => rec[view] === null))).toEqual(Array(6).fill(VIEWS.map(() => false)));
      expect(server.stats.faults.error500).toBeGreaterThan(2);
      expect(r.stderr).toMatch(new RegExp(`views ${6 * V} ok, 0 flagged, 0 failed; ${6 * V} attempts, [1-9][\\d,]* transport retr`));
    } finally {
      await server.close();
    }
  });

  it('with --give-up-after 0, never stops: a view fails after its transport retries', async () => {
    const { server } = await serve({ '*': Array(50).fill('error500') });
    const r = await run('generate', server, await taggedLines(2), ['--max-transport-retries', '2', '--give-up-after', '0']);
    expect(r.code).toBe(1);
    const out = parseLines(r.stdout);
    expect(out.flatMap((rec) => Object.values(rec.generation).map((g: any) => g.error.code))).toEqual(Array(2 * V).fill('HTTP_5XX'));
  });
});

describe('interrupt', () => {
  it('on SIGINT cancels the requests in flight and writes exactly the records before the first unfinished one', async () => {
    const slow: Script = {};
    for (let i = 4; i < 30; i++) for (const view of VIEWS) slow[key(i, view)] = [{ delayMs: 5_000 }];
    const { server } = await serve(slow, { slots: 4 });
    const signals = new EventEmitter();
    // Interrupt once the first four records (the fast ones) are answered.
    const timer = setInterval(() => {
      if (server.stats.generations >= 4 * V + 4) {
        clearInterval(timer);
        signals.emit('SIGINT');
      }
    }, 5);
    const r = await run('generate', server, await taggedLines(30), ['--concurrency', '4'], { signals });
    clearInterval(timer);
    expect(r.code).toBe(130);
    // The slow requests were cut off, not waited out: only the four fast records' replies were sent.
    expect(server.stats.replies).toBe(4 * V);
    const out = parseLines(r.stdout);
    expect(out.map((rec) => rec.chunk_id)).toEqual([0, 1, 2, 3].map((i) => chunk(i).chunk_id));
    for (const rec of out) expect(Object.values(rec.generation).map((g: any) => g.error)).toEqual(VIEWS.map(() => null));
    expect(r.stdout).not.toContain('ABORTED');
    expect(r.stderr).toMatch(/not written; the output holds every record before stdin:5 \(resume from that line\)\n/);
    expect(r.stderr).toContain('rca-generate: interrupted after');
  });
});

describe('resume: records already done pass through', () => {
  it('passes a record whose views are present and valid through byte for byte, and asks nothing', async () => {
    const first = await serve();
    const done = (await run('generate', first.server, await taggedLines(3))).stdout;
    const { server } = await serve();
    const r = await run('generate', server, done);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(done);
    expect(server.stats.generations).toBe(0);
    expect(r.stderr).toContain('3 records (3 already done, passed through): views 0 ok');
  });

  it('retries only the view that failed, leaving the other and its entries untouched', async () => {
    const first = await serve({ [key(1)]: ['error400'] });
    const failed = await run('generate', first.server, await taggedLines(3));
    expect(failed.code).toBe(1);
    const before = parseLines(failed.stdout);
    expect(before[1]!.retrieval_summary).toBeNull();

    const { server, model } = await serve();
    const r = await run('generate', server, failed.stdout);
    expect(r.code).toBe(0);
    expect([...model.counts.keys()]).toEqual([key(1)]);
    const after = parseLines(r.stdout);
    expect(after[0]).toEqual(before[0]);
    expect(after[1]!.rca_frame).toEqual(before[1]!.rca_frame);
    expect(after[1]!.generation.rca_frame).toEqual(before[1]!.generation.rca_frame);
    expect(after[1]!.retrieval_summary).toMatchObject({ chunk_id: chunk(1).chunk_id });
    expect(after[1]!.generation.retrieval_summary.error).toBeNull();
    expect(after[1]!.flags).toEqual(noFlags());
    expect(Object.keys(after[1]!)).toEqual(Object.keys(before[1]!));
  });

  it('regenerates everything with --overwrite', async () => {
    const first = await serve();
    const done = (await run('generate', first.server, await taggedLines(2))).stdout;
    const { server } = await serve();
    const r = await run('generate', server, done, ['--overwrite']);
    expect(r.code).toBe(0);
    expect(server.stats.generations).toBe(2 * V);
    expect(r.stdout).toBe(done);
  });

  it.each([
    ['a view that breaks its contract', (rec: any) => ({ ...rec, rca_frame: { ...rec.rca_frame, observed: 'not a list' } }), ['rca_frame']],
    ['a view that is not an object', (rec: any) => ({ ...rec, retrieval_summary: 'text' }), ['retrieval_summary']],
    ['a missing view', (rec: any) => ({ ...rec, rca_frame: undefined }), ['rca_frame']],
  ])('regenerates %s', async (_name, change, views) => {
    const first = await serve();
    const done = parseLines((await run('generate', first.server, await taggedLines(1))).stdout)[0]!;
    const { model, server } = await serve();
    const r = await run('generate', server, JSON.stringify(change(done)) + '\n');
    expect(r.code).toBe(0);
    expect([...model.counts.keys()]).toEqual(views.map((v) => key(0, v)));
  });
});

describe('records that cannot be generated', () => {
  it.each([
    ['untagged', { chunk_id: 'c', text: 'x' }, 'NOT_TAGGED: record has no context (run rca-tag first)'],
    ['no text', { context: 'use-tagged', ner_seed: 'use-tagged', text: '   ' }, 'NO_TEXT: record has no chunk text to prompt with'],
    ['a bad context', { context: { doc_id: 1 }, ner_seed: {} }, 'BAD_CONTEXT: context.doc_type: missing'],
  ])('rejects a record that is %s and goes on', async (_name, record, message) => {
    const { server } = await serve();
    const tagged = parseLines(await taggedLines(1))[0]!;
    const bad = Object.fromEntries(Object.entries(record).map(([k, v]) => [k, v === 'use-tagged' ? tagged[k] : v]));
    const r = await run('generate', server, `${JSON.stringify(bad)}\n${JSON.stringify(tagged)}\n`);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`rca-generate: stdin:1: ${message}`);
    expect(parseLines(r.stdout).map((rec) => rec.chunk_id)).toEqual([tagged.chunk_id]);
  });
});

describe('summarize', () => {
  it('adds the embedding text of both views to each record', async () => {
    const { server } = await serve({ [key(1, 'rca_frame')]: ['error400'] });
    const r = await run('summarize', server, await taggedLines(2), ['--combined']);
    expect(r.code).toBe(1);
    const [a, b] = parseLines(r.stdout);
    expect(a!.embedding_text.retrieval_summary).toMatch(/^SCOPE: Chunk chunk:cr0:sec0: Pump P-100A/);
    expect(a!.embedding_text.rca_frame).toMatch(/^OBSERVED: Pump P-100A/);
    expect(a!.embedding_text.combined).toMatch(/^SECTION: Condition Report > Description 0\nSCOPE: /);
    expect(b!.rca_frame).toBeNull();
    expect(b!.embedding_text.rca_frame).toBe('');
    expect(Object.keys(a!).slice(-6)).toEqual([VIEWS.at(-1), 'flags', 'provenance_fixed', 'evidence', 'generation', 'embedding_text']);
  });

  it('gives the same views as generate', async () => {
    const { server } = await serve();
    const input = await taggedLines(3);
    const generated = parseLines((await run('generate', server, input)).stdout);
    const summarized = parseLines((await run('summarize', server, input)).stdout);
    expect(summarized.map(({ embedding_text: _e, ...rest }) => rest)).toEqual(generated);
  });
});

describe('--dry-run', () => {
  it('renders each request as it would be sent, calls nothing, and needs no server', async () => {
    const input = await taggedLines(2);
    const r = await run('summarize', 'http://127.0.0.1:9', input, ['--dry-run', '--views', 'rca_frame', '--max-chars', '50']);
    expect(r.code).toBe(0);
    const tagged = parseLines(input);
    const out = parseLines(r.stdout);
    out.forEach((rec, i) => {
      const t = tagged[i]!;
      const built = buildPrompt(t.context, t.ner_seed, t.text, 'rca_frame', { maxChars: 50 });
      expect(rec).toEqual({
        ...t,
        requests: {
          rca_frame: {
            host: 'http://127.0.0.1:9',
            endpoint: '/api/chat',
            model: 'mistral:latest',
            // What the request is for, as its X-Request-Id header says it.
            request_id: `${t.chunk_id} rca_frame`,
            options: OPTIONS,
            keep_alive: '30m',
            think: false,
            truncate: false,
            timeout_ms: 120_000,
            format: formatOf('rca_frame'),
            prompt: built.prompt,
            text_cut: built.truncated,
          },
        },
      });
    });
    expect(r.stderr).toBe('rca-summarize: dry run: 2 requests rendered for 2 records; no model was called\n');
  });
});

describe('the processor hooks the runner reads', () => {
  it('exposes stats for --stats FILE and a progress text', async () => {
    const script: Script = { [key(1)]: ['busy503', 'not-json'], [key(2, 'rca_frame')]: ['error400'] };
    const { server } = await serve(script);
    const args = parseStageArgs(GENERATE_OPTIONS, ['--host', server.url, '--retry-delay', '1', '--no-cache']).values as GenerateOptionValues;
    const generator = await createGenerator(resolveConfig(args, {}));
    expect(generator.progress()).toBe('views 0 ok; 0 in flight; 0 retries');
    const lines = (await taggedLines(3)).trim().split('\n');
    const outcomes = await Promise.all(lines.map((raw, i) => generator.process(JSON.parse(raw), { source: 'stdin', line: i + 1, raw })));
    expect(outcomes.map((o) => o.failed ?? false)).toEqual([false, false, true]);
    expect(generator.stats()).toEqual({
      backend: 'ollama',
      model: 'mistral:latest',
      model_digest: DIGEST,
      options: OPTIONS,
      host: server.url,
      concurrency: 2,
      window: 16,
      busy_slowdowns: 1,
      dry_run: false,
      cache: null,
      records: 3,
      records_passed_through: 0,
      records_not_written: 0,
      views: { ok: 3 * V - 1, flagged: 0, failed: 1, already_present: 0, cached: 0, failed_by_code: { HTTP_400: 1 } },
      attempts: 3 * V + 1,
      transport_retries: 1,
      tokens: { prompt: expect.any(Number), cached: null, output: expect.any(Number) },
      requests_rendered: 0,
      // The views written, as the records the stage writes for the same replies hold them.
      grounding: groundingOf(parseLines((await run('generate', (await serve(script)).server, lines.join('\n') + '\n')).stdout)).toJson(),
    });
    // Every item of the fake's replies is found in its chunk.
    expect(generator.stats().grounding).toMatchObject({ views: 3 * V - 1, none: 0, novel_entities: 0 });
    expect(generator.progress()).toBe(`views ${3 * V - 1} ok, 1 failed; 0 in flight; 1 retry`);
  });
});
