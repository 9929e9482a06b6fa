// `rca-tag --jobs N`: N threads tag, N-1 workers and this one, which also reads, keeps input
// order, decides each document's doc type and writes, and tags a block itself when every worker
// has its fill. The runner hands JSON Lines over in blocks of whole lines (the `blocks` line adapter);
// a block is copied into a slot of memory shared with the workers, where a worker splits, parses
// and tags it exactly as the line-by-line path does and leaves the finished output bytes; its
// rejects come back in the reply. Blocks finish in any order and are finalised strictly in input
// order: this thread's one ContextBuilder decides each document's doc type from its first chunk,
// as on one thread, and follows which section each chunk leaves open (a chunk continuing one takes
// its role); the rare line whose worker assumed another type, or another open section, is tagged
// again here.
// Output is byte-identical to --jobs 1.

import { createRequire } from 'node:module';
import { availableParallelism, loadavg } from 'node:os';
import type * as WorkerThreads from 'node:worker_threads';
import type { NerSeed } from '../contracts/chunk.js';
import type { DocType } from '../contracts/vocabulary.js';
import { formIndex, type DocForm } from './doc-type.js';
import type { LineEvent } from '../runtime/line-splitter.js';
import { messageOf, parseRecordLine } from '../runtime/record-line.js';
import type { BlockOutcome, InputBlock, LineAdapter, OffThreadRunner, Outcome, Processor, RecordMeta } from '../runtime/stage.js';
import { OffThreadStopped } from '../runtime/off-thread.js';
import { SEED_KERNEL } from './seed-kernel.js';
import { BLOCK_BYTES } from '../runtime/sources/block-source.js';
import { ContextBuilder, sameCarry, type RoleCarry } from './context.js';
import {
  assumedForm,
  blockLines,
  BlockOutput,
  createBlockTagger,
  FLAG_SEPARATOR,
  ThreadTagger,
  type BlockInput,
  type BlockJob,
  type BlockReply,
  type BlockSlot,
  type TagSetup,
  type TaggedBlock,
  type WorkerSetup,
} from './tag-batch.js';
import { TagFlagCounts } from './tag-summary.js';

/** `--jobs auto`: at most this many threads. */
export const MAX_AUTO_JOBS = 4;
/** More threads than this only cost memory. */
export const MAX_JOBS = 64;
/**
 * --jobs auto: the input size from which a second thread pays for itself. A worker costs ~0.3 s of
 * CPU before it runs at speed (its heap, modules and matchers, and compiling the tagger a second
 * time), then ~1.3× one thread's CPU per byte; on two CPUs with little other load the text-heavy
 * corpus crossed between 16 and 32 MB. A file smaller than this is tagged on one thread; from a
 * pipe, the workers start once this much has been read (BENCHMARKS.md, "rca-tag on threads").
 */
export const AUTO_MIN_INPUT_BYTES = 16 * 2 ** 20;

/**
 * `--jobs auto`: one thread per CPU that is idle now, at least 1, at most MAX_AUTO_JOBS. A CPU
 * counts as idle by the 1-minute load average (half a CPU of load is tolerated): a thread that
 * competes with other work for a busy CPU costs its extra CPU and gains nothing. One CPU: always 1.
 */
export function autoJobs(cpus = availableParallelism(), load = loadavg()[0] ?? 0): number {
  return Math.max(1, Math.min(MAX_AUTO_JOBS, cpus, 1 + Math.floor(cpus - 0.5 - load)));
}

/**
 * What --jobs auto runs: `jobs` threads (1: the one-thread tagger), the workers starting once
 * `spawnAfterBytes` have been read. `inputBytes`: the input's size when it is known (files).
 */
export function autoPlan(inputBytes: number | null, jobs = autoJobs()): { jobs: number; spawnAfterBytes: number } {
  if (jobs <= 1 || (inputBytes !== null && inputBytes < AUTO_MIN_INPUT_BYTES)) return { jobs: 1, spawnAfterBytes: Infinity };
  return { jobs, spawnAfterBytes: inputBytes === null ? AUTO_MIN_INPUT_BYTES : 0 };
}

/** Blocks queued at each worker: enough that it has work while this thread tags one itself. */
export const BLOCKS_PER_WORKER = 3;
/** Blocks finished and waiting for an older one; with the queued ones, what the runner holds. */
const BLOCKS_AHEAD = 2;
/** A slot holds a block (cut at the first line end past BLOCK_BYTES) and its output, which the added fields make longer. */
const SLOT_INPUT_BYTES = BLOCK_BYTES + 64 * 1024;
const SLOT_OUTPUT_BYTES = 4 * SLOT_INPUT_BYTES;
/**
 * A worker's young generation, below V8's default: each heap is sized as if it were the only one,
 * and a worker's garbage is short-lived (a block's strings).
 */
