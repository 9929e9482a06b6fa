// A record's work off the main thread. A pure function that can take seconds on one large record
// (tag's NER seed, the views and their grounding, a validation, a prompt) cannot yield, and while
// it runs no signal is seen: for a record of OFF_THREAD_CHARS or more the stage sends that work
// here, to one worker thread, and awaits it. The main thread keeps everything that depends on the
// records before (doc types, counts, input order) and stays free to take SIGINT/SIGTERM, on which
// the runner calls stop(): V8 ends the worker's running script at once and the record's outcome
// never comes (OffThreadStopped). The worker starts with the first such record, never otherwise.
//
// A kernel is a module's named export: `factory(setup)` → `(input) => output` (a promise of
// either is fine), setup and input and output plain data (structured clone). The worker builds
// each (kernel, setup) once and keeps it for the records after.

import { createRequire } from 'node:module';
import type * as WorkerThreads from 'node:worker_threads';
import { jsonParts } from './json-parts.js';
import { AppendedJson, EncodedJson, hasLargeString, RawJson, type OffThreadRunner, type Outcome, type OutputRecord } from './stage.js';

/** A line this long has its heavy work done off the main thread (the stages ask `takes`). */
export const OFF_THREAD_CHARS = 1 << 20;

/** A kernel: the export `name` of the module at `module` (a file URL; see kernelUrl). */
export interface Kernel {
  module: string;
  name: string;
}

/** The outcome of a record whose work was under way when the run was interrupted: there is none. */
export class OffThreadStopped extends Error {
  constructor() {
    super('interrupted');
  }
}

/** A message to the worker: run `kernel` (built once per setup number) on `input`. */
export interface OffThreadJob {
  id: number;
  kernel: Kernel;
  setupId: number;
  /** Sent with the first job of its setup number only. */
  setup?: unknown;
  input: unknown;
}

export type OffThreadReply = { id: number; output: unknown } | { id: number; error: string };

interface PendingJob {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/**
 * The URL of the compiled module `file` (e.g. './seed-kernel.js') beside the module at `base`
 * (its import.meta.url). Under a TypeScript-aware test runner `base` is a .ts source, and a worker
 * cannot load one: the URL is then that of the compiled copy in dist/ (the test script builds first).
 */
export function kernelUrl(base: string, file: string): string {
  const url = new URL(file, base).href;
  if (!base.endsWith('.ts')) return url;
  const at = url.lastIndexOf('/src/');
  return `${url.slice(0, at)}/dist/${url.slice(at + 5)}`;
}

/** The kernel `name` exported by the module whose import.meta.url is `url`. */
export function kernelOf(url: string, name: string): Kernel {
  return { module: kernelUrl(url, url.slice(url.lastIndexOf('/') + 1).replace(/\.ts$/, '.js')), name };
}

export class OffThread implements OffThreadRunner {
  private worker: WorkerThreads.Worker | null = null;
  private readonly pending = new Map<number, PendingJob>();
  private readonly setups = new Map<unknown, number>();
  private nextId = 0;
  private stopped = false;
  private exited: Promise<unknown> = Promise.resolve();
  /** Jobs sent to the worker (tests read it). */
  jobs = 0;

  constructor(
    /** Lines at least this long are taken (tests set 0 or Infinity to hold both paths equal). */
    readonly threshold: number = OFF_THREAD_CHARS,
    private readonly workerFile: URL = WORKER_FILE,
  ) {}

  /** Is this line's work to be done here? */
  takes(line: string): boolean {
    return line.length >= this.threshold;
  }

  /**
   * Runs `kernel` built with `setup` on `input` in the worker. The same setup object (by identity)
   * is sent once; `transfer` moves buffers of the input instead of copying them.
   */
  run<O>(kernel: Kernel, setup: unknown, input: unknown, transfer: readonly ArrayBuffer[] = []): Promise<O> {
    if (this.stopped) return Promise.reject(new OffThreadStopped());
    const worker = this.start();
    const id = this.nextId++;
    let setupId = this.setups.get(setup);
    const job: OffThreadJob = { id, kernel, setupId: setupId ?? this.setups.size, input };
    if (setupId === undefined) {
      setupId = this.setups.size;
      this.setups.set(setup, setupId);
      job.setup = setup;
    }
    const result = new Promise<O>((resolve, reject) => this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject }));
    this.jobs++;
    const moved = [...transfer];
    job.input = packStrings(input, moved, 0);
    worker.postMessage(job, moved);
    // What reading and parsing the line left (several times the line) goes before the worker's
    // heap grows beside it: this thread allocates little while it waits, so V8 would keep it.
    collectGarbage();
    return result;
  }

  /** The run is interrupted: the work under way is dropped and nothing more is taken. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.failAll(new OffThreadStopped());
    if (this.worker !== null) this.exited = this.worker.terminate();
  }

  /** At the end of the run, however it ended. */
  async close(): Promise<void> {
    this.stop();
    await this.exited.catch(() => undefined);
  }

  private start(): WorkerThreads.Worker {
    if (this.worker !== null) return this.worker;
    // Loaded here, not at start-up: a run without a large record never pays for the module.
    const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;
    const worker = new Worker(this.workerFile, { stdout: true });
    // stdout carries records only: whatever the worker might print there is dropped.
    worker.stdout.resume();
    let failure: string | null = null;
    worker.on('message', (reply: OffThreadReply) => {
      const job = this.pending.get(reply.id);
      if (job === undefined) return;
      this.pending.delete(reply.id);
      if ('error' in reply) job.reject(new Error(reply.error));
      else job.resolve(reply.output);
    });
    // Reported on 'exit', after the replies it posted before it failed.
    worker.on('error', (err) => (failure ??= `worker thread failed: ${err instanceof Error ? err.message : String(err)}`));
    worker.on('exit', (code) => {
      this.worker = null;
      this.setups.clear();
      if (!this.stopped) this.failAll(new Error(failure ?? `worker thread stopped (exit status ${code})`));
    });
    this.worker = worker;
    return worker;
  }

  private failAll(err: Error): void {
    for (const job of this.pending.values()) job.reject(err);
    this.pending.clear();
  }
}

