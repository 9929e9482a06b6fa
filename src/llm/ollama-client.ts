import { Ollama } from 'ollama';
import type { ChatRequest, ModelResponse } from 'ollama';
import { modelAgent, modelFetch } from './model-fetch.js';
import {
  ModelError,
  saysContextExceeded,
  type GenerateReply,
  type GenerateRequest,
  type EmbedReply,
  type EmbedRequest,
  type LoadRequest,
  type ModelClient,
  type ModelInfo,
  type ModelUse,
  withoutTrailingSlashes,
} from './model-client.js';
import { abortedError, newModelError, parseRetryAfter, httpStatusError, transportError, type ServerWording } from './http-errors.js';
import { RequestScope } from './request-scope.js';

export interface OllamaClientOptions {
  host: string;
  maxReplyChars?: number;
  preflightTimeoutMs?: number;
  /**
   * How /api/chat is sent: 'dispatch' (the default) on the model agent without fetch, 'fetch' as
   * before it (what a redirect falls back to). Tests hold the two equal, failure by failure.
   */
  chatTransport?: 'dispatch' | 'fetch';
}

const DEFAULT_MAX_REPLY_CHARS = 1_000_000;
const DEFAULT_PREFLIGHT_TIMEOUT_MS = 10_000;

// ollama-js throws this when the body ends without a `done: true` object.
const STREAM_CUT_MESSAGE = 'Did not receive done or success response in stream.';

function unreachableMessage(host: string): string {
  return `cannot reach Ollama at ${host} — is it running? (or use --backend extractive)`;
}

function wording(host: string): ServerWording {
  return {
    server: `Ollama at ${host}`,
    unreachable: unreachableMessage(host),
    notFound: (model) => `model "${model}" not found — run: ollama pull ${model}`,
    promptTooLong: (detail) => `the prompt does not fit the context of the model at Ollama at ${host} ${detail}`,
    fail: newModelError,
  };
}

