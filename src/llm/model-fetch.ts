// The fetch every model client uses. Node's global fetch gives up on a response whose headers
// take more than 300 s — and a server sends no headers while a request waits in its queue behind
// long generations (Ollama with OLLAMA_NUM_PARALLEL below our concurrency, a busy vLLM). Our own
// per-request deadline (--timeout) is the only limit we want, so undici's header and body timeouts
// are switched off here. undici is loaded on the first request: runs that never call a model
// (extractive, --dry-run) do not pay for its ~100 files at start-up.
import type { Agent } from 'undici';

/** A request's X-Request-Id header (none without an id). */
export function requestIdHeaders(requestId: string | undefined): Record<string, string> {
  return requestId === undefined ? {} : { 'X-Request-Id': headerText(requestId) };
}

// A header value is printable ASCII: any other character (and `%`) goes as its UTF-8 bytes in
// %XX form, as a URL would carry it; a lone surrogate, which has no UTF-8 form, as U+FFFD's.
const NOT_HEADER_TEXT_RE = /[^\x20-\x24\x26-\x7e]/gu;
function headerText(text: string): string {
  return text.replace(NOT_HEADER_TEXT_RE, utf8Escaped);
}

function utf8Escaped(c: string): string {
  try {
    return encodeURIComponent(c);
  } catch {
    return '%EF%BF%BD';
  }
}

/** 0 = no limit: the per-request deadline decides. */
export const MODEL_AGENT_OPTIONS = { headersTimeout: 0, bodyTimeout: 0 } as const;

let client: Promise<{ agent: Agent; fetch: typeof import('undici').fetch }> | undefined;

function loadClient(): Promise<{ agent: Agent; fetch: typeof import('undici').fetch }> {
  client ??= import('undici').then((undici) => ({ agent: new undici.Agent(MODEL_AGENT_OPTIONS), fetch: undici.fetch }));
  return client;
}

/** The agent modelFetch sends through, for a request made without fetch (same pool, same timeouts). */
export async function modelAgent(): Promise<Agent> {
  return (await loadClient()).agent;
}

export async function modelFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const { agent, fetch } = await loadClient();
  return (await fetch(input as Parameters<typeof fetch>[0], { ...(init as object), dispatcher: agent })) as unknown as Response;
}
