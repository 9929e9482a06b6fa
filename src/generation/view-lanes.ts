// The order requests leave the gate in, so that an engine's prompt cache keeps serving each view's
// shared prefix. Every prompt of a view starts with the same contract and task text (~40 % of
// it); llama-server and Ollama keep one cached prompt per slot and reuse its common prefix with
// the next prompt that slot gets. A server slot that just finished a request is the one free for
// the next, so when a request of view V ends, the next request sent is the oldest one of view V
// within `maxAhead` records of the oldest waiting request; when there is none, the oldest
// request. Records are still served oldest first, only reordered by at most
// `maxAhead` records, which the runner's window (8 × concurrency) absorbs; replies and output do
// not depend on the order requests are sent in.
//
// It plugs into p-queue as its queue class (`queueClass`): the gate passes each task's view as
// `lane` and calls `release(lane)` when the task ends.
import type { Queue, QueueAddOptions } from 'p-queue';

// p-queue's RunFunction, which its entry point does not export.
type RunFunction = () => Promise<unknown>;

export type LaneAddOptions = QueueAddOptions & { lane?: string };

interface Waiting {
  run: RunFunction;
  priority: number;
  id: string | undefined;
  lane: string;
}

// A lane label per request that ended; more than a gate's concurrency are never pending, the
// cap only guards against a caller that releases without having run.
const MAX_FREED = 4096;

export class ViewLanes {
  private readonly freed: string[] = [];
  /** p-queue builds the queue itself (`new queueClass()`); this class shares the lanes' state. */
  readonly queueClass: new () => Queue<RunFunction, LaneAddOptions>;
  /** Requests sent out of strict oldest-first order to follow a lane (for tests and stats). */
  reordered = 0;

  constructor(readonly maxAhead: number) {
    const lanes = this;
    this.queueClass = class LaneQueue implements Queue<RunFunction, LaneAddOptions> {
      // Highest priority (oldest record) first, first come first within a priority.
      private readonly items: Waiting[] = [];

      get size(): number {
        return this.items.length;
      }

      enqueue(run: RunFunction, options?: Partial<LaneAddOptions>): void {
        const item: Waiting = { run, priority: options?.priority ?? 0, id: options?.id, lane: options?.lane ?? '' };
        const { items } = this;
        if (items.length === 0 || items[items.length - 1]!.priority >= item.priority) {
          items.push(item);
          return;
        }
        // The first one of lower priority: a retry of an older record goes before newer records.
        let low = 0;
        let high = items.length;
        while (low < high) {
          const mid = (low + high) >>> 1;
          if (items[mid]!.priority >= item.priority) low = mid + 1;
          else high = mid;
        }
        items.splice(low, 0, item);
      }

      dequeue(): RunFunction | undefined {
        const { items } = this;
        if (items.length === 0) return undefined;
        const want = lanes.freed.shift();
        let at = 0;
        if (want !== undefined && items[0]!.lane !== want) {
          const floor = items[0]!.priority - lanes.maxAhead;
          for (let i = 1; i < items.length && items[i]!.priority >= floor; i++) {
            if (items[i]!.lane === want) {
              at = i;
              lanes.reordered++;
              break;
            }
          }
        }
        return items.splice(at, 1)[0]!.run;
      }

      filter(options: Readonly<Partial<LaneAddOptions>>): RunFunction[] {
        return this.items.filter((item) => item.priority === options.priority).map((item) => item.run);
      }

      setPriority(id: string, priority: number): void {
        const index = this.items.findIndex((item) => item.id === id);
        if (index < 0) throw new ReferenceError(`No promise function with the id "${id}" exists in the queue.`);
        const [item] = this.items.splice(index, 1);
        this.enqueue(item!.run, { priority, id, lane: item!.lane });
      }

      remove(id: string): void {
        const index = this.items.findIndex((item) => item.id === id);
        if (index >= 0) this.items.splice(index, 1);
      }
    };
  }

  /** A request of `lane` ended: the server slot it held is the one free for the next request. */
  release(lane: string): void {
    this.freed.push(lane);
    if (this.freed.length > MAX_FREED) this.freed.shift();
  }
}
