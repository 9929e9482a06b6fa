// A model client for OpenAI-compatible servers (vLLM, llama.cpp's server, LM Studio, TGI, Ollama's
// own /v1): Node's fetch against /v1/chat/completions, streamed as server-sent events. No SDK, so
// the request, the deadline and every error message stay under our control — in particular the
// API key, which is sent only in the Authorization header and scrubbed from anything we report.
import { modelFetch } from './model-fetch.js';
import {
  ModelError,
  saysContextExceeded,
  type EmbedReply,
  type EmbedRequest,
  type GenerateReply,
  type GenerateRequest,
  type ModelClient,
  type ModelErrorCode,
  type ModelErrorDetails,
  type ModelInfo,
  withoutTrailingSlashes,
} from './model-client.js';
import { abortedError, parseRetryAfter, httpStatusError, transportError, type ServerWording } from './http-errors.js';
import { RequestScope } from './request-scope.js';

export interface OpenAiClientOptions {
  baseUrl: string;
  apiKey?: string | null;
  maxReplyChars?: number;
  preflightTimeoutMs?: number;
}

const DEFAULT_MAX_REPLY_CHARS = 1_000_000;
const DEFAULT_PREFLIGHT_TIMEOUT_MS = 10_000;
const MAX_ERROR_BODY_CHARS = 64 * 1024;
// A JSON string can spend six characters (\uXXXX) on one character of content.
const JSON_ESCAPE_FACTOR = 6;
const EVENT_ENVELOPE_CHARS = 64 * 1024;
const LISTED_MODELS_SHOWN = 8;
const REDACTED = '[redacted]';

const V1_SUFFIX = /\/v1$/;
const SCHEMA_NAME_UNSAFE = /[^A-Za-z0-9_-]+/g;
const SCHEMA_NAME_MAX = 64;
const DEFAULT_SCHEMA_NAME = 'reply';

function unreachableMessage(host: string): string {
  return `cannot reach the OpenAI-compatible server at ${host} — is it running?`;
}

