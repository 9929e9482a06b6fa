// `rca-tag --jobs N`: the tag stage on N threads, this one and N-1 workers. Raw lines are grouped
// into batches; a batch goes to a worker with room, or waits, and this thread tags a waiting batch
// itself whenever it has nothing else to do (it also reads, finalises and writes). Batches finish
// in any order and are finalised strictly in input order: this thread's one ContextBuilder decides
// each document's doc type from its first chunk, as on one thread, and the fields are appended to
// the line as read. Output is byte-identical to --jobs 1.

import { createRequire } from 'node:module';
import { availableParallelism, loadavg } from 'node:os';
import type * as WorkerThreads from 'node:worker_threads';
import type { NerSeed } from '../contracts/chunk.js';
import type { DocType } from '../contracts/vocabulary.js';
import { messageOf, parseRecordLine } from '../runtime/record-line.js';
import { AppendedJson, type Outcome, type Processor, type RecordMeta } from '../runtime/stage.js';
import { ContextBuilder } from './context.js';
import {
  createBatchTagger,
  HISTORY,
  REBUILD,
  REJECTED,
  TAGGED,
  type TagBatch,
  type TagBatchReply,
  type TaggedBatch,
  type TagSetup,
} from './tag-batch.js';
import { contextFieldsJson, tagFieldsJson, withTagFields } from './tag-record.js';
import { TagFlagCounts } from './tag-summary.js';

/** `--jobs auto`: at most this many threads. */
export const MAX_AUTO_JOBS = 4;
/** More threads than this only cost memory. */
export const MAX_JOBS = 64;
/**
 * Under --jobs auto, input characters tagged before any worker starts: a worker costs ~0.2 s of
 * CPU to start (its own heap, modules and matchers) and a second thread ~65 % more CPU per byte
 * (copies between threads, a second heap); on two idle cores that is won back past ~12 MB of
 * text-heavy input (BENCHMARKS.md, "rca-tag on text-heavy records").
 */
export const AUTO_SPAWN_AFTER_CHARS = 16 * 2 ** 20;

/**
 * `--jobs auto`: one thread per CPU that is idle now, at least 1, at most MAX_AUTO_JOBS. A CPU
 * counts as idle by the 1-minute load average (half a CPU of load is tolerated): a thread that
 * competes with other work for a busy CPU costs its extra CPU and gains nothing (on 2 cores at a
 * load of 10, --jobs 2 took 1.5–3× the wall time of --jobs 1). One CPU: always 1.
 */
export function autoJobs(cpus = availableParallelism(), load = loadavg()[0] ?? 0): number {
  return Math.max(1, Math.min(MAX_AUTO_JOBS, cpus, 1 + Math.floor(cpus - 0.5 - load)));
}

// A batch is complete at this size; a smaller one goes out when nothing else is in flight.
export const BATCH_LINES = 48;
const BATCH_CHARS = 160 * 1024;
/** Batches queued at each worker; more wait for a worker with room, or for this thread. */
export const BATCHES_PER_WORKER = 2;
/**
 * Batches that may be finished while an older one is still out. The window is kept small on
 * purpose: every line in it stays alive on this thread, and its garbage collection grows with
 * them (a window of 450 lines cost this thread twice the collection time of one of 190).
 */
const BATCHES_AHEAD = 2;
/**
 * A worker's young generation, below V8's default: each heap is sized as if it were the only one,
 * and with two the peak RSS over 1 GB of input went from 210 to 195 MB for 1-2% more time.
 */
const WORKER_YOUNG_GENERATION_MB = 16;

export interface ParallelTaggerConfig {
  /** Threads that tag, this one included (at least 2). */
  jobs: number;
  setup: TagSetup;
  /** Input characters to see before the first worker starts (0: at once). */
  spawnAfterChars: number;
  /** The worker entry (tests substitute one); by default the compiled tag-worker.js. */
  workerFile?: URL;
}

type Settled = Outcome | Error;

interface Batch {
  id: number;
  lines: string[];
  /** Per line, its UTF-8 bytes as read (RecordMeta.bytes), when the source kept them. */
  bytes: (Buffer | undefined)[];
  chars: number;
  outcomes: Promise<Settled[]>;
  settle(outcomes: Settled[]): void;
  /** Hands over the batch's result (set once the batch is ready to be tagged). */
  deliver?(result: BatchResult): void;
}

