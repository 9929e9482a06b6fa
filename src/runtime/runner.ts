import { createReadStream, closeSync, fstatSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { EXIT, exitStatus, FatalError, UsageError } from './exit-codes.js';
import { createSource, type InputFormat, type SourceEvent } from './sources/index.js';
import { readDocumentFields } from './sources/document-fields.js';
import { checkInputPaths, checkOutputPaths, parseStageArgs, renderHelp } from './options.js';
import { InputShape } from './input-shape.js';
import { refusedLine } from './line-splitter.js';
import { LineWriter } from './output.js';
import { messageOf, parseRecordLine } from './record-line.js';
import { OffThread, OffThreadStopped } from './off-thread.js';
import type { BlockOutcome, Env, InputBlock, JsonObject, Outcome, ParsedLine, Processor, RecordMeta, SetupContext, Stage } from './stage.js';
import { ProgressLine } from './progress.js';

export interface RunIO {
  argv: readonly string[];
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: Env;
  /** Where SIGINT/SIGTERM arrive (the process in production, an emitter in tests). */
  signals?: NodeJS.EventEmitter;
  version: string;
  /** The worker thread for the heavy work of large lines (tests give one of another threshold,
   *  to hold both paths equal); by default one for lines of OFF_THREAD_CHARS or more. */
  offThread?: OffThread;
}

const DATA_DIR = fileURLToPath(new URL('../../data/', import.meta.url));
const STDIN_NAME = 'stdin';
/** The largest document field (a TOC, metadata) a stage may ask for. */
const DOCUMENT_FIELD_BYTES = 256 * 1024 * 1024;
/** Rejects of one code printed on stderr; the rest are counted in one line at the end (all go to --rejects). */
const REJECTS_SHOWN_PER_CODE = 5;
/** Flagged views of one view printed on stderr, as rejects are; the rest are counted at the end. */
const FLAGGED_SHOWN_PER_VIEW = REJECTS_SHOWN_PER_CODE;

/** Runs one stage over its inputs and returns the exit status. Never throws. */
export async function runStage(stage: Stage, tool: string, io: RunIO): Promise<number> {
  const say = (line: string) => io.stderr.write(`${tool}: ${line}\n`);
  let args;
  try {
    args = parseStageArgs(stage.options, io.argv);
  } catch (err) {
    say(`${messageOf(err)} (see --help)`);
    return EXIT.USAGE;
  }
  if (args.values.help) {
    io.stdout.write(renderHelp(stage, tool));
    return EXIT.OK;
  }
  if (args.values.version) {
    io.stdout.write(`${tool} ${io.version}\n`);
    return EXIT.OK;
  }

  if (args.values['fail-on-flags'] === true && args.values['flags-ok'] === true) {
    say('--fail-on-flags and --flags-ok say opposite things: give one (see --help)');
    return EXIT.USAGE;
  }
  if (args.values['input-format'] === 'jsonl' && args.values['records-at'] !== undefined) {
    say('--records-at reads a JSON document: it cannot go with --input-format jsonl (see --help)');
    return EXIT.USAGE;
  }
  const sources = args.files.length ? args.files : ['-'];
  let processor: Processor;
  let rejectsFd: number | null = null;
  // No thread starts until a stage sends it a record's work.
  const offThread = io.offThread ?? new OffThread();
  try {
    checkInputPaths(sources);
    checkOutputPaths(stage.options, args.values);
    processor = await stage.create(args.values as never, { ...setupContext(io.env), inputBytes: inputBytes(sources, io.stdin), say, offThread });
    const rejectsPath = args.values.rejects as string | undefined;
    if (rejectsPath) {
      try {
        rejectsFd = openSync(rejectsPath, 'w');
      } catch (err) {
        throw new UsageError(`cannot open --rejects file '${rejectsPath}': ${(err as NodeJS.ErrnoException).code ?? messageOf(err)}`);
      }
    }
  } catch (err) {
    say(messageOf(err));
    await offThread.close();
    return err instanceof UsageError ? EXIT.USAGE : EXIT.FATAL;
  }

  const run = new Run(stage.name, tool, processor, io, rejectsFd, args.values['max-line-bytes'] as number, offThread);
  run.inputFormat = { format: args.values['input-format'] as InputFormat, recordsAt: args.values['records-at'] as string | undefined };
  run.failOnFlags = args.values['fail-on-flags'] === true;
  const progress = (args.values.progress as boolean | undefined) ?? Boolean((io.stderr as { isTTY?: boolean }).isTTY);
  if (progress) run.progress.start(inputBytes(sources, io.stdin));
  let code: number;
  try {
    code = await run.execute(sources);
  } finally {
    run.progress.stop();
    if (rejectsFd !== null) closeSync(rejectsFd);
    await closeProcessor(processor, say);
    await offThread.close();
  }
  const statsPath = args.values.stats as string | undefined;
  if (statsPath) {
    try {
      writeFileSync(statsPath, JSON.stringify(run.stats(code), null, 2) + '\n');
    } catch (err) {
      say(`cannot write --stats file '${statsPath}': ${(err as NodeJS.ErrnoException).code ?? messageOf(err)}`);
      return Math.max(code, EXIT.FATAL) === EXIT.INTERRUPTED ? EXIT.INTERRUPTED : EXIT.FATAL;
    }
  }
  return code;
}

/** Releases what the stage holds; a failure to do so is reported but changes nothing written. */
async function closeProcessor(processor: Processor, say: (line: string) => void): Promise<void> {
  try {
    await processor.close?.();
  } catch (err) {
    say(`cannot close: ${messageOf(err)}`);
  }
}

/** Total input size when every source is a regular file (stdin redirected from a file counts), for an ETA. */
function inputBytes(sources: string[], stdin: Readable): number | null {
  let total = 0;
  for (const source of sources) {
    try {
      const st = source === '-' ? (stdin === process.stdin ? fstatSync(0) : null) : statSync(source);
      if (!st || !st.isFile()) return null;
      total += st.size;
    } catch {
      return null;
    }
  }
  return total;
}

function setupContext(env: RunIO['env']): SetupContext {
  return {
    env,
    dataFile: (rel) => resolve(DATA_DIR, rel),
    readDocumentFields(path, fields) {
      try {
        return readDocumentFields(path, fields, DOCUMENT_FIELD_BYTES);
      } catch (err) {
        throw new UsageError(`cannot read '${path}': ${(err as NodeJS.ErrnoException).code ?? messageOf(err)}`);
      }
    },
    readText(path) {
      try {
        return readFileSync(path, 'utf8');
      } catch (err) {
        throw new UsageError(`cannot read '${path}': ${(err as NodeJS.ErrnoException).code ?? messageOf(err)}`);
      }
    },
  };
}

interface Pending {
  meta: RecordMeta;
  done: boolean;
  outcome: Outcome | null;
  promise: Promise<Outcome> | null;
}

/** A line this long is handed to the stage only after the output so far is written. */
const LARGE_RECORD_CHARS = 1 << 20;

/** What a record's outcome is when its work on the worker thread was stopped by the interrupt:
 *  nothing, and nothing after it either (the output stays a prefix of the input). */
const STOPPED: Outcome = Object.freeze({});

/** With --progress, the summary names the slowest record when it took this long (--stats always does). */
const SLOW_RECORD_NOTICE_SECONDS = 1;

class Run {
  private readonly writer: LineWriter;
  private readonly window: Pending[] = [];
  private readonly maxWindow: number;
  /** The stage takes lines as read and parses them itself (the `raw` and `blocks` line adapters). */
  private readonly take: ((line: string, meta: RecordMeta) => Outcome | Promise<Outcome>) | null;
  /** The stage takes JSON Lines in blocks (the `blocks` line adapter). */
  private readonly takeBlock: ((block: InputBlock) => Promise<BlockOutcome>) | null;
  private records = 0;
  private rejected = 0;
  private failed = false;
  private fatal = false;
  private interrupted = false;
  private stopped = false;
  /** A record's work was stopped unfinished: the outcomes after it are not written. */
  private cut = false;
  private current: Readable | null = null;
  // process.hrtime, not performance.now(): the global `performance` loads perf_hooks (~1 ms of start-up).
  private readonly started = process.hrtime.bigint();
  private bytesRead = 0;
  readonly progress: ProgressLine;
  /** The record that took longest from being handed to the stage to its outcome (not a block of --jobs). */
  private slowest: { source: string; line: number; at?: string; seconds: number } | null = null;
  /** --input-format and --records-at: how each source's bytes become records (sources/). */
  inputFormat: { format: InputFormat; recordsAt: string | undefined } = { format: 'auto', recordsAt: undefined };
  /** Rejects per code, for the cap on stderr. */
  private readonly rejectsByCode = new Map<string, number>();
  /** Flagged views per view name, for the same cap. */
  private readonly flaggedByView = new Map<string, number>();
  private flagged = 0;
  /** --fail-on-flags (stages whose records carry view flags). */
  failOnFlags = false;
  /** Per source: does it look like one JSON document rather than JSON Lines? */
  private readonly shapes = new Map<string, InputShape>();

  constructor(
    private readonly stageName: string,
    private readonly tool: string,
    private readonly processor: Processor,
    private readonly io: RunIO,
    private readonly rejectsFd: number | null,
    private readonly maxLineBytes: number,
    private readonly offThread: OffThread = new OffThread(),
  ) {
    this.writer = new LineWriter(io.stdout, () => this.stop());
    this.progress = new ProgressLine(io.stderr, tool, () => ({ records: this.records, rejected: this.rejected, bytesRead: this.bytesRead, seconds: this.elapsedSeconds(), extra: this.processor.progress?.() }));
    this.maxWindow = Math.max(1, processor.window ?? 1);
    const lines = processor.lines;
    this.take = lines === undefined ? null : lines.take.bind(lines);
    this.takeBlock = lines?.kind === 'blocks' ? lines.block.bind(lines) : null;
  }

  private say(line: string): void {
    // A message replaces the progress line; the next refresh draws it again below.
    this.io.stderr.write(`${this.progress.clearForMessage()}${this.tool}: ${line}\n`);
  }

  private stop(): void {
    this.stopped = true;
    this.current?.destroy();
  }

  async execute(sources: string[]): Promise<number> {
    const onSignal = () => {
      if (this.interrupted) return;
      this.interrupted = true;
      // The worker's script is ended now; the record it had is not finished and not written.
      this.offThread.stop();
      this.processor.interrupt?.();
      this.stop();
    };
    this.io.signals?.on('SIGINT', onSignal);
    this.io.signals?.on('SIGTERM', onSignal);
    try {
      for (const source of sources) {
        if (this.stopped) break;
        await this.readSource(source);
      }
      await this.drainWindow(0);
      // Only a complete input is finished: groups held back from a cut-short input would be wrong.
      if (!this.stopped && !this.fatal && this.processor.finish) {
        await this.apply(await this.safeFinish(), { source: 'end', line: 0, raw: '' });
      }
    } catch (err) {
      this.say(`fatal: ${messageOf(err)}`);
      this.fatal = true;
      this.stop();
    } finally {
      this.io.signals?.off('SIGINT', onSignal);
      this.io.signals?.off('SIGTERM', onSignal);
    }
    await this.writeWhatIsDone();
    const writeError = this.writer.takeError();
    if (writeError) {
      this.say(`cannot write output: ${messageOf(writeError)}`);
      this.fatal = true;
    }
    this.printSummary();
    return exitStatus({ interrupted: this.interrupted, fatal: this.fatal, rejected: this.rejected, failed: this.failed, flagged: this.flagged, failOnFlags: this.failOnFlags });
  }

  /**
   * However the run ended, the outcomes already produced go out: those still in the window, in
   * order, then the writer's batch. After a fatal error a record that cannot be written is
   * skipped, not allowed to hold back the ones after it.
   */
  private async writeWhatIsDone(): Promise<void> {
    while (this.window.length > 0) {
      try {
        await this.drainWindow(0);
      } catch (err) {
        this.say(`fatal: ${messageOf(err)}`);
        this.fatal = true;
      }
    }
    try {
      await this.writer.end();
    } catch (err) {
      this.writer.failed(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private elapsedSeconds(): number {
    return Number(process.hrtime.bigint() - this.started) / 1e9;
  }

  /** Run statistics for --stats FILE: the runner's counts and timing, then the stage's own. */
  stats(exitStatus: number): Record<string, unknown> {
    const seconds = this.elapsedSeconds();
    return {
      stage: this.stageName,
      records: this.records,
      rejected: this.rejected,
      exit_status: exitStatus,
      wall_seconds: Number(seconds.toFixed(3)),
      records_per_second: seconds > 0 ? Number((this.records / seconds).toFixed(1)) : null,
      slowest_record: this.slowest && { ...this.slowest, seconds: Number(this.slowest.seconds.toFixed(3)) },
      ...this.processor.stats?.(),
    };
  }

  private printSummary(): void {
    this.progress.stop();
    for (const [code, count] of this.rejectsByCode) {
      if (count <= REJECTS_SHOWN_PER_CODE) continue;
      const where = this.rejectsFd === null ? ' (--rejects FILE keeps every one)' : ' (all in --rejects)';
      const more = count - REJECTS_SHOWN_PER_CODE;
      this.say(`… ${more} more ${code} ${more === 1 ? 'reject' : 'rejects'}${where}`);
    }
    for (const [view, count] of this.flaggedByView) {
      if (count <= FLAGGED_SHOWN_PER_VIEW) continue;
      const more = count - FLAGGED_SHOWN_PER_VIEW;
      this.say(`… ${more} more flagged ${view} ${more === 1 ? 'view' : 'views'} (each record's flags field names its flags)`);
    }
    for (const shape of this.shapes.values()) {
      const hint = shape.hint();
      if (hint) this.say(hint);
    }
    if (this.rejected > 0) this.say(`${this.rejected} of ${this.records} records rejected`);
    for (const line of this.processor.summary?.() ?? []) this.say(line);
    // An outlier is worth a line to someone watching the progress line, before it grows into a
    // hang; --stats always has it. Not otherwise: a time on stderr would make runs differ.
    if (this.progress.on && this.slowest && this.slowest.seconds >= SLOW_RECORD_NOTICE_SECONDS) {
      this.say(`slowest record: ${this.slowest.source}:${this.slowest.at ?? this.slowest.line}, ${this.slowest.seconds.toFixed(1)} s`);
    }
    // Input is read ahead of output (the reorder window, batches): both counts are true.
    if (this.interrupted) this.say(`interrupted after reading ${plural(this.records, 'record')}; ${plural(this.writer.written, 'record')} written`);
    else if (this.fatal) this.say(`stopped after reading ${plural(this.records, 'record')}; ${plural(this.writer.written, 'record')} written`);
  }

  private async readSource(source: string): Promise<void> {
    const name = source === '-' ? STDIN_NAME : source;
    const stream = source === '-' ? this.io.stdin : createReadStream(source);
    this.current = stream;
    const splitter = createSource({
      name,
      ...this.inputFormat,
      maxRecordBytes: this.maxLineBytes,
      keepFields: this.processor.documentFields ?? [],
      blocks: this.takeBlock !== null,
    });
    if (!this.shapes.has(name)) this.shapes.set(name, new InputShape(name));
    const events: SourceEvent[] = [];
    const chunks = (stream as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
    // Only a failure of the stream itself is "cannot read"; one while handling lines is reported as it is.
    const read = () => chunks.next().catch((err: unknown) => Promise.reject(new ReadFailure(err)));
    let ended = false;
    try {
      for (;;) {
        const next = await this.writeWhileWaiting(read());
        if (next.done) {
          ended = true;
          break;
        }
        const chunk = next.value;
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        this.bytesRead += bytes.length;
        splitter.push(bytes, events);
        await this.handleEvents(name, events);
        if (this.stopped) break;
      }
      if (!this.stopped) {
        splitter.end(events);
        await this.handleEvents(name, events);
      }
    } catch (err) {
      if (err instanceof ReadFailure) {
        if (!this.stopped) throw new FatalError(`cannot read ${name}: ${messageOf(err.cause)}`);
      } else {
        throw err;
      }
    } finally {
      this.current = null;
      // As `for await` does on an early exit: release the stream.
      if (!ended) await chunks.return?.().catch(() => undefined);
    }
  }

  /**
   * Waits for the next input chunk, writing the outcomes that finish meanwhile: with slow input
   * (a pipe that delivers a line now and then), asynchronous outcomes go out as they are done
   * instead of waiting for more input.
   */
  private async writeWhileWaiting<T>(next: Promise<T>): Promise<T> {
    // A read error while outcomes are written is handled where `next` is awaited, not lost.
    next.catch(() => undefined);
    for (;;) {
      const head = this.window[0];
      if (head === undefined) return next;
      if (head.done) {
        await this.drainWindow(Infinity);
        await this.writer.flush();
        continue;
      }
      const first = await Promise.race([next.then(() => 'input' as const), head.promise!.then(() => 'outcome' as const)]);
      if (first === 'input') return next;
    }
  }

  private async handleEvents(source: string, events: SourceEvent[]): Promise<void> {
    for (const event of events) {
      if (this.stopped) break;
      if (event.kind === 'note') {
        this.say(event.text);
        continue;
      }
      if (event.kind === 'block') {
        await this.submitBlock(event.block);
        if (this.writer.needsFlush) await this.writer.flush();
        continue;
      }
      this.records++;
      if (event.kind === 'reject') {
        this.rejectInTurn({ source, line: event.line, at: event.at, raw: event.raw }, event.code, event.message);
        continue;
      }
      if (event.kind === 'record') {
        const meta: RecordMeta = { source, line: event.line, at: event.at, raw: event.raw, document: event.document };
        await this.submit(meta, this.take !== null ? null : event.record);
        if (this.writer.needsFlush) await this.writer.flush();
        continue;
      }
      if (event.kind === 'too-long' || event.kind === 'bad-utf8') {
        const refused = refusedLine(event, this.maxLineBytes);
        this.rejectInTurn({ source, line: event.line, raw: event.preview }, refused.code, refused.message);
        continue;
      }
      const meta: RecordMeta = { source, line: event.line, raw: event.text, bytes: event.bytes };
      // A record this large keeps the thread for a while (seconds at the 16 MiB limit) and no
      // signal is seen until it is done: the records finished before it go out first, so they
      // are on stdout even if the wait is cut short with SIGKILL.
      if (event.text.length >= LARGE_RECORD_CHARS) await this.writer.flush();
      const shape = this.shapes.get(source);
      const first = shape !== undefined && !shape.seenFirst;
      shape?.line(event.text);
      if (this.take !== null) {
        // The stage parses; line 1 is parsed here too, for the one-document hint.
        if (first) {
          const parsed = parseRecordLine(event.text);
          if (parsed.record) shape.firstRecord(parsed.record);
        }
        await this.submit(meta, null);
      } else {
        const parsed = parseRecordLine(event.text);
        if (parsed.reject) {
          this.reject(meta, parsed.reject.code, parsed.reject.message);
          continue;
        }
        if (first) shape.firstRecord(parsed.record);
        await this.submit(meta, parsed.record);
      }
      if (this.writer.needsFlush) await this.writer.flush();
    }
    events.length = 0;
    await this.writer.flush();
  }

  /** Hands one record (or, for a raw-line stage, `null` and the line in meta) to the stage. */
  private async submit(meta: RecordMeta, record: JsonObject | null): Promise<void> {
    let result: Outcome | Promise<Outcome>;
    const started = process.hrtime.bigint();
    try {
      result = record === null ? this.take!(meta.raw, meta) : this.processor.process(record, meta);
    } catch (err) {
      result = internalFailure(err);
    }
    if (result instanceof Promise) void result.then(() => this.timed(meta, started), () => this.timed(meta, started));
    else this.timed(meta, started);
    if (!(result instanceof Promise)) {
      if (this.window.length === 0) return this.apply(result, meta);
      this.window.push({ meta, done: true, outcome: result, promise: null });
    } else {
      this.pend(meta, result);
    }
    await this.drainWindow(this.maxWindow);
  }

  private timed(meta: RecordMeta, started: bigint): void {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (this.slowest === null || seconds > this.slowest.seconds) this.slowest = { source: meta.source, line: meta.line, ...(meta.at === undefined ? {} : { at: meta.at }), seconds };
  }

  /** An outcome still to come takes its place in the window; a failure becomes an internal error. */
  private pend(meta: RecordMeta, result: Promise<Outcome>): void {
    const entry: Pending = { meta, done: false, outcome: null, promise: null };
    entry.promise = result.then(
      (outcome) => outcome,
      (err: unknown) => (err instanceof OffThreadStopped ? STOPPED : internalFailure(err)),
    ).then((outcome) => {
      entry.done = true;
      entry.outcome = outcome;
      return outcome;
    });
    this.window.push(entry);
  }

  /** Hands a block of lines to the stage; its outcome takes its turn in the window like a record's. */
  private async submitBlock(block: InputBlock): Promise<void> {
    let result: Promise<BlockOutcome>;
    try {
      result = this.takeBlock!(block);
    } catch (err) {
      result = Promise.reject(err);
    }
    this.pend({ source: block.source, line: block.lineBefore + 1, raw: '' }, result.then((outcome): Outcome => ({ block: outcome })));
    await this.drainWindow(this.maxWindow);
  }

  /** A block's lines, as apply() would have taken them one by one. */
  private async applyBlock(block: BlockOutcome, source: string): Promise<void> {
    this.records += block.records;
    const shape = this.shapes.get(source);
    if (block.firstLine !== undefined && shape !== undefined && !shape.seenFirst) shape.line(block.firstLine);
    for (const r of block.rejects) this.reject({ source, line: r.line, raw: r.raw }, r.code, r.message);
    this.writer.pushLines(block.output, block.lines);
    if (this.writer.needsFlush) await this.writer.flush();
    if (block.fatal) {
      this.say(`${source}:${block.fatal.line}: fatal: ${block.fatal.message}`);
      this.fatal = true;
      this.stop();
    }
  }

  /** Emits finished outcomes in input order; waits for the oldest while `limit` or more are queued. */
  private async drainWindow(limit: number): Promise<void> {
    while (this.window.length > 0) {
      const head = this.window[0]!;
      if (!head.done) {
        if (this.window.length < limit) return;
        // Hand finished records to the reader before waiting on a slow one.
        await this.writer.flush();
        await head.promise;
      }
      this.window.shift();
      await this.apply(head.outcome!, head.meta);
    }
  }

  private async safeFinish(): Promise<Outcome> {
    try {
      return await this.processor.finish!();
    } catch (err) {
      return internalFailure(err);
    }
  }

  private async apply(outcome: Outcome, meta: RecordMeta): Promise<void> {
    if (outcome === STOPPED) this.cut = true;
    if (this.cut) return;
    const where = meta.line > 0 ? `${meta.source}:${meta.at ?? meta.line}: ` : '';
    if (outcome.block) await this.applyBlock(outcome.block, meta.source);
    if (outcome.reject) this.reject(meta, outcome.reject.code, outcome.reject.message);
    for (const warning of outcome.warnings ?? []) this.say(`${where}${warning}`);
    for (const { view, flags } of outcome.flagged ?? []) {
      this.flagged++;
      const sameView = (this.flaggedByView.get(view) ?? 0) + 1;
      this.flaggedByView.set(view, sameView);
      if (sameView <= FLAGGED_SHOWN_PER_VIEW) this.say(`${where}${view}: ${flags.join(', ')}`);
    }
    if (outcome.failed) this.failed = true;
    // Flush inside the loops: one outcome may carry a whole document's records (grouping stages).
    for (const rec of outcome.records ?? []) {
      const waiting = this.writer.write(rec);
      if (waiting) await waiting;
    }
    if (outcome.stream) {
      // Made as they are written; an interrupt or a reader gone ends the making too.
      for (const rec of outcome.stream) {
        const waiting = this.writer.write(rec);
        if (waiting) await waiting;
        if (this.stopped) break;
      }
    }
    if (outcome.stop) {
      this.say(`${where}${outcome.stop}`);
      this.failed = true;
      this.stop();
    }
    if (outcome.fatal) {
      this.say(`${where}fatal: ${outcome.fatal}`);
      this.fatal = true;
      this.stop();
    }
  }

  /** A line refused as read: reported after the outcomes still in the window, in input order. */
  private rejectInTurn(meta: RecordMeta, code: string, message: string): void {
    if (this.window.length === 0) return this.reject(meta, code, message);
    this.window.push({ meta, done: true, outcome: { reject: { code, message } }, promise: null });
  }

  private reject(meta: RecordMeta, code: string, message: string): void {
    this.rejected++;
    // A file in the wrong format rejects every line: a few of each code, then a count at the end.
    const sameCode = (this.rejectsByCode.get(code) ?? 0) + 1;
    this.rejectsByCode.set(code, sameCode);
    if (sameCode <= REJECTS_SHOWN_PER_CODE) this.say(`${meta.source}:${meta.at ?? meta.line}: ${code}: ${message}`);
    this.shapes.get(meta.source)?.rejected(meta.raw);
    if (this.rejectsFd !== null) {
      const rec = { stage: this.stageName, source: meta.source, line: meta.line, ...(meta.at ? { at: meta.at } : {}), code, message, input: meta.raw };
      writeSync(this.rejectsFd, JSON.stringify(rec) + '\n');
    }
  }
}

/** An error of the input stream, told apart from one raised while its lines are handled. */
class ReadFailure extends Error {
  constructor(override readonly cause: unknown) {
    super(messageOf(cause));
  }
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function internalFailure(err: unknown): Outcome {
  return { reject: { code: 'INTERNAL_ERROR', message: messageOf(err) }, fatal: `internal error: ${messageOf(err)}` };
}

