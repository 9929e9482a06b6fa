// The worker thread of off-thread.ts: runs the kernels it is sent, one job at a time, in order.
import { parentPort } from 'node:worker_threads';
import { collectGarbage, unpackStrings, type OffThreadJob, type OffThreadReply } from './off-thread.js';
import { messageOf } from './record-line.js';

type Run = (input: unknown) => unknown;

const port = parentPort;
if (port !== null) {
  const built = new Map<string, Promise<Run>>();
  let queue: Promise<unknown> = Promise.resolve();
  const build = async (job: OffThreadJob): Promise<Run> => {
    const module = (await import(job.kernel.module)) as Record<string, unknown>;
    const factory = module[job.kernel.name];
    if (typeof factory !== 'function') throw new Error(`${job.kernel.module} has no kernel ${job.kernel.name}`);
    return (await (factory as (setup: unknown) => Run | Promise<Run>)(job.setup)) as Run;
  };
  const answer = async (job: OffThreadJob): Promise<void> => {
    const key = `${job.kernel.module}#${job.kernel.name}#${job.setupId}`;
    let reply: OffThreadReply;
    try {
      let run = built.get(key);
      if (run === undefined) built.set(key, (run = build(job)));
      const input = unpackStrings(job.input);
      // The bytes the strings came in go now, before the kernel's work grows beside them.
      job.input = null;
      collectGarbage();
      const output = await (await run)(input);
      reply = { id: job.id, output };
    } catch (err) {
      reply = { id: job.id, error: messageOf(err) };
    }
    port.postMessage(reply, transferOf(reply));
    // The record's work is garbage now; kept, it would sit beside the main thread's writing.
    collectGarbage();
  };
  port.on('message', (job: OffThreadJob) => {
    queue = queue.then(() => answer(job));
  });
}

/** Byte arrays of the output in an ArrayBuffer larger than Node's pool (so not a slice of it) move
 *  to the main thread uncopied. */
function transferOf(reply: OffThreadReply): ArrayBuffer[] {
  if (!('output' in reply)) return [];
  const found: ArrayBuffer[] = [];
  const walk = (value: unknown, depth: number): void => {
    if (depth > 3 || value === null || typeof value !== 'object') return;
    if (value instanceof Uint8Array) {
      if (value.buffer instanceof ArrayBuffer && value.buffer.byteLength > Buffer.poolSize && !found.includes(value.buffer)) found.push(value.buffer);
      return;
    }
    for (const item of Array.isArray(value) ? value : Object.values(value)) walk(item, depth + 1);
  };
  walk(reply.output, 0);
  return found;
}
