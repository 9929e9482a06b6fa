// The model client for Ollama's native API: /api/chat streamed as NDJSON, /api/embed, and the
// preflight that checks the model is there and can chat. The stream is read in ollama-stream.ts,
// sent in ollama-http.ts, and its failures read in ollama-errors.ts.
import { Ollama } from 'ollama';
import type { ChatRequest, ModelResponse } from 'ollama';
import {
  ModelError,
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
import { inScope } from './http-errors.js';
import { classify, OllamaRequestScope, STREAM_CUT_MESSAGE, unreachableMessage, wording, type Phase } from './ollama-errors.js';
import { CHAT_HEADERS, postChat, responseError } from './ollama-http.js';
import { requestIdHeaders } from './model-fetch.js';
import { ChatAccumulator, NdjsonLines, readLines } from './ollama-stream.js';
import { countOrNull, DEFAULT_MAX_REPLY_CHARS, DEFAULT_PREFLIGHT_TIMEOUT_MS, maxLineCharsFor, vectorsOf, withDefaultTag } from './reply-values.js';

export interface OllamaClientOptions {
  host: string;
  maxReplyChars?: number;
  preflightTimeoutMs?: number;
  /**
   * How /api/chat is sent: 'dispatch' (the default) on the model agent without fetch, 'fetch'
   * through fetch (what a redirect falls back to). Tests hold the two equal, failure by failure.
   */
  chatTransport?: 'dispatch' | 'fetch';
}

/** One Ollama server as every call of the client sees it. */
interface OllamaTarget {
  host: string;
  maxReplyChars: number;
  preflightTimeoutMs: number;
  chatTransport: 'dispatch' | 'fetch';
}

export function createOllamaClient(opts: OllamaClientOptions): ModelClient {
  const target: OllamaTarget = {
    host: withoutTrailingSlashes(opts.host),
    maxReplyChars: opts.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS,
    preflightTimeoutMs: opts.preflightTimeoutMs ?? DEFAULT_PREFLIGHT_TIMEOUT_MS,
    chatTransport: opts.chatTransport ?? 'dispatch',
  };
  return {
    host: target.host,
    preflight: (model, signal, use) => preflight(target, model, signal, use),
    load: (request, signal) => load(target, request, signal),
    generate: (request, signal) => generate(target, request, signal),
    embed: (request, signal) => embed(target, request, signal),
  };
}

/** Runs one call against the server; its failures are read as a request's (not a stream's). */
function call<T>(target: OllamaTarget, timeoutMs: number, signal: AbortSignal | undefined, model: string, run: (scope: OllamaRequestScope) => Promise<T>): Promise<T> {
  const scope = new OllamaRequestScope(signal, timeoutMs);
  return inScope(scope, wording(target.host), run, (err) => classify(err, { host: target.host, scope, model, phase: 'request' }));
}

function preflight(target: OllamaTarget, model: string, signal?: AbortSignal, use: ModelUse = 'completion'): Promise<ModelInfo> {
  const { host } = target;
  return call(target, target.preflightTimeoutMs, signal, model, async (scope) => {
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
  });
}

// Streaming: tokens arrive as they are made, and the model agent has no headers or body timeout,
// so neither a long generation nor a long wait in the server's queue hits Node's 300 s limits.
// Our own deadline (timeoutMs) bounds the call. The stream is read here rather than through
// ollama-js's chat(): its instance per call, per-stream AbortController and two async generators
// per piece cost ~10 % of the CPU of a run against a fast server. The failures are thrown in
// ollama-js's shapes, so classify() reads them alike whichever way the request went.
function generate(target: OllamaTarget, request: GenerateRequest, signal?: AbortSignal): Promise<GenerateReply> {
  const { host } = target;
  const scope = new OllamaRequestScope(signal, request.timeoutMs);
  let phase: Phase = 'request';
  const reply = new ChatAccumulator();
  const classifyAt = (err: unknown): ModelError => classify(err, { host, scope, model: request.model, phase, chunks: reply.chunks });
  return inScope(scope, wording(host), async () => {
    const lines = replyLines(target, scope, reply);
    const headers = { ...CHAT_HEADERS, ...requestIdHeaders(request.requestId) };
    await sendChat(target, JSON.stringify(ollamaChatBody(request)), headers, scope, lines, () => {
      phase = 'stream';
    });
    scope.ended();
    return replyOf(reply);
  }, classifyAt);
}

/** The NDJSON reader that adds each object of the stream to `reply`, under the size cap. */
function replyLines(target: OllamaTarget, scope: OllamaRequestScope, reply: ChatAccumulator): NdjsonLines {
  const tooLarge = (): ModelError => {
    scope.abort('tooLarge');
    return new ModelError('REPLY_TOO_LARGE', `reply from Ollama at ${target.host} exceeded ${target.maxReplyChars} characters; request aborted`);
  };
  return new NdjsonLines(maxLineCharsFor(target.maxReplyChars), (chunk) => {
    reply.add(chunk);
    if (reply.content.length > target.maxReplyChars) throw tooLarge();
  }, tooLarge, (piece) => {
    reply.addPiece(piece);
    if (reply.content.length > target.maxReplyChars) throw tooLarge();
  });
}

/** Sends /api/chat without fetch (postChat), or through fetch for what only it does (a redirect). */
async function sendChat(target: OllamaTarget, body: string, headers: Record<string, string>, scope: OllamaRequestScope, lines: NdjsonLines, onStream: () => void): Promise<void> {
  const sent = target.chatTransport === 'fetch' ? 'useFetch' : await postChat(target.host, body, headers, scope, lines, onStream);
  if (sent === 'done') return;
  const response = await scope.fetch(`${target.host}/api/chat`, { method: 'POST', headers, body });
  if (!response.ok) throw await responseError(response);
  if (response.body === null) throw new Error('Missing body');
  onStream();
  await readLines(response.body, lines);
}

function replyOf(reply: ChatAccumulator): GenerateReply {
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
}

// A chat request without messages loads the model and answers done_reason "load" (routes.go).
// It runs on its own deadline (--load-timeout): a first load can take minutes, and had it been
// the first view's request, that request's --timeout would cut it and its cancel abort the load.
async function load(target: OllamaTarget, request: LoadRequest, signal?: AbortSignal): Promise<void> {
  const { host } = target;
  try {
    await call(target, request.timeoutMs, signal, request.model, async (scope) => {
      const ollama = new Ollama({ host, fetch: scope.fetch });
      await ollama.chat({ model: request.model, messages: [], keep_alive: request.keepAlive, options: { num_ctx: request.numCtx }, stream: false });
    });
  } catch (err) {
    if ((err as ModelError).code === 'TIMEOUT') throw new ModelError('TIMEOUT', `Ollama at ${host} did not load model "${request.model}" within ${request.timeoutMs / 1000} s (--load-timeout)`);
    throw err;
  }
}

// /api/embed, one batch per request. truncate: false: Ollama would otherwise cut an input longer
// than the context silently (routes.go EmbedHandler), and refuses it with a 400 instead, which
// fails the whole batch; the embedder then finds and splits the input at fault.
function embed(target: OllamaTarget, request: EmbedRequest, signal?: AbortSignal): Promise<EmbedReply> {
  const { host } = target;
  return call(target, request.timeoutMs, signal, request.model, async (scope) => {
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
  });
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

// Case-insensitive, as Ollama resolves names (`Mistral` is `mistral:latest`): an exact match would
// leave the digest out of the cache key for a name the server serves.
function findModel(models: readonly ModelResponse[] | undefined, wanted: string): ModelResponse | undefined {
  if (!Array.isArray(models)) return undefined;
  const fold = (name: string): string => withDefaultTag(name).toLowerCase();
  const target = fold(wanted);
  return models.find((m) => fold(String(m.name ?? m.model)) === target || fold(String(m.model ?? '')) === target);
}