const WORKER_YOUNG_GENERATION_MB = 16;

export interface ParallelTaggerConfig {
  /** Threads that tag, this one included (at least 2: one worker). */
  jobs: number;
  setup: TagSetup;
  /** Input bytes to see before the first worker starts (0: at once; Infinity: never). */
  spawnAfterBytes: number;
  /** The worker entry (tests substitute one); by default the compiled tag-worker.js. */
  workerFile?: URL;
  /** The run's worker thread, for the seed of a line too long for a block (runtime/off-thread.ts). */
  offThread?: OffThreadRunner;
}

type BlockResult = { tagged: TaggedBlock } | { error: Error };

interface Job {
  id: number;
  block: InputBlock;
  /** The shared slot holding the block while a worker has it (-1: none). */
  slot: number;
  /** The block's bytes while it is tagged and finalised (a view of the slot, or its own). */
  input: Uint8Array;
  deliver(result: BlockResult): void;
}

interface WorkerSlot {
  worker: WorkerThreads.Worker;
  number: number;
  pending: Map<number, Job>;
  dead: boolean;
  /** What an uncaught exception in the worker said: reported when it has exited. */
  failure?: string;
}

const NOTHING: Outcome = Object.freeze({});
const emptyBlock = (): BlockOutcome => ({ output: [], lines: 0, records: 0, rejects: [] });
const noop = () => undefined;

export class ParallelTagger implements Processor {
  readonly window: number;
  /** Decides doc types in input order, as the one-thread tagger's builder does. */
  private readonly contexts: ContextBuilder;
  private readonly formContexts = new Map<number, ContextBuilder>();
  /** This thread's tagger (long lines, lines tagged again, blocks before any worker starts). */
  private here: ThreadTagger | null = null;
  private tagBlockHere: ((block: BlockInput) => TaggedBlock) | null = null;
  /** Memory shared with every worker, one slot per block that may be out (made with the first worker). */
  private slots: BlockSlot[] = [];
  private readonly freeSlots: number[] = [];
  private readonly workers: WorkerSlot[] = [];
  private bytesSeen = 0;
  private nextId = 0;
  /** Blocks no worker had room for yet, oldest first. */
  private readonly waiting: Job[] = [];
  /** Block k (or line) is finalised after the one before: the ContextBuilder sees input order. */
  private finalised: Promise<unknown> = Promise.resolve();
  /** Why nothing more is tagged: after a fatal error nothing may follow, as on one thread. */
  private ended: 'fatal' | 'interrupted' | 'closed' | null = null;
  /** A worker died: blocks from now on fail at once. */
  private broken: Error | null = null;
  private terminated: Promise<unknown> = Promise.resolve();
  private idleQueued = false;
  private readonly maxWorkers: number;
  private blocksHere = 0;
  private blocksOnWorkers = 0;
  private linesHere = 0;
  private linesRedone = 0;
  private readonly flagCounts = new TagFlagCounts();

  constructor(private readonly config: ParallelTaggerConfig) {
    this.contexts = new ContextBuilder(config.setup.context);
    this.maxWorkers = Math.max(1, config.jobs - 1);
    // The blocks queued at workers and those finished while an older one is out: the runner stops
    // reading when the window is full, which bounds memory.
    this.window = Math.max(1, config.jobs) * BLOCKS_PER_WORKER + BLOCKS_AHEAD;
  }

  process(_record: unknown, meta: RecordMeta): Outcome | Promise<Outcome> {
    return this.tagLine(meta.raw, meta);
  }

  /** JSON Lines come in blocks, to be tagged on the workers (the `blocks` line adapter). */
  readonly lines: LineAdapter = { kind: 'blocks', block: (block) => this.tagBlock(block), take: (line, meta) => this.tagLine(line, meta) };

  private tagBlock(block: InputBlock): Promise<BlockOutcome> {
    if (this.ended !== null) return Promise.resolve(emptyBlock());
    this.bytesSeen += block.bytes.length;
    let deliver!: (result: BlockResult) => void;
    const result = new Promise<BlockResult>((resolve) => (deliver = resolve));
    const job: Job = { id: this.nextId++, block, slot: -1, input: block.bytes, deliver };
    const outcome = this.finalised.then(() => result).then((r) => this.finalise(job, r));
    this.finalised = outcome.then(noop, noop);
    this.waiting.push(job);
    this.dispatch();
    return outcome;
  }

