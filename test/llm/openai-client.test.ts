import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelError, type GenerateReply, type GenerateRequest, type ModelErrorCode } from '../../src/llm/model-client.js';
import { createOpenAiClient } from '../../src/llm/openai-client.js';
import { SseLineReader } from '../../src/llm/openai-reply.js';
import { chatCompletionBody, resolveBaseUrl, schemaName } from '../../src/llm/openai-request.js';
import { DEFAULT_THINKING, type FakeReply } from '../support/fake-ollama.js';
import { startFakeOpenAi, type FakeOpenAi, type FakeOpenAiOptions } from '../support/fake-openai.js';

const MODEL = 'mistral:latest';
// Distinctive enough that any occurrence in an error can only be a leak.
const KEY = 'sk-test-DISTINCTIVE-7f3a9c2e5b1d';
const FORMAT = {
  type: 'object',
  properties: { summary: { type: 'string' }, steps: { type: 'array', items: { type: 'string' } }, count: { type: 'integer' } },
  required: ['summary', 'steps', 'count'],
};
const SHAPED = '{"summary":"","steps":[],"count":0}';

function request(overrides: Partial<GenerateRequest> = {}): GenerateRequest {
  return {
    model: MODEL,
    prompt: 'Extract the facts.',
    format: FORMAT,
    options: { temperature: 0, seed: 42, num_predict: 512, num_ctx: 8192 },
    keepAlive: '30m',
    timeoutMs: 5_000,
    think: false,
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelError);
  return err as ModelError;
}

function expectNoKey(err: ModelError): void {
  for (const text of [err.message, String(err), err.stack ?? '', JSON.stringify(err)]) expect(text).not.toContain(KEY);
}

