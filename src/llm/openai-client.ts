// A model client for OpenAI-compatible servers (vLLM, llama.cpp's server, LM Studio, TGI, Ollama's
// own /v1): Node's fetch against /v1/chat/completions, streamed as server-sent events. No SDK, so
// the request, the deadline and every error message stay under our control — in particular the
// API key, which is sent only in the Authorization header and scrubbed from anything we report.
// The request body is openai-request.ts's, the reply's reading openai-reply.ts's.
import { modelFetch, requestIdHeaders } from './model-fetch.js';
import {
  ModelError,
  type EmbedReply,
  type EmbedRequest,
  type GenerateReply,
  type GenerateRequest,
  type ModelClient,
  type ModelErrorCode,
  type ModelErrorDetails,
  type ModelInfo,
} from './model-client.js';
import { inScope, parseRetryAfter, httpStatusError, transportError, type ServerWording } from './http-errors.js';
import { chatCompletionBody, resolveBaseUrl } from './openai-request.js';
import { errorText, findListedModel, listedModels, readCapped, ReplyAccumulator, SseLineReader, streamedErrorText, type ChatChunk } from './openai-reply.js';
import { countOrNull, DEFAULT_MAX_REPLY_CHARS, DEFAULT_PREFLIGHT_TIMEOUT_MS, maxLineCharsFor, parseJson, vectorsOf } from './reply-values.js';
import { RequestScope } from './request-scope.js';

export interface OpenAiClientOptions {
  baseUrl: string;
  apiKey?: string | null;
  maxReplyChars?: number;
  preflightTimeoutMs?: number;
}

const MAX_ERROR_BODY_CHARS = 64 * 1024;
const LISTED_MODELS_SHOWN = 8;
const REDACTED = '[redacted]';
const INPUT_TOO_LARGE_RE = /too large to process|larger than the max context size/;
// 64 Ki inputs of 4,096 dimensions at ~20 characters a number: the cap only stops a runaway body.
const MAX_EMBED_REPLY_CHARS = 512 * 1024 * 1024;

type Phase = 'request' | 'stream';

/** One server as every call of the client sees it. */
interface OpenAiTarget {
  /** What messages show: the base URL without credentials, query or trailing slash. */
  host: string;
  /** Where /chat/completions, /models and /embeddings live. */
  apiRoot: string;
  apiKey: string | null;
  maxReplyChars: number;
  maxEventChars: number;
  preflightTimeoutMs: number;
  wording: ServerWording;
}

export function createOpenAiClient(opts: OpenAiClientOptions): ModelClient {
  const { host, apiRoot } = resolveBaseUrl(opts.baseUrl);
  const apiKey = opts.apiKey !== undefined && opts.apiKey !== null && opts.apiKey !== '' ? opts.apiKey : null;
  const maxReplyChars = opts.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS;
  const target: OpenAiTarget = {
    host,
    apiRoot,
    apiKey,
    maxReplyChars,
    maxEventChars: maxLineCharsFor(maxReplyChars),
    preflightTimeoutMs: opts.preflightTimeoutMs ?? DEFAULT_PREFLIGHT_TIMEOUT_MS,
    wording: wordingFor(host, apiRoot, apiKey),
  };
  return {
    host,
    preflight: (model, signal) => preflight(target, model, signal),
    generate: (request, signal) => generate(target, request, signal),
    embed: (request, signal) => embed(target, request, signal),
  };
}

function wordingFor(host: string, apiRoot: string, apiKey: string | null): ServerWording {
  // Every message that leaves this client passes through `fail`: a server may echo the key it
  // was given (OpenAI's own 401 does, masked; a proxy might not mask it).
  const fail = (code: ModelErrorCode, message: string, details?: ModelErrorDetails): ModelError =>
    new ModelError(code, apiKey === null ? message : message.split(apiKey).join(REDACTED), details);
  return {
    server: `the OpenAI-compatible server at ${host}`,
    unreachable: unreachableMessage(host),
    notFound: (model, detail) => `model "${model}" not found at the OpenAI-compatible server at ${host} ${detail} — GET ${apiRoot}/models lists what it serves`,
    promptTooLong: (detail) => `the prompt does not fit the model's context at the OpenAI-compatible server at ${host} ${detail}`,
    fail,
  };
}

function unreachableMessage(host: string): string {
  return `cannot reach the OpenAI-compatible server at ${host} — is it running?`;
}

function headers(target: OpenAiTarget, json: boolean): Record<string, string> {
  return {
    Accept: json ? 'text/event-stream, application/json' : 'application/json',
    ...(json ? { 'Content-Type': 'application/json' } : {}),
    ...(target.apiKey === null ? {} : { Authorization: `Bearer ${target.apiKey}` }),
  };
}