interface WorkerSlot {
  worker: WorkerThreads.Worker;
  number: number;
  pending: Map<number, { resolve(tagged: TaggedBatch): void; reject(err: Error): void }>;
  dead: boolean;
  /** What an uncaught exception in the worker said: reported when it has exited. */
  failure?: string;
}

type BatchResult = { tagged: TaggedBatch } | { error: Error };

const NOTHING: Outcome = Object.freeze({});

export class ParallelTagger implements Processor {
  readonly window: number;
  private readonly maxWorkers: number;
  private readonly maxQueued: number;
  private readonly contexts: ContextBuilder;
  private readonly forcedContexts = new Map<DocType, ContextBuilder>();
  private tagHere: ((lines: readonly string[]) => TaggedBatch) | null = null;
  private readonly workers: WorkerSlot[] = [];
  private charsSeen = 0;
  private open: Batch | null = null;
  private nextId = 0;
  /** Batches sent to workers and not answered yet. */
  private queued = 0;
  /** Full batches no worker had room for: this thread takes them when it has nothing else to do. */
  private readonly waiting: Batch[] = [];
  private idleQueued = false;
  /** Batch k is finalised after batch k-1: the ContextBuilder sees records in input order. */
  private finalised: Promise<void> = Promise.resolve();
  /** Why no more lines are tagged: after a fatal error nothing may follow, as on one thread. */
  private ended: 'fatal' | 'interrupted' | 'closed' | null = null;
  /** A worker died: batches from now on fail at once. */
  private broken: Error | null = null;
  private terminated: Promise<unknown> = Promise.resolve();
  private batchesHere = 0;
  private batchesOnWorkers = 0;
  private contextsRedone = 0;
  private readonly flagCounts = new TagFlagCounts();

  constructor(private readonly config: ParallelTaggerConfig) {
    this.contexts = new ContextBuilder(config.setup.context);
    this.maxWorkers = Math.max(1, config.jobs - 1);
    this.maxQueued = this.maxWorkers * BATCHES_PER_WORKER;
    // Room for the batches queued at workers, the one being filled and those finished here while
    // an older one is out: the runner stops reading when the window is full, which bounds memory.
    this.window = BATCH_LINES * (this.maxQueued + BATCHES_AHEAD);
  }

  process(_record: unknown, meta: RecordMeta): Outcome | Promise<Outcome> {
    return this.processRaw(meta.raw, meta);
  }

  processRaw(line: string, meta?: RecordMeta): Outcome | Promise<Outcome> {
    if (this.ended !== null) return NOTHING;
    this.charsSeen += line.length;
    const batch = (this.open ??= this.newBatch());
    const index = batch.lines.push(line) - 1;
    batch.bytes.push(meta?.bytes);
    batch.chars += line.length;
    if (batch.lines.length >= BATCH_LINES || batch.chars >= BATCH_CHARS) this.ready(batch);
    else this.queueIdle();
    return batch.outcomes.then((outcomes) => {
      const outcome = outcomes[index]!;
      if (outcome instanceof Error) throw outcome;
      return outcome;
    });
  }

  stats(): Record<string, unknown> {
    return {
      jobs: this.config.jobs,
      workers_started: this.workers.length,
      batches_on_workers: this.batchesOnWorkers,
      batches_here: this.batchesHere,
      contexts_redone: this.contextsRedone,
      ...this.flagCounts.stats(),
    };
  }

  summary(): string[] {
    return this.flagCounts.summary();
  }

  interrupt(): void {
    this.end('interrupted');
  }

  async close(): Promise<void> {
    this.end('closed');
    await this.terminated;
  }

  private newBatch(): Batch {
    let settle!: (outcomes: Settled[]) => void;
    const outcomes = new Promise<Settled[]>((resolve) => (settle = resolve));
    return { id: this.nextId++, lines: [], bytes: [], chars: 0, outcomes, settle };
  }

  /** A batch is complete: it is tagged by a worker or here, then finalised in its turn. */
  private ready(batch: Batch): void {
    if (this.open === batch) this.open = null;
    const result = new Promise<BatchResult>((resolve) => (batch.deliver = resolve));
    this.finalised = this.finalised.then(() => result).then((settled) => this.finalise(batch, settled));
    this.waiting.push(batch);
    this.dispatch();
  }

