// How the Ollama client reads a failure: its wording of the shared HTTP errors, and what only an
// Ollama stream can say (a cut stream, an error line mid-reply).
import { ModelError } from './model-client.js';
import { modelFetch } from './model-fetch.js';
import { httpStatusError, newModelError, parseRetryAfter, transportError, type ServerWording } from './http-errors.js';
import { RequestScope } from './request-scope.js';

// ollama-js throws this when the body ends without a `done: true` object.
export const STREAM_CUT_MESSAGE = 'Did not receive done or success response in stream.';

export function unreachableMessage(host: string): string {
  return `cannot reach Ollama at ${host} — is it running? (or use --backend extractive)`;
}

export function wording(host: string): ServerWording {
  return {
    server: `Ollama at ${host}`,
    unreachable: unreachableMessage(host),
    notFound: (model) => `model "${model}" not found — run: ollama pull ${model}`,
    promptTooLong: (detail) => `the prompt does not fit the context of the model at Ollama at ${host} ${detail}`,
    fail: newModelError,
  };
}

export type Phase = 'request' | 'stream';
// The shared scope, plus what only this client needs: the fetch ollama-js is given (it attaches
// the scope's signal) keeps the Retry-After header, which ollama-js's ResponseError does not expose.
export class OllamaRequestScope extends RequestScope {
  retryAfter: string | null = null;

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

export function classify(err: unknown, ctx: ClassifyContext): ModelError {
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