const servers: FakeOpenAi[] = [];
async function fake(respond?: () => FakeReply, extra: Omit<FakeOpenAiOptions, 'respond'> = {}): Promise<FakeOpenAi> {
  const server = await startFakeOpenAi({ apiKey: KEY, ...(respond ? { respond } : {}), ...extra });
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('generate against the fake server', () => {
  it('names what the request is for in its X-Request-Id header (vLLM takes it as its request id)', async () => {
    const seen: (string | undefined)[] = [];
    const scripted = await startFakeOpenAi({ apiKey: KEY, respond: (req) => (seen.push(req.requestId), { content: SHAPED }) });
    servers.push(scripted);
    const client = createOpenAiClient({ baseUrl: scripted.url, apiKey: KEY });
    await client.generate(request({ requestId: 'Pompe Ä rca_frame' }));
    await client.generate(request());
    expect(seen).toEqual(['Pompe Ä rca_frame', undefined]);
  });

  it('sends a streamed chat completion with the schema, options and key, and accumulates the reply', async () => {
    const server = await fake();
    const reply = await createOpenAiClient({ baseUrl: server.url, apiKey: KEY }).generate(request());
    // The fake says nothing of its prompt cache by default (vLLM without --enable-prompt-tokens-details): unknown.
    expect(reply).toEqual({ content: SHAPED, doneReason: 'stop', promptTokens: 5, cachedTokens: null, outputTokens: Math.ceil(SHAPED.length / 8), thinkingChars: 0 });
    expect(server.requests[0]).toEqual({
      model: MODEL,
      messages: [{ role: 'user', content: 'Extract the facts.' }],
      response_format: { type: 'json_schema', json_schema: { name: 'reply', schema: FORMAT, strict: true } },
      temperature: 0,
      seed: 42,
      max_tokens: 512,
      stream: true,
      stream_options: { include_usage: true },
      chat_template_kwargs: { enable_thinking: false },
    });
    expect(server.authorizations).toEqual([`Bearer ${KEY}`]);
  });

  it.each<[string, string | null, (string | null)[]]>([
    ['a key goes in the Authorization header', KEY, [`Bearer ${KEY}`, `Bearer ${KEY}`]],
    ['no key sends no header', null, [null, null]],
    ['an empty key counts as none', '', [null, null]],
  ])('%s', async (_name, apiKey, expected) => {
    const server = await fake(undefined, { apiKey: apiKey || null });
    const client = createOpenAiClient({ baseUrl: server.url, apiKey });
    await client.preflight(MODEL);
    await client.generate(request());
    expect(server.authorizations).toEqual(expected);
  });

  it.each<[string, FakeReply, Partial<GenerateReply>]>([
    ['scripted content', { content: 'Sure! ```json\n{"a":1}\n```' }, { content: 'Sure! ```json\n{"a":1}\n```', doneReason: 'stop' }],
    ['missing usage gives null counts', { fault: 'missingMetrics', content: '{"a":1}' }, { content: '{"a":1}', doneReason: 'stop', promptTokens: null, outputTokens: null }],
    ['length keeps the cut content', { fault: 'length', content: '{"summary":"cut' }, { content: '{"summary":"cut', doneReason: 'length' }],
    ['default length cut', { fault: 'length' }, { content: SHAPED.slice(0, Math.floor(SHAPED.length / 2)), doneReason: 'length' }],
    ['a slow body within the deadline', { fault: 'slowBody', delayMs: 30 }, { content: SHAPED, doneReason: 'stop' }],
    ['an empty reply', { content: '' }, { content: '', doneReason: 'stop' }],
    [
      'a server that ignores stream:true and sends one completion',
      { fault: { status: 200, body: JSON.stringify({ object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: '{"a":1}' }, finish_reason: 'length' }], usage: { prompt_tokens: 7, completion_tokens: 3 } }) } },
      { content: '{"a":1}', doneReason: 'length', promptTokens: 7, outputTokens: 3 },
    ],
    [
      'a stream with CRLF lines, comments and no [DONE] after the finish',
      { fault: { status: 200, body: ': keep-alive\r\n\r\ndata: {"choices":[{"delta":{"content":"ab"}}]}\r\n\r\ndata: {"choices":[{"delta":{"content":"c"},"finish_reason":"stop"}]}\r\n\r\n' } },
      { content: 'abc', doneReason: 'stop', promptTokens: null, outputTokens: null },
    ],
  ])('%s', async (_name, scripted, expected) => {
    const server = await fake(() => scripted);
    const reply = await createOpenAiClient({ baseUrl: server.url, apiKey: KEY }).generate(request());
    expect(reply).toMatchObject(expected);
  });

  it.each([[''], ['/'], ['/v1'], ['/v1/'], ['//']])('base URL with suffix %j reaches /v1/chat/completions', async (suffix) => {
    const server = await fake();
    const client = createOpenAiClient({ baseUrl: `${server.url}${suffix}`, apiKey: KEY });
    expect(client.host).toBe(`${server.url}${suffix.startsWith('/v1') ? '/v1' : ''}`);
    await expect(client.generate(request())).resolves.toMatchObject({ content: SHAPED });
    expect(server.stats.byPath).toEqual({ '/v1/chat/completions': 1 });
  });
});

interface FaultCase {
  name: string;
  reply: FakeReply;
  code: ModelErrorCode;
  retryable: boolean;
  status?: number | null;
  retryAfterMs?: number | null;
  message?: RegExp;
  timeoutMs?: number;
  maxReplyChars?: number;
}