export function createOllamaClient(opts: OllamaClientOptions): ModelClient {
  const host = withoutTrailingSlashes(opts.host);
  const maxReplyChars = opts.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS;
  const preflightTimeoutMs = opts.preflightTimeoutMs ?? DEFAULT_PREFLIGHT_TIMEOUT_MS;

  async function preflight(model: string, signal?: AbortSignal, use: ModelUse = 'completion'): Promise<ModelInfo> {
    const scope = new OllamaRequestScope(signal, preflightTimeoutMs);
    try {
      scope.throwIfCallerAborted(host);
      // A fresh instance per call: ollama-js's abort() is global to an instance, and the injected
      // fetch must carry this call's own signal.
      const ollama = new Ollama({ host, fetch: scope.fetch });
      try {
        await ollama.version();
      } catch (err) {
        const classified = classify(err, { host, scope, model, phase: 'request' });
        if (classified.code === 'ABORTED') throw classified;
        throw new ModelError('UNREACHABLE', unreachableMessage(host), { status: classified.status });
      }
      const shown = await ollama.show({ model });
      // An embedding model answers every chat with 400 "does not support chat": say so once, now.
      // /api/embed checks no capability (routes.go): any model embeds, only some mean it.
      const capabilities: unknown = (shown as { capabilities?: unknown }).capabilities;
      if (use === 'completion' && Array.isArray(capabilities) && !capabilities.includes('completion')) {
        throw new ModelError('MODEL_UNSUITABLE', `model "${model}" at Ollama at ${host} cannot chat (its capabilities: ${capabilities.join(', ') || 'none'}) — is it an embedding model?`, { retryable: false });
      }
      // /api/show carries no digest; /api/tags does, and tells which name the server resolved.
      const { models } = await ollama.list();
      const entry = findModel(models, model);
      return {
        model: entry?.name ?? model,
        digest: typeof entry?.digest === 'string' ? entry.digest : null,
        contextLength: contextLengthOf(shown.model_info),
        // Only an embedding run reads them (a chat model was checked above).
        ...(use === 'embedding' && Array.isArray(capabilities) ? { capabilities: capabilities.filter((c): c is string => typeof c === 'string') } : {}),
      };
    } catch (err) {
      throw classify(err, { host, scope, model, phase: 'request' });
    } finally {
      scope.dispose();
    }
  }

  async function generate(request: GenerateRequest, signal?: AbortSignal): Promise<GenerateReply> {
    const scope = new OllamaRequestScope(signal, request.timeoutMs);
    let phase: Phase = 'request';
    const reply = new ChatAccumulator();
    try {
      scope.throwIfCallerAborted(host);
      // Streaming: tokens arrive as they are made, and the model agent has no headers or body timeout,
      // so neither a long generation nor a long wait in the server's queue hits Node's 300 s
      // limits. Our own deadline (timeoutMs) bounds the call. The stream is read here rather than
      // through ollama-js's chat(): its instance per call, per-stream AbortController and two
      // async generators per piece cost ~10 % of the CPU of a run against a fast server. The
      // failures are thrown in ollama-js's shapes, so classify() reads them as before. It is sent
      // without fetch (postChat); fetch remains for what only it does (a redirect).
      const tooLarge = (): ModelError => {
        scope.abort('tooLarge');
        return new ModelError('REPLY_TOO_LARGE', `reply from Ollama at ${host} exceeded ${maxReplyChars} characters; request aborted`);
      };
      const lines = new NdjsonLines(maxReplyChars * JSON_ESCAPE_FACTOR + LINE_ENVELOPE_CHARS, (chunk) => {
        reply.add(chunk);
        if (reply.content.length > maxReplyChars) throw tooLarge();
      }, tooLarge, (piece) => {
        reply.addPiece(piece);
        if (reply.content.length > maxReplyChars) throw tooLarge();
      });
      const body = JSON.stringify(ollamaChatBody(request));
      const sent = opts.chatTransport === 'fetch' ? 'useFetch' : await postChat(host, body, scope, lines, () => {
        phase = 'stream';
      });
      if (sent === 'useFetch') {
        const response = await scope.fetch(`${host}/api/chat`, { method: 'POST', headers: CHAT_HEADERS, body });
        if (!response.ok) throw await responseError(response);
        if (response.body === null) throw new Error('Missing body');
        phase = 'stream';
        await readLines(response.body, lines);
      }
      scope.ended();
      const final = reply.final;
      if (final === null) throw new Error(STREAM_CUT_MESSAGE);
      return {
        content: reply.content,
        doneReason: typeof final.done_reason === 'string' ? final.done_reason : null,
        // prompt_eval_count is llama-server's cache_n + prompt_n: Ollama says nothing of how many
        // came from the cache, so cachedTokens stays unknown (never 0).
        promptTokens: countOrNull(final.prompt_eval_count),
        outputTokens: countOrNull(final.eval_count),
        thinkingChars: reply.thinkingChars,
      };
    } catch (err) {
      throw classify(err, { host, scope, model: request.model, phase, chunks: reply.chunks });
    } finally {
      scope.dispose();
    }
  }

  // A chat request without messages loads the model and answers done_reason "load" (routes.go).
  // It runs on its own deadline (--load-timeout): a first load can take minutes, and had it been
  // the first view's request, that request's --timeout would cut it and its cancel abort the load.
  async function load(request: LoadRequest, signal?: AbortSignal): Promise<void> {
    const scope = new OllamaRequestScope(signal, request.timeoutMs);
    try {
      scope.throwIfCallerAborted(host);
      const ollama = new Ollama({ host, fetch: scope.fetch });
      await ollama.chat({ model: request.model, messages: [], keep_alive: request.keepAlive, options: { num_ctx: request.numCtx }, stream: false });
    } catch (err) {
      const classified = classify(err, { host, scope, model: request.model, phase: 'request' });
      if (classified.code === 'TIMEOUT') throw new ModelError('TIMEOUT', `Ollama at ${host} did not load model "${request.model}" within ${request.timeoutMs / 1000} s (--load-timeout)`);
      throw classified;
    } finally {
      scope.dispose();
    }
  }

  // /api/embed, one batch per request. truncate: false: Ollama would otherwise cut an input longer
  // than the context silently (routes.go EmbedHandler), and refuses it with a 400 instead, which
  // fails the whole batch; the embedder then finds and splits the input at fault.
  async function embed(request: EmbedRequest, signal?: AbortSignal): Promise<EmbedReply> {
    const scope = new OllamaRequestScope(signal, request.timeoutMs);
    try {
      scope.throwIfCallerAborted(host);
      const body = {
        model: request.model,
        input: request.input,
        truncate: false,
        keep_alive: request.keepAlive,
        ...(request.dimensions === null ? {} : { dimensions: request.dimensions }),
        ...(request.numCtx === null ? {} : { options: { num_ctx: request.numCtx } }),
      };
      const response = await scope.fetch(`${host}/api/embed`, { method: 'POST', headers: CHAT_HEADERS, body: JSON.stringify(body) });
      if (!response.ok) throw await responseError(response);
      const reply = (await response.json()) as { embeddings?: unknown; prompt_eval_count?: unknown };
      scope.ended();
      const vectors = vectorsOf(reply.embeddings, request.input.length);
      if (vectors === null) throw new ModelError('BAD_RESPONSE', `Ollama at ${host} sent no embeddings of the ${request.input.length} inputs (is it older than 0.3.4, without /api/embed?)`);
      return { vectors, promptTokens: countOrNull(reply.prompt_eval_count) };
    } catch (err) {
      throw classify(err, { host, scope, model: request.model, phase: 'request' });
    } finally {
      scope.dispose();
    }
  }

  return { host, preflight, load, generate, embed };
}