// `host` is what messages show (the base URL without credentials, query or trailing slash);
// `apiRoot` is where /chat/completions and /models live. Both `http://h:8000` and
// `http://h:8000/v1` are accepted, as SDKs and server docs use either.
export function resolveBaseUrl(raw: string): { host: string; apiRoot: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new TypeError(`the base URL must be an http or https URL such as http://localhost:8000/v1, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`the base URL must be an http or https URL, got '${url.protocol}'`);
  }
  const host = `${url.protocol}//${url.host}${withoutTrailingSlashes(url.pathname)}`;
  return { host, apiRoot: V1_SUFFIX.test(host) ? host : `${host}/v1` };
}

// json_schema.name must match ^[a-zA-Z0-9_-]{1,64}$ on OpenAI itself; other servers ignore it.
export function schemaName(format: Record<string, unknown>): string {
  const title = typeof format.title === 'string' ? format.title.replace(SCHEMA_NAME_UNSAFE, '_').slice(0, SCHEMA_NAME_MAX) : '';
  return title === '' || title === '_' ? DEFAULT_SCHEMA_NAME : title;
}

// gpt-oss cannot turn its reasoning off: its control is reasoning_effort, whose least is "low"
// (vLLM's ChatCompletionRequest.reasoning_effort, llama-server's reasoning_effort → the
// template's kwarg). Other thinking models take chat_template_kwargs.enable_thinking.
const EFFORT_CONTROLLED_RE = /gpt-oss/i;

/**
 * The thinking switch of the body: `think` false (--think off) sends
 * `chat_template_kwargs: {enable_thinking: false}`, which vLLM and SGLang pass to the chat
 * template (Qwen3's renders an empty think block) and llama-server reads itself
 * (tools/server/server-common.cpp, oaicompat_chat_params_parse: the "enable_thinking" kwarg sets
 * inputs.enable_thinking); gpt-oss models get `reasoning_effort: "low"` as well. true sends
 * enable_thinking: true; null sends nothing (the server's default).
 */
export function thinkingSwitch(request: GenerateRequest): Record<string, unknown> {
  if (request.think === null) return {};
  return {
    chat_template_kwargs: { enable_thinking: request.think },
    ...(!request.think && EFFORT_CONTROLLED_RE.test(request.model) ? { reasoning_effort: 'low' } : {}),
  };
}

// num_ctx and keepAlive have no OpenAI equivalent (the context length is fixed when the server
// starts), so they are not sent.
export function chatCompletionBody(request: GenerateRequest): Record<string, unknown> {
  return {
    model: request.model,
    messages: [{ role: 'user', content: request.prompt }],
    response_format: { type: 'json_schema', json_schema: { name: schemaName(request.format), schema: request.format, strict: true } },
    temperature: request.options.temperature,
    seed: request.options.seed,
    max_tokens: request.options.num_predict,
    stream: true,
    // Without it a streamed reply carries no token counts.
    stream_options: { include_usage: true },
    ...thinkingSwitch(request),
  };
}

export function createOpenAiClient(opts: OpenAiClientOptions): ModelClient {
  const { host, apiRoot } = resolveBaseUrl(opts.baseUrl);
  const apiKey = opts.apiKey !== undefined && opts.apiKey !== null && opts.apiKey !== '' ? opts.apiKey : null;
  const maxReplyChars = opts.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS;
  const maxEventChars = maxReplyChars * JSON_ESCAPE_FACTOR + EVENT_ENVELOPE_CHARS;
  const preflightTimeoutMs = opts.preflightTimeoutMs ?? DEFAULT_PREFLIGHT_TIMEOUT_MS;

  // Every message that leaves this client passes through here: a server may echo the key it was
  // given (OpenAI's own 401 does, masked; a proxy might not mask it).
  const fail = (code: ModelErrorCode, message: string, details?: ModelErrorDetails): ModelError =>
    new ModelError(code, apiKey === null ? message : message.split(apiKey).join(REDACTED), details);

  const wording: ServerWording = {
    server: `the OpenAI-compatible server at ${host}`,
    unreachable: unreachableMessage(host),
    notFound: (model, detail) => `model "${model}" not found at the OpenAI-compatible server at ${host} ${detail} — GET ${apiRoot}/models lists what it serves`,
    promptTooLong: (detail) => `the prompt does not fit the model's context at the OpenAI-compatible server at ${host} ${detail}`,
    fail,
  };

  const headers = (json: boolean): Record<string, string> => ({
    Accept: json ? 'text/event-stream, application/json' : 'application/json',
    ...(json ? { 'Content-Type': 'application/json' } : {}),
    ...(apiKey === null ? {} : { Authorization: `Bearer ${apiKey}` }),
  });

  const statusError = async (response: Response, model: string): Promise<ModelError> => {
    const { status } = response;
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    // A 401/403 body is never quoted: it may hold the key, masked or not.
    if (status === 401 || status === 403) {
      await response.body?.cancel().catch(() => {});
      return fail('AUTH', authMessage(host, status, apiKey !== null), { status });
    }
    const serverMessage = errorText(await readCapped(response, MAX_ERROR_BODY_CHARS).catch(() => ''));
    return httpStatusError(status, serverMessage, model, retryAfterMs, wording);
  };

  const classify = (err: unknown, scope: RequestScope, phase: Phase): ModelError => {
    const known = transportError(err, scope, wording);
    if (known !== null) return known;
    const name = err instanceof Error ? err.name : '';
    const message = err instanceof Error ? err.message : String(err);
    const during = phase === 'stream' ? 'reading the reply from' : 'sending the request to';
    return fail('BAD_RESPONSE', `unexpected failure ${during} the OpenAI-compatible server at ${host}: ${name ? `${name}: ` : ''}${message}`);
  };

  async function preflight(model: string, signal?: AbortSignal): Promise<ModelInfo> {
    const scope = new RequestScope(signal, preflightTimeoutMs);
    try {
      if (scope.callerAborted) throw abortedError(wording);
      let response: Response;
      try {
        response = await modelFetch(`${apiRoot}/models`, { headers: headers(false), signal: scope.signal });
      } catch (err) {
        const classified = classify(err, scope, 'request');
        if (classified.code === 'ABORTED') throw classified;
        throw fail('UNREACHABLE', unreachableMessage(host));
      }
      if (response.status === 404) {
        await response.body?.cancel().catch(() => {});
        throw fail('HTTP_404', `${host} has no ${apiRoot}/models — is the base URL an OpenAI-compatible endpoint?`, { status: 404 });
      }
      if (!response.ok) throw await statusError(response, model);
      const listed = listedModels(parseJson(await readCapped(response, maxEventChars)));
      if (listed === null) throw fail('BAD_RESPONSE', `${apiRoot}/models at ${host} did not answer with a model list`);
      const found = findListedModel(listed, model);
      if (found === undefined) {
        const shown = listed.slice(0, LISTED_MODELS_SHOWN).join(', ') + (listed.length > LISTED_MODELS_SHOWN ? ', …' : '');
        throw fail('HTTP_404', `model "${model}" is not served by the OpenAI-compatible server at ${host} (it serves: ${shown || 'nothing'})`, { status: 404 });
      }
      // /v1/models carries no content digest on any of the servers this targets (vLLM, llama.cpp,
      // LM Studio, TGI, Ollama's /v1): `created` and `owned_by` say nothing about the weights.
      return { model: found, digest: null };
    } catch (err) {
      throw classify(err, scope, 'request');
    } finally {
      scope.dispose();
    }
  }

  async function generate(request: GenerateRequest, signal?: AbortSignal): Promise<GenerateReply> {
    const scope = new RequestScope(signal, request.timeoutMs);
    let phase: Phase = 'request';
    try {
      if (scope.callerAborted) throw abortedError(wording);
      // Streaming: headers come with the first token, so a long generation never meets Node
      // fetch's 300 s headers timeout; our own deadline bounds the whole call.
      const response = await modelFetch(`${apiRoot}/chat/completions`, {
        method: 'POST',
        headers: headers(true),
        body: JSON.stringify(chatCompletionBody(request)),
        signal: scope.signal,
      });
      phase = 'stream';
      if (!response.ok) throw await statusError(response, request.model);
      const type = response.headers.get('content-type') ?? '';
      // A server that ignores `stream: true` answers with one chat.completion object.
      if (type.includes('application/json')) {
        const text = await readCapped(response, maxEventChars);
        // Read to its end or cancelled at the cap: either way the body holds nothing more.
        scope.ended();
        return wholeReply(text, scope);
      }
      return await streamedReply(response, scope);
    } catch (err) {
      throw classify(err, scope, phase);
    } finally {
      scope.dispose();
    }
  }

  const tooLarge = (scope: RequestScope): ModelError => {
    scope.abort('tooLarge');
    return fail('REPLY_TOO_LARGE', `reply from the OpenAI-compatible server at ${host} exceeded ${maxReplyChars} characters; request aborted`);
  };

  async function streamedReply(response: Response, scope: RequestScope): Promise<GenerateReply> {
    const body = response.body;
    if (body === null) throw fail('BAD_RESPONSE', `the OpenAI-compatible server at ${host} sent no reply body`);
    const reply = new ReplyAccumulator();
    const events = new SseLineReader(maxEventChars);
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
      if (failure !== null) throw fail('STREAM_ERROR', `the OpenAI-compatible server at ${host} failed mid-reply: ${failure}`);
      if (chunk === undefined || chunk === null || typeof chunk !== 'object') {
        throw fail('BAD_RESPONSE', `the OpenAI-compatible server at ${host} sent an event that is not JSON`);
      }
      reply.add(chunk as ChatChunk, 'delta');
      if (reply.content.length > maxReplyChars) throw tooLarge(scope);
    };
    try {
      while (!finished) {
        const { done, value } = await reader.read();
        const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
        if (!events.push(text, onData)) throw tooLarge(scope);
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
        ? fail('BAD_RESPONSE', `the OpenAI-compatible server at ${host} sent a reply that is not an event stream`)
        : fail('REPLY_INCOMPLETE', `the OpenAI-compatible server at ${host} ended the reply before it was done`);
    }
    return reply.result();
  }

  function wholeReply(text: string, scope: RequestScope): GenerateReply {
    const parsed = parseJson(text);
    const failure = streamedErrorText(parsed);
    if (failure !== null) throw fail('BAD_RESPONSE', `the OpenAI-compatible server at ${host} answered with an error: ${failure}`);
    const reply = new ReplyAccumulator();
    if (parsed === null || typeof parsed !== 'object' || !reply.add(parsed as ChatChunk, 'message')) {
      throw fail('BAD_RESPONSE', `the OpenAI-compatible server at ${host} sent a reply that is neither an event stream nor a chat completion`);
    }
    if (reply.content.length > maxReplyChars) throw tooLarge(scope);
    return reply.result();
  }

  // /v1/embeddings, one batch per request (vLLM, llama-server started with --embedding, Ollama's
  // /v1). llama-server refuses an input longer than its physical batch (-ub, default 512 tokens)
  // with a 500 "input (N tokens) is too large to process" (server-context.cpp): a fault of the
  // input, not of the server, so it is PROMPT_TOO_LONG and never retried; vLLM's 400 about the
  // maximum context length reads the same through httpStatusError.
  async function embed(request: EmbedRequest, signal?: AbortSignal): Promise<EmbedReply> {
    const scope = new RequestScope(signal, request.timeoutMs);
    try {
      if (scope.callerAborted) throw abortedError(wording);
      const body = { model: request.model, input: request.input, encoding_format: 'float', ...(request.dimensions === null ? {} : { dimensions: request.dimensions }) };
      const response = await modelFetch(`${apiRoot}/embeddings`, { method: 'POST', headers: headers(true), body: JSON.stringify(body), signal: scope.signal });
      if (!response.ok) {
        const error = await statusError(response, request.model);
        if (INPUT_TOO_LARGE_RE.test(error.message)) throw fail('PROMPT_TOO_LONG', wording.promptTooLong(`(${error.status}): ${error.message}`), { status: error.status, retryable: false });
        throw error;
      }
      const text = await readCapped(response, MAX_EMBED_REPLY_CHARS);
      scope.ended();
      const parsed = parseJson(text) as { data?: unknown; usage?: { prompt_tokens?: unknown } } | undefined;
      const data = Array.isArray(parsed?.data) ? (parsed.data as { embedding?: unknown; index?: unknown }[]) : null;
      // The list is in input order on every server this targets; `index` says so, and wins if not.
      const ordered = data?.every((d, i) => d?.index === undefined || d.index === i) ? data : data ? [...data].sort((a, b) => Number(a.index) - Number(b.index)) : null;
      const vectors = ordered === null ? null : embeddingsOf(ordered.map((d) => d?.embedding), request.input.length);
      if (vectors === null) throw fail('BAD_RESPONSE', `the OpenAI-compatible server at ${host} sent no embeddings of the ${request.input.length} inputs (is it started with --embedding, or serving a pooling model?)`);
      return { vectors, promptTokens: countOrNull(parsed?.usage?.prompt_tokens) };
    } catch (err) {
      throw classify(err, scope, 'request');
    } finally {
      scope.dispose();
    }
  }

  return { host, preflight, generate, embed };
}

const INPUT_TOO_LARGE_RE = /too large to process|larger than the max context size/;
// 64 Ki inputs of 4,096 dimensions at ~20 characters a number: the cap only stops a runaway body.
const MAX_EMBED_REPLY_CHARS = 512 * 1024 * 1024;

function embeddingsOf(value: unknown[], inputs: number): number[][] | null {
  if (value.length !== inputs) return null;
  for (const v of value) {
    if (!Array.isArray(v) || v.length === 0) return null;
    for (const x of v) if (typeof x !== 'number' || !Number.isFinite(x)) return null;
  }
  return value as number[][];
}

type Phase = 'request' | 'stream';
interface ChatChunk {
  choices?: { delta?: ChatPiece; message?: ChatPiece; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } | null } | null;
  /** llama-server's own counts (server_slot_stats::to_json): cache_n prompt tokens reused, prompt_n evaluated. */
  timings?: { cache_n?: unknown; prompt_n?: unknown } | null;
}

