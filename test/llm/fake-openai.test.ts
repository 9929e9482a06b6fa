import { afterEach, describe, expect, it } from 'vitest';
import { BUSY_MESSAGE, FAKE_VERSION, MID_STREAM_MESSAGE, RUNNER_FAILED_MESSAGE, type FakeRequest } from '../support/fake-ollama.js';
import { CREATED, startFakeOpenAi, type FakeOpenAi, type FakeOpenAiOptions } from '../support/fake-openai.js';

const KEY = 'sk-fake-0123456789';
const FORMAT = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'string' } } }, required: ['a', 'b'] };
const SHAPED = '{"a":"","b":[]}';

const servers: FakeOpenAi[] = [];
async function fake(opts: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const server = await startFakeOpenAi(opts);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function chatBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'mistral:latest',
    messages: [{ role: 'user', content: 'twelve chars' }],
    response_format: { type: 'json_schema', json_schema: { name: 'reply', schema: FORMAT, strict: true } },
    temperature: 0,
    seed: 7,
    max_tokens: 64,
    ...extra,
  };
}

function post(server: FakeOpenAi, body: unknown, init: RequestInit & { key?: string | null } = {}): Promise<Response> {
  const { key = null, ...rest } = init;
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...(key === null ? {} : { Authorization: `Bearer ${key}` }) },
    ...rest,
  });
}

// The data of every event, JSON-parsed except the end marker.
async function events(response: Response): Promise<any[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      expect(block.startsWith('data: ')).toBe(true);
      const data = block.slice('data: '.length);
      return data === '[DONE]' ? '[DONE]' : JSON.parse(data);
    });
}

const contentOf = (list: any[]): string =>
  list
    .filter((e) => e !== '[DONE]' && e.choices?.[0]?.delta?.content !== undefined)
    .map((e) => e.choices[0].delta.content)
    .join('');

describe('/v1/models', () => {
  it.each<[string, string | null, string | null, number, unknown]>([
    ['open server', null, null, 200, { object: 'list', data: [{ id: 'mistral:latest', object: 'model', created: CREATED, owned_by: 'library' }] }],
    ['the right key', KEY, KEY, 200, { object: 'list', data: [expect.objectContaining({ id: 'mistral:latest' })] }],
    ['no key', KEY, null, 401, { error: { message: "You didn't provide an API key.", type: 'authentication_error', param: null, code: 'invalid_api_key' } }],
    ['a wrong key is quoted back', KEY, 'sk-wrong', 401, { error: expect.objectContaining({ message: 'Incorrect API key provided: sk-wrong.' }) }],
  ])('%s', async (_name, serverKey, clientKey, status, body) => {
    const server = await fake({ apiKey: serverKey });
    const response = await fetch(`${server.url}/v1/models`, { headers: clientKey === null ? {} : { Authorization: `Bearer ${clientKey}` } });
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual(body);
    expect(server.authorizations).toEqual([clientKey === null ? null : `Bearer ${clientKey}`]);
    expect(server.stats.faults).toEqual(status === 401 ? { auth401: 1 } : {});
  });
});

