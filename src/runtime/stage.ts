// The contract between a transform and the runner. A transform declares what it is and which
// options it takes; the runner owns argv, stdin/stdout/stderr, files, signals and exit codes.

import type { DocumentFields } from './sources/document-fields.js';
import type { DocumentInfo, InputBlock } from './sources/source.js';

export type { InputBlock };

export type JsonObject = Record<string, unknown>;

/** The process environment as the runner lends it: read, never written. */
export type Env = Readonly<Record<string, string | undefined>>;

export interface OptionSpec {
  type: 'string' | 'number' | 'boolean' | 'list';
  help: string;
  /** Shown in --help as the value's name, e.g. FILE or N. */
  placeholder?: string;
  default?: string | number | boolean | readonly string[];
  choices?: readonly string[];
  short?: string;
  /** For numbers: smallest accepted value, and whether only integers are accepted. */
  min?: number;
  integer?: boolean;
  /** The value names a file the run writes: the runner checks it can before reading any input. */
  writes?: boolean;
}
export type OptionsSpec = Record<string, OptionSpec>;

type ValueOf<O extends OptionSpec> = O['type'] extends 'boolean'
  ? O extends { default: boolean } ? boolean : boolean | undefined
  : O['type'] extends 'number'
    ? O extends { default: number } ? number : number | undefined
    : O['type'] extends 'list'
      ? string[]
      : O extends { default: string } ? string : string | undefined;
export type OptionValues<S extends OptionsSpec> = { [K in keyof S]: ValueOf<S[K]> };

/** A serialised JSON object the transform built itself (e.g. the input line with fields appended). */
export class RawJson {
  constructor(readonly json: string) {}
}
/**
 * The input line with JSON members appended before its closing brace: what a stage that only adds
 * fields returns. Written as `appendMembers(line, members)`; when the source kept the line's UTF-8
 * bytes (`RecordMeta.bytes`), they are copied to the output as they are and only the members are
 * encoded, so the line is neither re-serialised nor re-encoded.
 */
export class AppendedJson {
  constructor(
    /** The line as read (RecordMeta.raw): a JSON object. */
    readonly line: string,
    /** JSON members, comma-separated, without a leading comma: `"a":1,"b":[]`. */
    readonly members: string,
    /** The line's UTF-8 bytes (RecordMeta.bytes), when the source has them. */
    readonly bytes?: Buffer,
  ) {}

  get json(): string {
    return appendMembers(this.line, this.members);
  }
}
/** A record's JSON line as UTF-8 bytes in one or more pieces, its newline included: what a worker
 *  thread made (off-thread.ts). */
export class EncodedJson {
  constructor(readonly pieces: readonly Uint8Array[]) {}
}
export type OutputRecord = JsonObject | RawJson | AppendedJson | EncodedJson;

/** A top-level string at least this long makes the runner write its record in pieces (jsonParts). */
export const LARGE_STRING_CHARS = 1 << 20;

/** True when a top-level field of the record is a string of LARGE_STRING_CHARS or more: a stage that
 *  would append to the line's text leaves such a record as an object, so it is written in pieces. */
export function hasLargeString(rec: JsonObject): boolean {
  for (const key in rec) {
    const value = rec[key];
    if (typeof value === 'string' && value.length >= LARGE_STRING_CHARS) return true;
  }
  return false;
}

/** A JSON object's text with `members` (comma-separated) added before its closing brace. */
export function appendMembers(line: string, members: string): string {
  const raw = line.trimEnd();
  const body = raw.slice(0, raw.length - 1).trimEnd();
  const sep = body.endsWith('{') ? '' : ',';
  return `${body}${sep}${members}}`;
}

export interface RecordMeta {
  /** 'stdin' or the file path the record came from. */
  source: string;
  /** 1-based physical line number in that source. */
  line: number;
  /** The line as read (no line terminator, no BOM); for a document's record, the record as JSON. */
  raw: string;
  /** The UTF-8 bytes of `raw`, when the source has them as read (a line within one input chunk). */
  bytes?: Buffer;
  /** For a document's record: its place, e.g. "chunks[12]" (rejects name it instead of the line;
   *  `line` is then the 1-based position in the array). */
  at?: string;
  /** For a document's record: the document it comes from (its id, metadata, toc, ...). */
  document?: DocumentInfo;
}

/** What a block became: as if each of its lines had gone through the runner one by one. */
export interface BlockOutcome {
  /** The output lines, in order, each ending with a newline (in one or more byte arrays). */
  output: Uint8Array[];
  /** Lines in `output`. */
  lines: number;
  /** Records read (non-blank lines), up to and including a fatal one. */
  records: number;
  /** Refused lines in order, each as the runner would report it (`raw` is the line, or its preview). */
  rejects: { line: number; code: string; message: string; raw: string }[];
  /** The first non-blank line of the source is in the block: the text that tells its shape
   *  (a lone "{", a "[" or anything else), for the runner's JSON-document hint. */
  firstLine?: string;
  /** Stop after this line: exit 3 (nothing after it is in the outcome). */
  fatal?: { line: number; message: string };
}

