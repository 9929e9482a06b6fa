import { describe, expect, it } from 'vitest';
import { ModelError, type ModelErrorCode } from '../../src/llm/model-client.js';
import { AdaptiveLimit, abortableSleep, backoffDelay, waitForServer, withTransportRetries } from '../../src/llm/transport-retry.js';

const fail = (code: ModelErrorCode, retryAfterMs: number | null = null): ModelError =>
  new ModelError(code, `${code} at http://fake`, { retryAfterMs });

// Scripted attempts: an error fails that attempt, a string succeeds with it.
function script(outcomes: (ModelError | Error | string)[]) {
  const calls: number[] = [];
  const attempt = async (n: number): Promise<string> => {
    calls.push(n);
    const outcome = outcomes[Math.min(n, outcomes.length - 1)];
    if (outcome instanceof Error) throw outcome;
    return outcome ?? 'none';
  };
  return { attempt, calls };
}

function recorder() {
  const sleeps: number[] = [];
  const retried: [ModelErrorCode, number, number][] = [];
  return {
    sleeps,
    retried,
    sleep: async (ms: number) => {
      sleeps.push(ms);
    },
    onRetry: (err: ModelError, n: number, delayMs: number) => {
      retried.push([err.code, n, delayMs]);
    },
  };
}

const POLICY = { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 1_000, random: () => 0.5 };

