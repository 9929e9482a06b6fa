import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

// A real HTTP server speaking the parts of Ollama's API that rca uses, with scriptable faults, so
// client and generate-stage tests run against actual sockets without a model.

export type FakeFault =
  | 'busy503'
  | 'error500'
  | 'error400'
  | 'model404'
  | 'reset'
  | 'slowHeaders'
  | 'slowBody'
  | 'midStreamError'
  | 'missingMetrics'
  | 'length'
  | 'huge'
  // Ollama's repetition abort (llama_server.go): the pieces, then the stream ends without `done`.
  | 'repeatAbort'
  | { status: number; body: string; headers?: Record<string, string> };

// `thinking`: reasoning streamed as message.thinking before the content, as a thinking model does
// unless the request says think: false.
export type FakeReply = { content: string; doneReason?: string; thinking?: string } | { fault: FakeFault; content?: string; delayMs?: number };

/** A served model: its digest, and what /api/show says of it. */
export interface FakeModel {
  name: string;
  digest: string;
  /** Default ['completion']; an embedding model has ['embedding'], a thinking one adds 'thinking'. */
  capabilities?: string[];
  /** model_info.<arch>.context_length; default 32768. */
  contextLength?: number;
  /** The length of its /api/embed vectors; default 64. */
  dims?: number;
}

export interface FakeRequest {
  path: string;
  body: any;
  index: number;
  /** The request's X-Request-Id header, decoded (rca sends `<input id> <view>`); absent when none was sent. */
  requestId?: string;
}

export interface FakeOllamaOptions {
  models?: FakeModel[];
  latencyMs?: number;
  slots?: number;
  maxQueue?: number;
  /** How long a model load (a chat without messages) takes. */
  loadMs?: number;
  respond?: (req: FakeRequest) => FakeReply;
  /** The port to listen on (default: any free one). */
  port?: number;
  /** After a generation reply: `delivered` false when the client left before its end (an aborted request). */
  onReplied?: (req: FakeRequest, delivered: boolean) => void;
  /** A fault for an /api/embed request (its index counts embed requests), or null for a good reply. */
  embedFault?: (req: FakeRequest) => FakeFault | null;
}

export interface FakeStats {
  requests: number;
  /** Chat requests without messages: model loads (counted in byPath['/api/chat'] too). */
  loads?: number;
  byPath: Record<string, number>;
  generations: number;
  faults: Record<string, number>;
  maxInFlight: number;
  /** Generation replies sent to their end: a test tells "cancelled before the reply" by order, not by the clock. */
  replies: number;
  /** /api/embed batches answered. */
  embeds?: number;
}

export interface FakeOllama {
  url: string;
  close(): Promise<void>;
  stats: FakeStats;
  requests: any[];
}

export const FAKE_VERSION = '0.12.6';
export const BUSY_MESSAGE = 'server busy, please try again.  maximum pending requests exceeded';
export const RUNNER_FAILED_MESSAGE = 'llama runner process has terminated: exit status 2';
export const BAD_REQUEST_MESSAGE = 'json: cannot unmarshal string into Go struct field ChatRequest.options of type int';
export const MID_STREAM_MESSAGE = 'an error was encountered while running the model: unexpected EOF';
export const DEFAULT_THINKING = 'The chunk describes a procedure step; the reply must copy its terms exactly.';
// The tokens a prompt counts here, as prompt_eval_count reports them: about four characters each.
export const FAKE_CHARS_PER_TOKEN = 4;
export const DEFAULT_MODELS: readonly FakeModel[] = [
  { name: 'mistral:latest', digest: 'f974a74358d62a017b37c6f424fcdf2744ca02926c4f952513ddf474b2fa5091' },
];
export const HUGE_REPLY_CHARS = 4 * 1024 * 1024;
export const DEFAULT_SLOW_MS = 1_000;

// Fixed so that fake replies are byte-identical across runs.
const CREATED_AT = '2025-01-01T00:00:00.000000000Z';
const PIECE_CHARS = 8;
const HUGE_PIECE_CHARS = 64 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';
const NDJSON_TYPE = 'application/x-ndjson';

const IMMEDIATE_FAULTS = new Set<FakeFault>(['busy503', 'error500', 'error400', 'model404']);

export function faultName(fault: FakeFault): string {
  return typeof fault === 'string' ? fault : `http${fault.status}`;
}

