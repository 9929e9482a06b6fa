// Who may send a request when. One gate bounds the requests in flight across all records and
// views (p-queue), lets the oldest record go first, and narrows itself for a while when the server
// says it is busy. The run control (run-control.ts) carries the cancellation of every request.
import PQueue from 'p-queue';
import { ModelError } from '../llm/model-client.js';
import { AdaptiveLimit } from '../llm/transport-retry.js';
import type { Clock } from './run-control.js';
import { ViewLanes, type LaneAddOptions } from './view-lanes.js';


type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export class RequestGate {
  private readonly queue: PQueue<InstanceType<ViewLanes['queueClass']>, LaneAddOptions>;
  private readonly limit: AdaptiveLimit;
  // Which request goes next when a slot frees: the same view, for the engine's prompt cache.
  readonly lanes: ViewLanes;
  slowdowns = 0;

  constructor(concurrency: number, now: Clock) {
    this.lanes = new ViewLanes(concurrency);
    this.queue = new PQueue({ concurrency, queueClass: this.lanes.queueClass });
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
   * whose turn comes after `signal` fired does not start. `lane` (the view) picks, among the
   * oldest records, the next request for a slot that served the same lane (view-lanes.ts). Queue
   * tasks never reject (p-queue's advice): the outcome is carried out and re-thrown here.
   */
  async run<T>(task: () => Promise<T>, seq: number, signal: AbortSignal, lane = ''): Promise<T> {
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
        } finally {
          this.lanes.release(lane);
        }
      },
      { priority: -seq, lane },
    );
    if (settled.ok) return settled.value;
    throw settled.error;
  }
}