describe('withTransportRetries', () => {
  it.each<{ name: string; outcomes: (ModelError | string)[]; value?: string; error?: ModelErrorCode; retries: number; sleeps: number[] }>([
    { name: 'first try succeeds', outcomes: ['ok'], value: 'ok', retries: 0, sleeps: [] },
    { name: 'two busy replies then success', outcomes: [fail('SERVER_BUSY'), fail('SERVER_BUSY'), 'ok'], value: 'ok', retries: 2, sleeps: [50, 100] },
    { name: 'every retryable code is retried', outcomes: [fail('UNREACHABLE'), fail('TIMEOUT'), fail('CONNECTION_RESET'), 'ok'], value: 'ok', retries: 3, sleeps: [50, 100, 200] },
    { name: 'HTTP_5XX, HTTP_429 and STREAM_ERROR are retried', outcomes: [fail('HTTP_5XX'), fail('HTTP_429'), fail('STREAM_ERROR'), 'ok'], value: 'ok', retries: 3, sleeps: [50, 100, 200] },
    { name: 'exhausted after maxRetries', outcomes: [fail('HTTP_5XX')], error: 'HTTP_5XX', retries: 3, sleeps: [50, 100, 200] },
    { name: 'HTTP_400 is not retried', outcomes: [fail('HTTP_400'), 'ok'], error: 'HTTP_400', retries: 0, sleeps: [] },
    { name: 'HTTP_404 is not retried', outcomes: [fail('HTTP_404'), 'ok'], error: 'HTTP_404', retries: 0, sleeps: [] },
    { name: 'REPLY_TOO_LARGE is not retried', outcomes: [fail('REPLY_TOO_LARGE'), 'ok'], error: 'REPLY_TOO_LARGE', retries: 0, sleeps: [] },
    { name: 'BAD_RESPONSE is not retried', outcomes: [fail('BAD_RESPONSE'), 'ok'], error: 'BAD_RESPONSE', retries: 0, sleeps: [] },
    { name: 'ABORTED stops after a retry', outcomes: [fail('TIMEOUT'), fail('ABORTED'), 'ok'], error: 'ABORTED', retries: 1, sleeps: [50] },
    { name: 'Retry-After larger than the backoff wins', outcomes: [fail('HTTP_429', 700), 'ok'], value: 'ok', retries: 1, sleeps: [700] },
    { name: 'Retry-After smaller than the backoff is ignored', outcomes: [fail('SERVER_BUSY', 10), 'ok'], value: 'ok', retries: 1, sleeps: [50] },
    { name: 'Retry-After is capped at maxDelayMs', outcomes: [fail('SERVER_BUSY', 60_000), 'ok'], value: 'ok', retries: 1, sleeps: [1_000] },
  ])('$name', async ({ outcomes, value, error, retries, sleeps }) => {
    const { attempt, calls } = script(outcomes);
    const rec = recorder();
    const run = withTransportRetries(attempt, { ...POLICY, sleep: rec.sleep, onRetry: rec.onRetry });
    if (error) {
      const err = await run.then(
        () => null,
        (e: unknown) => e as ModelError,
      );
      expect(err).toBeInstanceOf(ModelError);
      expect(err?.code).toBe(error);
      expect(err?.retries).toBe(retries);
    } else {
      await expect(run).resolves.toEqual({ value, retries });
    }
    expect(calls).toEqual(Array.from({ length: retries + 1 }, (_, i) => i));
    expect(rec.sleeps).toEqual(sleeps);
    expect(rec.retried.map(([, n, delay]) => [n, delay])).toEqual(sleeps.map((delay, i) => [i + 1, delay]));
  });

  it('rethrows a non-ModelError at once', async () => {
    const bug = new RangeError('bug');
    const { attempt, calls } = script([bug, 'ok']);
    await expect(withTransportRetries(attempt, { ...POLICY, sleep: async () => {} })).rejects.toBe(bug);
    expect(calls).toEqual([0]);
  });

  it('maxRetries 0 makes a single attempt', async () => {
    const { attempt, calls } = script([fail('SERVER_BUSY'), 'ok']);
    await expect(withTransportRetries(attempt, { ...POLICY, maxRetries: 0, sleep: async () => {} })).rejects.toMatchObject({ code: 'SERVER_BUSY', retries: 0 });
    expect(calls).toEqual([0]);
  });

  it('an already aborted signal makes no attempt', async () => {
    const { attempt, calls } = script(['ok']);
    await expect(withTransportRetries(attempt, { ...POLICY, signal: AbortSignal.abort(), sleep: async () => {} })).rejects.toMatchObject({ code: 'ABORTED', retries: 0 });
    expect(calls).toEqual([]);
  });

  it('an abort during the backoff stops at once', async () => {
    const controller = new AbortController();
    const { attempt, calls } = script([fail('SERVER_BUSY'), 'ok']);
    const sleep = (_ms: number, signal?: AbortSignal): Promise<void> => {
      controller.abort();
      return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
    };
    const err = await withTransportRetries(attempt, { ...POLICY, signal: controller.signal, sleep }).catch((e: unknown) => e as ModelError);
    expect(err).toMatchObject({ code: 'ABORTED', retryable: false, retries: 0 });
    expect((err as ModelError).message).toMatch(/^cancelled while waiting to retry after: SERVER_BUSY/);
    expect(calls).toEqual([0]);
  });

  it('an abort noticed after a sleep that ignores the signal still stops', async () => {
    const controller = new AbortController();
    const { attempt, calls } = script([fail('TIMEOUT'), 'ok']);
    const sleep = async (): Promise<void> => controller.abort();
    await expect(withTransportRetries(attempt, { ...POLICY, signal: controller.signal, sleep })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(calls).toEqual([0]);
  });

  it('many sleeps under one signal add no listeners to it', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', onWarning);
    try {
      const run = new AbortController();
      await Promise.all(Array.from({ length: 24 }, () => abortableSleep(1, run.signal)));
      const pending = Array.from({ length: 24 }, () => abortableSleep(10_000, run.signal).catch(() => 'cancelled'));
      run.abort();
      expect(await Promise.all(pending)).toEqual(Array(24).fill('cancelled'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('the default sleep really waits and is cancellable', async () => {
    const { attempt } = script([fail('SERVER_BUSY'), 'ok']);
    await expect(withTransportRetries(attempt, { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 })).resolves.toEqual({ value: 'ok', retries: 1 });
    const controller = new AbortController();
    const pending = abortableSleep(10_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});

describe('backoffDelay', () => {
  it.each<[number, number, number | null, number]>([
    // [retryIndex, random, retryAfterMs, expected]
    [0, 0, null, 0],
    [0, 0.999, null, 99],
    [1, 0.5, null, 100],
    [3, 1, null, 800],
    [4, 1, null, 1_000],
    [20, 0.5, null, 500],
    [0, 0.5, 300, 300],
    [5, 0.9, 300, 900],
    [0, 0, 5_000, 1_000],
  ])('retry %i, random %d, Retry-After %j → %i ms', (retryIndex, random, retryAfterMs, expected) => {
    expect(backoffDelay(retryIndex, { baseDelayMs: 100, maxDelayMs: 1_000, random: () => random }, retryAfterMs)).toBe(expected);
  });
});

type LimitEvent = ['busy' | 'ok', number];

describe('AdaptiveLimit', () => {
  it.each<{ name: string; max: number; events: LimitEvent[]; expected: number[]; initial?: number }>([
    { name: 'starts at max', max: 8, events: [], expected: [] },
    { name: 'halves on busy', max: 8, events: [['busy', 0]], expected: [4] },
    { name: 'a burst of busy replies inside the cooldown halves once', max: 8, events: [['busy', 0], ['busy', 10], ['busy', 999]], expected: [4, 4, 4] },
    { name: 'busy replies after the cooldown halve again, never below 1', max: 8, events: [['busy', 0], ['busy', 1_000], ['busy', 2_000], ['busy', 3_000], ['busy', 4_000]], expected: [4, 2, 1, 1, 1] },
    {
      name: 'recovers one slot per 4 successes after the cooldown',
      max: 8,
      events: [['busy', 0], ['ok', 500], ['ok', 500], ['ok', 500], ['ok', 500], ['ok', 1_000], ['ok', 1_001], ['ok', 1_002], ['ok', 1_003], ['ok', 1_004]],
      expected: [4, 4, 4, 4, 4, 4, 4, 4, 5, 5],
    },
    {
      name: 'a busy reply resets the success run',
      max: 4,
      events: [['busy', 0], ['ok', 2_000], ['ok', 2_000], ['ok', 2_000], ['busy', 2_000], ['ok', 2_500], ['ok', 3_000], ['ok', 3_000], ['ok', 3_000], ['ok', 3_000]],
      expected: [2, 2, 2, 2, 1, 1, 1, 1, 1, 2],
    },
    { name: 'never above max', max: 2, events: [['ok', 0], ['ok', 0], ['ok', 0], ['ok', 0], ['ok', 0]], expected: [2, 2, 2, 2, 2] },
    { name: 'max 1 stays at 1', max: 1, events: [['busy', 0], ['ok', 5_000], ['ok', 5_000], ['ok', 5_000], ['ok', 5_000]], expected: [1, 1, 1, 1, 1] },
    { name: 'an initial value below max climbs back', max: 3, initial: 1, events: [['ok', 0], ['ok', 0], ['ok', 0], ['ok', 0]], expected: [1, 1, 1, 2] },
  ])('$name', ({ max, events, expected, initial }) => {
    let clock = 0;
    const limit = new AdaptiveLimit({ max, now: () => clock, ...(initial !== undefined ? { initial } : {}) });
    const seen = events.map(([kind, at]) => {
      clock = at;
      if (kind === 'busy') limit.onBusy();
      else limit.onSuccess();
      return limit.current;
    });
    expect(limit.current).toBe(expected.at(-1) ?? initial ?? max);
    expect(seen).toEqual(expected);
  });

  it.each<[string, number, number]>([
    ['max below 1 is clamped to 1', 0, 1],
    ['fractional max is floored', 3.7, 3],
  ])('%s', (_name, max, expected) => {
    expect(new AdaptiveLimit({ max, now: () => 0 }).current).toBe(expected);
  });

  it('reports whether a signal changed the limit', () => {
    let clock = 0;
    const limit = new AdaptiveLimit({ max: 4, now: () => clock, successesPerStep: 1, cooldownMs: 100 });
    expect(limit.onSuccess()).toBe(false);
    expect(limit.onBusy()).toBe(true);
    expect(limit.onBusy()).toBe(false);
    clock = 100;
    expect(limit.onSuccess()).toBe(true);
    expect(limit.current).toBe(3);
  });
});

describe('waitForServer (the preflight of a server that is still starting)', () => {
  // A clock that the sleeps move: no real waiting.
  function clocked(outcomes: (ModelError | string)[], giveUpAfterMs: number) {
    let now = 0;
    const { attempt, calls } = script(outcomes);
    let n = 0;
    const run = waitForServer(() => attempt(n++), { giveUpAfterMs, baseDelayMs: 100, maxDelayMs: 2_000, now: () => now, random: () => 1, sleep: async (ms) => void (now += ms) });
    return { run, calls, elapsed: () => now };
  }

  it('waits out connection refused and 503 "Loading model", and says how long', async () => {
    const { run, calls, elapsed } = clocked([fail('UNREACHABLE'), fail('SERVER_BUSY'), 'ok'], 120_000);
    const { value, waited } = await run;
    expect(value).toBe('ok');
    expect(calls).toHaveLength(3);
    expect(waited).toMatchObject({ ms: elapsed(), tries: 2 });
    expect(waited!.last.code).toBe('SERVER_BUSY');
  });

  it('an answer at once waits for nothing', async () => {
    expect((await clocked(['ok'], 1_000).run).waited).toBeNull();
  });

  it('gives up before the next wait would pass giveUpAfterMs, with the failure as it was', async () => {
    const { run, elapsed } = clocked([fail('UNREACHABLE')], 5_000);
    await expect(run).rejects.toMatchObject({ code: 'UNREACHABLE', message: 'UNREACHABLE at http://fake' });
    expect(elapsed()).toBeLessThanOrEqual(5_000);
    expect(elapsed()).toBeGreaterThan(2_000);
  });

  it.each<ModelErrorCode>(['HTTP_404', 'AUTH', 'BAD_RESPONSE', 'HTTP_5XX'])('%s is an answer: thrown at once', async (code) => {
    const { run, calls } = clocked([fail(code), 'ok'], 120_000);
    await expect(run).rejects.toMatchObject({ code });
    expect(calls).toHaveLength(1);
  });
});
