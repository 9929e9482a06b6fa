// The one reading of HTTP and transport failures every model client shares: which socket error,
// abort or status becomes which ModelError code, and its message. A client supplies only its
// wording (how it names its server, and the few messages that are its own). Kept apart from
// either client so that the OpenAI client never loads the ollama package.
import { ModelError, saysContextExceeded, type ModelErrorCode, type ModelErrorDetails } from './model-client.js';
import type { RequestScope } from './request-scope.js';

export interface ServerWording {
  /** How messages name the server, e.g. "Ollama at http://localhost:11434". */
  server: string;
  /** The message when nothing answers at the address. */
  unreachable: string;
  /** The message of a 404 (`detail` is "(404): <what the server said>"). */
  notFound(model: string, detail: string): string;
  /** The message of a 400 that says the prompt exceeds the context. */
  promptTooLong(detail: string): string;
  /** Builds every error: a client may scrub secrets from the message. */
  fail(code: ModelErrorCode, message: string, details?: ModelErrorDetails): ModelError;
}

export const newModelError = (code: ModelErrorCode, message: string, details?: ModelErrorDetails): ModelError => new ModelError(code, message, details);

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export function abortedError(w: Pick<ServerWording, 'server'>): ModelError {
  return new ModelError('ABORTED', `request to ${w.server} was cancelled`);
}

/**
 * Runs one model call in its scope: a caller that has already cancelled stops it before it starts,
 * every failure is read by `classify`, and the scope is released however the call ends.
 */
export async function inScope<S extends RequestScope, T>(scope: S, w: Pick<ServerWording, 'server'>, call: (scope: S) => Promise<T>, classify: (err: unknown) => ModelError): Promise<T> {
  try {
    if (scope.callerAborted) throw abortedError(w);
    return await call(scope);
  } catch (err) {
    throw classify(err);
  } finally {
    scope.dispose();
  }
}

/**
 * A failure below HTTP (cancellation, our deadline, a socket error, a cut body), or null when the
 * error is none of those and the client reads it itself.
 */
export function transportError(err: unknown, scope: RequestScope, w: ServerWording): ModelError | null {
  if (err instanceof ModelError) return err;
  if (scope.callerAborted) return abortedError(w);
  if (scope.cause === 'timeout') return w.fail('TIMEOUT', `${w.server} did not finish within ${scope.timeoutMs} ms`);
  const code = errorCodeOf(err);
  if (code !== null) {
    if (UNREACHABLE_CODES.has(code)) return w.fail('UNREACHABLE', w.unreachable);
    if (RESET_CODES.has(code)) return w.fail('CONNECTION_RESET', `connection to ${w.server} was reset (${code})`);
    if (TIMEOUT_CODES.has(code)) return w.fail('TIMEOUT', `${w.server} timed out (${code})`);
  }
  const name = err instanceof Error ? err.name : '';
  if (name === 'AbortError' || name === 'TimeoutError') return abortedError(w);
  if (err instanceof TypeError && err.message === 'terminated') return w.fail('CONNECTION_RESET', `connection to ${w.server} was cut mid-reply`);
  return null;
}

/** An HTTP status that is not 2xx, with what the server said, the model asked for and Retry-After (ms). */
export function httpStatusError(status: number, serverMessage: string, model: string, retryAfterMs: number | null, w: ServerWording): ModelError {
  const detail = `(${status}): ${serverMessage}`;
  if (status === 404) return w.fail('HTTP_404', w.notFound(model, detail), { status });
  if (status === 429) return w.fail('HTTP_429', `${w.server} is rate limiting ${detail}`, { status, retryAfterMs });
  if (status === 503) return w.fail('SERVER_BUSY', `${w.server} is busy ${detail}`, { status, retryAfterMs });
  if (status === 408) return w.fail('TIMEOUT', `${w.server} timed out ${detail}`, { status });
  if (status >= 500) {
    // 501, 505 and kin are permanent; only the gateway/crash family is worth another try.
    const retryable = status === 500 || status === 502 || status === 504;
    return w.fail('HTTP_5XX', `${w.server} failed ${detail}`, { status, retryable });
  }
  if (status === 400 && saysContextExceeded(serverMessage)) return w.fail('PROMPT_TOO_LONG', w.promptTooLong(detail), { status });
  if (status >= 400) return w.fail('HTTP_400', `${w.server} rejected the request ${detail}`, { status });
  return w.fail('BAD_RESPONSE', `unexpected status from ${w.server} ${detail}`, { status });
}

// Undici nests the system error in `cause`, and happy-eyeballs connects wrap several in an AggregateError.
function errorCodeOf(err: unknown, depth = 0): string | null {
  if (depth > 4 || err === null || typeof err !== 'object') return null;
  const { code, cause, errors } = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = errorCodeOf(inner, depth + 1);
      if (found !== null) return found;
    }
  }
  return errorCodeOf(cause, depth + 1);
}

const DELTA_SECONDS = /^\d+$/;
// IMF-fixdate and its obsolete forms all open with a day name; Date.parse alone would take "-3" as a year.
const HTTP_DATE = /^[A-Za-z]{3},? /;

export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (DELTA_SECONDS.test(trimmed)) return Number(trimmed) * 1000;
  const at = HTTP_DATE.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
