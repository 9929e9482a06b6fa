import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DEFAULT_MODELS, startFakeOllama, type FakeOllama, type FakeOllamaOptions, type FakeRequest, type FakeStats } from './fake-ollama.js';

// The OpenAI-compatible face of the fake server, the way Ollama itself serves /v1 next to its own
// API. It runs the fake Ollama as its engine and translates: an OpenAI chat request becomes an
// /api/chat request, the NDJSON stream comes back as server-sent events, `{"error"}` bodies get
// OpenAI's shape. So both faces share one set of slots, latencies and fault kinds, and a fault
// scripted once behaves alike on either. Ollama's own paths are forwarded untouched, and the face
// can listen on a given port, so a test can stop a host and bring it back where it was.

export interface FakeOpenAiOptions extends FakeOllamaOptions {
  // When set, every /v1 request must carry `Authorization: Bearer <apiKey>`.
  apiKey?: string | null;
  port?: number;
  // llama-server's start: for this long after listening, every route answers 503 "Loading model"
  // (tools/server/server-http.cpp), /v1/models included.
  loadingMs?: number;
  // llama-server's physical batch (-ub): an /v1/embeddings input of more tokens is refused with its
  // 500 (server-context.cpp); unset, an input over the context gets vLLM's 400 instead.
  embedBatchTokens?: number;
  // How the prompt cache shows in usage. 'none' (the default): no prompt_tokens_details, as vLLM
  // without --enable-prompt-tokens-details. 'prefix': llama-server's reading — the tokens a prompt
  // shares as a prefix with the longest-matching earlier prompt come from the cache, given as
  // usage.prompt_tokens_details.cached_tokens and timings {cache_n, prompt_n} (tools/server/
  // server-task.cpp usage_json_oaicompat, server-common.cpp server_slot_stats::to_json). The
  // counts depend on the order prompts arrive: tests that read them send one request at a time.
  promptCache?: 'none' | 'prefix';
}

export interface FakeOpenAi {
  url: string;
  port: number;
  close(): Promise<void>;
  stats: FakeStats;
  requests: any[];
  // The Authorization header of every /v1 request, null when there was none.
  authorizations: (string | null)[];
  engine: FakeOllama;
}

export const CHAT_PATH = '/v1/chat/completions';
export const EMBEDDINGS_PATH = '/v1/embeddings';
export const MODELS_PATH = '/v1/models';
// Fixed so that fake replies are byte-identical across runs.
export const CREATED = 1_735_689_600;
export const SYSTEM_FINGERPRINT = 'fp_fake';

const JSON_TYPE = 'application/json; charset=utf-8';
const SSE_TYPE = 'text/event-stream; charset=utf-8';
const NDJSON_TYPE = 'application/x-ndjson';
// The translated request carries the client's own body along, for scripts to read.
const ORIGINAL = '__openai';
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