/** The compiled worker entry next to this module (see kernelUrl for the test runner). */
const WORKER_FILE = new URL(kernelUrl(import.meta.url, './off-thread-worker.js'));

let gc: (() => void) | null = null;

/**
 * A full garbage collection now, on this thread. V8 collects when a thread allocates; a thread
 * that hands a large record on and waits, or a worker between records, keeps its garbage in
 * memory (V8 frees large strings' pages only then), beside the other thread's.
 */
export function collectGarbage(): void {
  if (gc === null) {
    const require = createRequire(import.meta.url);
    (require('node:v8') as typeof import('node:v8')).setFlagsFromString('--expose-gc');
    gc = (require('node:vm') as typeof import('node:vm')).runInNewContext('gc') as () => void;
  }
  gc();
}

/** A string this long crosses to the worker as its UTF-8 bytes, moved, not as a string copied twice
 *  (the message's serialised form, then the worker's string). */
const PACKED_STRING_CHARS = 1 << 16;

/** A long string in a job's input, as its UTF-8 bytes. */
export interface PackedString {
  packedUtf8: Uint8Array;
}

/** The input with its long strings (at the top and two levels down) as PackedString; their buffers join `moved`. */
function packStrings(value: unknown, moved: ArrayBuffer[], depth: number): unknown {
  if (typeof value === 'string') {
    if (value.length < PACKED_STRING_CHARS) return value;
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(value));
    bytes.write(value, 0, 'utf8');
    moved.push(bytes.buffer as ArrayBuffer);
    return { packedUtf8: bytes } satisfies PackedString;
  }
  if (depth > 2 || value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  let out: Record<string, unknown> | null = null;
  for (const [key, item] of Object.entries(value)) {
    const packed = packStrings(item, moved, depth + 1);
    if (packed !== item) (out ??= { ...(value as Record<string, unknown>) })[key] = packed;
  }
  return out ?? value;
}

/** In the worker: the input as it was given to run(). */
export function unpackStrings(value: unknown, depth = 0): unknown {
  if (depth > 3 || value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const packed = (value as Partial<PackedString>).packedUtf8;
  if (packed instanceof Uint8Array && Object.keys(value).length === 1) return Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength).toString('utf8');
  const out = value as Record<string, unknown>;
  for (const key of Object.keys(out)) out[key] = unpackStrings(out[key], depth + 1);
  return out;
}

/** An outcome as it crosses from the worker: each record its JSON line as bytes (EncodedJson). */
export type PortableOutcome = Omit<Outcome, 'records' | 'stream' | 'block'> & { records?: Uint8Array[][] };

/** On the worker: the outcome with its records written as the runner would write them. */
export function encodeOutcome(outcome: Outcome): PortableOutcome {
  const { records, stream: _stream, block: _block, ...rest } = outcome;
  if (records === undefined) return rest;
  return { ...rest, records: records.map(encodeRecord) };
}

/** On the main thread: the outcome the worker's processor gave. */
export function decodeOutcome(portable: PortableOutcome): Outcome {
  const { records, ...rest } = portable;
  return records === undefined ? rest : { ...rest, records: records.map((pieces) => new EncodedJson(pieces)) };
}

/** Encoded output is cut into pieces of this many bytes (each its own ArrayBuffer, moved uncopied). */
const ENCODED_PIECE_BYTES = 1 << 20;

/** The record's line as Run.apply writes it (a record with a large string in jsonParts' pieces,
 *  which join to JSON.stringify's text), never held whole as one string. */
function encodeRecord(rec: OutputRecord): Uint8Array[] {
  if (rec instanceof EncodedJson) return [...rec.pieces];
  const text = rec instanceof RawJson || rec instanceof AppendedJson ? [rec.json] : hasLargeString(rec) ? jsonParts(rec) : [JSON.stringify(rec)];
  const pieces: Uint8Array[] = [];
  // Each piece in an ArrayBuffer of its own (not Node's shared pool): it moves to the main thread uncopied.
  let piece = Buffer.allocUnsafeSlow(ENCODED_PIECE_BYTES);
  let used = 0;
  const put = (part: string) => {
    for (let from = 0; from < part.length; ) {
      // A UTF-16 unit is at most 3 bytes of UTF-8; a surrogate pair, 4 for 2.
      if (ENCODED_PIECE_BYTES - used < 4) {
        pieces.push(piece.subarray(0, used));
        piece = Buffer.allocUnsafeSlow(ENCODED_PIECE_BYTES);
        used = 0;
      }
      let to = Math.min(part.length, from + Math.floor((ENCODED_PIECE_BYTES - used) / 3));
      const last = part.charCodeAt(to - 1);
      if (to < part.length && last >= 0xd800 && last <= 0xdbff) to--;
      used += piece.write(part.slice(from, to), used, 'utf8');
      from = to;
    }
  };
  for (const part of text) put(part);
  put('\n');
  pieces.push(piece.subarray(0, used));
  return pieces;
}