async function statusError(target: OpenAiTarget, response: Response, model: string): Promise<ModelError> {
  const { status } = response;
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
  // A 401/403 body is never quoted: it may hold the key, masked or not.
  if (status === 401 || status === 403) {
    await response.body?.cancel().catch(() => {});
    return target.wording.fail('AUTH', authMessage(target.host, status, target.apiKey !== null), { status });
  }
  const serverMessage = errorText(await readCapped(response, MAX_ERROR_BODY_CHARS).catch(() => ''));
  return httpStatusError(status, serverMessage, model, retryAfterMs, target.wording);
}

function authMessage(host: string, status: number, keySent: boolean): string {
  return keySent
    ? `the OpenAI-compatible server at ${host} rejected the API key (${status}) — check the variable named by --api-key-env`
    : `the OpenAI-compatible server at ${host} requires an API key (${status}) — name the variable that holds it with --api-key-env`;
}

function classify(target: OpenAiTarget, err: unknown, scope: RequestScope, phase: Phase): ModelError {
  const known = transportError(err, scope, target.wording);
  if (known !== null) return known;
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof Error ? err.message : String(err);
  const during = phase === 'stream' ? 'reading the reply from' : 'sending the request to';
  return target.wording.fail('BAD_RESPONSE', `unexpected failure ${during} the OpenAI-compatible server at ${target.host}: ${name ? `${name}: ` : ''}${message}`);
}

function tooLarge(target: OpenAiTarget, scope: RequestScope): ModelError {
  scope.abort('tooLarge');
  return target.wording.fail('REPLY_TOO_LARGE', `reply from the OpenAI-compatible server at ${target.host} exceeded ${target.maxReplyChars} characters; request aborted`);
}

function preflight(target: OpenAiTarget, model: string, signal?: AbortSignal): Promise<ModelInfo> {
  const { host, apiRoot, wording } = target;
  const scope = new RequestScope(signal, target.preflightTimeoutMs);
  return inScope(scope, wording, async () => {
    let response: Response;
    try {
      response = await modelFetch(`${apiRoot}/models`, { headers: headers(target, false), signal: scope.signal });
    } catch (err) {
      const classified = classify(target, err, scope, 'request');
      if (classified.code === 'ABORTED') throw classified;
      throw wording.fail('UNREACHABLE', unreachableMessage(host));
    }
    if (response.status === 404) {
      await response.body?.cancel().catch(() => {});
      throw wording.fail('HTTP_404', `${host} has no ${apiRoot}/models — is the base URL an OpenAI-compatible endpoint?`, { status: 404 });
    }
    if (!response.ok) throw await statusError(target, response, model);
    const listed = listedModels(parseJson(await readCapped(response, target.maxEventChars)));
    if (listed === null) throw wording.fail('BAD_RESPONSE', `${apiRoot}/models at ${host} did not answer with a model list`);
    const found = findListedModel(listed, model);
    if (found === undefined) {
      const shown = listed.slice(0, LISTED_MODELS_SHOWN).join(', ') + (listed.length > LISTED_MODELS_SHOWN ? ', …' : '');
      throw wording.fail('HTTP_404', `model "${model}" is not served by the OpenAI-compatible server at ${host} (it serves: ${shown || 'nothing'})`, { status: 404 });
    }
    // /v1/models carries no content digest on any of the servers this targets (vLLM, llama.cpp,
    // LM Studio, TGI, Ollama's /v1): `created` and `owned_by` say nothing about the weights.
    return { model: found, digest: null };
  }, (err) => classify(target, err, scope, 'request'));
}

function generate(target: OpenAiTarget, request: GenerateRequest, signal?: AbortSignal): Promise<GenerateReply> {
  const scope = new RequestScope(signal, request.timeoutMs);
  let phase: Phase = 'request';
  return inScope(scope, target.wording, async () => {
    // Streaming: headers come with the first token, so a long generation never meets Node
    // fetch's 300 s headers timeout; our own deadline bounds the whole call.
    const response = await modelFetch(`${target.apiRoot}/chat/completions`, {
      method: 'POST',
      headers: { ...headers(target, true), ...requestIdHeaders(request.requestId) },
      body: JSON.stringify(chatCompletionBody(request)),
      signal: scope.signal,
    });
    phase = 'stream';
    if (!response.ok) throw await statusError(target, response, request.model);
    const type = response.headers.get('content-type') ?? '';
    // A server that ignores `stream: true` answers with one chat.completion object.
    if (type.includes('application/json')) {
      const text = await readCapped(response, target.maxEventChars);
      // Read to its end or cancelled at the cap: either way the body holds nothing more.
      scope.ended();
      return wholeReply(target, text, scope);
    }
    return await streamedReply(target, response, scope);
  }, (err) => classify(target, err, scope, phase));
}

