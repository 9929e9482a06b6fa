import { describe, expect, it } from 'vitest';
import { RequestGate } from '../../src/generation/request-gate.js';
import { RunControl } from '../../src/generation/run-control.js';
import { ModelError } from '../../src/llm/model-client.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

function deferred() {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('request gate', () => {
  it.each([1, 2, 4])('keeps at most %i tasks in flight', async (concurrency) => {
    const gate = new RequestGate(concurrency, () => 0);
    const signal = new AbortController().signal;
    let inFlight = 0;
    let max = 0;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        gate.run(async () => {
          inFlight++;
          max = Math.max(max, inFlight);
          await new Promise((r) => setTimeout(r, (i * 7) % 5));
          inFlight--;
        }, i, signal),
      ),
    );
    expect(max).toBe(concurrency);
  });

  it('serves the earliest record first when a slot frees', async () => {
    const gate = new RequestGate(1, () => 0);
    const signal = new AbortController().signal;
    const blocker = deferred();
    const order: number[] = [];
    const first = gate.run(() => blocker.promise, 0, signal);
    const waiting = [7, 3, 9, 1, 5].map((seq) => gate.run(async () => void order.push(seq), seq, signal));
    await tick();
    blocker.resolve();
    await Promise.all([first, ...waiting]);
    expect(order).toEqual([1, 3, 5, 7, 9]);
  });

  it('does not start a task whose turn comes after cancellation, and rethrows task errors', async () => {
    const gate = new RequestGate(1, () => 0);
    const controller = new AbortController();
    const blocker = deferred();
    let started = 0;
    const first = gate.run(() => blocker.promise, 0, controller.signal);
    const second = gate.run(async () => void started++, 1, controller.signal);
    const failing = gate.run(async () => {
      throw new ModelError('HTTP_400', 'bad');
    }, 2, new AbortController().signal);
    controller.abort();
    blocker.resolve();
    await first;
    await expect(second).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(failing).rejects.toMatchObject({ code: 'HTTP_400' });
    expect(started).toBe(0);
  });

  it('halves its limit when the server is busy and wins it back after successes', async () => {
    let now = 0;
    const gate = new RequestGate(8, () => now);
    const signal = new AbortController().signal;
    await expect(gate.run(async () => Promise.reject(new ModelError('SERVER_BUSY', 'busy')), 0, signal)).rejects.toThrow('busy');
    expect(gate.currentLimit).toBe(4);
    expect(gate.slowdowns).toBe(1);
    now = 5_000;
    for (let i = 0; i < 8; i++) await gate.run(async () => 1, i, signal);
    expect(gate.currentLimit).toBe(6);
  });
});

describe('run control: giving up on a server that stopped answering', () => {
  const unreachable = () => new ModelError('UNREACHABLE', 'cannot reach Ollama at http://h — is it running? (or use --backend extractive)');

  it.each([
    ['failures for less than the limit', [0, 500, 999], [], null],
    ['failures spanning the limit', [0, 500, 1000], [], '1.0 s'],
    ['an answer in between restarts the count', [0, 600, 1200], [700], null],
    ['failures spanning the limit after an answer', [0, 800, 1900], [700], '1.1 s'],
    ['a long outage', [0, 60_000, 150_000], [], '150 s'],
  ])('%s', (_name, failures, answers, after) => {
    const gaveUp = after !== null;
    let now = 0;
    const control = new RunControl(() => now, failures[2]! > 10_000 ? 120_000 : 1000, 'Ollama at http://h');
    const events = [...failures.map((t) => ['fail', t] as const), ...answers.map((t) => ['ok', t] as const)].sort((a, b) => a[1] - b[1]);
    for (const [kind, at] of events) {
      now = at;
      if (kind === 'fail') control.serverFailed(unreachable());
      else control.serverAnswered();
    }
    expect(control.stopped).toBe(gaveUp);
    expect(control.signal.aborted).toBe(gaveUp);
    if (gaveUp) {
      expect(control.reason).toEqual({
        kind: 'fatal',
        message: `Ollama at http://h has failed every request for ${after} (last: UNREACHABLE: cannot reach Ollama at http://h — is it running? (or use --backend extractive))`,
      });
    }
  });

  it('never gives up with a limit of 0, and does not count cancellations', () => {
    let now = 0;
    const never = new RunControl(() => now, 0, 'x');
    const counting = new RunControl(() => now, 10, 'x');
    for (now = 0; now < 100_000; now += 1000) {
      never.serverFailed(unreachable());
      counting.serverFailed(new ModelError('ABORTED', 'cancelled'));
    }
    expect(never.stopped).toBe(false);
    expect(counting.stopped).toBe(false);
  });

  it('keeps the first stop reason', () => {
    const control = new RunControl(() => 0, 1000, 'x');
    control.interrupt();
    control.fail('later');
    expect(control.reason).toEqual({ kind: 'interrupted' });
  });
});
