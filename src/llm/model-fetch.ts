// The fetch every model client uses. Node's global fetch gives up on a response whose headers
// take more than 300 s — and a server sends no headers while a request waits in its queue behind
// long generations (Ollama with OLLAMA_NUM_PARALLEL below our concurrency, a busy vLLM). Our own
// per-request deadline (--timeout) is the only limit we want, so undici's header and body timeouts
// are switched off here.
import { Agent, fetch as undiciFetch } from 'undici';

/** 0 = no limit: the per-request deadline decides. */
export const MODEL_AGENT_OPTIONS = { headersTimeout: 0, bodyTimeout: 0 } as const;

let agent: Agent | undefined;

export function modelFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  agent ??= new Agent(MODEL_AGENT_OPTIONS);
  return undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>;
}
