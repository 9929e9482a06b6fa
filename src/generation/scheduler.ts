// Who may send a request when. One gate bounds the requests in flight across all records and
// views (p-queue), lets the oldest record go first, and narrows itself for a while when the server
// says it is busy. One run control carries the cancellation of every request (Ctrl-C, giving up)
// and watches for a server that has stopped answering altogether.
import PQueue from 'p-queue';
import { ModelError } from '../llm/model-client.js';
import { AdaptiveLimit } from '../llm/transport-retry.js';

export type Clock = () => number;

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export class RequestGate {
  private readonly queue: PQueue;
  private readonly limit: AdaptiveLimit;
  slowdowns = 0;

  constructor(concurrency: number, now: Clock) {
    this.queue = new PQueue({ concurrency });
    this.limit = new AdaptiveLimit({ max: concurrency, now });
  }

  get inFlight(): number {
    return this.queue.pending;
  }

  get waiting(): number {
    return this.queue.size;
  }

  get currentLimit(): number {
    return this.limit.current;
  }

  /**
   * Runs `task` when a slot is free; a lower `seq` (an earlier record) is served first. A task
   * whose turn comes after `signal` fired does not start. Queue tasks never reject (p-queue's
   * advice): the outcome is carried out and re-thrown here.
   */
  async run<T>(task: () => Promise<T>, seq: number, signal: AbortSignal): Promise<T> {
    const settled = await this.queue.add(
      async (): Promise<Settled<T>> => {
        if (signal.aborted) return { ok: false, error: new ModelError('ABORTED', 'cancelled before the request was sent') };
        try {
          const value = await task();
          if (this.limit.onSuccess()) this.queue.concurrency = this.limit.current;
          return { ok: true, value };
        } catch (error) {
          if (error instanceof ModelError && error.code === 'SERVER_BUSY' && this.limit.onBusy()) {
            this.queue.concurrency = this.limit.current;
            this.slowdowns++;
          }
          return { ok: false, error };
        }
      },
      { priority: -seq },
    );
    if (settled.ok) return settled.value;
    throw settled.error;
  }
}

export type StopReason = { kind: 'interrupted' } | { kind: 'fatal'; message: string };

export class RunControl {
  private readonly controller = new AbortController();
  private failingSince: number | null = null;
  private answers = 0;
  reason: StopReason | null = null;

  constructor(
    private readonly now: Clock,
    private readonly giveUpAfterMs: number,
    private readonly describeServer: string,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get stopped(): boolean {
    return this.reason !== null;
  }

  interrupt(): void {
    this.stop({ kind: 'interrupted' });
  }

  fail(message: string): void {
    this.stop({ kind: 'fatal', message });
  }

  /** Any answer from the server, even a refusal, shows it is alive. */
  serverAnswered(): void {
    this.failingSince = null;
    this.answers++;
  }

  /** A mark to ask later whether the server answered anyone since. */
  answerMark(): number {
    return this.answers;
  }

  answeredSince(mark: number): boolean {
    return this.answers > mark;
  }

  /** A request failed in transport. Gives up the run once every request has failed for giveUpAfterMs. */
  serverFailed(error: ModelError): void {
    if (error.code === 'ABORTED') return;
    const at = this.now();
    this.failingSince ??= at;
    if (this.giveUpAfterMs > 0 && at - this.failingSince >= this.giveUpAfterMs) {
      this.fail(`${this.describeServer} has failed every request for ${seconds(at - this.failingSince)} (last: ${error.code}: ${error.message})`);
    }
  }

  private stop(reason: StopReason): void {
    if (this.reason !== null) return;
    this.reason = reason;
    this.controller.abort(new ModelError('ABORTED', reason.kind === 'interrupted' ? 'interrupted' : reason.message));
  }
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
}
