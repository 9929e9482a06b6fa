import { ModelError } from './model-client.js';

export interface TransportRetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  onRetry?: (err: ModelError, n: number, delayMs: number) => void;
}

// Full jitter (uniform in [0, cap]) spreads the retries of many parallel requests that failed
// together. A server's Retry-After wins when it asks for more, but never beyond maxDelayMs, so a
// misconfigured proxy cannot park a batch run for an hour.
export function backoffDelay(
  retryIndex: number,
  policy: Pick<TransportRetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'random'>,
  retryAfterMs: number | null = null,
): number {
  const random = policy.random ?? Math.random;
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  const jittered = Math.floor(random() * cap);
  if (retryAfterMs === null) return jittered;
  return Math.max(jittered, Math.min(retryAfterMs, policy.maxDelayMs));
}

export async function withTransportRetries<T>(
  attempt: (n: number) => Promise<T>,
  policy: TransportRetryPolicy,
): Promise<{ value: T; retries: number }> {
  const sleep = policy.sleep ?? abortableSleep;
  const { signal } = policy;
  for (let n = 0; ; n += 1) {
    if (signal?.aborted) throw cancelled(n, null);
    let failure: ModelError;
    try {
      return { value: await attempt(n), retries: n };
    } catch (err) {
      // Anything that is not a ModelError is a bug, not a transport condition: surface it as is.
      if (!(err instanceof ModelError)) throw err;
      failure = err;
    }
    failure.retries = n;
    if (!failure.retryable || n >= policy.maxRetries) throw failure;
    if (signal?.aborted) throw cancelled(n, failure);
    const delayMs = backoffDelay(n, policy, failure.retryAfterMs);
    policy.onRetry?.(failure, n + 1, delayMs);
    try {
      await sleep(delayMs, signal);
    } catch {
      throw cancelled(n, failure);
    }
    if (signal?.aborted) throw cancelled(n, failure);
  }
}

function cancelled(retries: number, last: ModelError | null): ModelError {
  const error = new ModelError(
    'ABORTED',
    last ? `cancelled while waiting to retry after: ${last.message}` : 'cancelled before the request was sent',
    { status: last?.status ?? null },
  );
  error.retries = retries;
  return error;
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    // Listen on a derived signal: many records backing off at once under one run-wide signal
    // would otherwise pile listeners on it and trip Node's MaxListeners warning.
    const watched = signal ? AbortSignal.any([signal]) : undefined;
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(watched?.reason);
    };
    const timer = setTimeout(() => {
      watched?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    watched?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface AdaptiveLimitOptions {
  max: number;
  now: () => number;
  initial?: number;
  successesPerStep?: number;
  cooldownMs?: number;
}

const DEFAULT_SUCCESSES_PER_STEP = 4;
const DEFAULT_COOLDOWN_MS = 1_000;

// AIMD on "server busy": halve the in-flight limit, then win back one slot per run of successes.
// Requests already in flight when the server filled up all fail together; the cooldown makes that
// burst count as one signal instead of collapsing the limit to 1.
export class AdaptiveLimit {
  readonly max: number;
  private readonly now: () => number;
  private readonly successesPerStep: number;
  private readonly cooldownMs: number;
  private limit: number;
  private successes = 0;
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;

  constructor(opts: AdaptiveLimitOptions) {
    this.max = Math.max(1, Math.floor(opts.max));
    this.now = opts.now;
    this.successesPerStep = Math.max(1, Math.floor(opts.successesPerStep ?? DEFAULT_SUCCESSES_PER_STEP));
    this.cooldownMs = Math.max(0, opts.cooldownMs ?? DEFAULT_COOLDOWN_MS);
    this.limit = clamp(Math.floor(opts.initial ?? this.max), 1, this.max);
  }

  get current(): number {
    return this.limit;
  }

  // Returns whether the limit went down (false inside the cooldown or already at 1).
  onBusy(): boolean {
    this.successes = 0;
    const at = this.now();
    if (at - this.lastDecreaseAt < this.cooldownMs) return false;
    const next = Math.max(1, Math.floor(this.limit / 2));
    if (next === this.limit) return false;
    this.limit = next;
    this.lastDecreaseAt = at;
    return true;
  }

  // Returns whether the limit went up.
  onSuccess(): boolean {
    if (this.limit >= this.max) return false;
    if (this.now() - this.lastDecreaseAt < this.cooldownMs) return false;
    this.successes += 1;
    if (this.successes < this.successesPerStep) return false;
    this.successes = 0;
    this.limit += 1;
    return true;
  }
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

export interface ServerWaitPolicy {
  /** How long to keep trying; 0: for ever (as --give-up-after 0 never stops a run). */
  giveUpAfterMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
  now: () => number;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /** Called once, at the first failure that is waited out, before the first wait. */
  onWait?: (failure: ModelError) => void;
}

// A server that is still starting: nothing listens yet (vLLM), or it answers 503 "Loading model"
// on every route until the weights are in (llama-server). Anything else is an answer.
const STARTING_CODES: ReadonlySet<string> = new Set(['UNREACHABLE', 'SERVER_BUSY']);

/** A failure that says the server is not up yet (waitForServer waits these out). */
export function isStarting(err: unknown): err is ModelError {
  return err instanceof ModelError && STARTING_CODES.has(err.code);
}
// Full jitter may draw 0: a floor keeps a starting server from being polled in a tight loop.
const MIN_WAIT_MS = 50;

/**
 * Runs a server check (a preflight) until it answers, waiting out a server that is still starting
 * with backoff, up to giveUpAfterMs; then the last failure is thrown as it was. `waited` says how
 * long and why, for the run to report.
 */
export async function waitForServer<T>(check: () => Promise<T>, policy: ServerWaitPolicy): Promise<{ value: T; waited: { ms: number; tries: number; last: ModelError } | null }> {
  const sleep = policy.sleep ?? abortableSleep;
  const start = policy.now();
  let lastFailure: ModelError | null = null;
  for (let n = 0; ; n += 1) {
    try {
      const value = await check();
      return { value, waited: lastFailure === null ? null : { ms: policy.now() - start, tries: n, last: lastFailure } };
    } catch (err) {
      if (!(err instanceof ModelError) || !STARTING_CODES.has(err.code)) throw err;
      const elapsed = policy.now() - start;
      const delay = Math.max(MIN_WAIT_MS, backoffDelay(n, policy, err.retryAfterMs));
      if (policy.signal?.aborted || (policy.giveUpAfterMs > 0 && elapsed + delay > policy.giveUpAfterMs)) throw err;
      if (lastFailure === null) policy.onWait?.(err);
      lastFailure = err;
      try {
        await sleep(delay, policy.signal);
      } catch {
        throw err;
      }
    }
  }
}