export async function startFakeOpenAi(opts: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const { apiKey = null, port = 0, loadingMs = 0, promptCache = 'none', respond, embedBatchTokens, ...engineOpts } = opts;
  const seenPrompts: string[] = [];
  const models = opts.models ?? DEFAULT_MODELS;
  const engine = await startFakeOllama({
    ...engineOpts,
    ...(respond ? { respond: (req: FakeRequest) => respond(scriptView(req)) } : {}),
  });

  const own = { requests: 0, byPath: {} as Record<string, number>, faults: {} as Record<string, number> };
  const stats: FakeStats = {
    get requests() {
      return own.requests;
    },
    get byPath() {
      return own.byPath;
    },
    get generations() {
      return engine.stats.generations;
    },
    get maxInFlight() {
      return engine.stats.maxInFlight;
    },
    get replies() {
      return engine.stats.replies;
    },
    get faults() {
      const merged = { ...engine.stats.faults };
      for (const [name, n] of Object.entries(own.faults)) merged[name] = (merged[name] ?? 0) + n;
      return merged;
    },
  };
  const requests: any[] = [];
  const authorizations: (string | null)[] = [];
  const sockets = new Set<Socket>();
  let closed = false;

  const countFault = (name: string): void => {
    own.faults[name] = (own.faults[name] ?? 0) + 1;
  };

  const authorised = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    if (apiKey === null) return true;
    const header = req.headers.authorization ?? '';
    if (header === `Bearer ${apiKey}`) return true;
    countFault('auth401');
    // Like OpenAI, the refusal quotes the key it was given (OpenAI masks it; this one does not,
    // which is the worst a client may meet).
    const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    const message = presented === '' ? "You didn't provide an API key." : `Incorrect API key provided: ${presented}.`;
    sendError(res, 401, message, 'invalid_api_key');
    return false;
  };

  // Relays one engine request; answers nothing and drops the connection when the engine did.
  const upstream = async (req: http.IncomingMessage, res: http.ServerResponse, path: string, init: RequestInit): Promise<Response | null> => {
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    try {
      return await fetch(`${engine.url}${path}`, { ...init, signal: controller.signal });
    } catch {
      req.socket.destroy();
      return null;
    }
  };

  const chat = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const body = parseJson(raw);
    requests.push(body === undefined ? raw : body);
    if (body === undefined || body === null || typeof body !== 'object') return sendError(res, 400, 'invalid JSON request body');
    if (typeof body.model !== 'string' || body.model === '') {
      countFault('error400');
      return sendError(res, 400, 'model is required');
    }
    if (!findModel(models, body.model)) {
      countFault('model404');
      return sendError(res, 404, `The model \`${body.model}\` does not exist.`, 'model_not_found');
    }
    const response = await upstream(req, res, '/api/chat', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...requestIdOf(req) },
      body: JSON.stringify(toOllamaChat(body)),
    });
    if (response === null) return;
    const type = response.headers.get('content-type') ?? '';
    if (response.status !== 200 || !type.startsWith(NDJSON_TYPE)) return relay(req, res, response, true);
    const stream = body.stream === true;
    const includeUsage = stream ? body.stream_options?.include_usage === true : true;
    const translator = new ChunkTranslator(body.model, requests.length - 1);
    const cachedChars = promptCache === 'prefix' ? longestSharedPrefix(seenPrompts, promptText(body)) : null;
    if (promptCache === 'prefix') seenPrompts.push(promptText(body));
    if (stream) res.writeHead(200, { 'Content-Type': SSE_TYPE, 'Cache-Control': 'no-cache' });
    let content = '';
    const outcome = await eachLine(response, async (line) => {
      const object = parseJson(line);
      if (object?.error !== undefined) {
        if (!stream) {
          sendError(res, 500, String(object.error));
          return false;
        }
        // vLLM's way: the error as an event, then the end marker anyway.
        await writeFlushed(res, sse({ error: { message: String(object.error), type: 'server_error', param: null, code: 500 } }));
        await writeFlushed(res, 'data: [DONE]\n\n');
        res.end();
        return false;
      }
      const piece = typeof object?.message?.content === 'string' ? object.message.content : '';
      const thought = typeof object?.message?.thinking === 'string' ? object.message.thinking : '';
      if (thought !== '' && stream && object?.done !== true) return writeFlushed(res, sse(translator.delta(thought, 'reasoning_content')));
      if (object?.done !== true) {
        if (stream) return writeFlushed(res, sse(translator.delta(piece)));
        content += piece;
        return true;
      }
      const finishReason = typeof object.done_reason === 'string' ? object.done_reason : 'stop';
      const usage = typeof object.eval_count === 'number' ? usageOf(object.prompt_eval_count, object.eval_count, cachedChars) : null;
      if (!stream) {
        sendJson(res, 200, translator.completion(content + piece, finishReason, usage));
        return false;
      }
      if (piece !== '' && !(await writeFlushed(res, sse(translator.delta(piece))))) return false;
      if (!(await writeFlushed(res, sse(translator.finish(finishReason))))) return false;
      if (includeUsage && usage !== null && !(await writeFlushed(res, sse(translator.usage(usage))))) return false;
      if (await writeFlushed(res, 'data: [DONE]\n\n')) res.end();
      return false;
    });
    // An engine stream that stops without its final object ends the events without [DONE] too.
    if (outcome === 'ended' && stream) res.end();
    else if (outcome !== 'answered') req.socket.destroy();
  };

  // /v1/embeddings over the engine's /api/embed (with truncate: false: no OpenAI-compatible
  // server cuts an input), in OpenAI's list shape with usage.
  const embeddings = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const body = parseJson(raw);
    requests.push(body === undefined ? raw : body);
    if (body === undefined || body === null || typeof body !== 'object') return sendError(res, 400, 'invalid JSON request body');
    const input: unknown[] = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input : [];
    if (input.length === 0 || !input.every((x) => typeof x === 'string')) return sendError(res, 400, '"input" or "content" must be provided');
    if (input.some((x) => x === '')) return sendError(res, 400, 'Input content cannot be empty');
    if (!findModel(models, String(body.model ?? ''))) return sendError(res, 404, `The model \`${body.model}\` does not exist.`, 'model_not_found');
    const tokens = (input as string[]).map((text) => Math.max(1, Math.ceil(text.length / 4)));
    const over = embedBatchTokens === undefined ? -1 : tokens.findIndex((n) => n > embedBatchTokens);
    if (over >= 0) {
      countFault('inputTooLarge');
      return sendError(res, 500, `input (${tokens[over]} tokens) is too large to process. increase the physical batch size (current batch size: ${embedBatchTokens})`);
    }
    const response = await upstream(req, res, '/api/embed', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: body.model, input, truncate: false, ...(typeof body.dimensions === 'number' ? { dimensions: body.dimensions } : {}) }),
    });
    if (response === null) return;
    const reply = parseJson(await response.text());
    if (response.status === 400 && String(reply?.error ?? '').includes('exceeds the context length')) {
      return sendError(res, 400, `This model's maximum context length is exceeded. However, you requested ${Math.max(...tokens)} tokens in the input for embedding generation. Please reduce the length of the input.`);
    }
    if (response.status !== 200) return sendError(res, response.status, String(reply?.error ?? 'engine failure'));
    const total = tokens.reduce((a, b) => a + b, 0);
    sendJson(res, 200, {
      object: 'list',
      data: (reply.embeddings as number[][]).map((embedding, index) => ({ object: 'embedding', embedding, index })),
      model: body.model,
      usage: { prompt_tokens: total, total_tokens: total },
    });
  };

  // Forwards a response as it is, except that engine error bodies take OpenAI's shape on /v1.
  const relay = async (req: http.IncomingMessage, res: http.ServerResponse, response: Response, openAiErrors: boolean): Promise<void> => {
    if (openAiErrors && response.status >= 400) {
      const text = await response.text().catch(() => null);
      if (text === null) return void req.socket.destroy();
      const parsed = parseJson(text);
      if (typeof parsed?.error === 'string') {
        res.writeHead(response.status, forwardedHeaders(response));
        res.end(JSON.stringify(errorBody(response.status, parsed.error)));
        return;
      }
      res.writeHead(response.status, forwardedHeaders(response));
      res.end(text);
      return;
    }
    res.writeHead(response.status, forwardedHeaders(response));
    const ok = await eachChunk(response, (chunk) => writeFlushed(res, chunk));
    if (ok) res.end();
    else req.socket.destroy();
  };

  const forward = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const hasBody = method !== 'GET' && method !== 'HEAD';
    const raw = hasBody ? await readBody(req) : undefined;
    if (raw !== undefined) requests.push(parseJson(raw) ?? raw);
    const type = req.headers['content-type'];
    const response = await upstream(req, res, req.url ?? '/', {
      method,
      headers: { ...(type ? { 'Content-Type': type } : {}), ...requestIdOf(req) },
      ...(raw !== undefined ? { body: raw } : {}),
    });
    if (response !== null) await relay(req, res, response, false);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    own.requests += 1;
    own.byPath[path] = (own.byPath[path] ?? 0) + 1;
    if (Date.now() < loadedAt) {
      countFault('loading503');
      res.writeHead(503, { 'Content-Type': JSON_TYPE });
      res.end(JSON.stringify({ error: { code: 503, message: 'Loading model', type: 'unavailable_error' } }));
      return;
    }
    if (!path.startsWith('/v1/')) return forward(req, res);
    authorizations.push(req.headers.authorization ?? null);
    if (!authorised(req, res)) return;
    if (req.method === 'GET' && path === MODELS_PATH) return sendJson(res, 200, modelList(models));
    if (req.method === 'POST' && path === CHAT_PATH) return chat(req, res);
    if (req.method === 'POST' && path === EMBEDDINGS_PATH) return embeddings(req, res);
    return sendError(res, 404, `no route for ${req.method} ${path}`, 'not_found');
  };

  const server = http.createServer((req, res) => {
    req.on('error', () => {});
    res.on('error', () => {});
    handle(req, res).catch(() => {
      if (!res.headersSent) sendError(res, 500, 'fake server failure');
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const loadedAt = Date.now() + loadingMs;

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    for (const socket of sockets) socket.destroy();
    await Promise.all([new Promise<void>((resolve) => server.close(() => resolve())), engine.close()]);
  };

  return { url: `http://127.0.0.1:${bound}`, port: bound, close, stats, requests, authorizations, engine };
}

// The engine sees the request's X-Request-Id as it was sent.
function requestIdOf(req: http.IncomingMessage): Record<string, string> {
  const id = req.headers['x-request-id'];
  return typeof id === 'string' ? { 'X-Request-Id': id } : {};
}

function scriptView(req: FakeRequest): FakeRequest {
  const original = req.body?.[ORIGINAL];
  return original === undefined ? req : { path: CHAT_PATH, body: original, index: req.index, ...(req.requestId === undefined ? {} : { requestId: req.requestId }) };
}

// The engine streams in every case; the face decides between events and one JSON object.
function toOllamaChat(body: any): Record<string, unknown> {
  const format = body.response_format;
  const schema = format?.type === 'json_schema' ? format.json_schema?.schema : format?.type === 'json_object' ? 'json' : undefined;
  const options: Record<string, unknown> = {};
  if (body.temperature !== undefined) options.temperature = body.temperature;
  if (body.seed !== undefined) options.seed = body.seed;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined) options.num_predict = maxTokens;
  // The thinking switches of vLLM, SGLang and llama-server: chat_template_kwargs.enable_thinking
  // (llama-server: server-common.cpp reads the kwarg into inputs.enable_thinking), and
  // reasoning_effort "none" (llama-server). Without one, a thinking model reasons first.
  const enable = body.chat_template_kwargs?.enable_thinking;
  const think = enable === false || body.reasoning_effort === 'none' ? false : enable === true ? true : undefined;
  return {
    model: body.model,
    messages: Array.isArray(body.messages) ? body.messages : [],
    ...(schema !== undefined ? { format: schema } : {}),
    options,
    ...(think === undefined ? {} : { think }),
    stream: true,
    [ORIGINAL]: body,
  };
}

class ChunkTranslator {
  private first = true;
  private readonly head: Record<string, unknown>;

  constructor(model: string, index: number) {
    this.head = { id: `chatcmpl-fake-${index}`, object: 'chat.completion.chunk', created: CREATED, model, system_fingerprint: SYSTEM_FINGERPRINT };
  }

  // A thinking model's reasoning goes out as reasoning_content, as llama-server and vLLM send it.
  delta(piece: string, field: 'content' | 'reasoning_content' = 'content'): Record<string, unknown> {
    const delta = this.first ? { role: 'assistant', [field]: piece } : { [field]: piece };
    this.first = false;
    return this.chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]);
  }

  finish(reason: string): Record<string, unknown> {
    return this.chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: reason }]);
  }

  usage(usage: Record<string, unknown>): Record<string, unknown> {
    const { [TIMINGS]: timings, ...counts } = usage;
    return { ...this.chunk([]), usage: counts, ...(timings === undefined ? {} : { timings }) };
  }

  completion(content: string, reason: string, usage: Record<string, unknown> | null): Record<string, unknown> {
    const { [TIMINGS]: timings, ...counts } = usage ?? {};
    return {
      ...this.head,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: reason }],
      ...(usage !== null ? { usage: counts } : {}),
      ...(timings === undefined ? {} : { timings }),
    };
  }

  private chunk(choices: unknown[]): Record<string, unknown> {
    return { ...this.head, choices };
  }
}