describe('/v1/chat/completions', () => {
  it('streams chunks with the content, a finish chunk, a usage chunk and [DONE]', async () => {
    const server = await fake({ apiKey: KEY });
    const response = await post(server, chatBody({ stream: true, stream_options: { include_usage: true } }), { key: KEY });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const list = await events(response);
    expect(contentOf(list)).toBe(SHAPED);
    expect(list[0]).toMatchObject({ id: 'chatcmpl-fake-0', object: 'chat.completion.chunk', created: CREATED, model: 'mistral:latest', choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] });
    expect(list.at(-3)).toMatchObject({ choices: [{ delta: {}, finish_reason: 'stop' }] });
    expect(list.at(-2)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: list.length - 3, total_tokens: list.length } });
    expect(list.at(-1)).toBe('[DONE]');
    // The engine saw the translation: schema as format, the options by Ollama's names.
    expect(server.engine.requests[0]).toMatchObject({ model: 'mistral:latest', format: FORMAT, options: { temperature: 0, seed: 7, num_predict: 64 }, stream: true });
  });

  it('sends no usage chunk unless asked', async () => {
    const server = await fake();
    const list = await events(await post(server, chatBody({ stream: true })));
    expect(list.some((e) => e !== '[DONE]' && 'usage' in e)).toBe(false);
    expect(list.at(-1)).toBe('[DONE]');
  });

  it('answers one chat.completion when stream is not set', async () => {
    const server = await fake();
    const response = await post(server, chatBody());
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: SHAPED }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['json_object', { response_format: { type: 'json_object' } }, '{}'],
    ['no response_format', { response_format: undefined }, '{}'],
  ])('replies to %s with an empty object', async (_name, extra, expected) => {
    const server = await fake();
    const reply = (await (await post(server, chatBody(extra))).json()) as any;
    expect(reply.choices[0].message.content).toBe(expected);
  });

  it.each([true, false])('length is finish_reason "length" with the content cut (stream %s)', async (stream) => {
    const server = await fake({ respond: () => ({ fault: 'length' }) });
    const response = await post(server, chatBody({ stream }));
    if (stream) {
      const list = await events(response);
      expect(contentOf(list)).toBe(SHAPED.slice(0, Math.floor(SHAPED.length / 2)));
      expect(list.at(-2)).toMatchObject({ choices: [{ finish_reason: 'length' }] });
    } else {
      expect(await response.json()).toMatchObject({ choices: [{ finish_reason: 'length', message: { content: SHAPED.slice(0, Math.floor(SHAPED.length / 2)) } }] });
    }
  });

  it.each([true, false])('missingMetrics drops the usage (stream %s)', async (stream) => {
    const server = await fake({ respond: () => ({ fault: 'missingMetrics' }) });
    const response = await post(server, chatBody({ stream, stream_options: { include_usage: true } }));
    const list = stream ? await events(response) : [await response.json()];
    expect(list.some((e) => e !== '[DONE]' && 'usage' in e)).toBe(false);
  });

  it('hands scripts the OpenAI body, its path and the request index', async () => {
    const seen: FakeRequest[] = [];
    const server = await fake({
      respond: (req) => {
        seen.push(req);
        return { content: `reply ${req.index}` };
      },
    });
    const first = (await (await post(server, chatBody())).json()) as any;
    await (await post(server, chatBody({ seed: 8 }))).json();
    expect(first.choices[0].message.content).toBe('reply 0');
    expect(seen.map((r) => [r.path, r.index, r.body.seed])).toEqual([
      ['/v1/chat/completions', 0, 7],
      ['/v1/chat/completions', 1, 8],
    ]);
    expect(server.requests).toEqual([chatBody(), chatBody({ seed: 8 })]);
  });
});

describe('faults over raw HTTP', () => {
  it.each<[string, FakeOpenAiOptions['respond'], number, unknown, Record<string, string>]>([
    ['busy503', () => ({ fault: 'busy503' }), 503, { error: { message: BUSY_MESSAGE, type: 'server_error', param: null, code: 503 } }, {}],
    ['error500', () => ({ fault: 'error500' }), 500, { error: expect.objectContaining({ message: RUNNER_FAILED_MESSAGE }) }, {}],
    ['error400', () => ({ fault: 'error400' }), 400, { error: expect.objectContaining({ type: 'invalid_request_error', code: 400 }) }, {}],
    ['model404', () => ({ fault: 'model404' }), 404, { error: expect.objectContaining({ message: 'model "mistral:latest" not found, try pulling it first' }) }, {}],
    ['http429', () => ({ fault: { status: 429, body: '{"error":"slow down"}', headers: { 'Retry-After': '5' } } }), 429, { error: expect.objectContaining({ message: 'slow down', type: 'rate_limit_error' }) }, { 'retry-after': '5' }],
  ])('%s answers with its status and an OpenAI error body', async (name, respond, status, body, headers) => {
    const server = await fake({ respond: respond! });
    const response = await post(server, chatBody({ stream: true }));
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual(body);
    for (const [header, value] of Object.entries(headers)) expect(response.headers.get(header)).toBe(value);
    expect(server.stats.faults).toEqual({ [name]: 1 });
    expect(server.stats.generations).toBe(0);
  });

  it('a plain-text error body passes through as it is', async () => {
    const server = await fake({ respond: () => ({ fault: { status: 502, body: 'Bad Gateway' } }) });
    const response = await post(server, chatBody());
    expect([response.status, await response.text()]).toEqual([502, 'Bad Gateway']);
  });

  it('an unknown model is a 404 from the face; the engine never sees it', async () => {
    let called = 0;
    const server = await fake({ respond: () => (called++, { content: 'x' }) });
    const response = await post(server, chatBody({ model: 'llama3:8b' }));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { message: 'The model `llama3:8b` does not exist.', type: 'invalid_request_error', param: null, code: 'model_not_found' } });
    expect([called, server.engine.stats.requests]).toEqual([0, 0]);
  });

  it.each([
    ['before headers', undefined, 'fetch failed'],
    ['mid-stream', '{"a":"a reply long enough to be cut"}', 'terminated'],
  ])('reset %s drops the connection', async (_name, content, message) => {
    const server = await fake({ respond: () => ({ fault: 'reset', ...(content ? { content } : {}) }) });
    await expect(post(server, chatBody({ stream: true })).then((r) => r.text())).rejects.toThrow(message);
  });

  it('midStreamError sends content, an error event, then [DONE]', async () => {
    const server = await fake({ respond: () => ({ fault: 'midStreamError' }) });
    const list = await events(await post(server, chatBody({ stream: true })));
    expect(contentOf(list).length).toBeGreaterThan(0);
    expect(list.at(-2)).toEqual({ error: { message: MID_STREAM_MESSAGE, type: 'server_error', param: null, code: 500 } });
    expect(list.at(-1)).toBe('[DONE]');
    expect(list.some((e) => e !== '[DONE]' && e.choices?.[0]?.finish_reason)).toBe(false);
  });

  it('slowHeaders and slowBody keep their timing through the face', async () => {
    const server = await fake({ respond: ({ index }) => ({ fault: index === 0 ? 'slowHeaders' : 'slowBody', delayMs: 60 }) });
    let started = performance.now();
    const slowHeaders = await post(server, chatBody({ stream: true }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    await slowHeaders.text();
    started = performance.now();
    const slowBody = await post(server, chatBody({ stream: true }));
    // Headers before the held-back body (order, not the clock); the delay is a lower bound.
    expect(server.stats.replies).toBe(1);
    expect(contentOf(await events(slowBody))).toBe(SHAPED);
    expect(server.stats.replies).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });

  it('a client that hangs up mid-huge frees the slot for the next request', async () => {
    const server = await fake({ respond: ({ index }) => (index === 0 ? { fault: 'huge' } : { content: 'next' }) });
    const controller = new AbortController();
    const response = await post(server, chatBody({ stream: true }), { signal: controller.signal });
    await response.body!.getReader().read();
    controller.abort();
    const next = (await (await post(server, chatBody())).json()) as any;
    expect(next.choices[0].message.content).toBe('next');
    expect(server.stats.maxInFlight).toBe(1);
  });
});