/** The vectors of an embedding reply: one finite-number list per input, or null. */
export function vectorsOf(value: unknown, inputs: number): number[][] | null {
  if (!Array.isArray(value) || value.length !== inputs) return null;
  for (const v of value) {
    if (!Array.isArray(v) || v.length === 0) return null;
    for (const x of v) if (typeof x !== 'number' || !Number.isFinite(x)) return null;
  }
  return value as number[][];
}

// model_info keys are per architecture: "llama.context_length", "qwen3.context_length", …
function contextLengthOf(info: unknown): number | null {
  if (info === null || typeof info !== 'object') return null;
  for (const [key, value] of Object.entries(info as Record<string, unknown>)) {
    if (key.endsWith('.context_length') && typeof value === 'number' && value > 0) return value;
  }
  return null;
}

/**
 * The /api/chat body. `think: false` unless --think: with no `think`, Ollama lets a thinking model
 * (qwen3, deepseek-r1, gpt-oss) reason first, unconstrained by the format, on the same num_predict.
 * `truncate: false`: a prompt longer than num_ctx is refused (400, mapped to PROMPT_TOO_LONG)
 * instead of silently losing its head — the contract and the task.
 */
function ollamaChatBody(request: GenerateRequest): ChatRequest & { stream: true; truncate: boolean } {
  return {
    model: request.model,
    messages: [{ role: 'user', content: request.prompt }],
    format: request.format,
    options: request.options,
    keep_alive: request.keepAlive,
    // --think server: no `think` key at all, the server decides.
    ...(request.think === null ? {} : { think: request.think }),
    truncate: false,
    stream: true,
  };
}

// What ollama-js sends (its User-Agent aside), so a server or proxy sees the same request.
const CHAT_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' } as const;
// A JSON string can spend six characters (\uXXXX) on one character of content.
const JSON_ESCAPE_FACTOR = 6;
const LINE_ENVELOPE_CHARS = 64 * 1024;

interface ChatChunk {
  message?: { content?: unknown; thinking?: unknown };
  done?: unknown;
  done_reason?: unknown;
  prompt_eval_count?: unknown;
  eval_count?: unknown;
  error?: unknown;
}

/** The streamed pieces of one chat reply, up to and including the first `done: true` object. */
class ChatAccumulator {
  content = '';
  thinkingChars = 0;
  chunks = 0;
  final: ChatChunk | null = null;

  /** What add() does with a chunk that is exactly `{…, message: {role: 'assistant', content}, done: false}`. */
  addPiece(content: string): void {
    if (this.final !== null) return;
    this.chunks += 1;
    this.content += content;
  }

  add(chunk: ChatChunk): void {
    if (this.final !== null) return;
    // As ollama-js: an object with `error` ends the stream with a plain Error (classify: STREAM_ERROR).
    if ('error' in chunk) throw new Error(String(chunk.error));
    this.chunks += 1;
    const piece: unknown = chunk.message?.content;
    if (typeof piece === 'string') this.content += piece;
    const thought: unknown = chunk.message?.thinking;
    if (typeof thought === 'string') this.thinkingChars += thought.length;
    if (chunk.done === true) this.final = chunk;
  }
}