// llama-server and vLLM send a reasoning model's thinking as reasoning_content (some servers: reasoning).
interface ChatPiece {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
}

class ReplyAccumulator {
  content = '';
  private thinkingChars = 0;
  finishReason: string | null = null;
  private promptTokens: number | null = null;
  private cachedTokens: number | null = null;
  private timingsCached: number | null = null;
  private outputTokens: number | null = null;

  // Returns whether the object looked like a completion (had choices or usage).
  add(chunk: ChatChunk, field: 'delta' | 'message'): boolean {
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    const part = choice?.[field];
    const piece: unknown = part?.content;
    if (typeof piece === 'string') this.content += piece;
    const thought: unknown = part?.reasoning_content ?? part?.reasoning;
    if (typeof thought === 'string') this.thinkingChars += thought.length;
    if (typeof choice?.finish_reason === 'string') this.finishReason = choice.finish_reason;
    const usage = chunk.usage;
    if (usage !== null && typeof usage === 'object') {
      this.promptTokens = countOrNull(usage.prompt_tokens) ?? this.promptTokens;
      this.outputTokens = countOrNull(usage.completion_tokens) ?? this.outputTokens;
      // vLLM (with --enable-prompt-tokens-details) and llama-server (server-task.cpp,
      // usage_json_oaicompat: n_prompt_tokens_cache) say how many prompt tokens came from the cache.
      const details = usage.prompt_tokens_details;
      if (details !== null && typeof details === 'object') this.cachedTokens = countOrNull(details.cached_tokens) ?? this.cachedTokens;
    }
    // llama-server's timings, on every streamed chunk and the final one: the cache's share where usage has none.
    const timings = chunk.timings;
    if (timings !== null && typeof timings === 'object' && this.cachedTokens === null) {
      const cached = countOrNull(timings.cache_n);
      if (cached !== null && countOrNull(timings.prompt_n) !== null) this.timingsCached = cached;
    }
    return choice !== undefined || (usage !== null && typeof usage === 'object');
  }