// The engine counts about four characters a token (fake-ollama's promptTokensOf); so does the cache here.
const CHARS_PER_TOKEN = 4;

function usageOf(prompt: unknown, completion: number, cachedChars: number | null): Record<string, unknown> {
  const promptTokens = typeof prompt === 'number' ? prompt : 0;
  const usage: Record<string, unknown> = { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion };
  if (cachedChars === null) return usage;
  // llama-server always evaluates at least the prompt's last token.
  const cached = Math.min(Math.floor(cachedChars / CHARS_PER_TOKEN), Math.max(0, promptTokens - 1));
  return { ...usage, prompt_tokens_details: { cached_tokens: cached }, [TIMINGS]: { cache_n: cached, prompt_n: promptTokens - cached } };
}

// usageOf's timings ride along with the usage and go out beside it, as llama-server sends them.
const TIMINGS = '__timings';

function promptText(body: any): string {
  return Array.isArray(body.messages) ? body.messages.map((m: any) => (typeof m?.content === 'string' ? m.content : '')).join('\n') : '';
}

function longestSharedPrefix(earlier: readonly string[], prompt: string): number {
  let best = 0;
  for (const other of earlier) {
    let i = 0;
    while (i < other.length && i < prompt.length && other.charCodeAt(i) === prompt.charCodeAt(i)) i++;
    if (i > best) best = i;
  }
  return best;
}