// Ollama's line for one piece of a reply, `{"model":…,"created_at":…,"message":{"role":"assistant",
// "content":…},"done":false}`, whose model and created_at hold no quote, backslash or control
// character and whose content is any valid JSON string: JSON.parse of such a line could only give
// that object, of which a ChatAccumulator reads only the content — the string's value, which is
// its text when it has no escape and JSON.parse of the string alone when it has. Matched in place
// (sticky) without slicing the line, it costs a fraction of the JSON.parse of the whole line (the
// largest share of the client's CPU at a fast server); any other line — thinking, the final
// object, other keys or order, CRLF — is parsed as before.
const PIECE_LINE = /\{"model":"[^"\\\x00-\x1f]*","created_at":"[^"\\\x00-\x1f]*","message":\{"role":"assistant","content":"([^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*)"\},"done":false\}/y;

/**
 * An NDJSON body split into objects as its bytes arrive, one JSON.parse per line; lines that are
 * not JSON objects are skipped, as ollama-js skips them. `tooLong` makes the error thrown when one
 * line outgrows `maxLineChars` (a server streaming without newlines). One decode per piece of the
 * body; scanning resumes where the previous piece stopped, so the work stays linear in the reply
 * however the bytes arrive.
 */
export class NdjsonLines {
  private readonly decoder = new TextDecoder();
  private buffer = '';

  constructor(
    private readonly maxLineChars: number,
    private readonly onObject: (chunk: ChatChunk) => void,
    private readonly tooLong: () => Error,
    /** Takes the content of a line that is exactly Ollama's plain piece (PIECE_LINE), the line unparsed. */
    private readonly onPiece?: (content: string) => void,
  ) {}

  push(bytes: Uint8Array): void {
    this.scan(this.decoder.decode(bytes, { stream: true }));
    if (this.buffer.length > this.maxLineChars) throw this.tooLong();
  }

  end(): void {
    this.scan(this.decoder.decode());
    this.line(this.buffer);
    this.buffer = '';
  }

  private scan(text: string): void {
    let newline = text.indexOf('\n');
    if (newline < 0) {
      this.buffer += text;
      return;
    }
    // The first line may continue what the previous pieces left; the rest lie within `text`.
    if (this.buffer === '') this.lineAt(text, 0, newline);
    else {
      const first = this.buffer + text.slice(0, newline);
      this.lineAt(first, 0, first.length);
    }
    let start = newline + 1;
    for (newline = text.indexOf('\n', start); newline >= 0; newline = text.indexOf('\n', start)) {
      this.lineAt(text, start, newline);
      start = newline + 1;
    }
    this.buffer = start < text.length ? text.slice(start) : '';
  }

  private lineAt(text: string, start: number, end: number): void {
    if (this.onPiece !== undefined) {
      PIECE_LINE.lastIndex = start;
      const match = PIECE_LINE.exec(text);
      if (match !== null && PIECE_LINE.lastIndex === end) {
        const raw = match[1]!;
        this.onPiece(raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw);
        return;
      }
    }
    this.line(text.slice(start, end));
  }