  /** Gives waiting batches, oldest first, to workers with room (starting one when allowed). */
  private dispatch(): void {
    while (this.waiting.length > 0) {
      if (this.broken !== null) {
        for (const batch of this.waiting.splice(0)) batch.deliver!({ error: this.broken });
        return;
      }
      const worker = this.pickWorker();
      if (worker === null) break;
      this.post(worker, this.waiting.shift()!);
    }
    if (this.waiting.length > 0) this.queueIdle();
  }

  private queueIdle(): void {
    if (this.idleQueued || this.ended !== null) return;
    this.idleQueued = true;
    setImmediate(() => {
      this.idleQueued = false;
      this.onIdle();
    });
  }

  /**
   * A turn of the event loop after what was pending (input, answers): a batch no worker has room
   * for is tagged here, so this thread works instead of waiting; and with nothing in flight, a
   * partly filled batch goes out (no answer will come to send it, and the runner may wait for it).
   */
  private onIdle(): void {
    if (this.ended !== null) return;
    if (this.open !== null && this.waiting.length === 0 && this.queued === 0) this.ready(this.open);
    const batch = this.waiting.shift();
    if (batch !== undefined) {
      this.tagHere ??= createBatchTagger(this.config.setup);
      this.batchesHere++;
      batch.deliver!({ tagged: this.tagHere(batch.lines) });
    }
    // With nothing in flight, no answer will come to start the next turn: this one does.
    if (this.waiting.length > 0 || (this.open !== null && this.queued === 0)) this.queueIdle();
  }

  private post(worker: WorkerSlot, batch: Batch): void {
    this.queued++;
    this.batchesOnWorkers++;
    worker.pending.set(batch.id, {
      resolve: (tagged) => batch.deliver!({ tagged }),
      reject: (error) => batch.deliver!({ error }),
    });
    const message: TagBatch = { id: batch.id, lines: batch.lines };
    worker.worker.postMessage(message);
  }

  private pickWorker(): WorkerSlot | null {
    let best: WorkerSlot | null = null;
    for (const slot of this.workers) {
      if (!slot.dead && (best === null || slot.pending.size < best.pending.size)) best = slot;
    }
    if (best !== null && best.pending.size < BATCHES_PER_WORKER) return best;
    if (this.workers.length < this.maxWorkers && this.charsSeen >= this.config.spawnAfterChars) return this.spawn();
    return null;
  }