describe('the engine behind the face', () => {
  it('4 slots serve 8 concurrent 50 ms completions in two waves', async () => {
    const server = await fake({ slots: 4, latencyMs: 50 });
    const started = performance.now();
    const replies = await Promise.all(Array.from({ length: 8 }, () => post(server, chatBody()).then((r) => r.json())));
    const elapsed = performance.now() - started;
    expect(replies).toHaveLength(8);
    expect(server.stats.maxInFlight).toBe(4);
    expect(server.stats.generations).toBe(8);
    expect(elapsed).toBeGreaterThanOrEqual(95);
  });

  it("forwards Ollama's own API untouched and counts every path", async () => {
    const server = await fake({ apiKey: KEY });
    const version = await (await fetch(`${server.url}/api/version`)).json();
    const tags = (await (await fetch(`${server.url}/api/tags`)).json()) as any;
    const chat = (await (
      await fetch(`${server.url}/api/chat`, { method: 'POST', body: JSON.stringify({ model: 'mistral', messages: [{ role: 'user', content: 'x' }], format: FORMAT, stream: false }) })
    ).json()) as any;
    const missing = await fetch(`${server.url}/api/nope`);
    expect(version).toEqual({ version: FAKE_VERSION });
    expect(tags.models[0].name).toBe('mistral:latest');
    expect(chat).toMatchObject({ message: { content: SHAPED }, done: true });
    expect([missing.status, await missing.text()]).toEqual([404, '404 page not found']);
    await (await post(server, chatBody(), { key: KEY })).json();
    expect(server.stats).toMatchObject({
      requests: 5,
      byPath: { '/api/version': 1, '/api/tags': 1, '/api/chat': 1, '/api/nope': 1, '/v1/chat/completions': 1 },
      generations: 2,
      faults: {},
    });
    // Ollama's own API needs no key, as on a real server with a proxy only in front of /v1.
    expect(server.authorizations).toEqual([`Bearer ${KEY}`]);
  });

  it('close() ends hanging requests promptly, and a new face can take the same port', async () => {
    const server = await startFakeOpenAi({ respond: () => ({ fault: 'slowHeaders', delayMs: 60_000 }), slots: 1 });
    const hanging = [post(server, chatBody()), post(server, chatBody())].map((p) => p.then(() => 'answered', () => 'failed'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    await server.close();
    // close() returned with the 60 s replies unsent: it ended them rather than waiting.
    expect(server.stats.replies).toBe(0);
    expect(await Promise.all(hanging)).toEqual(['failed', 'failed']);
    await expect(fetch(`${server.url}/v1/models`)).rejects.toThrow('fetch failed');
    const again = await fake({ port: server.port });
    expect(again.url).toBe(server.url);
    expect((await (await post(again, chatBody())).json()) as any).toMatchObject({ choices: [{ message: { content: SHAPED } }] });
  });
});