const FAULTS: FaultCase[] = [
  { name: 'busy 503', reply: { fault: 'busy503' }, code: 'SERVER_BUSY', retryable: true, status: 503, retryAfterMs: null, message: /busy \(503\): server busy/ },
  {
    name: 'busy 503 with Retry-After',
    reply: { fault: { status: 503, body: '{"error":"server busy"}', headers: { 'Retry-After': '3' } } },
    code: 'SERVER_BUSY',
    retryable: true,
    status: 503,
    retryAfterMs: 3_000,
  },
  {
    name: '429 with Retry-After',
    reply: { fault: { status: 429, body: '{"error":"too many requests"}', headers: { 'Retry-After': '2' } } },
    code: 'HTTP_429',
    retryable: true,
    status: 429,
    retryAfterMs: 2_000,
    message: /rate limiting \(429\): too many requests/,
  },
  { name: '500 runner crash', reply: { fault: 'error500' }, code: 'HTTP_5XX', retryable: true, status: 500, message: /llama runner process has terminated/ },
  { name: '502 plain text', reply: { fault: { status: 502, body: 'Bad Gateway\n<hr>nginx' } }, code: 'HTTP_5XX', retryable: true, status: 502, message: /^[^\n]*Bad Gateway <hr>nginx$/ },
  { name: '501 is permanent', reply: { fault: { status: 501, body: '{"error":"not implemented"}' } }, code: 'HTTP_5XX', retryable: false, status: 501 },
  { name: '400 bad request', reply: { fault: 'error400' }, code: 'HTTP_400', retryable: false, status: 400, message: /rejected the request \(400\): json: cannot unmarshal/ },
  { name: '422 validation (FastAPI detail)', reply: { fault: { status: 422, body: '{"detail":"max_tokens too large"}' } }, code: 'HTTP_400', retryable: false, status: 422, message: /max_tokens too large/ },
  {
    name: 'a key echoed in an error body is redacted',
    reply: { fault: { status: 400, body: JSON.stringify({ error: { message: `key ${KEY} is not valid for this model` } }) } },
    code: 'HTTP_400',
    retryable: false,
    status: 400,
    message: /key \[redacted\] is not valid/,
  },
  { name: '403 is an auth failure', reply: { fault: { status: 403, body: JSON.stringify({ error: { message: `forbidden for ${KEY}` } }) } }, code: 'AUTH', retryable: false, status: 403, message: /rejected the API key \(403\)/ },
  { name: '404 model from the engine', reply: { fault: 'model404' }, code: 'HTTP_404', retryable: false, status: 404, message: /^model "mistral:latest" not found at the OpenAI-compatible server/ },
  { name: 'reset before headers', reply: { fault: 'reset' }, code: 'CONNECTION_RESET', retryable: true, status: null },
  { name: 'reset mid-stream', reply: { fault: 'reset', content: '{"summary":"a long enough reply"}' }, code: 'CONNECTION_RESET', retryable: true },
  { name: 'error event mid-stream, then [DONE]', reply: { fault: 'midStreamError' }, code: 'STREAM_ERROR', retryable: true, message: /failed mid-reply: an error was encountered/ },
  { name: 'a named error event', reply: { fault: { status: 200, body: 'data: {"choices":[{"delta":{"content":"a"}}]}\n\nevent: error\ndata: {"message":"engine died"}\n\n' } }, code: 'STREAM_ERROR', retryable: true, message: /failed mid-reply: engine died$/ },
  { name: 'slow headers past the deadline', reply: { fault: 'slowHeaders', delayMs: 2_000 }, code: 'TIMEOUT', retryable: true, timeoutMs: 80, message: /within 80 ms/ },
  { name: 'slow body past the deadline', reply: { fault: 'slowBody', delayMs: 2_000 }, code: 'TIMEOUT', retryable: true, timeoutMs: 80 },
  { name: 'huge reply', reply: { fault: 'huge' }, code: 'REPLY_TOO_LARGE', retryable: false, maxReplyChars: 100_000, message: /exceeded 100000 characters/ },
  { name: 'huge reply at the default cap', reply: { fault: 'huge' }, code: 'REPLY_TOO_LARGE', retryable: false, message: /exceeded 1000000 characters/ },
  { name: '200 that is not an event stream', reply: { fault: { status: 200, body: '<html>hello</html>' } }, code: 'BAD_RESPONSE', retryable: false },
  { name: 'an event that is not JSON', reply: { fault: { status: 200, body: 'data: {"choices":\n\n' } }, code: 'BAD_RESPONSE', retryable: false, message: /not JSON/ },
  { name: 'stream cut before the finish', reply: { fault: { status: 200, body: 'data: {"choices":[{"delta":{"content":"a"}}]}\n\n' } }, code: 'REPLY_INCOMPLETE', retryable: false, message: /before it was done/ },
  { name: '200 with an error object', reply: { fault: { status: 200, body: '{"error":{"message":"quota"}}' } }, code: 'BAD_RESPONSE', retryable: false, message: /answered with an error: quota/ },
];