  private line(text: string): void {
    if (text === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    if (parsed !== null && typeof parsed === 'object') this.onObject(parsed as ChatChunk);
  }
}

/** Reads an NDJSON fetch body to its end (NdjsonLines says how). */
export function readNdjson(body: ReadableStream<Uint8Array>, maxLineChars: number, onObject: (chunk: ChatChunk) => void, tooLong: () => Error): Promise<void> {
  return readLines(body, new NdjsonLines(maxLineChars, onObject, tooLong));
}

async function readLines(body: ReadableStream<Uint8Array>, lines: NdjsonLines): Promise<void> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      lines.push(value);
    }
    lines.end();
  } catch (err) {
    await reader.cancel().catch(() => {});
    throw err;
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Statuses whose fetch Response has a null body.
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * POSTs a chat request on the model agent without fetch, feeding the reply's bytes to `lines` as
 * they arrive: no Response, no WHATWG stream, no AbortSignal (fetch and its streams were the
 * largest share of rca-generate's CPU at a fast server). Every failure is thrown in the shape
 * fetch gives it — a socket error before the reply as TypeError "fetch failed" with the error as
 * its cause, one during the reply as TypeError "terminated", an abort as the signal's reason, a
 * status as ollama-js's ResponseError — so classify() reads them exactly as before. What this
 * path does not do as fetch does (a URL fetch cannot parse or whose scheme is not http(s), a
 * redirect) answers 'useFetch' before any byte of the reply is used, and the caller sends the
 * request again with fetch.
 */
async function postChat(host: string, body: string, scope: OllamaRequestScope, lines: NdjsonLines, onStream: () => void): Promise<'done' | 'useFetch'> {
  let url: URL;
  try {
    url = new URL(`${host}/api/chat`);
  } catch {
    return 'useFetch';
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') return 'useFetch';
  const agent = await modelAgent();
  return new Promise<'done' | 'useFetch'>((resolve, reject) => {
    let settled = false;
    let streaming = false;
    let status = 0;
    let statusText = '';
    let contentType: string | null = null;
    let errorBody: Buffer[] | null = null;
    let abortDispatch: ((err?: Error) => void) | null = null;
    let pending: Error | null = null;
    const finish = (err: unknown, value?: 'done' | 'useFetch'): void => {
      if (settled) return;
      settled = true;
      if (err === undefined) resolve(value!);
      else reject(err);
    };
    const stop = (err: Error): void => {
      // An error of ours (size cap, a stream error line): release the socket, then throw it.
      pending = err;
      finish(err);
      abortDispatch?.(err);
    };
    scope.onAbort((reason) => {
      const err = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
      // The size cap aborts from inside lines.push, whose own error (REPLY_TOO_LARGE) follows.
      if (scope.cause === 'tooLarge') return;
      finish(err);
      abortDispatch?.(err instanceof Error ? err : new Error(String(err)));
    });
    if (settled) return;
    agent.dispatch(
      { origin: url.origin, path: url.pathname + url.search, method: 'POST', headers: CHAT_HEADERS, body },
      {
        onConnect(abort) {
          abortDispatch = abort;
          if (settled) abort(pending ?? new Error('aborted'));
        },
        onHeaders(statusCode, rawHeaders, _resume, text) {
          if (settled) return false;
          status = statusCode;
          statusText = text;
          if (REDIRECT_STATUSES.has(statusCode) && headerOf(rawHeaders, 'location') !== null) {
            finish(undefined, 'useFetch');
            abortDispatch?.(new Error('redirect: sent again with fetch'));
            return false;
          }
          if (statusCode < 200 || statusCode > 299) {
            scope.retryAfter = headerOf(rawHeaders, 'retry-after');
            contentType = headerOf(rawHeaders, 'content-type');
            errorBody = [];
            return true;
          }
          if (NULL_BODY_STATUSES.has(statusCode)) {
            stop(new Error('Missing body'));
            return false;
          }
          streaming = true;
          onStream();
          return true;
        },
        onData(chunk) {
          if (settled) return false;
          if (errorBody !== null) {
            errorBody.push(chunk);
            return true;
          }
          try {
            lines.push(chunk);
          } catch (err) {
            stop(err as Error);
            return false;
          }
          return true;
        },
        onComplete() {
          if (settled) return;
          if (errorBody !== null) {
            finish(statusError(status, statusText, contentType, Buffer.concat(errorBody)));
            return;
          }
          try {
            lines.end();
          } catch (err) {
            finish(err);
            return;
          }
          finish(undefined, 'done');
        },
        onError(err) {
          if (settled) return;
          // A status already read and its body cut: ollama-js's checkOk keeps the status line.
          if (errorBody !== null) finish(statusError(status, statusText, null, null));
          else if (streaming) finish(new TypeError('terminated', { cause: err }));
          else finish(new TypeError('fetch failed', { cause: err }));
        },
        onUpgrade() {},
      },
    );
  });
}

// A header as fetch's Headers.get gives it: every value of the name, joined by ", ".
function headerOf(raw: Buffer[] | string[] | null, name: string): string | null {
  if (raw === null) return null;
  let found: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toString('latin1').toLowerCase() !== name) continue;
    const value = raw[i + 1]!.toString('latin1');
    found = found === null ? value : `${found}, ${value}`;
  }
  return found;
}

// responseError's reading for a reply read without fetch (body null: it could not be read).
function statusError(status: number, statusText: string, contentType: string | null, body: Buffer | null): Error {
  let message = `Error ${status}: ${statusText}`;
  if (body !== null) {
    try {
      const text = new TextDecoder().decode(body);
      if (contentType?.includes('application/json')) {
        const data = JSON.parse(text) as { error?: unknown } | null;
        if (typeof data?.error === 'string' && data.error !== '') message = data.error;
        else if (data?.error) message = String(data.error);
      } else if (text !== '') message = text;
    } catch {
      // The status line stays the message.
    }
  }
  return Object.assign(new Error(message), { name: 'ResponseError', status_code: status, error: message });
}

// ollama-js's checkOk: the `error` of a JSON body, else the body's text, else the status line.
async function responseError(response: Response): Promise<Error> {
  let message = `Error ${response.status}: ${response.statusText}`;
  try {
    if (response.headers.get('content-type')?.includes('application/json')) {
      const data = (await response.json()) as { error?: unknown } | null;
      if (typeof data?.error === 'string' && data.error !== '') message = data.error;
      else if (data?.error) message = String(data.error);
    } else {
      const text = await response.text();
      if (text !== '') message = text;
    }
  } catch {
    // The status line stays the message.
  }
  return Object.assign(new Error(message), { name: 'ResponseError', status_code: response.status, error: message });
}

type Phase = 'request' | 'stream';
// The shared scope, plus what only this client needs: the fetch ollama-js is given (it attaches
// the scope's signal) keeps the Retry-After header, which ollama-js's ResponseError does not expose.
class OllamaRequestScope extends RequestScope {
  retryAfter: string | null = null;

  throwIfCallerAborted(host: string): void {
    if (this.callerAborted) throw abortedError({ server: `Ollama at ${host}` });
  }

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // ollama-js passes its own per-stream signal; both must be able to cancel the request.
    const signal = init?.signal ? AbortSignal.any([init.signal, this.signal]) : this.signal;
    const response = await modelFetch(input, { ...init, signal });
    if (!response.ok) this.retryAfter = response.headers.get('retry-after');
    return response;
  };
}