function modelList(models: readonly { name: string }[]): Record<string, unknown> {
  return { object: 'list', data: models.map((m) => ({ id: m.name, object: 'model', created: CREATED, owned_by: 'library' })) };
}

function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

function errorBody(status: number, message: string, code: string | number | null = status): Record<string, unknown> {
  return { error: { message, type: errorType(status), param: null, code } };
}

function sendError(res: http.ServerResponse, status: number, message: string, code?: string): void {
  sendJson(res, status, errorBody(status, message, code ?? status));
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function sse(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

function forwardedHeaders(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name)) headers[name] = value;
  });
  return headers;
}

// Resolves once the bytes left the process, so a fault that destroys the socket next cannot drop them.
function writeFlushed(res: http.ServerResponse, text: string | Uint8Array): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => res.write(text, (err) => resolve(!err && !res.destroyed)));
}

// Calls `each` per chunk until it returns false; resolves false when the engine's body broke off
// or `each` stopped early without finishing the response.
async function eachChunk(response: Response, each: (chunk: Uint8Array) => Promise<boolean>): Promise<boolean> {
  const reader = response.body?.getReader();
  if (reader === undefined) return true;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return true;
      if (!(await each(value))) {
        await reader.cancel().catch(() => {});
        return false;
      }
    }
  } catch {
    return false;
  }
}

// Line by line over NDJSON; `each` returns false when it has answered and wants no more lines.
async function eachLine(response: Response, each: (line: string) => Promise<boolean>): Promise<'answered' | 'ended' | 'broken'> {
  const decoder = new TextDecoder();
  let buffer = '';
  let answered = false;
  const ok = await eachChunk(response, async (chunk) => {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line !== '' && !(await each(line))) {
        answered = true;
        return false;
      }
      newline = buffer.indexOf('\n');
    }
    return true;
  });
  if (answered) return 'answered';
  return ok ? 'ended' : 'broken';
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function withDefaultTag(name: string): string {
  const lastSegment = name.slice(name.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? name : `${name}:latest`;
}

function findModel(models: readonly { name: string }[], name: string): boolean {
  const wanted = withDefaultTag(name);
  return models.some((m) => withDefaultTag(m.name) === wanted);
}
