import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ModelError, type GenerateReply, type GenerateRequest, type ModelErrorCode } from '../../src/llm/model-client.js';
import { createOllamaClient } from '../../src/llm/ollama-client.js';
import { NdjsonLines, readLines } from '../../src/llm/ollama-stream.js';
import { parseRetryAfter } from '../../src/llm/http-errors.js';
import { DEFAULT_MODELS, DEFAULT_THINKING, startFakeOllama, type FakeOllama, type FakeReply } from '../support/fake-ollama.js';

const MODEL = 'mistral:latest';
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

const servers: FakeOllama[] = [];
async function fake(respond?: () => FakeReply, extra: { slots?: number; latencyMs?: number } = {}): Promise<FakeOllama> {
  const server = await startFakeOllama({ ...(respond ? { respond } : {}), ...extra });
  servers.push(server);
  return server;
}

beforeAll(() => {
  // ollama-js logs to stdout/stderr on non-JSON bodies; the bins reroute that, tests just mute it.
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => {
  vi.restoreAllMocks();
});

describe('generate against the fake server', () => {
  it.each(['dispatch', 'fetch'] as const)('names what the request is for in its X-Request-Id header (%s)', async (chatTransport) => {
    const seen: (string | undefined)[] = [];
    const server = await startFakeOllama({ respond: (req) => (seen.push(req.requestId), { content: SHAPED }) });
    servers.push(server);
    await createOllamaClient({ host: server.url, chatTransport }).generate(request({ requestId: 'chunk:cr1:sec2 rca_frame' }));
    await createOllamaClient({ host: server.url, chatTransport }).generate(request());
    expect(seen).toEqual(['chunk:cr1:sec2 rca_frame', undefined]);
  });

  it('sends a streaming chat request and accumulates the reply', async () => {
    const server = await fake();
    const client = createOllamaClient({ host: server.url });
    const reply = await client.generate(request());
    expect(reply).toEqual({ content: SHAPED, doneReason: 'stop', promptTokens: 5, outputTokens: Math.ceil(SHAPED.length / 8), thinkingChars: 0 });
    // think: false and truncate: false are sent: Ollama's defaults are a reasoning pass for thinking
    // models and a silent cut of the prompt's head.
    expect(server.requests[0]).toEqual({
      model: MODEL,
      messages: [{ role: 'user', content: 'Extract the facts.' }],
      format: FORMAT,
      options: { temperature: 0, seed: 42, num_predict: 512, num_ctx: 8192 },
      keep_alive: '30m',
      think: false,
      truncate: false,
      stream: true,
    });
  });

  it.each<[string, FakeReply, Partial<GenerateReply>]>([
    ['scripted content', { content: 'Sure! ```json\n{"a":1}\n```' }, { content: 'Sure! ```json\n{"a":1}\n```', doneReason: 'stop' }],
    ['missing metrics give nulls', { fault: 'missingMetrics', content: '{"a":1}' }, { content: '{"a":1}', doneReason: null, promptTokens: null, outputTokens: null }],
    ['length keeps the cut content', { fault: 'length', content: '{"summary":"cut' }, { content: '{"summary":"cut', doneReason: 'length' }],
    ['default length cut', { fault: 'length' }, { content: SHAPED.slice(0, Math.floor(SHAPED.length / 2)), doneReason: 'length' }],
    ['a slow body within the deadline', { fault: 'slowBody', delayMs: 30 }, { content: SHAPED, doneReason: 'stop' }],
    ['an empty reply', { content: '' }, { content: '', doneReason: 'stop' }],
  ])('%s', async (_name, scripted, expected) => {
    const server = await fake(() => scripted);
    const reply = await createOllamaClient({ host: server.url }).generate(request());
    expect(reply).toMatchObject(expected);
  });

  it('strips trailing slashes from the host', async () => {
    const server = await fake();
    const client = createOllamaClient({ host: `${server.url}//` });
    expect(client.host).toBe(server.url);
    await expect(client.generate(request())).resolves.toMatchObject({ content: SHAPED });
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
  },
  { name: '500 runner crash', reply: { fault: 'error500' }, code: 'HTTP_5XX', retryable: true, status: 500, message: /llama runner process has terminated/ },
  { name: '502 plain text', reply: { fault: { status: 502, body: 'Bad Gateway\n<hr>nginx' } }, code: 'HTTP_5XX', retryable: true, status: 502, message: /^[^\n]*Bad Gateway <hr>nginx$/ },
  { name: '501 is permanent', reply: { fault: { status: 501, body: '{"error":"not implemented"}' } }, code: 'HTTP_5XX', retryable: false, status: 501 },
  { name: '400 bad request', reply: { fault: 'error400' }, code: 'HTTP_400', retryable: false, status: 400, message: /rejected the request \(400\)/ },
  { name: '401 counts as a client error', reply: { fault: { status: 401, body: '{"error":"unauthorized"}' } }, code: 'HTTP_400', retryable: false, status: 401 },
  { name: '404 model', reply: { fault: 'model404' }, code: 'HTTP_404', retryable: false, status: 404, message: /^model "mistral:latest" not found — run: ollama pull mistral:latest$/ },
  { name: 'reset before headers', reply: { fault: 'reset' }, code: 'CONNECTION_RESET', retryable: true, status: null },
  { name: 'reset mid-stream', reply: { fault: 'reset', content: '{"summary":"a long enough reply"}' }, code: 'CONNECTION_RESET', retryable: true },
  { name: 'error line mid-stream', reply: { fault: 'midStreamError' }, code: 'STREAM_ERROR', retryable: true, message: /failed mid-reply: an error was encountered/ },
  { name: 'slow headers past the deadline', reply: { fault: 'slowHeaders', delayMs: 2_000 }, code: 'TIMEOUT', retryable: true, timeoutMs: 80, message: /within 80 ms/ },
  { name: 'slow body past the deadline', reply: { fault: 'slowBody', delayMs: 2_000 }, code: 'TIMEOUT', retryable: true, timeoutMs: 80 },
  { name: 'huge reply', reply: { fault: 'huge' }, code: 'REPLY_TOO_LARGE', retryable: false, maxReplyChars: 100_000, message: /exceeded 100000 characters/ },
  { name: 'huge reply at the default cap', reply: { fault: 'huge' }, code: 'REPLY_TOO_LARGE', retryable: false, message: /exceeded 1000000 characters/ },
  { name: '200 that is not NDJSON', reply: { fault: { status: 200, body: '<html>hello</html>' } }, code: 'BAD_RESPONSE', retryable: false },
  { name: 'stream cut without done', reply: { fault: { status: 200, body: '{"message":{"content":"a"},"done":false}\n' } }, code: 'REPLY_INCOMPLETE', retryable: false },
  { name: 'repetition abort: pieces, then no done', reply: { fault: 'repeatAbort' }, code: 'REPLY_INCOMPLETE', retryable: false, message: /ended the reply before it was done/ },
];

describe.each(FAULTS)('fault: $name', (fault) => {
  it(`is ${fault.code}, retryable=${fault.retryable}`, async () => {
    const server = await fake(() => fault.reply);
    const host = server.url;
    const client = createOllamaClient({ host, ...(fault.maxReplyChars ? { maxReplyChars: fault.maxReplyChars } : {}) });
    const err = await failure(client.generate(request(fault.timeoutMs ? { timeoutMs: fault.timeoutMs } : {})));
    expect(err.code).toBe(fault.code);
    expect(err.retryable).toBe(fault.retryable);
    if (fault.status !== undefined) expect(err.status).toBe(fault.status);
    if (fault.retryAfterMs !== undefined) expect(err.retryAfterMs).toBe(fault.retryAfterMs);
    if (fault.message) expect(err.message).toMatch(fault.message);
    expect(err.message).not.toContain('\n');
    if (fault.code !== 'HTTP_404') expect(err.message).toContain(host);
  });
});

describe('cancellation', () => {
  it('caller abort mid-request is ABORTED and not retryable', async () => {
    const server = await fake(() => ({ fault: 'slowHeaders', delayMs: 5_000 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 40);
    const err = await failure(createOllamaClient({ host: server.url }).generate(request({ timeoutMs: 10_000 }), controller.signal));
    expect(err).toMatchObject({ code: 'ABORTED', retryable: false });
    // Ended before the server's reply, not after waiting it out (order, not the clock).
    expect(server.stats.replies).toBe(0);
  });

  it('an already aborted signal sends nothing', async () => {
    const server = await fake();
    const err = await failure(createOllamaClient({ host: server.url }).generate(request(), AbortSignal.abort()));
    expect(err.code).toBe('ABORTED');
    expect(server.stats.requests).toBe(0);
  });

  it('aborting one request leaves a concurrent one alone', async () => {
    const server = await fake(() => ({ fault: 'slowBody', delayMs: 60 }), { slots: 2 });
    const client = createOllamaClient({ host: server.url });
    const controller = new AbortController();
    const doomed = client.generate(request(), controller.signal);
    const survivor = client.generate(request());
    setTimeout(() => controller.abort(), 20);
    const [a, b] = await Promise.allSettled([doomed, survivor]);
    expect(a.status === 'rejected' && (a.reason as ModelError).code).toBe('ABORTED');
    expect(b.status === 'fulfilled' && b.value.content).toBe(SHAPED);
  });

  it('many concurrent requests share one caller signal without listener warnings', async () => {
    const server = await fake(undefined, { slots: 24, latencyMs: 30 });
    const client = createOllamaClient({ host: server.url });
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', onWarning);
    try {
      const run = new AbortController();
      const replies = await Promise.all(Array.from({ length: 24 }, () => client.generate(request(), run.signal)));
      await new Promise((resolve) => setImmediate(resolve));
      expect(replies.every((r) => r.content === SHAPED)).toBe(true);
      expect(server.stats.maxInFlight).toBeGreaterThan(10);
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a deadline on one request does not cancel the next', async () => {
    let index = 0;
    const server = await fake(() => (index++ === 0 ? { fault: 'slowHeaders', delayMs: 2_000 } : { content: 'ok' }), { slots: 2 });
    const client = createOllamaClient({ host: server.url });
    expect((await failure(client.generate(request({ timeoutMs: 50 })))).code).toBe('TIMEOUT');
    await expect(client.generate(request())).resolves.toMatchObject({ content: 'ok' });
  });
});

describe('unreachable server', () => {
  it.each([['preflight'], ['generate']])('%s against a closed port is UNREACHABLE with the exact message', async (call) => {
    const server = await startFakeOllama();
    const host = server.url;
    await server.close();
    const client = createOllamaClient({ host });
    const err = await failure(call === 'preflight' ? client.preflight(MODEL) : client.generate(request()));
    expect(err).toMatchObject({ code: 'UNREACHABLE', retryable: true, status: null });
    expect(err.message).toBe(`cannot reach Ollama at ${host} — is it running? (or use --backend extractive)`);
  });
});

describe('preflight', () => {
  const DIGEST = DEFAULT_MODELS[0]!.digest;
  it.each([
    ['exact name', 'mistral:latest', { model: 'mistral:latest', digest: DIGEST, contextLength: 32_768 }],
    ['name without tag resolves to :latest', 'mistral', { model: 'mistral:latest', digest: DIGEST, contextLength: 32_768 }],
  ])('%s', async (_name, model, expected) => {
    const server = await fake();
    await expect(createOllamaClient({ host: server.url }).preflight(model)).resolves.toEqual(expected);
    expect(server.stats.byPath).toEqual({ '/api/version': 1, '/api/show': 1, '/api/tags': 1 });
  });

  it('a missing model is HTTP_404 with the pull hint', async () => {
    const server = await fake();
    const err = await failure(createOllamaClient({ host: server.url }).preflight('llama3:8b'));
    expect(err).toMatchObject({ code: 'HTTP_404', retryable: false, status: 404 });
    expect(err.message).toBe('model "llama3:8b" not found — run: ollama pull llama3:8b');
  });

  it('a server that does not answer within the preflight deadline is UNREACHABLE', async () => {
    const { createServer } = await import('node:http');
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const host = `http://127.0.0.1:${port}`;
    try {
      const err = await failure(createOllamaClient({ host, preflightTimeoutMs: 50 }).preflight(MODEL));
      expect(err.code).toBe('UNREACHABLE');
      expect(err.message).toBe(`cannot reach Ollama at ${host} — is it running? (or use --backend extractive)`);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a cancelled preflight is ABORTED, not UNREACHABLE', async () => {
    const server = await fake();
    const err = await failure(createOllamaClient({ host: server.url }).preflight(MODEL, AbortSignal.abort()));
    expect(err.code).toBe('ABORTED');
  });
});

describe('parseRetryAfter', () => {
  const NOW = Date.parse('2025-01-01T00:00:00Z');
  it.each<[string | null, number | null]>([
    [null, null],
    ['0', 0],
    ['7', 7_000],
    [' 12 ', 12_000],
    ['Wed, 01 Jan 2025 00:00:05 GMT', 5_000],
    ['Tue, 31 Dec 2024 23:59:00 GMT', 0],
    ['soon', null],
    ['-3', null],
  ])('%j → %j', (header, expected) => {
    expect(parseRetryAfter(header, NOW)).toBe(expected);
  });
});

describe('what real Ollama does (the fake upgraded to do it)', () => {
  const THINKER = { name: 'qwen3:8b', digest: 'b'.repeat(64), capabilities: ['completion', 'thinking'] };
  async function serverWith(models: { name: string; digest: string; capabilities?: string[] }[]): Promise<FakeOllama> {
    const server = await startFakeOllama({ models });
    servers.push(server);
    return server;
  }

  it('think: false keeps a thinking model from reasoning first; with think it reasons, and the reasoning is counted apart', async () => {
    const server = await serverWith([THINKER]);
    const client = createOllamaClient({ host: server.url });
    const off = await client.generate(request({ model: THINKER.name }));
    expect(off).toMatchObject({ content: SHAPED, thinkingChars: 0 });
    const on = await client.generate(request({ model: THINKER.name, think: true }));
    expect(on).toMatchObject({ content: SHAPED, thinkingChars: DEFAULT_THINKING.length });
    expect(server.requests.map((b) => b.think)).toEqual([false, true]);
  });

  it('a prompt longer than num_ctx with truncate: false is PROMPT_TOO_LONG, not retried', async () => {
    const server = await fake();
    const err = await failure(createOllamaClient({ host: server.url }).generate(request({ prompt: 'x'.repeat(4 * 300), options: { temperature: 0, seed: 42, num_predict: 16, num_ctx: 256 } })));
    expect(err.code).toBe('PROMPT_TOO_LONG');
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('exceeds the available context size (256 tokens)');
    expect(server.stats.faults.contextExceeded).toBe(1);
  });

  it('the digest is found whatever the case of the name (Mistral is mistral:latest)', async () => {
    const server = await fake();
    const info = await createOllamaClient({ host: server.url }).preflight('Mistral');
    expect(info).toEqual({ model: 'mistral:latest', digest: DEFAULT_MODELS[0]!.digest, contextLength: 32_768 });
  });
});

// The chat goes out without fetch; fetch stays for redirects. Every failure must read the same both ways.
describe.each(FAULTS)('fault through fetch and through dispatch: $name', (fault) => {
  it('is the same ModelError (code, message, retryable, status, Retry-After)', async () => {
    const server = await fake(() => fault.reply);
    const outcome = async (chatTransport: 'dispatch' | 'fetch'): Promise<Record<string, unknown>> => {
      const client = createOllamaClient({ host: server.url, chatTransport, ...(fault.maxReplyChars ? { maxReplyChars: fault.maxReplyChars } : {}) });
      const err = await failure(client.generate(request(fault.timeoutMs ? { timeoutMs: fault.timeoutMs } : {})));
      return { code: err.code, message: err.message, retryable: err.retryable, status: err.status, retryAfterMs: err.retryAfterMs };
    };
    expect(await outcome('dispatch')).toEqual(await outcome('fetch'));
  });
});

describe('chat transport', () => {
  it('a reply reads the same through fetch and through dispatch', async () => {
    const server = await fake();
    const viaFetch = await createOllamaClient({ host: server.url, chatTransport: 'fetch' }).generate(request());
    const viaDispatch = await createOllamaClient({ host: server.url }).generate(request());
    expect(viaDispatch).toEqual(viaFetch);
  });

  it('a 204 is the same BAD_RESPONSE ("Missing body") both ways', async () => {
    const server = await fake(() => ({ fault: { status: 204, body: '' } }));
    const outcome = async (chatTransport: 'dispatch' | 'fetch'): Promise<string> =>
      (await failure(createOllamaClient({ host: server.url, chatTransport }).generate(request()))).message;
    const message = await outcome('dispatch');
    expect(message).toBe(await outcome('fetch'));
    expect(message).toContain('Missing body');
  });

  it('a redirect is followed, as fetch follows it', async () => {
    const server = await fake();
    const { createServer } = await import('node:http');
    const proxy = createServer((req, res) => {
      req.resume();
      res.writeHead(307, { location: `${server.url}${req.url}` }).end();
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as { port: number };
      await expect(createOllamaClient({ host: `http://127.0.0.1:${port}` }).generate(request())).resolves.toMatchObject({ content: SHAPED });
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

describe('readLines', () => {
  const stream = (parts: (string | Uint8Array)[]): ReadableStream<Uint8Array> =>
    new ReadableStream({
      start(controller) {
        for (const part of parts) controller.enqueue(typeof part === 'string' ? new TextEncoder().encode(part) : part);
        controller.close();
      },
    });
  const read = async (parts: (string | Uint8Array)[], maxLineChars = 1_000): Promise<unknown[]> => {
    const objects: unknown[] = [];
    await readLines(stream(parts), new NdjsonLines(maxLineChars, (o) => objects.push(o), () => new Error('too long')));
    return objects;
  };

  it('parses objects split anywhere across reads, a last line without its newline, and CRLF', async () => {
    expect(await read(['{"a":', '1}\n{"b"', ':2}\r\n', '\n{"c":3}'])).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  it('decodes a character whose UTF-8 bytes are split between reads', async () => {
    const bytes = new TextEncoder().encode('{"t":"≥ 5 °C"}\n');
    const cut = bytes.indexOf(0xe2) + 1;
    expect(await read([bytes.slice(0, cut), bytes.slice(cut)])).toEqual([{ t: '≥ 5 °C' }]);
  });

  it('skips lines that are not JSON objects, as ollama-js does', async () => {
    expect(await read(['garbage\n', '5\n', '{"ok":true}\n', '\n'])).toEqual([{ ok: true }]);
  });

  it('stops a line that outgrows the cap', async () => {
    await expect(read(['x'.repeat(2_000)], 1_000)).rejects.toThrow('too long');
  });

  it('stops reading when the callback throws, and rethrows', async () => {
    const seen: unknown[] = [];
    const failing = readLines(stream(['{"n":1}\n{"n":2}\n']), new NdjsonLines(1_000, (o) => {
      seen.push(o);
      throw new Error('stop');
    }, () => new Error('too long')));
    await expect(failing).rejects.toThrow('stop');
    expect(seen).toEqual([{ n: 1 }]);
  });
});

describe('NdjsonLines: the plain-piece line read without JSON.parse of the line', () => {
  // What a ChatAccumulator reads of an object.
  const seen = (o: { message?: { content?: unknown; thinking?: unknown }; done?: unknown; error?: unknown }): string =>
    JSON.stringify([o.message?.content, o.message?.thinking, o.done, 'error' in o]);
  const ALPHABET = ['a', ' ', '"', '\\', '\n', '\t', '\u0001', '≥', '😀', '}', ',', 'u'];
  let seed = 7;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const text = (): string => Array.from({ length: random(6) }, () => ALPHABET[random(ALPHABET.length)]).join('');

  it('gives exactly what JSON.parse of each line gives, on lines of every shape', () => {
    const lines: string[] = [];
    for (let i = 0; i < 2_000; i++) {
      const head = { model: random(4) === 0 ? `m${text()}` : 'mistral:latest', created_at: random(4) === 0 ? text() : '2024-01-01T00:00:00Z' };
      const shapes = [
        () => JSON.stringify({ ...head, message: { role: 'assistant', content: text() }, done: false }),
        () => JSON.stringify({ ...head, message: { role: 'assistant', content: text(), thinking: text() }, done: false }),
        () => JSON.stringify({ ...head, message: { role: 'assistant', content: text() }, done: true, done_reason: 'stop' }),
        () => JSON.stringify({ error: text() }),
        () => JSON.stringify({ ...head, message: { role: 'assistant', content: text() }, done: false }).replace('"content":"', `"content":"${text()}`),
        () => JSON.stringify({ ...head, message: { role: 'assistant', content: text() }, done: false }) + (random(2) === 0 ? '\r' : ' '),
        () => JSON.stringify({ ...head, message: { role: 'assistant', content: text() }, done: false }).replace('"content":"', ['"content":"\\u00e9\\/', '"content":"\\uD83D\\uDE00', '"content":"\\ud800', '"content":"\\x', '"content":"\\u12'][random(5)]!),
      ];
      lines.push(shapes[random(shapes.length)]!());
    }
    const body = new TextEncoder().encode(lines.join('\n') + '\n');
    const reference: string[] = [];
    for (const line of lines) {
      try {
        const o: unknown = JSON.parse(line);
        if (o !== null && typeof o === 'object') reference.push(seen(o));
      } catch {
        // skipped, as the reader skips it
      }
    }
    const fast: string[] = [];
    let pieces = 0;
    const reader = new NdjsonLines(1_000_000, (o) => fast.push(seen(o)), () => new Error('too long'), (content) => {
      pieces += 1;
      fast.push(seen({ message: { content }, done: false }));
    });
    for (let at = 0; at < body.length; ) {
      const end = Math.min(body.length, at + 1 + random(300));
      reader.push(body.subarray(at, end));
      at = end;
    }
    reader.end();
    expect(fast).toEqual(reference);
    expect(pieces).toBeGreaterThan(100);
  });
});

describe('a reply read to its end', () => {
  it('is taken to its end, never cut by an abort of the finished request', async () => {
    const delivered: boolean[] = [];
    const server = await startFakeOllama({ onReplied: (_req, ok) => delivered.push(ok) });
    servers.push(server);
    const client = createOllamaClient({ host: server.url });
    for (let i = 0; i < 3; i++) await expect(client.generate(request())).resolves.toMatchObject({ content: SHAPED });
    expect(delivered).toEqual([true, true, true]);
    expect(server.stats.replies).toBe(3);
  });
});