interface ClassifyContext {
  host: string;
  scope: OllamaRequestScope;
  model: string;
  phase: Phase;
  chunks?: number;
}

function classify(err: unknown, ctx: ClassifyContext): ModelError {
  const { host, scope } = ctx;
  const w = wording(host);
  // A ResponseError carries no socket code and is no abort, so reading it after those is the same.
  const known = transportError(err, scope, w);
  if (known !== null) return known;
  if (isResponseError(err)) return httpStatusError(err.status_code, String(err.error ?? err.message), ctx.model, parseRetryAfter(scope.retryAfter), w);
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof Error ? err.message : String(err);
  if (ctx.phase === 'stream' && message === STREAM_CUT_MESSAGE) {
    // Zero objects means the body was not NDJSON at all: not an Ollama stream, so retrying is futile.
    // Otherwise the server ended the reply on purpose: its repetition abort (30 identical tokens)
    // does so. The same prompt would loop the same way: a reply fault, for the ladder.
    return (ctx.chunks ?? 0) === 0
      ? new ModelError('BAD_RESPONSE', `Ollama at ${host} sent a reply that is not an NDJSON stream`)
      : new ModelError('REPLY_INCOMPLETE', `Ollama at ${host} ended the reply before it was done (a repetition abort?)`);
  }
  // ollama-js turns a `{"error": …}` line inside the stream into a plain Error.
  if (ctx.phase === 'stream' && err instanceof Error && err.constructor === Error) {
    return new ModelError('STREAM_ERROR', `Ollama at ${host} failed mid-reply: ${message}`);
  }
  return new ModelError('BAD_RESPONSE', `unexpected reply from Ollama at ${host}: ${name ? `${name}: ` : ''}${message}`);
}

function isResponseError(err: unknown): err is Error & { status_code: number; error?: unknown } {
  return err instanceof Error && err.name === 'ResponseError' && typeof (err as { status_code?: unknown }).status_code === 'number';
}


function countOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function withDefaultTag(name: string): string {
  const lastSegment = name.slice(name.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? name : `${name}:latest`;
}

// Case-insensitive, as Ollama resolves names (`Mistral` is `mistral:latest`): an exact match would
// leave the digest out of the cache key for a name the server serves.
function findModel(models: readonly ModelResponse[] | undefined, wanted: string): ModelResponse | undefined {
  if (!Array.isArray(models)) return undefined;
  const fold = (name: string): string => withDefaultTag(name).toLowerCase();
  const target = fold(wanted);
  return models.find((m) => fold(String(m.name ?? m.model)) === target || fold(String(m.model ?? '')) === target);
}