  private spawn(): WorkerSlot {
    // Loaded here, not at start-up: a run that starts no thread does not pay for the module.
    const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;
    const worker = new Worker(this.config.workerFile ?? WORKER_FILE, {
      workerData: this.config.setup,
      stdout: true,
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    // stdout carries records only: whatever a worker might print there is dropped.
    worker.stdout.resume();
    const slot: WorkerSlot = { worker, number: this.workers.length + 1, pending: new Map(), dead: false };
    worker.on('message', (reply: TagBatchReply) => this.onReply(slot, reply));
    // An uncaught exception is reported on 'exit', not here: 'error' can overtake the replies the
    // worker posted before it threw, which Node delivers before 'exit'.
    worker.on('error', (err) => {
      slot.failure ??= `tag worker ${slot.number} failed: ${messageOf(err)}`;
    });
    worker.on('messageerror', (err) => this.onDeath(slot, `tag worker ${slot.number} sent an unreadable reply: ${messageOf(err)}`));
    worker.on('exit', (code) => this.onDeath(slot, slot.failure ?? `tag worker ${slot.number} stopped (exit status ${code})`));
    this.workers.push(slot);
    return slot;
  }

  private onReply(slot: WorkerSlot, reply: TagBatchReply): void {
    const pending = slot.pending.get(reply.id);
    if (pending === undefined) return;
    slot.pending.delete(reply.id);
    this.queued--;
    pending.resolve(reply.tagged);
    this.dispatch();
    if (this.open !== null) this.queueIdle();
  }

  private onDeath(slot: WorkerSlot, message: string): void {
    if (slot.dead) return;
    slot.dead = true;
    const error = new Error(message);
    // Not stopped by us: what it held, and every batch after, is lost.
    if (this.ended === null) this.broken ??= error;
    this.failPending(slot, error);
    this.dispatch();
    if (this.open !== null) this.queueIdle();
  }

  private failPending(slot: WorkerSlot, error: Error): void {
    for (const pending of slot.pending.values()) pending.reject(error);
    this.queued -= slot.pending.size;
    slot.pending.clear();
  }

  private finalise(batch: Batch, result: BatchResult): void {
    const outcomes = new Array<Settled>(batch.lines.length);
    for (let i = 0; i < batch.lines.length; i++) {
      if (this.ended !== null) {
        outcomes[i] = NOTHING;
      } else if ('error' in result) {
        outcomes[i] = { fatal: result.error.message };
        this.end('fatal');
      } else {
        try {
          outcomes[i] = this.outcomeOf(batch.lines[i]!, batch.bytes[i], result.tagged, i);
        } catch (err) {
          // The runner reports it as an exception in process(): INTERNAL_ERROR, then fatal.
          outcomes[i] = err instanceof Error ? err : new Error(String(err));
          this.end('fatal');
        }
      }
    }
    batch.settle(outcomes);
  }

  /** Line `i` of a tagged batch as the runner takes it. */
  private outcomeOf(line: string, bytes: Buffer | undefined, t: TaggedBatch, i: number): Outcome {
    const status = t.status[i]!;
    if (status & REJECTED) return { reject: { code: t.rejectCode[i]!, message: t.message[i]! } };
    if (!(status & TAGGED)) throw new Error(t.message[i]);
    const guess = t.docType[i]!;
    // The one decision that depends on earlier records, taken here in input order: the evidence
    // is all that build() reads for it.
    const docType =
      status & HISTORY
        ? this.contexts.build({ doc_id: t.docId[i], doc_type: t.docTypeField[i], doc_name: t.docName[i], source_path: t.sourcePath[i], text: t.text[i] }).context.doc_type
        : guess;
    if (docType === guess && !(status & REBUILD)) {
      this.flagCounts.addJson(t.tagFlags[i]!);
      return { records: [new AppendedJson(line, tagFieldsJson(t.context[i]!, t.nerSeed[i]!, t.tagFlags[i]!), bytes)] };
    }
    // The batch guessed another type (the document began in an earlier batch), or the record must
    // be rebuilt: the context is a function of the record and its doc type, which a builder
    // forced to that type computes. The line parsed where it was tagged, so it parses here too.
    const record = parseRecordLine(line).record!;
    const facts = this.contextsFor(docType).build(record);
    this.contextsRedone++;
    if (status & REBUILD) this.flagCounts.add(facts.flags);
    else this.flagCounts.addJson(t.tagFlags[i]!);
    if (status & REBUILD) return { records: [withTagFields(record, facts, JSON.parse(t.nerSeed[i]!) as NerSeed)] };
    return { records: [new AppendedJson(line, tagFieldsJson(contextFieldsJson(facts), t.nerSeed[i]!, t.tagFlags[i]!), bytes)] };
  }

  private contextsFor(docType: DocType): ContextBuilder {
    let contexts = this.forcedContexts.get(docType);
    if (contexts === undefined) {
      contexts = new ContextBuilder({ ...this.config.setup.context, docTypeMode: docType });
      this.forcedContexts.set(docType, contexts);
    }
    return contexts;
  }

  /** No more tagging: workers stop, and every line not finalised yet comes out as nothing. */
  private end(why: 'fatal' | 'interrupted' | 'closed'): void {
    if (this.ended !== null) return;
    this.ended = why;
    const stopped = new Error(`tag workers stopped (${why})`);
    for (const slot of this.workers) {
      slot.dead = true;
      this.failPending(slot, stopped);
    }
    this.terminated = Promise.all(this.workers.map((slot) => slot.worker.terminate()));
    for (const batch of this.waiting.splice(0)) batch.deliver!({ error: stopped });
    const open = this.open;
    this.open = null;
    open?.settle(open.lines.map(() => NOTHING));
  }
}

/**
 * The compiled worker entry next to this module. Under a TypeScript-aware test runner this module
 * is its .ts source, which a worker thread cannot load: the worker then runs the compiled copy in
 * dist/ (the test script builds first).
 */
const WORKER_FILE = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/tagging/tag-worker.js', import.meta.url)
  : new URL('./tag-worker.js', import.meta.url);
