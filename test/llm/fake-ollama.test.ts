import { afterEach, describe, expect, it } from 'vitest';
import {
  BUSY_MESSAGE,
  DEFAULT_MODELS,
  FAKE_VERSION,
  HUGE_REPLY_CHARS,
  MID_STREAM_MESSAGE,
  emptyValueFor,
  startFakeOllama,
  type FakeOllama,
  type FakeOllamaOptions,
} from '../support/fake-ollama.js';

const servers: FakeOllama[] = [];
async function fake(opts: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const server = await startFakeOllama(opts);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const FORMAT = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'string' } } }, required: ['a', 'b'] };
const SHAPED = '{"a":"","b":[]}';
const METRIC_FIELDS = ['total_duration', 'load_duration', 'prompt_eval_count', 'prompt_eval_duration', 'eval_count', 'eval_duration'];

function post(url: string, path: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' }, ...init });
}

function chatBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'mistral:latest', messages: [{ role: 'user', content: 'twelve chars' }], format: FORMAT, ...extra };
}

async function lines(response: Response): Promise<any[]> {
  const text = await response.text();
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

describe('read-only endpoints', () => {
  it.each<[string, number, string, (body: string) => void]>([
    ['/', 200, 'text/plain', (b) => expect(b).toBe('Ollama is running')],
    ['/api/version', 200, 'application/json', (b) => expect(JSON.parse(b)).toEqual({ version: FAKE_VERSION })],
    [
      '/api/tags',
      200,
      'application/json',
      (b) => {
        const { models } = JSON.parse(b);
        expect(models).toHaveLength(1);
        expect(models[0]).toMatchObject({ name: 'mistral:latest', model: 'mistral:latest', digest: DEFAULT_MODELS[0]!.digest, size: expect.any(Number) });
        expect(models[0].details).toMatchObject({ format: 'gguf', family: expect.any(String), quantization_level: expect.any(String) });
      },
    ],
    ['/api/nope', 404, 'text/plain', (b) => expect(b).toBe('404 page not found')],
  ])('GET %s', async (path, status, type, check) => {
    const server = await fake();
    const response = await fetch(`${server.url}${path}`);
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toContain(type);
    check(await response.text());
  });

  it.each<[string, unknown, number, Record<string, unknown>]>([
    ['known model by "model"', { model: 'mistral:latest' }, 200, { capabilities: ['completion'] }],
    ['known model without tag', { model: 'mistral' }, 200, { details: expect.objectContaining({ format: 'gguf' }) }],
    ['known model by legacy "name"', { name: 'mistral:latest' }, 200, { modelfile: expect.any(String) }],
    ['unknown model', { model: 'llama3:8b' }, 404, { error: "model 'llama3:8b' not found" }],
  ])('POST /api/show: %s', async (_name, body, status, expected) => {
    const server = await fake();
    const response = await post(server.url, '/api/show', body);
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject(expected);
  });

  it('lists custom models', async () => {
    const models = [
      { name: 'qwen2.5:7b', digest: 'aaa' },
      { name: 'llama3.1:8b', digest: 'bbb' },
    ];
    const server = await fake({ models });
    const { models: listed } = (await (await fetch(`${server.url}/api/tags`)).json()) as { models: { name: string; digest: string }[] };
    expect(listed.map((m) => [m.name, m.digest])).toEqual([
      ['qwen2.5:7b', 'aaa'],
      ['llama3.1:8b', 'bbb'],
    ]);
    expect((await post(server.url, '/api/show', { model: 'mistral:latest' })).status).toBe(404);
  });
});

describe.each([
  ['/api/chat', (o: any) => o.message?.content as string],
  ['/api/generate', (o: any) => o.response as string],
])('POST %s', (path, textOf) => {
  const body = (extra: Record<string, unknown> = {}) =>
    path === '/api/chat' ? chatBody(extra) : { model: 'mistral:latest', prompt: 'twelve chars', format: FORMAT, ...extra };

  it('streams NDJSON by default, ending with done and the metrics', async () => {
    const server = await fake();
    const response = await post(server.url, path, body());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const objects = await lines(response);
    expect(objects.length).toBeGreaterThan(2);
    expect(objects.slice(0, -1).every((o) => o.done === false)).toBe(true);
    expect(objects.map(textOf).join('')).toBe(SHAPED);
    const final = objects.at(-1);
    expect(final).toMatchObject({ done: true, done_reason: 'stop', model: 'mistral:latest', prompt_eval_count: 3, eval_count: objects.length - 1 });
    for (const field of METRIC_FIELDS) expect(Number.isInteger(final[field])).toBe(true);
    if (path === '/api/chat') expect(final.message.role).toBe('assistant');
  });

  it('answers one JSON object when stream is false', async () => {
    const server = await fake();
    const response = await post(server.url, path, body({ stream: false }));
    expect(response.headers.get('content-type')).toContain('application/json');
    const reply = (await response.json()) as any;
    expect(textOf(reply)).toBe(SHAPED);
    expect(reply).toMatchObject({ done: true, done_reason: 'stop' });
    for (const field of METRIC_FIELDS) expect(typeof reply[field]).toBe('number');
  });

  it.each<[string, boolean, Record<string, unknown>]>([
    ['length, streamed', true, { done_reason: 'length' }],
    ['length, whole', false, { done_reason: 'length' }],
  ])('%s', async (_name, stream, expected) => {
    const server = await fake({ respond: () => ({ fault: 'length' }) });
    const response = await post(server.url, path, body({ stream }));
    const objects = stream ? await lines(response) : [await response.json()];
    expect(objects.at(-1)).toMatchObject(expected);
    const text = stream ? objects.map(textOf).join('') : textOf(objects[0]);
    expect(text).toBe(SHAPED.slice(0, Math.floor(SHAPED.length / 2)));
    expect(() => JSON.parse(text)).toThrow();
  });

  it.each([true, false])('missingMetrics drops done_reason and every metric (stream %s)', async (stream) => {
    const server = await fake({ respond: () => ({ fault: 'missingMetrics' }) });
    const objects = await (async () => {
      const response = await post(server.url, path, body({ stream }));
      return stream ? lines(response) : [await response.json()];
    })();
    const final = objects.at(-1);
    expect(final.done).toBe(true);
    for (const field of ['done_reason', ...METRIC_FIELDS]) expect(final).not.toHaveProperty(field);
  });
});

describe('faults over raw HTTP', () => {
  it.each<[string, FakeOllamaOptions['respond'], number, unknown]>([
    ['busy503', () => ({ fault: 'busy503' }), 503, { error: BUSY_MESSAGE }],
    ['error500', () => ({ fault: 'error500' }), 500, { error: expect.stringContaining('llama runner') }],
    ['error400', () => ({ fault: 'error400' }), 400, { error: expect.any(String) }],
    ['model404', () => ({ fault: 'model404' }), 404, { error: 'model "mistral:latest" not found, try pulling it first' }],
    ['custom', () => ({ fault: { status: 429, body: '{"error":"slow down"}', headers: { 'Retry-After': '5' } } }), 429, { error: 'slow down' }],
  ])('%s answers with its status and an {"error"} body', async (name, respond, status, body) => {
    const server = await fake({ respond: respond! });
    const response = await post(server.url, '/api/chat', chatBody());
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual(body);
    if (name === 'custom') expect(response.headers.get('retry-after')).toBe('5');
    expect(server.stats.faults).toEqual({ [name === 'custom' ? 'http429' : name]: 1 });
    expect(server.stats.generations).toBe(0);
  });

  it('unknown model in a generation is a 404 before the script runs', async () => {
    let called = 0;
    const server = await fake({ respond: () => (called++, { content: 'x' }) });
    const response = await post(server.url, '/api/chat', chatBody({ model: 'llama3:8b' }));
    expect(response.status).toBe(404);
    expect(called).toBe(0);
  });

  it.each([
    ['before headers', undefined],
    ['mid-stream', '{"a":"a reply long enough to be cut"}'],
  ])('reset %s destroys the socket', async (_name, content) => {
    const server = await fake({ respond: () => ({ fault: 'reset', ...(content ? { content } : {}) }) });
    const outcome = post(server.url, '/api/chat', chatBody()).then((r) => r.text());
    await expect(outcome).rejects.toThrow(content ? 'terminated' : 'fetch failed');
  });

  it('midStreamError sends content, then an {"error"} line, then ends', async () => {
    const server = await fake({ respond: () => ({ fault: 'midStreamError' }) });
    const objects = await lines(await post(server.url, '/api/chat', chatBody()));
    expect(objects.at(-1)).toEqual({ error: MID_STREAM_MESSAGE });
    expect(objects.length).toBeGreaterThan(1);
    expect(objects.some((o) => o.done === true)).toBe(false);
  });

  it.each([true, false])('slowHeaders delays the status line (stream %s)', async (stream) => {
    const server = await fake({ respond: () => ({ fault: 'slowHeaders', delayMs: 60 }) });
    const started = performance.now();
    const response = await post(server.url, '/api/chat', chatBody({ stream }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(response.status).toBe(200);
    await response.text();
  });

  it.each([true, false])('slowBody sends headers at once and stalls mid-body (stream %s)', async (stream) => {
    const server = await fake({ respond: () => ({ fault: 'slowBody', delayMs: 80 }) });
    const started = performance.now();
    const response = await post(server.url, '/api/chat', chatBody({ stream }));
    // The headers came while the body was still held back (order, not the clock)...
    expect(server.stats.replies).toBe(0);
    const text = await response.text();
    expect(server.stats.replies).toBe(1);
    // ...and the stall lasted at least its delay (a lower bound: a loaded machine only lengthens it).
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    expect(text).toContain('"done":true');
  });

  it.each([true, false])('huge streams many MB (stream %s)', async (stream) => {
    const server = await fake({ respond: () => ({ fault: 'huge' }) });
    const response = await post(server.url, '/api/chat', chatBody({ stream }));
    const objects = stream ? await lines(response) : [await response.json()];
    const content = objects.map((o: any) => o.message.content).join('');
    expect(content.length).toBeGreaterThanOrEqual(HUGE_REPLY_CHARS);
    expect(objects.at(-1).done).toBe(true);
  });

  it('a client that hangs up mid-huge frees the slot for the next request', async () => {
    let index = 0;
    const server = await fake({ respond: () => (index++ === 0 ? { fault: 'huge' } : { content: 'next' }) });
    const controller = new AbortController();
    const response = await post(server.url, '/api/chat', chatBody(), { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    const next = (await (await post(server.url, '/api/chat', chatBody({ stream: false }))).json()) as any;
    expect(next.message.content).toBe('next');
    expect(server.stats.maxInFlight).toBe(1);
  });
});

describe('scheduling', () => {
  it('4 slots serve 8 concurrent 50 ms generations in two waves', async () => {
    const server = await fake({ slots: 4, latencyMs: 50 });
    const started = performance.now();
    const replies = await Promise.all(Array.from({ length: 8 }, () => post(server.url, '/api/chat', chatBody({ stream: false })).then((r) => r.json())));
    const elapsed = performance.now() - started;
    expect(replies).toHaveLength(8);
    expect(server.stats.maxInFlight).toBe(4);
    expect(server.stats.generations).toBe(8);
    expect(elapsed).toBeGreaterThanOrEqual(95);
  });

  it('beyond slots + maxQueue the server answers 503 busy', async () => {
    const server = await fake({ slots: 1, maxQueue: 1, latencyMs: 50 });
    const statuses = await Promise.all(Array.from({ length: 4 }, () => post(server.url, '/api/chat', chatBody({ stream: false })).then(async (r) => (await r.text(), r.status))));
    expect(statuses.sort()).toEqual([200, 200, 503, 503]);
    expect(server.stats.faults).toEqual({ busy503: 2 });
    expect(server.stats.maxInFlight).toBe(1);
  });

  it('passes the request index and body to the script and records everything', async () => {
    const seen: [string, number, string][] = [];
    const server = await fake({
      respond: ({ path, body, index }) => {
        seen.push([path, index, body.model]);
        return { content: `reply ${index}`, doneReason: 'stop' };
      },
    });
    await (await post(server.url, '/api/chat', chatBody({ stream: false }))).json();
    await (await post(server.url, '/api/generate', { model: 'mistral', prompt: 'p', stream: false })).json();
    await (await fetch(`${server.url}/api/version`)).json();
    expect(seen).toEqual([
      ['/api/chat', 0, 'mistral:latest'],
      ['/api/generate', 1, 'mistral'],
    ]);
    expect(server.stats).toMatchObject({ requests: 3, byPath: { '/api/chat': 1, '/api/generate': 1, '/api/version': 1 }, generations: 2 });
    expect(server.requests).toEqual([chatBody({ stream: false }), { model: 'mistral', prompt: 'p', stream: false }]);
  });

  it('close() ends hanging requests and open sockets promptly', async () => {
    const server = await startFakeOllama({ respond: () => ({ fault: 'slowHeaders', delayMs: 60_000 }), slots: 1 });
    const hanging = [post(server.url, '/api/chat', chatBody()), post(server.url, '/api/chat', chatBody())].map((p) => p.then(() => 'answered', () => 'failed'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    await server.close();
    // close() returned with the 60 s replies unsent: it ended them rather than waiting.
    expect(server.stats.replies).toBe(0);
    expect(await Promise.all(hanging)).toEqual(['failed', 'failed']);
    await expect(fetch(`${server.url}/`)).rejects.toThrow('fetch failed');
  });
});

describe('default responder: the emptiest value of the schema', () => {
  it.each<[string, unknown, unknown]>([
    ['string', { type: 'string' }, ''],
    ['integer', { type: 'integer' }, 0],
    ['number', { type: 'number' }, 0],
    ['boolean', { type: 'boolean' }, false],
    ['array', { type: 'array', items: { type: 'string' } }, []],
    ['enum takes its first value', { type: 'string', enum: ['mandatory', 'guidance'] }, 'mandatory'],
    ['const', { const: 'rca_frame' }, 'rca_frame'],
    ['nullable type list', { type: ['string', 'null'] }, null],
    ['nullable anyOf (zod)', { anyOf: [{ type: 'string' }, { type: 'null' }] }, null],
    ['non-null anyOf takes the first branch', { anyOf: [{ type: 'integer' }, { type: 'string' }] }, 0],
    ['no type', {}, null],
    ['properties imply an object', { properties: { x: { type: 'string' } } }, { x: '' }],
    [
      'nested objects recurse',
      { type: 'object', properties: { meta: { type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } } }, tags: { type: 'array' } } },
      { meta: { id: '', n: 0 }, tags: [] },
    ],
    ['$ref into $defs', { type: 'object', properties: { s: { $ref: '#/$defs/S' } }, $defs: { S: { type: 'object', properties: { t: { type: 'string' } } } } }, { s: { t: '' } }],
  ])('%s', (_name, schema, expected) => {
    expect(emptyValueFor(schema, schema, 0)).toEqual(expected);
  });

  it.each<[string, unknown, string]>([
    ['a schema', FORMAT, SHAPED],
    ['"json"', 'json', '{}'],
    ['no format', undefined, '{}'],
  ])('replies to %s with that shape', async (_name, format, expected) => {
    const server = await fake();
    const reply = (await (await post(server.url, '/api/chat', chatBody({ format, stream: false }))).json()) as any;
    expect(reply.message.content).toBe(expected);
  });
});