export async function startFakeOllama(opts: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const models = opts.models ?? DEFAULT_MODELS;
  const latencyMs = opts.latencyMs ?? 0;
  const slots = Math.max(1, opts.slots ?? 1);
  const maxQueue = opts.maxQueue ?? 512;
  const loadMs = opts.loadMs ?? 0;
  const respond = opts.respond ?? schemaShapedReply;

  const stats: FakeStats = { requests: 0, loads: 0, byPath: {}, generations: 0, faults: {}, maxInFlight: 0, replies: 0 };
  const requests: any[] = [];
  const sockets = new Set<Socket>();
  const cancellers = new Set<() => void>();
  const waiting: ((granted: boolean) => void)[] = [];
  let inFlight = 0;
  let generationIndex = 0;
  let embedIndex = 0;
  let closed = false;

  const countFault = (name: string): void => {
    stats.faults[name] = (stats.faults[name] ?? 0) + 1;
  };

  // Resolves false when the wait was cut short by the client leaving or the server closing.
  const pause = (ms: number, res: http.ServerResponse): Promise<boolean> => {
    if (closed || res.destroyed) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (completed: boolean): void => {
        clearTimeout(timer);
        res.off('close', onClose);
        cancellers.delete(onClose);
        resolve(completed && !closed && !res.destroyed);
      };
      const onClose = (): void => finish(false);
      const timer = setTimeout(() => finish(true), ms);
      res.on('close', onClose);
      cancellers.add(onClose);
    });
  };

  // Ollama runs OLLAMA_NUM_PARALLEL generations and queues the rest; a freed slot passes straight
  // to the next waiter so the count never dips between them.
  const acquireSlot = (res: http.ServerResponse): Promise<boolean> => {
    if (inFlight < slots) {
      inFlight += 1;
      stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = (granted: boolean): void => {
        res.off('close', onClose);
        cancellers.delete(onClose);
        if (granted) stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
        resolve(granted);
      };
      const onClose = (): void => {
        const at = waiting.indexOf(grant);
        if (at >= 0) waiting.splice(at, 1);
        grant(false);
      };
      waiting.push(grant);
      res.on('close', onClose);
      cancellers.add(onClose);
    });
  };

  const releaseSlot = (): void => {
    const next = waiting.shift();
    if (next) next(true);
    else inFlight -= 1;
  };

  // flush: resolve only once the bytes left the process, for faults that destroy the socket next
  // (http corks the first write until the next tick, and destroy() drops what is still buffered).
  const write = async (res: http.ServerResponse, text: string, flush = false): Promise<boolean> => {
    if (closed || res.destroyed) return false;
    if (flush) {
      await new Promise<void>((resolve) => res.write(text, () => resolve()));
    } else if (!res.write(text)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
    return !closed && !res.destroyed;
  };

  const generation = async (path: string, body: any, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    if (typeof body?.model !== 'string' || body.model === '') {
      countFault('error400');
      sendJson(res, 400, { error: 'model is required' });
      return;
    }
    if (!findModel(models, body.model)) {
      countFault('model404');
      sendJson(res, 404, { error: `model "${body.model}" not found, try pulling it first` });
      return;
    }
    // A chat request without messages only loads the model (routes.go): done_reason "load".
    if (path === '/api/chat' && Array.isArray(body.messages) && body.messages.length === 0) {
      stats.loads = (stats.loads ?? 0) + 1;
      if (!(await pause(loadMs, res))) {
        countFault('loadAborted');
        return;
      }
      sendJson(res, 200, { model: body.model, created_at: CREATED_AT, message: { role: 'assistant', content: '' }, done_reason: 'load', done: true });
      return;
    }
    // A prompt longer than num_ctx: with truncate false, llama-server's refusal relayed as a 400;
    // otherwise Ollama cuts its head silently (planReply counts what is left).
    const numCtx = Number(body.options?.num_ctx ?? 0);
    if (numCtx > 0 && body.truncate === false && promptTokensOf(path, body) > numCtx) {
      countFault('contextExceeded');
      const tokens = promptTokensOf(path, body);
      const inner = { error: { code: 400, message: `request (${tokens} tokens) exceeds the available context size (${numCtx} tokens), try increasing it`, type: 'exceed_context_size_error', n_prompt_tokens: tokens, n_ctx: numCtx } };
      sendJson(res, 400, { error: JSON.stringify(inner) });
      return;
    }
    const request: FakeRequest = { path, body, index: generationIndex++, ...requestIdOf(req) };
    const reply = respond(request);
    if (opts.onReplied) res.on('close', () => opts.onReplied!(request, res.writableFinished));
    const fault = 'fault' in reply ? reply.fault : null;
    const delayMs = 'fault' in reply ? reply.delayMs : undefined;
    if (fault !== null) countFault(faultName(fault));

    if (fault !== null && (IMMEDIATE_FAULTS.has(fault) || typeof fault === 'object')) {
      if (!(await pause(delayMs ?? 0, res))) return;
      sendFault(res, fault, body.model);
      return;
    }
    if (fault === 'reset' && reply.content === undefined) {
      if (await pause(delayMs ?? 0, res)) req.socket.destroy();
      return;
    }
    if (inFlight >= slots && waiting.length >= maxQueue) {
      countFault('busy503');
      sendJson(res, 503, { error: BUSY_MESSAGE });
      return;
    }
    if (!(await acquireSlot(res))) return;
    stats.generations += 1;
    try {
      if (!(await pause(latencyMs, res))) return;
      if (fault === 'slowHeaders' && !(await pause(delayMs ?? DEFAULT_SLOW_MS, res))) return;
      const model = findModel(models, body.model)!;
      const plan = planReply(path, body, reply, fault, latencyMs, (model.capabilities ?? []).includes('thinking'));
      const streaming = body.stream !== false;
      await (streaming ? streamReply(res, plan, fault, delayMs) : wholeReply(res, plan, fault, delayMs));
      if (res.writableEnded) stats.replies += 1;
    } finally {
      releaseSlot();
    }
  };

  const streamReply = async (res: http.ServerResponse, plan: ReplyPlan, fault: FakeFault | null, delayMs?: number): Promise<void> => {
    res.writeHead(200, { 'Content-Type': NDJSON_TYPE });
    const count = plan.pieces.length;
    // Mid-reply faults strike after at least one piece when there is one, so a client sees content first.
    const cutAt = Math.min(count, Math.max(1, Math.floor(count / 2)));
    for (let i = 0; i <= count; i += 1) {
      if (i === cutAt) {
        if (fault === 'midStreamError') {
          if (await write(res, `${JSON.stringify({ error: MID_STREAM_MESSAGE })}\n`)) res.end();
          return;
        }
        if (fault === 'reset') {
          res.socket?.destroy();
          return;
        }
        if (fault === 'slowBody' && !(await pause(delayMs ?? DEFAULT_SLOW_MS, res))) return;
      }
      if (i === count) break;
      if (!(await write(res, `${JSON.stringify(plan.chunk(plan.pieces[i] ?? ''))}\n`, fault === 'reset'))) return;
    }
    if (fault === 'repeatAbort') {
      res.end();
      return;
    }
    if (await write(res, `${JSON.stringify(plan.final(''))}\n`)) res.end();
  };

  const wholeReply = async (res: http.ServerResponse, plan: ReplyPlan, fault: FakeFault | null, delayMs?: number): Promise<void> => {
    if (fault === 'midStreamError') {
      sendJson(res, 500, { error: MID_STREAM_MESSAGE });
      return;
    }
    if (fault === 'reset') {
      res.socket?.destroy();
      return;
    }
    const text = JSON.stringify(plan.final(plan.pieces.join('')));
    res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) });
    const pieceChars = fault === 'huge' ? HUGE_PIECE_CHARS : Math.ceil(text.length / 2);
    for (let at = 0; at < text.length; at += pieceChars) {
      // slowBody: the first half goes out, then the body stalls before the rest.
      if (at > 0 && fault === 'slowBody' && at === pieceChars && !(await pause(delayMs ?? DEFAULT_SLOW_MS, res))) return;
      if (!(await write(res, text.slice(at, at + pieceChars)))) return;
    }
    res.end();
  };

  // /api/embed as routes.go EmbedHandler answers it: any model embeds; an input over the context
  // (the model's, or options.num_ctx when lower) is cut silently unless truncate is false, which
  // makes it a 400 that fails the whole batch; vectors are L2-normalised, and cut to `dimensions`
  // (then normalised again) only when that is shorter. The vector is a hashed bag of the text's
  // words: texts that share words are near, which is all a test of the plumbing needs.
  const embedRoute = async (body: any, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    if (typeof body?.model !== 'string' || body.model === '') return sendJson(res, 400, { error: 'model is required' });
    const model = findModel(models, body.model);
    if (!model) {
      countFault('model404');
      return sendJson(res, 404, { error: `model '${body.model}' not found` });
    }
    const raw = body.input;
    let input: string[];
    if (typeof raw === 'string') input = raw === '' ? [] : [raw];
    else if (Array.isArray(raw) && raw.every((x: unknown) => typeof x === 'string')) input = raw;
    else if (raw === undefined || raw === null) input = [];
    else return sendJson(res, 400, { error: 'invalid input type' });
    const request = { path: '/api/embed', body, index: embedIndex++ };
    const fault = opts.embedFault?.(request) ?? null;
    if (fault !== null) {
      countFault(faultName(fault));
      if (fault === 'reset') return void req.socket.destroy();
      if (IMMEDIATE_FAULTS.has(fault) || typeof fault === 'object') return sendFault(res, fault, body.model);
    }
    if (input.length === 0) return sendJson(res, 200, { model: body.model, embeddings: [] });
    const numCtx = Number(body.options?.num_ctx ?? 0);
    const context = numCtx > 0 ? Math.min(numCtx, model.contextLength ?? 32_768) : (model.contextLength ?? 32_768);
    const tokens = (text: string) => Math.max(1, Math.ceil(text.length / FAKE_CHARS_PER_TOKEN));
    if (body.truncate === false && input.some((text) => tokens(text) > context)) {
      countFault('inputTooLong');
      return sendJson(res, 400, { error: 'the input length exceeds the context length' });
    }
    if (!(await acquireSlot(res))) return;
    try {
      stats.embeds = (stats.embeds ?? 0) + 1;
      if (!(await pause(latencyMs, res))) return;
      const kept = input.map((text) => (tokens(text) > context ? text.slice(0, context * FAKE_CHARS_PER_TOKEN) : text));
      const dims = model.dims ?? DEFAULT_EMBED_DIMS;
      const cut = typeof body.dimensions === 'number' && body.dimensions > 0 && body.dimensions < dims ? body.dimensions : dims;
      const embeddings = kept.map((text) => fakeEmbedding(text, dims).slice(0, cut)).map(normalised);
      const promptEvalCount = kept.reduce((n, text) => n + tokens(text), 0);
      sendJson(res, 200, { model: body.model, embeddings, total_duration: 1_000_000 + promptEvalCount * 100_000, load_duration: 1_000_000, prompt_eval_count: promptEvalCount });
    } finally {
      releaseSlot();
    }
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    stats.requests += 1;
    stats.byPath[path] = (stats.byPath[path] ?? 0) + 1;
    const method = req.method ?? 'GET';

    if (method === 'GET' || method === 'HEAD') {
      if (path === '/') return sendText(res, 200, 'Ollama is running');
      if (path === '/api/version') return sendJson(res, 200, { version: FAKE_VERSION });
      if (path === '/api/tags') return sendJson(res, 200, { models: models.map(tagEntry) });
      return sendText(res, 404, '404 page not found');
    }
    if (method !== 'POST') return sendText(res, 404, '404 page not found');

    const raw = await readBody(req);
    const body = parseJson(raw);
    requests.push(body === undefined ? raw : body);
    if (body === undefined || body === null || typeof body !== 'object') {
      return sendJson(res, 400, { error: 'invalid JSON request body' });
    }
    if (path === '/api/show') {
      const name = String(body.model ?? body.name ?? '');
      const model = findModel(models, name);
      if (!model) return sendJson(res, 404, { error: `model '${name}' not found` });
      return sendJson(res, 200, showEntry(model));
    }
    if (path === '/api/chat' || path === '/api/generate') return generation(path, body, req, res);
    if (path === '/api/embed') return embedRoute(body, req, res);
    return sendText(res, 404, '404 page not found');
  };

  const server = http.createServer((req, res) => {
    req.on('error', () => {});
    res.on('error', () => {});
    handle(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { error: 'fake server failure' });
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
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    for (const cancel of [...cancellers]) cancel();
    for (const grant of waiting.splice(0)) grant(false);
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  return { url: `http://127.0.0.1:${port}`, close, stats, requests };
}

interface ReplyPlan {
  pieces: string[];
  chunk(piece: string): Record<string, unknown>;
  final(content: string): Record<string, unknown>;
}

function promptTokensOf(path: string, body: any): number {
  const chars = path === '/api/chat'
    ? (Array.isArray(body.messages) ? body.messages : []).reduce((n: number, m: any) => n + String(m?.content ?? '').length, 0)
    : String(body.prompt ?? '').length;
  return Math.max(1, Math.ceil(chars / FAKE_CHARS_PER_TOKEN));
}

// Thinking pieces are marked so the chunk builder can put them in message.thinking.
const THINKING_MARK = '\u0000thinking:';

function planReply(path: string, body: any, reply: FakeReply, fault: FakeFault | null, latencyMs: number, thinks: boolean): ReplyPlan {
  const isChat = path === '/api/chat';
  let content = reply.content ?? schemaShapedContent(body);
  const scriptedThinking = 'thinking' in reply ? reply.thinking : undefined;
  const thinking = isChat && body.think !== false ? (scriptedThinking ?? (thinks ? DEFAULT_THINKING : undefined)) : undefined;
  let doneReason = 'fault' in reply ? 'stop' : (reply.doneReason ?? 'stop');
  if (fault === 'length') {
    // A scripted content is taken as already cut; the default one is cut mid-object.
    if (reply.content === undefined) content = content.slice(0, Math.max(1, Math.floor(content.length / 2)));
    doneReason = 'length';
  }
  if (fault === 'huge') content = content.length > 0 ? content.repeat(Math.ceil(HUGE_REPLY_CHARS / content.length)) : 'x'.repeat(HUGE_REPLY_CHARS);
  const thoughts = thinking === undefined ? [] : splitPieces(thinking, PIECE_CHARS).map((p) => THINKING_MARK + p);
  const pieces = [...thoughts, ...splitPieces(content, fault === 'huge' ? HUGE_PIECE_CHARS : PIECE_CHARS)];
  // Ollama's silent cut (truncate not false): 4 kept tokens at the head, the tail up to num_ctx/2.
  const numCtx = Number(body.options?.num_ctx ?? 0);
  const sent = promptTokensOf(path, body);
  const promptTokens = numCtx > 0 && sent > numCtx ? 4 + Math.floor(numCtx / 2) : sent;
  const metrics = fault === 'missingMetrics' ? {} : metricsFor(promptTokens, pieces.length, latencyMs);
  const head = { model: body.model, created_at: CREATED_AT };
  const payload = (piece: string) => {
    if (!isChat) return { response: piece };
    if (piece.startsWith(THINKING_MARK)) return { message: { role: 'assistant', content: '', thinking: piece.slice(THINKING_MARK.length) } };
    return { message: { role: 'assistant', content: piece } };
  };
  return {
    pieces,
    chunk: (piece) => ({ ...head, ...payload(piece), done: false }),
    // Older servers omit done_reason; `missingMetrics` stands for them too.
    final: (whole) => ({
      ...head,
      ...payload(whole.split(THINKING_MARK).join('')),
      ...(fault === 'missingMetrics' ? {} : { done_reason: doneReason }),
      done: true,
      ...metrics,
    }),
  };
}

// Deterministic nanosecond timings derived from sizes, so replies stay byte-identical across runs.
function metricsFor(promptEvalCount: number, evalCount: number, latencyMs: number): Record<string, number> {
  const loadDuration = 1_000_000;
  const promptEvalDuration = promptEvalCount * 100_000;
  const evalDuration = evalCount * 1_000_000;
  return {
    total_duration: latencyMs * 1_000_000 + loadDuration + promptEvalDuration + evalDuration,
    load_duration: loadDuration,
    prompt_eval_count: promptEvalCount,
    prompt_eval_duration: promptEvalDuration,
    eval_count: evalCount,
    eval_duration: evalDuration,
  };
}

export const DEFAULT_EMBED_DIMS = 64;
const EMBED_WORD = /[\p{L}\p{N}]+/gu;

/** A hashed bag of the text's lowercased words (FNV-1a, two buckets a word), before normalising. */
export function fakeEmbedding(text: string, dims: number): number[] {
  const vector = new Array<number>(dims).fill(0);
  for (const [word] of text.toLowerCase().matchAll(EMBED_WORD)) {
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193) >>> 0;
    vector[h % dims] = vector[h % dims]! + 1;
    vector[(h >>> 16) % dims] = vector[(h >>> 16) % dims]! + 0.5;
  }
  // A text without words still gets a direction of its own.
  if (!vector.some((x) => x !== 0)) vector[0] = 1;
  return vector;
}

