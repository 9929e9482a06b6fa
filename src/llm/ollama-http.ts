// How a chat request reaches Ollama: posted on the model agent without fetch (postChat), and a
// status that is not 2xx turned into ollama-js's ResponseError whichever way the reply was read.
import { modelAgent } from './model-fetch.js';
import type { OllamaRequestScope } from './ollama-errors.js';
import type { NdjsonLines } from './ollama-stream.js';

// What ollama-js sends (its User-Agent aside), so a server or proxy sees the same request.
export const CHAT_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' } as const;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Statuses whose fetch Response has a null body.
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * POSTs a chat request on the model agent without fetch, feeding the reply's bytes to `lines` as
 * they arrive: no Response, no WHATWG stream, no AbortSignal (fetch and its streams were the
 * largest share of rca-generate's CPU at a fast server). Every failure is thrown in the shape
 * fetch gives it — a socket error before the reply as TypeError "fetch failed" with the error as
 * its cause, one during the reply as TypeError "terminated", an abort as the signal's reason, a
 * status as ollama-js's ResponseError — so classify() reads them as it reads fetch's. What this
 * path does not do as fetch does (a URL fetch cannot parse or whose scheme is not http(s), a
 * redirect) answers 'useFetch' before any byte of the reply is used, and the caller sends the
 * request again with fetch.
 */
export async function postChat(host: string, body: string, headers: Record<string, string>, scope: OllamaRequestScope, lines: NdjsonLines, onStream: () => void): Promise<'done' | 'useFetch'> {
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
      { origin: url.origin, path: url.pathname + url.search, method: 'POST', headers, body },
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
export async function responseError(response: Response): Promise<Error> {
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
