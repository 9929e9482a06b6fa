// One model request as the backends send it: through the request gate, retried on transport
// faults with backoff (--max-transport-retries), every answer and failure told to the run control.
// A request that keeps failing while the server answers others fails its view; requests failing
// while the server answers nobody wait for it instead, up to the run's give-up clock, so an outage
// never turns into an error record per chunk.
import { ModelError, type GenerateReply, type GenerateRequest, type ModelClient } from '../llm/model-client.js';
import { abortableSleep, backoffDelay, withTransportRetries } from '../llm/transport-retry.js';
import { MAX_RETRY_DELAY_MS, type GenerateConfig } from './config.js';
import type { RequestGate } from './request-gate.js';
import type { RunControl } from './run-control.js';

export interface SenderDeps {
  /** Null for --dry-run: nothing is sent. */
  client: ModelClient | null;
  gate: RequestGate;
  control: RunControl;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Sends one request in its lane (the view, or the pair's lane); says how many transport retries it took. */
export type Send = (request: GenerateRequest, seq: number, signal: AbortSignal, lane: string) => Promise<{ value: GenerateReply; retries: number }>;

export function createSender(config: GenerateConfig, deps: SenderDeps): Send {
  const policy = {
    maxRetries: config.maxTransportRetries,
    baseDelayMs: config.retryDelayMs,
    maxDelayMs: Math.max(config.retryDelayMs, MAX_RETRY_DELAY_MS),
    ...(deps.random ? { random: deps.random } : {}),
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
  };
  const sleep = deps.sleep ?? abortableSleep;
  const { control } = deps;

  // Out of retries while the server has answered nobody since this request began failing: the
  // server is down, not this request. Failing the view would write an error record per chunk for
  // the whole outage; instead keep trying at the longest delay, and let the run's give-up clock
  // bound the wait (the record is then left unwritten).
  return async (request, seq, signal, lane) => {
    let failedAt: number | null = null;
    const once = async (): Promise<GenerateReply> => {
      try {
        return await call(deps, request, seq, signal, lane);
      } catch (err) {
        if (err instanceof ModelError && err.retryable) failedAt ??= control.answerMark();
        throw err;
      }
    };
    try {
      return await withTransportRetries(once, { ...policy, signal });
    } catch (err) {
      if (!(err instanceof ModelError) || !err.retryable) throw err;
      let last = err;
      let retries = err.retries;
      while (config.giveUpAfterMs > 0 && failedAt !== null && !control.answeredSince(failedAt)) {
        try {
          await sleep(backoffDelay(config.maxTransportRetries, policy, last.retryAfterMs), signal);
        } catch {
          throw withRetries(new ModelError('ABORTED', `cancelled while waiting to retry after: ${last.message}`), retries);
        }
        retries++;
        try {
          return { value: await once(), retries };
        } catch (next) {
          if (!(next instanceof ModelError) || !next.retryable) throw next instanceof ModelError ? withRetries(next, retries) : next;
          last = next;
        }
      }
      throw withRetries(last, retries);
    }
  };
}

// One HTTP call. A 404 after the preflight means the model was removed mid-run (from every host of a pool), and a
// refused key means it was revoked: every later record would fail the same way, so the run stops
// rather than writing an error record per chunk. The client's message says which.
async function call({ client, gate, control }: SenderDeps, request: GenerateRequest, seq: number, signal: AbortSignal, lane: string): Promise<GenerateReply> {
  if (client === null) throw new ModelError('BAD_RESPONSE', 'no model client in a dry run', { retryable: false });
  try {
    // The view is the request's lane: prompts of a view share their head (view-lanes.ts).
    const reply = await gate.run(() => client.generate(request, signal), seq, signal, lane);
    control.serverAnswered();
    return reply;
  } catch (err) {
    control.requestFailed(err);
    throw err;
  }
}

function withRetries(error: ModelError, retries: number): ModelError {
  error.retries = retries;
  return error;
}