export interface Outcome {
  records?: OutputRecord[];
  /** Records made while they are written, after `records` (a grouping stage's output at the end
   *  of input, which need not fit in memory). */
  stream?: Iterable<OutputRecord>;
  /** The input record is refused: reported on stderr and in --rejects, not written to stdout. */
  reject?: { code: string; message: string };
  /** Records written but not fully successful (e.g. a failed view): the exit status becomes 1. */
  failed?: boolean;
  /** Views written with quality flags: warnings on stderr (a few per view, then a count), and
   *  exit status 1 only under --fail-on-flags (exit-codes.ts, exitStatus). */
  flagged?: readonly FlaggedView[];
  /** One-line messages for stderr, prefixed with the tool name and the line. */
  warnings?: string[];
  /** Stop reading: exit 3 after writing what is done. */
  fatal?: string;
  /** Stop reading because the input cannot be processed as given (e.g. unsorted): exit 1,
   *  what is done is written, `finish()` is not called. */
  stop?: string;
  /** What a block of lines became (the `blocks` adapter): applied before the fields above. */
  block?: BlockOutcome;
}

/** A view kept with quality flags, as the runner reports it: `<view>: <flag>, <flag>`. */
export interface FlaggedView {
  view: string;
  flags: readonly string[];
}

/** The runner's services lent to a transform while it sets up (the only I/O a transform sees). */
export interface SetupContext {
  /** Reads a UTF-8 file; a missing or unreadable file is a usage error. */
  readText(path: string): string;
  /** Reads top-level fields of a JSON document file (or the whole of a top-level array) in bounded
   *  memory, stepping over its records; an unreadable file is a usage error. */
  readDocumentFields(path: string, fields: readonly string[]): DocumentFields;
  /** Absolute path of a file shipped under the package's data/ folder. */
  dataFile(relativePath: string): string;
  env: Env;
  /** The input's size in bytes when every source is a regular file (null for a pipe; absent when not known). */
  inputBytes?: number | null;
  /** Says one line on stderr now, prefixed with the tool name: for a set-up that makes the user
   *  wait (a server not up yet), which cannot wait for the first record to be said. */
  say?(line: string): void;
  /** The run's worker thread for the heavy work of a large record (runtime/off-thread.ts); absent
   *  outside the runner, where everything runs on this thread. */
  offThread?: OffThreadRunner;
}

/** What a stage sees of runtime/off-thread.ts's OffThread. */
export interface OffThreadRunner {
  /** Is this line's work to go to the worker? (OFF_THREAD_CHARS or more) */
  takes(line: string): boolean;
  /** Runs the kernel (a module's export: factory(setup) → (input) → output) on the worker. */
  run<O>(kernel: { module: string; name: string }, setup: unknown, input: unknown, transfer?: readonly ArrayBuffer[]): Promise<O>;
}

/** A line parsed (record-line.ts): its record, or why it is refused. */
export type ParsedLine = { record: JsonObject; reject?: undefined } | { record?: undefined; reject: { code: string; message: string } };

/**
 * The runtime's ways of handing JSON Lines to a stage other than one parsed record each to
 * `process`, which stays the one entry point every stage implements:
 * - `raw`: the runner does not parse; each record's JSON text goes to `take` (a document's records
 *   too, as their JSON), to be parsed on another thread or only in part;
 * - `blocks`: as `raw`, and a JSON Lines source comes to `block` in blocks of whole lines (a line
 *   too long for a block still comes to `take`), in input order; the outcomes are applied in that
 *   order, every line reported exactly as line by line (same rejects, same output bytes). rca-tag
 *   --jobs N opts into it, to tag blocks on its worker threads.
 */
export type LineAdapter =
  | { readonly kind: 'raw'; take(line: string, meta: RecordMeta): Outcome | Promise<Outcome> }
  | { readonly kind: 'blocks'; take(line: string, meta: RecordMeta): Outcome | Promise<Outcome>; block(block: InputBlock): Promise<BlockOutcome> };

export interface Processor {
  /** One input object → its outcome. May return a promise; the runner keeps input order. */
  process(record: JsonObject, meta: RecordMeta): Outcome | Promise<Outcome>;
  /**
   * How JSON Lines come to the stage, when not as one record each that the runner parsed: an
   * adapter the stage opts into (LineAdapter). Whichever it is, every line is accepted or refused
   * as parseRecordLine would (same codes and messages), so output does not depend on who parsed.
   */
  readonly lines?: LineAdapter;
  /** Called once at end of input (records held back by grouping stages come out here). */
  finish?(): Outcome | Promise<Outcome>;
  /** The fields of a JSON document input the stage reads from RecordMeta.document (e.g. ['toc']);
   *  the others are stepped over, not held (`metadata` and `chunks_count` always are). Default: none. */
  readonly documentFields?: readonly string[];
  /** How many unfinished asynchronous outcomes may wait for their turn (reorder window). */
  readonly window?: number;
  /** Called when the run is interrupted: cancel in-flight work (its outcomes still arrive). */
  interrupt?(): void;
  /** Called once when the run ends, however it ends (after finish, a stop, a fatal error or an
   *  interrupt), to release what the stage holds (e.g. worker threads). */
  close?(): void | Promise<void>;
  /** Extra lines for the end-of-run summary on stderr. */
  summary?(): string[];
  /** Stage statistics merged into the --stats FILE JSON (no timestamps needed: the runner adds timing). */
  stats?(): Record<string, unknown>;
  /** A short progress text (e.g. "120 views ok, 2 failed"); the runner adds counts, rate and refreshes it. */
  progress?(): string;
}

export interface Stage<S extends OptionsSpec = OptionsSpec> {
  name: string;
  summary: string;
  /** Paragraphs for --help after the summary. */
  description?: string;
  /** What --help says the stage writes (default: "JSON Lines to stdout"). */
  writes?: string;
  examples: string[];
  options: S;
  create(options: OptionValues<S>, setup: SetupContext): Processor | Promise<Processor>;
}

/** Identity helper that keeps the option types of a stage literal. */
export function defineStage<const S extends OptionsSpec>(stage: Stage<S>): Stage<S> {
  return stage;
}
