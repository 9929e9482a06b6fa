import { Ollama } from 'ollama';
import type { ChatRequest, ModelResponse } from 'ollama';
import { modelFetch } from './model-fetch.js';
import {
  ModelError,
  saysContextExceeded,
  type GenerateReply,
  type GenerateRequest,
  type LoadRequest,
  type ModelClient,
  type ModelInfo,
} from './model-client.js';
import { abortedError, newModelError, parseRetryAfter, httpStatusError, transportError, type ServerWording } from './http-errors.js';
import { RequestScope } from './request-scope.js';

export interface OllamaClientOptions {
  host: string;
  maxReplyChars?: number;
  preflightTimeoutMs?: number;
}

const DEFAULT_MAX_REPLY_CHARS = 1_000_000;
const DEFAULT_PREFLIGHT_TIMEOUT_MS = 10_000;

// ollama-js throws this when the body ends without a `done: true` object.
const STREAM_CUT_MESSAGE = 'Did not receive done or success response in stream.';
const TRAILING_SLASHES = /\/+$/;

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
  const host = opts.host.replace(TRAILING_SLASHES, '');
  const maxReplyChars = opts.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS;
  const preflightTimeoutMs = opts.preflightTimeoutMs ?? DEFAULT_PREFLIGHT_TIMEOUT_MS;

  async function preflight(model: string, signal?: AbortSignal): Promise<ModelInfo> {
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
      const capabilities: unknown = (shown as { capabilities?: unknown }).capabilities;
      if (Array.isArray(capabilities) && !capabilities.includes('completion')) {
        throw new ModelError('MODEL_UNSUITABLE', `model "${model}" at Ollama at ${host} cannot chat (its capabilities: ${capabilities.join(', ') || 'none'}) — is it an embedding model?`, { retryable: false });
      }
      // /api/show carries no digest; /api/tags does, and tells which name the server resolved.
      const { models } = await ollama.list();
      const entry = findModel(models, model);
      return { model: entry?.name ?? model, digest: typeof entry?.digest === 'string' ? entry.digest : null, contextLength: contextLengthOf(shown.model_info) };
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
      // Streaming: tokens arrive as they are made, and modelFetch has no headers or body timeout,
      // so neither a long generation nor a long wait in the server's queue hits Node's 300 s
      // limits. Our own deadline (timeoutMs) bounds the call. The stream is read here rather than
      // through ollama-js's chat(): its instance per call, per-stream AbortController and two
      // async generators per piece cost ~10 % of the CPU of a run against a fast server. The
      // failures are thrown in ollama-js's shapes, so classify() reads them as before.
      const response = await scope.fetch(`${host}/api/chat`, { method: 'POST', headers: CHAT_HEADERS, body: JSON.stringify(ollamaChatBody(request)) });
      if (!response.ok) throw await responseError(response);
      if (response.body === null) throw new Error('Missing body');
      phase = 'stream';
      const tooLarge = (): ModelError => {
        scope.abort('tooLarge');
        return new ModelError('REPLY_TOO_LARGE', `reply from Ollama at ${host} exceeded ${maxReplyChars} characters; request aborted`);
      };
      await readNdjson(response.body, maxReplyChars * JSON_ESCAPE_FACTOR + LINE_ENVELOPE_CHARS, (chunk) => {
        reply.add(chunk);
        if (reply.content.length > maxReplyChars) throw tooLarge();
      }, tooLarge);
      scope.ended();
      const final = reply.final;
      if (final === null) throw new Error(STREAM_CUT_MESSAGE);
      return {
        content: reply.content,
        doneReason: typeof final.done_reason === 'string' ? final.done_reason : null,
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

  return { host, preflight, load, generate };
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
    think: request.think,
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

/**
 * Reads an NDJSON body to its end, one JSON.parse per line; lines that are not JSON objects are
 * skipped, as ollama-js skips them. `tooLong` makes the error thrown when one line outgrows
 * `maxLineChars` (a server streaming without newlines). Scanning resumes where the previous
 * read stopped, so the work stays linear in the reply however the bytes arrive.
 */
export async function readNdjson(body: ReadableStream<Uint8Array>, maxLineChars: number, onObject: (chunk: ChatChunk) => void, tooLong: () => Error): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const line = (text: string): void => {
    if (text === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    if (parsed !== null && typeof parsed === 'object') onObject(parsed as ChatChunk);
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const scanFrom = buffer.length;
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      for (let newline = buffer.indexOf('\n', scanFrom); newline >= 0; newline = buffer.indexOf('\n', start)) {
        line(buffer.slice(start, newline));
        start = newline + 1;
      }
      buffer = start > 0 ? buffer.slice(start) : buffer;
      if (done) break;
      if (buffer.length > maxLineChars) throw tooLong();
    }
    line(buffer);
  } catch (err) {
    await reader.cancel().catch(() => {});
    throw err;
  }
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