describe.each(FAULTS)('fault: $name', (fault) => {
  it(`is ${fault.code}, retryable=${fault.retryable}, and never shows the key`, async () => {
    const server = await fake(() => fault.reply);
    const host = server.url;
    const client = createOpenAiClient({ baseUrl: host, apiKey: KEY, ...(fault.maxReplyChars ? { maxReplyChars: fault.maxReplyChars } : {}) });
    const err = await failure(client.generate(request(fault.timeoutMs ? { timeoutMs: fault.timeoutMs } : {})));
    expect(err.code).toBe(fault.code);
    expect(err.retryable).toBe(fault.retryable);
    if (fault.status !== undefined) expect(err.status).toBe(fault.status);
    if (fault.retryAfterMs !== undefined) expect(err.retryAfterMs).toBe(fault.retryAfterMs);
    if (fault.message) expect(err.message).toMatch(fault.message);
    expect(err.message).not.toContain('\n');
    expect(err.message).toContain(host);
    expectNoKey(err);
  });
});

describe('authentication', () => {
  it.each<[string, string | null, RegExp]>([
    // The fake quotes the key it was given in full: the worst a client may meet.
    ['a wrong key', KEY, /rejected the API key \(401\) — check the variable named by --api-key-env$/],
    ['no key where one is needed', null, /requires an API key \(401\) — name the variable that holds it with --api-key-env$/],
  ])('%s is a fatal AUTH error that never shows the key', async (_name, clientKey, message) => {
    const server = await fake(undefined, { apiKey: 'sk-the-right-one' });
    const client = createOpenAiClient({ baseUrl: server.url, apiKey: clientKey });
    for (const call of [() => client.preflight(MODEL), () => client.generate(request())]) {
      const err = await failure(call());
      expect(err).toMatchObject({ code: 'AUTH', retryable: false, status: 401 });
      expect(err.message).toMatch(message);
      expect(err.message).toContain(server.url);
      expectNoKey(err);
    }
    expect(server.stats.faults).toEqual({ auth401: 2 });
  });
});