  // finish_reason is the OpenAI spelling of Ollama's done_reason: "stop" and "length" read alike.
  result(): GenerateReply {
    return {
      content: this.content,
      doneReason: this.finishReason,
      promptTokens: this.promptTokens,
      cachedTokens: this.cachedTokens ?? this.timingsCached,
      outputTokens: this.outputTokens,
      thinkingChars: this.thinkingChars,
    };
  }
}

// Server-sent events, line by line: `data:` lines accumulate until a blank line ends the event;
// `event:` names it; lines starting with `:` are comments (keep-alives). Scanning resumes where the
// previous chunk stopped, so the work stays linear in the reply however the bytes arrive.
export class SseLineReader {
  private buffer = '';
  private scanFrom = 0;
  private data: string[] = [];
  private event = '';
  count = 0;

  constructor(private readonly maxLineChars: number) {}

  // Returns false when one line outgrows the cap (a server streaming garbage without newlines).
  push(text: string, onEvent: (data: string, event: string) => void): boolean {
    this.buffer += text;
    let start = 0;
    for (;;) {
      const newline = this.buffer.indexOf('\n', this.scanFrom);
      if (newline < 0) break;
      const end = newline > start && this.buffer.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      this.line(this.buffer.slice(start, end), onEvent);
      start = newline + 1;
      this.scanFrom = start;
    }
    if (start > 0) this.buffer = this.buffer.slice(start);
    this.scanFrom = this.buffer.length;
    return this.buffer.length <= this.maxLineChars;
  }