  /** A line the runner did not put in a block (a long one, or a record of a JSON document). */
  tagLine(line: string, meta: RecordMeta): Outcome | Promise<Outcome> {
    if (this.ended !== null) return NOTHING;
    const outcome = this.finalised.then(() => this.tagLineHere(line, meta));
    this.finalised = outcome.then(noop, noop);
    return outcome;
  }

  stats(): Record<string, unknown> {
    return {
      jobs: this.config.jobs,
      workers_started: this.workers.length,
      blocks_on_workers: this.blocksOnWorkers,
      blocks_here: this.blocksHere,
      lines_here: this.linesHere,
      lines_redone: this.linesRedone,
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

  private threadTagger(): ThreadTagger {
    return (this.here ??= new ThreadTagger(this.config.setup));
  }

  /** Gives waiting blocks, oldest first, to workers with room (starting one when allowed). */
  private dispatch(): void {
    while (this.waiting.length > 0) {
      if (this.broken !== null) {
        for (const job of this.waiting.splice(0)) job.deliver({ error: this.broken });
        return;
      }
      const worker = this.pickWorker();
      if (worker !== null) {
        this.post(worker, this.waiting.shift()!);
      } else if (this.workers.length === 0) {
        // No worker (yet): this thread tags.
        this.tagHere(this.waiting.shift()!);
      } else {
        // Every worker is busy: this thread takes the block if none has room by the next turn of
        // the event loop (their answers, which make room, are read before it).
        this.queueIdle();
        return;
      }
    }
  }

  private queueIdle(): void {
    if (this.idleQueued || this.ended !== null) return;
    this.idleQueued = true;
    setImmediate(() => {
      this.idleQueued = false;
      if (this.ended !== null || this.waiting.length === 0) return;
      if (this.pickWorker() === null) this.tagHere(this.waiting.shift()!);
      this.dispatch();
    });
  }

  private tagHere(job: Job): void {
    this.tagBlockHere ??= createBlockTagger(this.config.setup, this.threadTagger());
    this.blocksHere++;
    let result: BlockResult;
    try {
      result = { tagged: this.tagBlockHere(job.block) };
    } catch (err) {
      result = { error: err instanceof Error ? err : new Error(String(err)) };
    }
    job.deliver(result);
  }

  private post(worker: WorkerSlot, job: Job): void {
    this.blocksOnWorkers++;
    worker.pending.set(job.id, job);
    const { bytes, lineBefore, maxLineBytes } = job.block;
    const slot = bytes.length <= SLOT_INPUT_BYTES ? this.freeSlots.pop() : undefined;
    if (slot === undefined) {
      // A block larger than a slot (a line of more than a few dozen KB in it): copied over, and
      // kept here for the lines that may be tagged again.
      const message: BlockJob = { id: job.id, slot: -1, length: bytes.length, bytes, lineBefore, maxLineBytes };
      worker.worker.postMessage(message);
      return;
    }
    job.slot = slot;
    job.input = new Uint8Array(this.slots[slot]!.input, 0, bytes.length);
    job.input.set(bytes);
    const message: BlockJob = { id: job.id, slot, length: bytes.length, lineBefore, maxLineBytes };
    worker.worker.postMessage(message);
  }

  private pickWorker(): WorkerSlot | null {
    let best: WorkerSlot | null = null;
    for (const slot of this.workers) {
      if (!slot.dead && (best === null || slot.pending.size < best.pending.size)) best = slot;
    }
    if (best !== null && best.pending.size === 0) return best;
    if (this.workers.length < this.maxWorkers && this.bytesSeen >= this.config.spawnAfterBytes) return this.spawn();
    if (best !== null && best.pending.size < BLOCKS_PER_WORKER) return best;
    return null;
  }

  private spawn(): WorkerSlot {
    // Loaded here, not at start-up: a run that starts no thread does not pay for the module.
    const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;
    if (this.slots.length === 0) {
      this.slots = Array.from({ length: this.window }, () => ({ input: new SharedArrayBuffer(SLOT_INPUT_BYTES), output: new SharedArrayBuffer(SLOT_OUTPUT_BYTES) }));
      this.freeSlots.push(...this.slots.keys());
    }
    const workerData: WorkerSetup = { setup: this.config.setup, slots: this.slots };
    const worker = new Worker(this.config.workerFile ?? WORKER_FILE, {
      workerData,
      stdout: true,
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    // stdout carries records only: whatever a worker might print there is dropped.
    worker.stdout.resume();
    const slot: WorkerSlot = { worker, number: this.workers.length + 1, pending: new Map(), dead: false };
    worker.on('message', (reply: BlockReply) => this.onReply(slot, reply));
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

  private onReply(slot: WorkerSlot, reply: BlockReply): void {
    const job = slot.pending.get(reply.id);
    if (job === undefined) return;
    slot.pending.delete(reply.id);
    job.deliver({ tagged: reply.tagged });
    this.dispatch();
  }

  private onDeath(slot: WorkerSlot, message: string): void {
    if (slot.dead) return;
    slot.dead = true;
    const error = new Error(message);
    // Not stopped by us: what it held, and every block after, is lost.
    if (this.ended === null) this.broken ??= error;
    this.failPending(slot, error);
    this.dispatch();
  }

  private failPending(slot: WorkerSlot, error: Error): void {
    for (const job of slot.pending.values()) job.deliver({ error });
    slot.pending.clear();
  }

  /** A tagged block in its turn: doc types checked in input order, flags counted; its slot is free after. */
  private finalise(job: Job, result: BlockResult): BlockOutcome {
    try {
      return this.finaliseBlock(job, result);
    } finally {
      if (job.slot >= 0) this.freeSlots.push(job.slot);
      job.slot = -1;
    }
  }

  private finaliseBlock(job: Job, result: BlockResult): BlockOutcome {
    if (this.ended !== null) return emptyBlock();
    if ('error' in result) {
      this.end('fatal');
      return { ...emptyBlock(), fatal: { line: job.block.lineBefore + 1, message: result.error.message } };
    }
    const t = result.tagged;
    // Out of the slot before it is used again (the writer may hold the bytes a while).
    let output = t.outputLength >= 0 ? [Buffer.from(new Uint8Array(this.slots[job.slot]!.output, 0, t.outputLength))] : t.output;
    let redone: Map<number, Uint8Array> | null = null;
    // The block's lines by number, split again only when one must be tagged again.
    let lines: Map<number, LineEvent> | null = null;
    const lineOf = (lineNo: number): LineEvent | undefined => {
      lines ??= new Map(blockLines(job.input, job.block.lineBefore, job.block.maxLineBytes).map((e) => [e.line, e]));
      return lines.get(lineNo);
    };
    try {
      let evidence = 0;
      let decided: DocForm | null = null;
      // The section open before line j: in input order (`open`), and as the worker had it.
      let open = this.contexts.carry;
      let openThere: RoleCarry | null = null;
      for (let j = 0; j < t.lineNos.length; j++) {
        const openBefore = openThere;
        const after = t.carryAfter[j];
        if (after !== undefined) openThere = after;
        const assumed = assumedForm(t.assumed[j]!);
        let form: DocForm | null = null;
        if (assumed !== null) {
          if (t.follows[j] === 1 && decided !== null) {
            form = decided;
          } else {
            const k = evidence++;
            const path = t.sectionPath[k];
            const record = { doc_id: t.docId[k], doc_type: t.docTypeField[k], doc_name: t.docName[k], source_path: t.sourcePath[k], text: t.text[k], ...(Array.isArray(path) ? { section_segments: path } : { section_path: path }) };
            form = this.contexts.form(record);
          }
          decided = form;
        }
        // The document began in a block that thread did not see, or the line continues a section
        // opened there: tagged again with its form and the section open before it.
        const formWrong = form !== null && (form.type !== assumed!.type || form.subtype !== assumed!.subtype);
        if (formWrong || (t.carryDepends[j] === 1 && !sameCarry(openBefore, open))) {
          const again = this.tagAgain(lineOf(t.lineNos[j]!), form ?? this.config.setup.context.form!, open);
          (redone ??= new Map()).set(j, again.bytes);
          this.flagCounts.add(again.flags);
          open = again.carry;
          continue;
        }
        open = openThere;
        const flags = t.flags[j]!;
        this.flagCounts.add(flags === '' ? [] : flags.split(FLAG_SEPARATOR));
      }
      this.contexts.carry = open;
      if (redone !== null) output = [spliceLines(Buffer.concat(output), redone)];
    } catch (err) {
      // As an exception in process() is on one thread: INTERNAL_ERROR, then fatal.
      this.end('fatal');
      const line = job.block.lineBefore + 1;
      return { ...emptyBlock(), rejects: [{ line, code: 'INTERNAL_ERROR', message: messageOf(err), raw: '' }], fatal: { line, message: `internal error: ${messageOf(err)}` } };
    }
    if (t.fatal) this.end('fatal');
    return {
      output,
      lines: t.lineNos.length,
      records: t.records,
      rejects: t.rejects,
      ...(t.firstLine !== undefined ? { firstLine: t.firstLine } : {}),
      ...(t.fatal ? { fatal: t.fatal } : {}),
    };
  }

  /** A line of a tagged block, tagged here with the doc form decided in order and the section open before it. */
  private tagAgain(event: LineEvent | undefined, form: DocForm, open: RoleCarry | null): { bytes: Uint8Array; flags: readonly string[]; carry: RoleCarry | null } {
    if (event?.kind !== 'line') throw new Error('a tagged line is not in its block');
    // It parsed where it was tagged, so it parses here too.
    const record = parseRecordLine(event.text).record!;
    const contexts = this.contextsFor(form);
    contexts.carry = open;
    const { outcome, facts } = this.threadTagger().tag(record, { raw: event.text, ...(event.bytes ? { bytes: event.bytes } : {}) }, contexts);
    this.linesRedone++;
    const out = new BlockOutput();
    out.add(outcome.records ?? []);
    return { bytes: Buffer.concat(out.bytes(null)), flags: facts.flags, carry: facts.carry.after };
  }

  private contextsFor(form: DocForm): ContextBuilder {
    const key = formIndex(form);
    let contexts = this.formContexts.get(key);
    if (contexts === undefined) {
      contexts = new ContextBuilder({ ...this.config.setup.context, form });
      this.formContexts.set(key, contexts);
    }
    return contexts;
  }

  private tagLineHere(line: string, meta: RecordMeta): Outcome | Promise<Outcome> {
    if (this.ended !== null) return NOTHING;
    const parsed = parseRecordLine(line);
    if (parsed.reject) return { reject: parsed.reject };
    const tagged = (result: { outcome: Outcome; facts: { flags: readonly string[] } }): Outcome => {
      this.linesHere++;
      this.flagCounts.add(result.facts.flags);
      return result.outcome;
    };
    // The runner reports an exception (INTERNAL_ERROR, then fatal); nothing after it may be written.
    const failed = (err: unknown): never => {
      if (!(err instanceof OffThreadStopped)) this.end('fatal');
      throw err;
    };
    try {
      const offThread = this.config.offThread;
      // A long line's seed is made on the run's worker thread, its doc type decided here in order.
      if (offThread?.takes(line)) {
        const seed = (text: string) => offThread.run<NerSeed>(SEED_KERNEL, this.config.setup, text);
        return this.threadTagger().tagWith(parsed.record, meta, this.contexts, seed).then(tagged, failed);
      }
      return tagged(this.threadTagger().tag(parsed.record, meta, this.contexts));
    } catch (err) {
      return failed(err);
    }
  }

  /** No more tagging: workers stop, and every block not finalised yet comes out empty. */
  private end(why: 'fatal' | 'interrupted' | 'closed'): void {
    if (this.ended !== null) return;
    this.ended = why;
    const stopped = new Error(`tag workers stopped (${why})`);
    for (const slot of this.workers) {
      slot.dead = true;
      this.failPending(slot, stopped);
    }
    this.terminated = Promise.all(this.workers.map((slot) => slot.worker.terminate()));
    for (const job of this.waiting.splice(0)) job.deliver({ error: stopped });
  }
}

/** The block's output lines with lines `j` replaced (each replacement a whole line, newline included). */
function spliceLines(output: Uint8Array, replaced: Map<number, Uint8Array>): Uint8Array {
  const buf = Buffer.from(output.buffer, output.byteOffset, output.length);
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let j = 0; start < buf.length; j++) {
    const end = buf.indexOf(0x0a, start) + 1;
    parts.push(replaced.get(j) ?? buf.subarray(start, end));
    start = end;
  }
  return Buffer.concat(parts);
}

/**
 * The compiled worker entry next to this module. Under a TypeScript-aware test runner this module
 * is its .ts source, which a worker thread cannot load: the worker then runs the compiled copy in
 * dist/ (the test script builds first).
 */
const WORKER_FILE = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/tagging/tag-worker.js', import.meta.url)
  : new URL('./tag-worker.js', import.meta.url);