describe('cancellation', () => {
  it('caller abort mid-request is ABORTED and not retryable', async () => {
    const server = await fake(() => ({ fault: 'slowHeaders', delayMs: 5_000 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 40);
    const err = await failure(createOpenAiClient({ baseUrl: server.url, apiKey: KEY }).generate(request({ timeoutMs: 10_000 }), controller.signal));
    expect(err).toMatchObject({ code: 'ABORTED', retryable: false });
    // Ended before the server's reply, not after waiting it out (order, not the clock).
    expect(server.stats.replies).toBe(0);
  });

  it('caller abort mid-stream is ABORTED', async () => {
    const server = await fake(() => ({ fault: 'slowBody', delayMs: 5_000 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 40);
    const err = await failure(createOpenAiClient({ baseUrl: server.url, apiKey: KEY }).generate(request({ timeoutMs: 10_000 }), controller.signal));
    expect(err.code).toBe('ABORTED');
  });

  it('an already aborted signal sends nothing', async () => {
    const server = await fake();
    const client = createOpenAiClient({ baseUrl: server.url, apiKey: KEY });
    expect((await failure(client.generate(request(), AbortSignal.abort()))).code).toBe('ABORTED');
    expect((await failure(client.preflight(MODEL, AbortSignal.abort()))).code).toBe('ABORTED');
    expect(server.stats.requests).toBe(0);
  });

  it('many concurrent requests share one caller signal without listener warnings, and a hung-up huge reply frees its slot', async () => {
    let index = 0;
    const server = await fake(() => (index++ === 0 ? { fault: 'huge' } : { content: 'ok' }), { slots: 24, latencyMs: 100 });
    const client = createOpenAiClient({ baseUrl: server.url, apiKey: KEY, maxReplyChars: 10_000 });
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', onWarning);
    try {
      const run = new AbortController();
      const replies = await Promise.allSettled(Array.from({ length: 24 }, () => client.generate(request(), run.signal)));
      await new Promise((resolve) => setImmediate(resolve));
      expect(replies.filter((r) => r.status === 'fulfilled')).toHaveLength(23);
      expect(server.stats.maxInFlight).toBeGreaterThan(10);
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('unreachable server', () => {
  it.each([['preflight'], ['generate']])('%s against a closed port is UNREACHABLE with the exact message', async (call) => {
    const server = await startFakeOpenAi();
    const host = server.url;
    await server.close();
    const client = createOpenAiClient({ baseUrl: host, apiKey: KEY });
    const err = await failure(call === 'preflight' ? client.preflight(MODEL) : client.generate(request()));
    expect(err).toMatchObject({ code: 'UNREACHABLE', retryable: true, status: null });
    expect(err.message).toBe(`cannot reach the OpenAI-compatible server at ${host} — is it running?`);
  });

  it('a server that does not answer within the preflight deadline is UNREACHABLE', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const host = `http://127.0.0.1:${port}`;
    try {
      const err = await failure(createOpenAiClient({ baseUrl: host, preflightTimeoutMs: 50 }).preflight(MODEL));
      expect(err.code).toBe('UNREACHABLE');
      expect(err.message).toBe(`cannot reach the OpenAI-compatible server at ${host} — is it running?`);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('preflight', () => {
  const MODELS = [
    { name: 'mistral:latest', digest: 'aaa' },
    { name: 'Qwen/Qwen2.5-7B-Instruct', digest: 'bbb' },
  ];
  it.each<[string, string, string]>([
    ['exact name', 'mistral:latest', 'mistral:latest'],
    ['a name without tag resolves to :latest', 'mistral', 'mistral:latest'],
    ['a vLLM-style id', 'Qwen/Qwen2.5-7B-Instruct', 'Qwen/Qwen2.5-7B-Instruct'],
  ])('%s', async (_name, model, resolved) => {
    const server = await fake(undefined, { models: MODELS });
    // No digest: /v1/models carries none on any OpenAI-compatible server.
    await expect(createOpenAiClient({ baseUrl: server.url, apiKey: KEY }).preflight(model)).resolves.toEqual({ model: resolved, digest: null });
    expect(server.stats.byPath).toEqual({ '/v1/models': 1 });
  });

  it('a model the server does not list is HTTP_404 naming what it serves', async () => {
    const server = await fake(undefined, { models: MODELS });
    const err = await failure(createOpenAiClient({ baseUrl: server.url, apiKey: KEY }).preflight('llama3:8b'));
    expect(err).toMatchObject({ code: 'HTTP_404', retryable: false, status: 404 });
    expect(err.message).toBe(`model "llama3:8b" is not served by the OpenAI-compatible server at ${server.url} (it serves: mistral:latest, Qwen/Qwen2.5-7B-Instruct)`);
  });

  it('a generation for a model the server does not have is HTTP_404', async () => {
    const server = await fake();
    const err = await failure(createOpenAiClient({ baseUrl: server.url, apiKey: KEY }).generate(request({ model: 'llama3:8b' })));
    expect(err).toMatchObject({ code: 'HTTP_404', retryable: false });
    expect(err.message).toMatch(/^model "llama3:8b" not found at the OpenAI-compatible server at .* \(404\): The model `llama3:8b` does not exist\./);
  });

  it('a base URL with a wrong path is HTTP_404 asking about the URL', async () => {
    const server = await fake(undefined, { apiKey: null });
    const err = await failure(createOpenAiClient({ baseUrl: `${server.url}/api` }).preflight(MODEL));
    expect(err).toMatchObject({ code: 'HTTP_404', status: 404 });
    expect(err.message).toBe(`${server.url}/api has no ${server.url}/api/v1/models — is the base URL an OpenAI-compatible endpoint?`);
  });

  it.each<[string, number, string, ModelErrorCode, RegExp]>([
    ['a 200 without a model list', 200, '{"models":[]}', 'BAD_RESPONSE', /did not answer with a model list/],
    ['a 200 that is not JSON', 200, '<html>', 'BAD_RESPONSE', /did not answer with a model list/],
    ['a 500', 500, '{"error":{"message":"boom"}}', 'HTTP_5XX', /failed \(500\): boom/],
    ['a 401 quoting the key', 401, JSON.stringify({ error: { message: `bad key ${KEY}` } }), 'AUTH', /rejected the API key \(401\)/],
  ])('/v1/models answering %s is %s', async (_name, status, body, code, message) => {
    const server = createServer((_req, res) => {
      res.writeHead(status, { 'Content-Type': body.startsWith('{') ? 'application/json' : 'text/html' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const err = await failure(createOpenAiClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: KEY }).preflight(MODEL));
      expect(err.code).toBe(code);
      expect(err.message).toMatch(message);
      expectNoKey(err);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('request shape', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['no title', { type: 'object' }, 'reply'],
    ['a safe title', { title: 'cr_view-1' }, 'cr_view-1'],
    ['unsafe characters become _', { title: 'CR view: causes/effects' }, 'CR_view_causes_effects'],
    ['a title of only unsafe characters', { title: '!!' }, 'reply'],
    ['a long title is cut to 64', { title: 'x'.repeat(80) }, 'x'.repeat(64)],
    ['a non-string title', { title: 5 }, 'reply'],
  ])('schema name: %s', (_name, format, expected) => {
    expect(schemaName(format)).toBe(expected);
    expect(chatCompletionBody(request({ format }))).toMatchObject({ response_format: { json_schema: { name: expected, strict: true } } });
  });

  it.each<[string, string, { host: string; apiRoot: string } | RegExp]>([
    ['root', 'http://gpu1:8000', { host: 'http://gpu1:8000', apiRoot: 'http://gpu1:8000/v1' }],
    ['root with /v1', 'http://gpu1:8000/v1/', { host: 'http://gpu1:8000/v1', apiRoot: 'http://gpu1:8000/v1' }],
    ['a prefix path', 'https://proxy.example/llm/', { host: 'https://proxy.example/llm', apiRoot: 'https://proxy.example/llm/v1' }],
    ['credentials and query are dropped from what messages show', 'http://user:pw@gpu1:8000/v1?x=1', { host: 'http://gpu1:8000/v1', apiRoot: 'http://gpu1:8000/v1' }],
    ['not a URL', 'gpu1:8000', /must be an http or https URL/],
    ['garbage', '::', /must be an http or https URL/],
  ])('base URL: %s', (_name, raw, expected) => {
    if (expected instanceof RegExp) expect(() => resolveBaseUrl(raw)).toThrow(expected);
    else expect(resolveBaseUrl(raw)).toEqual(expected);
  });
});

describe('SseLineReader', () => {
  const STREAM = ': hello\n\nevent: delta\ndata: {"a":1}\n\ndata: line one\ndata: line two\n\ndata:no-space\r\n\r\nid: 7\nretry: 10\n\ndata: [DONE]\n\n';
  const EVENTS = [
    ['{"a":1}', 'delta'],
    ['line one\nline two', ''],
    ['no-space', ''],
    ['[DONE]', ''],
  ];
  it.each([[1], [2], [3], [7], [64], [STREAM.length]])('gives the same events whatever the chunk size (%i)', (size) => {
    const reader = new SseLineReader(1_000);
    const seen: string[][] = [];
    for (let at = 0; at < STREAM.length; at += size) expect(reader.push(STREAM.slice(at, at + size), (d, e) => seen.push([d, e]))).toBe(true);
    reader.end((d, e) => seen.push([d, e]));
    expect(seen).toEqual(EVENTS);
    expect(reader.count).toBe(EVENTS.length);
  });

  it.each<[string, string, string[][]]>([
    ['a last event without its blank line', 'data: x\n\ndata: y', [['x', ''], ['y', '']]],
    ['a last line ending in CR', 'data: z\r', [['z', '']]],
    ['comments only', ': ping\n: ping\n', []],
  ])('%s', (_name, text, expected) => {
    const reader = new SseLineReader(1_000);
    const seen: string[][] = [];
    reader.push(text, (d, e) => seen.push([d, e]));
    reader.end((d, e) => seen.push([d, e]));
    expect(seen).toEqual(expected);
  });

  it('refuses a line longer than its cap', () => {
    const reader = new SseLineReader(10);
    expect(reader.push('data: 12345', () => {})).toBe(false);
    expect(new SseLineReader(10).push('data: 1\n\ndata: 2\n\n', () => {})).toBe(true);
  });
});

describe('a thinking model behind an OpenAI-compatible server', () => {
  const thinker = () => startFakeOpenAi({ models: [{ name: MODEL, digest: 'd'.repeat(64), capabilities: ['completion', 'thinking'] }] });

  it('with no switch (--think server) it reasons first: reasoning_content is counted apart from the content', async () => {
    const server = await thinker();
    servers.push(server);
    const reply = await createOpenAiClient({ baseUrl: server.url }).generate(request({ think: null }));
    expect(reply).toMatchObject({ content: SHAPED, thinkingChars: DEFAULT_THINKING.length });
    expect(server.requests[0]).not.toHaveProperty('chat_template_kwargs');
  });

  it('--think off sends chat_template_kwargs.enable_thinking false, and the model answers without reasoning; on sends true', async () => {
    const server = await thinker();
    servers.push(server);
    const client = createOpenAiClient({ baseUrl: server.url });
    expect(await client.generate(request({ think: false }))).toMatchObject({ content: SHAPED, thinkingChars: 0 });
    expect(server.requests[0]).toMatchObject({ chat_template_kwargs: { enable_thinking: false } });
    expect(await client.generate(request({ think: true }))).toMatchObject({ content: SHAPED, thinkingChars: DEFAULT_THINKING.length });
    expect(server.requests[1]).toMatchObject({ chat_template_kwargs: { enable_thinking: true } });
  });

  it("a gpt-oss model, whose control is reasoning_effort, is also sent reasoning_effort low under --think off", () => {
    expect(chatCompletionBody(request({ model: 'openai/gpt-oss-20b', think: false }))).toMatchObject({ chat_template_kwargs: { enable_thinking: false }, reasoning_effort: 'low' });
    expect(chatCompletionBody(request({ model: 'qwen3:8b', think: false }))).not.toHaveProperty('reasoning_effort');
    expect(chatCompletionBody(request({ model: 'openai/gpt-oss-20b', think: true }))).not.toHaveProperty('reasoning_effort');
  });
});

describe("the engine's prompt cache in the reply", () => {
  it('reads usage.prompt_tokens_details.cached_tokens (llama-server, vLLM) and timings.cache_n (llama-server)', async () => {
    const server = await startFakeOpenAi({ promptCache: 'prefix' });
    servers.push(server);
    const client = createOpenAiClient({ baseUrl: server.url });
    const head = 'The same long head of every prompt. '.repeat(8);
    const first = await client.generate(request({ prompt: `${head}first chunk` }));
    const second = await client.generate(request({ prompt: `${head}second chunk` }));
    expect(first.cachedTokens).toBe(0);
    // The shared head, at the fake's four characters a token.
    expect(second.cachedTokens).toBe(Math.floor(head.length / 4));
    expect(second.cachedTokens).toBeLessThan(second.promptTokens!);
  });

  it('takes timings.cache_n where usage has no details, and leaves the count unknown where neither says', async () => {
    const events = (extra: Record<string, unknown>) =>
      [
        { choices: [{ index: 0, delta: { content: '{}' }, finish_reason: null }] },
        { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        { choices: [], usage: { prompt_tokens: 40, completion_tokens: 2 }, ...extra },
      ]
        .map((e) => `data: ${JSON.stringify(e)}\n\n`)
        .join('') + 'data: [DONE]\n\n';
    const withTimings = await fake(() => ({ fault: { status: 200, body: events({ timings: { cache_n: 30, prompt_n: 10 } }) } }));
    expect((await createOpenAiClient({ baseUrl: withTimings.url, apiKey: KEY }).generate(request())).cachedTokens).toBe(30);
    const without = await fake(() => ({ fault: { status: 200, body: events({}) } }));
    expect((await createOpenAiClient({ baseUrl: without.url, apiKey: KEY }).generate(request())).cachedTokens).toBeNull();
  });
});
