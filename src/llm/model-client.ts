// The model client seam: the generate stage depends on this interface only, so tests and the
// extractive backend never load the ollama package.

export interface GenerateRequest {
  model: string;
  prompt: string;
  format: Record<string, unknown>;
  options: { temperature: number; seed: number; num_predict: number; num_ctx: number };
  keepAlive: string;
  timeoutMs: number;
}

export interface GenerateReply {
  content: string;
  doneReason: string | null;
  promptTokens: number | null;
  outputTokens: number | null;
}

export interface ModelInfo {
  model: string;
  digest: string | null;
}

export interface ModelClient {
  readonly host: string;
  preflight(model: string, signal?: AbortSignal): Promise<ModelInfo>;
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

export function isRetryableCode(code: ModelErrorCode): boolean {
  return RETRYABLE_BY_DEFAULT.has(code);
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

export function isModelError(value: unknown): value is ModelError {
  return value instanceof ModelError;
}

const MAX_MESSAGE_CHARS = 500;
const WHITESPACE_RUN = /\s+/g;

// Server error bodies can be multi-line (HTML error pages, Go panics); a report line must stay one line.
export function oneLine(text: string): string {
  const flat = text.replace(WHITESPACE_RUN, ' ').trim();
  return flat.length > MAX_MESSAGE_CHARS ? `${flat.slice(0, MAX_MESSAGE_CHARS - 1)}…` : flat;
}
