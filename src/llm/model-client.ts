// The model client seam: the generate stage depends on this interface only, so tests and the
// extractive backend never load the ollama package.

export interface GenerateRequest {
  model: string;
  prompt: string;
  format: Record<string, unknown>;
  options: { temperature: number; seed: number; num_predict: number; num_ctx: number };
  keepAlive: string;
  timeoutMs: number;
  /**
   * Let a thinking model reason before it answers (true), keep it from it (false: Ollama's
   * `think: false`, the OpenAI-compatible servers' `enable_thinking: false`), or send no switch (null).
   */
  think: boolean | null;
  /**
   * What the request is for, `<input id> <view>`: sent as X-Request-Id, which vLLM takes as its own
   * request id (its logs and its reply's header carry it), so a server's log names the chunk.
   */
  requestId?: string;
}

export interface GenerateReply {
  content: string;
  doneReason: string | null;
  /** Every prompt token of the request, those served from the engine's prompt cache included. */
  promptTokens: number | null;
  /** Of promptTokens, those the engine served from its prompt cache; null where the server does not say (Ollama). */
  cachedTokens?: number | null;
  outputTokens: number | null;
  /** Characters of reasoning the server sent apart from the content (Ollama's message.thinking, reasoning_content); absent: none. */
  thinkingChars?: number;
}

export interface ModelInfo {
  model: string;
  digest: string | null;
  /** The model's trained context length, when the server says (Ollama's model_info). */
  contextLength?: number | null;
  /** What the model can do, when the server says (Ollama's /api/show capabilities). */
  capabilities?: string[];
}

export interface LoadRequest {
  model: string;
  keepAlive: string;
  numCtx: number;
  timeoutMs: number;
}

/** One batch of texts to embed (Ollama's /api/embed, an OpenAI-compatible /v1/embeddings). */
export interface EmbedRequest {
  model: string;
  input: readonly string[];
  /** Ask for vectors cut to this length (Matryoshka models); null: the model's own. */
  dimensions: number | null;
  /** Ollama: the context the inputs are held to (options.num_ctx); null: the server's. */
  numCtx: number | null;
  keepAlive: string;
  timeoutMs: number;
}

export interface EmbedReply {
  /** One vector per input, in input order. */
  vectors: number[][];
  /** Tokens the server counted over the whole batch, when it says. */
  promptTokens: number | null;
}

/** What the model must be able to do: chat (views) or embed (rca-embed). */
export type ModelUse = 'completion' | 'embedding';

export interface ModelClient {
  readonly host: string;
  preflight(model: string, signal?: AbortSignal, use?: ModelUse): Promise<ModelInfo>;
  /** Embeds a batch of texts; an input longer than the model takes is refused (PROMPT_TOO_LONG), never cut. */
  embed?(request: EmbedRequest, signal?: AbortSignal): Promise<EmbedReply>;
  /** Loads the model before the first request, on its own deadline (servers that load on demand: Ollama). */
  load?(request: LoadRequest, signal?: AbortSignal): Promise<void>;
  generate(request: GenerateRequest, signal?: AbortSignal): Promise<GenerateReply>;
}

export const MODEL_ERROR_CODES = [
  'UNREACHABLE',
  'TIMEOUT',
  'ABORTED',
  'HTTP_400',
  'HTTP_404',
  'HTTP_429',
  'HTTP_5XX',
  'SERVER_BUSY',
  'CONNECTION_RESET',
  'STREAM_ERROR',
  'REPLY_TOO_LARGE',
  'BAD_RESPONSE',
  // The server refused the credentials (401/403): a configuration error, never retried.
  'AUTH',
  // The prompt does not fit the model's context (a 400 from llama-server, Ollama, vLLM): the
  // ladder goes on to its cut-text attempt instead of failing the view.
  'PROMPT_TOO_LONG',
  // The reply stream ended without its final object (Ollama's repetition abort ends it so): a
  // fault of the reply, for the ladder (feedback, then cut text), not a transport fault to retry.
  'REPLY_INCOMPLETE',
  // The model cannot chat (an embedding model: no `completion` capability): the run cannot start.
  'MODEL_UNSUITABLE',
] as const;
export type ModelErrorCode = (typeof MODEL_ERROR_CODES)[number];

// Transient conditions a later attempt can fix. ABORTED is the caller's own decision, and a
// reply that is too large or malformed will most likely be the same next time.
const RETRYABLE_BY_DEFAULT: ReadonlySet<ModelErrorCode> = new Set<ModelErrorCode>([
  'UNREACHABLE',
  'TIMEOUT',
  'CONNECTION_RESET',
  'HTTP_5XX',
  'SERVER_BUSY',
  'HTTP_429',
  'STREAM_ERROR',
]);

function isRetryableCode(code: ModelErrorCode): boolean {
  return RETRYABLE_BY_DEFAULT.has(code);
}

/** Failures another attempt of the ladder can fix: they are the reply's or the prompt's, not the transport's. */
export function isReplyFault(code: ModelErrorCode): boolean {
  return code === 'PROMPT_TOO_LONG' || code === 'REPLY_INCOMPLETE';
}

// llama-server: "request (3009 tokens) exceeds the available context size (1024 tokens)" (type
// exceed_context_size_error); Ollama: "the prompt is longer than the context length"; vLLM: "…
// longer than the maximum model length", "maximum context length is …".
const CONTEXT_EXCEEDED_RE = /exceeds? the (?:available )?context|exceed_context_size|longer than the (?:context length|maximum model length)|maximum context length/i;

/** Whether a 400's message says the prompt does not fit the context. */
export function saysContextExceeded(message: string): boolean {
  return CONTEXT_EXCEEDED_RE.test(message);
}

export interface ModelErrorDetails {
  status?: number | null;
  retryable?: boolean;
  retryAfterMs?: number | null;
}

export class ModelError extends Error {
  override readonly name = 'ModelError';
  readonly code: ModelErrorCode;
  readonly status: number | null;
  readonly retryable: boolean;
  readonly retryAfterMs: number | null;
  // Set by withTransportRetries when it gives up, so the caller can report how hard it tried.
  retries = 0;

  constructor(code: ModelErrorCode, message: string, details: ModelErrorDetails = {}) {
    super(oneLine(message));
    this.code = code;
    this.status = details.status ?? null;
    this.retryable = details.retryable ?? isRetryableCode(code);
    this.retryAfterMs = details.retryAfterMs ?? null;
  }
}

const MAX_MESSAGE_CHARS = 500;
const WHITESPACE_RUN = /\s+/g;

// Server error bodies can be multi-line (HTML error pages, Go panics); a report line must stay one line.
export function oneLine(text: string): string {
  const flat = text.replace(WHITESPACE_RUN, ' ').trim();
  return flat.length > MAX_MESSAGE_CHARS ? `${flat.slice(0, MAX_MESSAGE_CHARS - 1)}…` : flat;
}

/** A server address without its trailing slashes ("http://h:1/v1//" → "http://h:1/v1"), in one pass. */
export function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 0x2f) end--;
  return end === url.length ? url : url.slice(0, end);
}