// As Go writes a float32 (strconv 'g', -1, 32): the shortest decimal that reads back as the same float32.
function float32(x: number): number {
  const f = Math.fround(x);
  for (let p = 1; p < 9; p++) {
    const short = Number(f.toPrecision(p));
    if (Math.fround(short) === f) return short;
  }
  return Number(f.toPrecision(9));
}

function normalised(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((s, x) => s + x * x, 0)) || 1;
  return vector.map((x) => float32(x / norm));
}

function splitPieces(content: string, size: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < content.length; at += size) pieces.push(content.slice(at, at + size));
  return pieces;
}

function sendFault(res: http.ServerResponse, fault: FakeFault, model: string): void {
  if (typeof fault === 'object') {
    const looksJson = fault.body.trimStart().startsWith('{');
    res.writeHead(fault.status, { 'Content-Type': looksJson ? JSON_TYPE : 'text/plain; charset=utf-8', ...fault.headers });
    res.end(fault.body);
    return;
  }
  if (fault === 'busy503') sendJson(res, 503, { error: BUSY_MESSAGE });
  else if (fault === 'error500') sendJson(res, 500, { error: RUNNER_FAILED_MESSAGE });
  else if (fault === 'error400') sendJson(res, 400, { error: BAD_REQUEST_MESSAGE });
  else sendJson(res, 404, { error: `model "${model}" not found, try pulling it first` });
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function sendText(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function requestIdOf(req: http.IncomingMessage): { requestId?: string } {
  const header = req.headers['x-request-id'];
  return typeof header === 'string' ? { requestId: decodeURIComponent(header) } : {};
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

// Case-insensitive, as Ollama resolves names (routes.go); /api/tags lists them as they were pulled.
function findModel(models: readonly FakeModel[], name: string): FakeModel | undefined {
  const wanted = withDefaultTag(name).toLowerCase();
  return models.find((m) => withDefaultTag(m.name).toLowerCase() === wanted);
}

const DETAILS = {
  parent_model: '',
  format: 'gguf',
  family: 'llama',
  families: ['llama'],
  parameter_size: '7.2B',
  quantization_level: 'Q4_0',
};

function tagEntry(model: FakeModel): Record<string, unknown> {
  return { name: model.name, model: model.name, modified_at: CREATED_AT, size: 4_113_301_824, digest: model.digest, details: DETAILS };
}

function showEntry(model: FakeModel): Record<string, unknown> {
  return {
    license: '',
    modelfile: `FROM ${model.name}`,
    parameters: 'stop "[INST]"',
    template: '[INST] {{ .Prompt }} [/INST]',
    details: DETAILS,
    model_info: { 'general.architecture': 'llama', 'llama.context_length': model.contextLength ?? 32_768 },
    capabilities: model.capabilities ?? ['completion'],
    modified_at: CREATED_AT,
  };
}

export function schemaShapedReply(req: FakeRequest): FakeReply {
  return { content: schemaShapedContent(req.body) };
}

export function schemaShapedContent(body: any): string {
  const format = body?.format;
  return JSON.stringify(format !== null && typeof format === 'object' ? emptyValueFor(format, format, 0) : {});
}

// The emptiest value that still has the schema's shape: enums and consts take their first allowed
// value, nullable branches take null, objects recurse into every property.
export function emptyValueFor(schema: unknown, root: unknown, depth: number): unknown {
  if (depth > 32 || schema === null || typeof schema !== 'object') return null;
  const s = schema as Record<string, any>;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (typeof s.$ref === 'string') return emptyValueFor(resolveRef(root, s.$ref), root, depth + 1);
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches) && branches.length > 0) {
    if (branches.some((b: any) => b?.type === 'null')) return null;
    return emptyValueFor(branches[0], root, depth + 1);
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) return emptyValueFor(s.allOf[0], root, depth + 1);
  let type = s.type;
  if (Array.isArray(type)) {
    if (type.includes('null')) return null;
    type = type[0];
  }
  if (type === undefined && s.properties !== null && typeof s.properties === 'object') type = 'object';
  switch (type) {
    case 'string':
      return '';
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'object': {
      const out: Record<string, unknown> = {};
      const properties = s.properties !== null && typeof s.properties === 'object' ? s.properties : {};
      for (const [key, value] of Object.entries(properties)) out[key] = emptyValueFor(value, root, depth + 1);
      return out;
    }
    default:
      return null;
  }
}

function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return null;
  let node: any = root;
  for (const part of ref.slice(2).split('/')) {
    node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}