  // A body that ends without the final blank line still delivers its last event.
  end(onEvent: (data: string, event: string) => void): void {
    if (this.buffer !== '') this.line(this.buffer.endsWith('\r') ? this.buffer.slice(0, -1) : this.buffer, onEvent);
    this.buffer = '';
    this.scanFrom = 0;
    this.dispatch(onEvent);
  }

  private line(line: string, onEvent: (data: string, event: string) => void): void {
    if (line === '') {
      this.dispatch(onEvent);
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' */) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }

  private dispatch(onEvent: (data: string, event: string) => void): void {
    if (this.data.length === 0) {
      this.event = '';
      return;
    }
    const data = this.data.join('\n');
    const event = this.event;
    this.data = [];
    this.event = '';
    this.count += 1;
    onEvent(data, event);
  }
}

function authMessage(host: string, status: number, keySent: boolean): string {
  return keySent
    ? `the OpenAI-compatible server at ${host} rejected the API key (${status}) — check the variable named by --api-key-env`
    : `the OpenAI-compatible server at ${host} requires an API key (${status}) — name the variable that holds it with --api-key-env`;
}

// OpenAI, vLLM, llama.cpp and Ollama send {"error": {"message"}}, older vLLM {"object": "error",
// "message"}, TGI {"error": "…"}, FastAPI {"detail"}; anything else is quoted as text.
function errorText(body: string): string {
  const parsed = parseJson(body);
  return streamedErrorText(parsed) ?? messageOf(parsed) ?? (body.trim() === '' ? 'no details' : body);
}

function streamedErrorText(value: unknown): string | null {
  if (value === null || typeof value !== 'object') return null;
  const record = value as { error?: unknown; object?: unknown };
  if (record.error !== undefined && record.error !== null) return messageOf(record.error) ?? JSON.stringify(record.error);
  if (record.object === 'error') return messageOf(value) ?? 'error';
  return null;
}

function messageOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return null;
  const { message, detail } = value as { message?: unknown; detail?: unknown };
  if (typeof message === 'string') return message;
  if (typeof detail === 'string') return detail;
  return null;
}

async function readCapped(response: Response, maxChars: number): Promise<string> {
  const body = response.body;
  if (body === null) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
    if (text.length > maxChars) {
      await reader.cancel().catch(() => {});
      return text.slice(0, maxChars);
    }
  }
}

function listedModels(value: unknown): string[] | null {
  if (value === null || typeof value !== 'object') return null;
  const data = (value as { data?: unknown }).data;
  if (!Array.isArray(data)) return null;
  const ids: string[] = [];
  for (const entry of data) {
    const id: unknown = entry !== null && typeof entry === 'object' ? (entry as { id?: unknown }).id : undefined;
    if (typeof id === 'string') ids.push(id);
  }
  return ids;
}

// Exact first; then Ollama's reading of a name without a tag (mistral → mistral:latest), which its
// /v1/models lists with the tag.
function findListedModel(listed: readonly string[], wanted: string): string | undefined {
  if (listed.includes(wanted)) return wanted;
  const target = withDefaultTag(wanted);
  return listed.find((id) => withDefaultTag(id) === target);
}

function withDefaultTag(name: string): string {
  const lastSegment = name.slice(name.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? name : `${name}:latest`;
}


function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function countOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
