import { describe, expect, it } from 'vitest';
import { RequestGate } from '../../src/generation/request-gate.js';
import { ViewLanes } from '../../src/generation/view-lanes.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

/** Tasks that end when the test says: `started` lists them in the order the gate sent them. */
function harness(concurrency: number) {
  const gate = new RequestGate(concurrency, () => 0);
  const signal = new AbortController().signal;
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const all: Promise<unknown>[] = [];
  const add = (seq: number, view: string) => {
    const name = `${seq}${view}`;
    all.push(gate.run(() => new Promise<void>((resolve) => {
      started.push(name);
      finish.set(name, resolve);
    }), seq, signal, view));
  };
  const ended = new Set<string>();
  const end = async (name: string) => {
    finish.get(name)!();
    ended.add(name);
    await tick();
  };
  // Ends the running tasks, newest first, until none is left.
  const drain = async () => {
    for (let running = started.filter((n) => !ended.has(n)); running.length > 0; running = started.filter((n) => !ended.has(n))) await end(running.at(-1)!);
    await Promise.all(all);
  };
  return { gate, started, add, end, drain };
}

describe('view lanes: the next request for a slot is of the view that slot just served', () => {
  it('at --concurrency 2 each slot keeps its view, within concurrency records of the oldest', async () => {
    const h = harness(2);
    for (let seq = 0; seq < 6; seq++) for (const view of ['F', 'S']) h.add(seq, view);
    await tick();
    expect(h.started).toEqual(['0F', '0S']);
    // The S slot frees first: the next S goes, not the older record's head of the queue (1F).
    await h.end('0S');
    expect(h.started.at(-1)).toBe('1S');
    await h.end('0F');
    expect(h.started.at(-1)).toBe('1F');
    await h.end('1F');
    await h.end('2F');
    await h.end('3F');
    expect(h.started.slice(-3)).toEqual(['2F', '3F', '4F']);
    // 5F is 3 records past the oldest waiting request (2S): too far ahead, so 2S goes.
    await h.end('4F');
    expect(h.started.at(-1)).toBe('2S');
    await h.drain();
    expect([...h.started].sort()).toEqual(['0F', '0S', '1F', '1S', '2F', '2S', '3F', '3S', '4F', '4S', '5F', '5S']);
    expect(h.gate.lanes.reordered).toBeGreaterThan(0);
  });

  it('at --concurrency 1 runs a view for a record ahead before switching', async () => {
    const h = harness(1);
    for (let seq = 0; seq < 4; seq++) for (const view of ['F', 'S']) h.add(seq, view);
    await tick();
    await h.drain();
    // Two switches of view instead of seven, no record more than one ahead of the oldest.
    expect(h.started).toEqual(['0F', '1F', '0S', '1S', '2S', '3S', '2F', '3F']);
  });

  it('with one view keeps oldest-first order', async () => {
    const h = harness(1);
    for (const seq of [4, 2, 3, 0, 1]) h.add(seq, 'V');
    await tick();
    await h.drain();
    expect(h.started).toEqual(['4V', '0V', '1V', '2V', '3V']);
  });
});

describe('ViewLanes as a p-queue queue class', () => {
  it('keeps priority order, first come first within a priority, and removes by id', () => {
    const lanes = new ViewLanes(1);
    const queue = new lanes.queueClass();
    const run = (name: string) => Object.assign(async () => name, { label: name });
    const runs = ['a', 'b', 'c', 'd'].map(run);
    queue.enqueue(runs[0]!, { priority: -2, id: 'a', lane: 'X' });
    queue.enqueue(runs[1]!, { priority: -1, id: 'b', lane: 'X' });
    queue.enqueue(runs[2]!, { priority: -1, id: 'c', lane: 'Y' });
    queue.enqueue(runs[3]!, { priority: -3, id: 'd', lane: 'Y' });
    expect(queue.size).toBe(4);
    expect(queue.filter({ priority: -1 })).toEqual([runs[1], runs[2]]);
    queue.remove!('b');
    queue.setPriority('d', 0);
    expect([queue.dequeue(), queue.dequeue(), queue.dequeue(), queue.dequeue()]).toEqual([runs[3], runs[2], runs[0], undefined]);
  });

  it('takes a freed lane only once', () => {
    const lanes = new ViewLanes(5);
    const queue = new lanes.queueClass();
    const a = async () => 'a';
    const b = async () => 'b';
    const c = async () => 'c';
    queue.enqueue(a, { priority: 0, lane: 'X' });
    queue.enqueue(b, { priority: 0, lane: 'Y' });
    queue.enqueue(c, { priority: 0, lane: 'Y' });
    lanes.release('Y');
    expect(queue.dequeue()).toBe(b);
    expect(queue.dequeue()).toBe(a);
    expect(lanes.reordered).toBe(1);
  });
});