async function streamedReply(target: OpenAiTarget, response: Response, scope: RequestScope): Promise<GenerateReply> {
  const { host, wording } = target;
  const body = response.body;
  if (body === null) throw wording.fail('BAD_RESPONSE', `the OpenAI-compatible server at ${host} sent no reply body`);
  const reply = new ReplyAccumulator();
  const events = new SseLineReader(target.maxEventChars);
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let finished = false;
  const onData = (data: string, event: string): void => {
    if (finished) return;
    if (data === '[DONE]') {
      finished = true;
      return;
    }
    const chunk = parseJson(data);
    const failure = event === 'error' ? errorText(data) : streamedErrorText(chunk);
    if (failure !== null) throw wording.fail('STREAM_ERROR', `the OpenAI-compatible server at ${host} failed mid-reply: ${failure}`);
    if (chunk === undefined || chunk === null || typeof chunk !== 'object') {
      throw wording.fail('BAD_RESPONSE', `the OpenAI-compatible server at ${host} sent an event that is not JSON`);
    }
    reply.add(chunk as ChatChunk, 'delta');
    if (reply.content.length > target.maxReplyChars) throw tooLarge(target, scope);
  };
  try {
    while (!finished) {
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      if (!events.push(text, onData)) throw tooLarge(target, scope);
      if (done) {
        events.end(onData);
        break;
      }
    }
  } finally {
    if (finished) await reader.cancel().catch(() => {});
  }
  // Read to its end, or cancelled after [DONE]: the body holds nothing more to release.
  scope.ended();
  if (!finished && reply.finishReason === null) {
    // Zero events means the body was not an event stream at all: retrying is futile.
    throw events.count === 0
      ? wording.fail('BAD_RESPONSE', `the OpenAI-compatible server at ${host} sent a reply that is not an event stream`)
      : wording.fail('REPLY_INCOMPLETE', `the OpenAI-compatible server at ${host} ended the reply before it was done`);
  }
  return reply.result();
}

function wholeReply(target: OpenAiTarget, text: string, scope: RequestScope): GenerateReply {
  const { host, wording } = target;
  const parsed = parseJson(text);
  const failure = streamedErrorText(parsed);
  if (failure !== null) throw wording.fail('BAD_RESPONSE', `the OpenAI-compatible server at ${host} answered with an error: ${failure}`);
  const reply = new ReplyAccumulator();
  if (parsed === null || typeof parsed !== 'object' || !reply.add(parsed as ChatChunk, 'message')) {
    throw wording.fail('BAD_RESPONSE', `the OpenAI-compatible server at ${host} sent a reply that is neither an event stream nor a chat completion`);
  }
  if (reply.content.length > target.maxReplyChars) throw tooLarge(target, scope);
  return reply.result();
}

// /v1/embeddings, one batch per request (vLLM, llama-server started with --embedding, Ollama's
// /v1). llama-server refuses an input longer than its physical batch (-ub, default 512 tokens)
// with a 500 "input (N tokens) is too large to process" (server-context.cpp): a fault of the
// input, not of the server, so it is PROMPT_TOO_LONG and never retried; vLLM's 400 about the
// maximum context length reads the same through httpStatusError.
function embed(target: OpenAiTarget, request: EmbedRequest, signal?: AbortSignal): Promise<EmbedReply> {
  const { host, wording } = target;
  const scope = new RequestScope(signal, request.timeoutMs);
  return inScope(scope, wording, async () => {
    const body = { model: request.model, input: request.input, encoding_format: 'float', ...(request.dimensions === null ? {} : { dimensions: request.dimensions }) };
    const response = await modelFetch(`${target.apiRoot}/embeddings`, { method: 'POST', headers: headers(target, true), body: JSON.stringify(body), signal: scope.signal });
    if (!response.ok) {
      const error = await statusError(target, response, request.model);
      if (INPUT_TOO_LARGE_RE.test(error.message)) throw wording.fail('PROMPT_TOO_LONG', wording.promptTooLong(`(${error.status}): ${error.message}`), { status: error.status, retryable: false });
      throw error;
    }
    const text = await readCapped(response, MAX_EMBED_REPLY_CHARS);
    scope.ended();
    const parsed = parseJson(text) as { data?: unknown; usage?: { prompt_tokens?: unknown } } | undefined;
    const data = Array.isArray(parsed?.data) ? (parsed.data as { embedding?: unknown; index?: unknown }[]) : null;
    // The list is in input order on every server this targets; `index` says so, and wins if not.
    const ordered = data?.every((d, i) => d?.index === undefined || d.index === i) ? data : data ? [...data].sort((a, b) => Number(a.index) - Number(b.index)) : null;
    const vectors = ordered === null ? null : vectorsOf(ordered.map((d) => d?.embedding), request.input.length);
    if (vectors === null) throw wording.fail('BAD_RESPONSE', `the OpenAI-compatible server at ${host} sent no embeddings of the ${request.input.length} inputs (is it started with --embedding, or serving a pooling model?)`);
    return { vectors, promptTokens: countOrNull(parsed?.usage?.prompt_tokens) };
  }, (err) => classify(target, err, scope, 'request'));
}
