import type { Writable } from 'node:stream';
import { jsonParts } from './json-parts.js';
import { AppendedJson, appendMembers, EncodedJson, hasLargeString, RawJson, type OutputRecord } from './stage.js';

const FLUSH_BYTES = 64 * 1024;
/** The batch buffer: room for a flush's worth of lines and the line that passes the mark. */
const BUFFER_BYTES = 128 * 1024;
/** A string or byte run longer than this goes to the stream as it is, not copied into a batch. */
const DIRECT_BYTES = 32 * 1024;
const NEWLINE = 0x0a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** JSON's whitespace (the only kind a line JSON.parse accepted can have between tokens). */
function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/**
 * Where appendMembers cuts the line, in its UTF-8 bytes: the end of the text before the closing
 * brace, without the whitespace on either side of it. -1 when the bytes do not end in "}" after
 * JSON whitespace (the string path decides then). The result is never 0: a line is at least "{}".
 */
export function appendPoint(bytes: Uint8Array): number {
  let end = bytes.length;
  while (end > 0 && isJsonSpace(bytes[end - 1]!)) end--;
  if (end === 0 || bytes[end - 1] !== CLOSE_BRACE) return -1;
  end--;
  while (end > 0 && isJsonSpace(bytes[end - 1]!)) end--;
  return end === 0 ? -1 : end;
}

/**
 * What became of the writes to one output stream, for everything that writes to it: the runner's
 * LineWriter, rca's commands and every --help (cli/main.ts takes stdout's guard before the first
 * write). A reader that went away (EPIPE, `| head -1`) is a normal end: the stream is closed and
 * what is written after it is dropped quietly. Any other failure (ENOSPC, EIO) closes it too and is
 * kept, so the run can say it once and exit 3. One guard per stream: its 'error' listener is what
 * keeps Node from turning the failure into an uncaught exception with a stack trace.
 */
export class OutputGuard {
  private static readonly guards = new WeakMap<Writable, OutputGuard>();
  closed = false;
  /** The failure that was not a reader going away, or null. */
  error: Error | null = null;
  /** The error has been said on stderr (by the runner): nobody says it again. */
  reported = false;
  private readonly listeners: Array<() => void> = [];

  static of(stream: Writable): OutputGuard {
    let guard = OutputGuard.guards.get(stream);
    if (guard === undefined) OutputGuard.guards.set(stream, (guard = new OutputGuard(stream)));
    return guard;
  }

  private constructor(private readonly stream: Writable) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      // A write after the stream was destroyed fails again; the first failure is the one to keep.
      if (!this.closed && err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') this.error = err;
      if (this.closed) return;
      this.closed = true;
      for (const listener of this.listeners.splice(0)) listener();
    });
  }

  /** Calls `listener` once, when the stream closes (at once if it has). */
  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.listeners.push(listener);
  }

  /** Resolves when everything written so far has been handed to the OS, or the stream has closed. */
  settled(): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed || this.stream.destroyed) return resolve();
      this.onClose(resolve);
      // stdout is never really ended (Node owns it); an empty write's callback means all before it is out.
      this.stream.write('', () => resolve());
    });
  }
}

/**
 * Batches output lines as UTF-8 bytes and writes them with backpressure: Node does not block on a
 * full pipe, so every write() that returns false is followed by waiting for 'drain' before more is
 * written. Lines are encoded straight into a batch buffer (no joined string, no second copy made
 * when it is written), and a line given as input bytes plus appended members (`pushAppended`) is
 * copied as bytes. EPIPE (the reader went away, e.g. `| head -1`) is a normal end: `closed`
 * becomes true and everything after is dropped quietly.
 */
export class LineWriter {
  /** Ready to write, in order: full batch buffers and pieces too long to copy. */
  private pending: Array<Buffer | string> = [];
  private pendingBytes = 0;
  private buf: Buffer | null = null;
  private used = 0;
  /** Lines batched and not handed to the stream yet. */
  private lines = 0;
  private readonly guard: OutputGuard;
  /**
   * Lines the stream has taken: counted when the write of the last piece holding them succeeds,
   * so after a failed write (a full disk) the end-of-run summary does not count what was lost.
   */
  written = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly stream: Writable, private readonly onClosed: () => void) {
    this.guard = OutputGuard.of(stream);
    this.guard.onClose(() => {
      this.pending = [];
      this.pendingBytes = 0;
      this.used = 0;
      this.lines = 0;
      this.onClosed();
      this.wakeAll();
    });
    stream.on('drain', () => this.wakeAll());
  }

  /** The reader went away or the stream failed: everything pushed now is dropped. */
  get closed(): boolean {
    return this.guard.closed;
  }

  /** The failure (not a reader going away) that closed the stream, or null. */
  get error(): Error | null {
    return this.guard.error;
  }

  /** Records a failure found while ending (a rejected promise); it closes nothing by itself. */
  failed(err: Error): void {
    this.guard.error ??= err;
  }

  /** Takes the failure to say it: returns it once, and marks it said for the others who write here. */
  takeError(): Error | null {
    if (this.guard.error === null || this.guard.reported) return null;
    this.guard.reported = true;
    return this.guard.error;
  }

  /**
   * Writes one record: the one way a record becomes output, whoever made it. A line the stage
   * appended members to is copied from the input's bytes (pushAppended), a line a worker thread
   * encoded goes as its bytes, a RawJson as its text, any other object as JSON.stringify writes
   * it, except that an object holding a string of LARGE_STRING_CHARS or more is written in pieces
   * (jsonParts: the same text, never held whole). Returns a promise only when the caller must
   * wait (a full stream, a record written in pieces).
   */
  write(rec: OutputRecord): Promise<void> | undefined {
    if (isPlainRecord(rec) && hasLargeString(rec)) return this.writeParts(jsonParts(rec));
    this.pushRecord(rec);
    return this.needsFlush ? this.flush() : undefined;
  }

  /** Batches a record's line as write() would, a huge string included (into a collector, which never pushes back). */
  pushRecord(rec: OutputRecord): void {
    if (rec instanceof AppendedJson) this.pushAppended(rec.line, rec.members, rec.bytes);
    else if (rec instanceof RawJson) this.push(rec.json);
    else if (rec instanceof EncodedJson) this.pushLines(rec.pieces, 1);
    else this.push(JSON.stringify(rec));
  }

  push(line: string): void {
    if (this.closed) return;
    this.lines++;
    // A UTF-8 character takes at most 3 bytes per UTF-16 unit: within that bound the line fits.
    if (line.length * 3 + 1 <= this.room()) {
      this.used += this.buf!.write(line, this.used);
      this.buf![this.used++] = NEWLINE;
      return;
    }
    this.writeLong(line);
  }

  /**
   * Pushes the line whose UTF-8 bytes are `bytes[0, end)` followed by `tail` (a string, e.g. the
   * members appended to a JSON object and its closing brace): the bytes are copied as they are,
   * only the tail is encoded. The caller guarantees the result equals the line it stands for.
   */
  pushBytes(bytes: Buffer, end: number, tail: string): void {
    if (this.closed) return;
    this.lines++;
    if (end + tail.length * 3 + 1 <= this.room()) {
      this.used += bytes.copy(this.buf!, this.used, 0, end);
      this.used += this.buf!.write(tail, this.used);
      this.buf![this.used++] = NEWLINE;
      return;
    }
    if (end > DIRECT_BYTES) {
      // The input's bytes go out as they are (a view of what was read): no copy of a long line.
      this.sealBuffer();
      this.pending.push(bytes.subarray(0, end));
      this.pendingBytes += end;
    } else {
      this.reserve(end);
      this.used += bytes.copy(this.buf!, this.used, 0, end);
    }
    this.writeLong(tail);
  }

  /**
   * Pushes `appendMembers(line, members)` (stage.ts): from the line's bytes when they are known and
   * end the way the string path expects, else from the string.
   */
  pushAppended(line: string, members: string, bytes: Buffer | undefined): void {
    if (bytes !== undefined) {
      const at = appendPoint(bytes);
      if (at > 0) return this.pushBytes(bytes, at, (bytes[at - 1] === OPEN_BRACE ? '' : ',') + members + '}');
    }
    this.push(appendMembers(line, members));
  }

  /** Pushes finished output lines (`lines` of them, each ending with a newline) as they are. */
  pushLines(pieces: readonly Uint8Array[], lines: number): void {
    if (this.closed || lines === 0) return;
    this.lines += lines;
    this.sealBuffer();
    for (const bytes of pieces) {
      this.pending.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
      this.pendingBytes += bytes.length;
    }
  }

  get needsFlush(): boolean {
    return this.pendingBytes + this.used >= FLUSH_BYTES;
  }

  /** Writes what is batched; resolves when the stream can take more. */
  async flush(): Promise<void> {
    if (this.closed || this.lines === 0) return;
    this.sealBuffer();
    const pieces = this.pending;
    const lines = this.lines;
    this.lines = 0;
    this.pending = [];
    this.pendingBytes = 0;
    let ok = true;
    // A written buffer is never reused: the stream's reader may keep it (a PassThrough hands on
    // the very object). Callbacks come in write order: the last one stands for the whole batch.
    const last = pieces.length - 1;
    pieces.forEach((piece, i) => {
      ok = i === last ? this.stream.write(piece, (err) => this.took(err, lines)) : this.stream.write(piece);
    });
    if (!ok) await this.waitDrain();
  }

  /** Free bytes in the batch buffer (a fresh one when there is none). */
  private room(): number {
    if (this.buf === null) this.buf = Buffer.allocUnsafe(BUFFER_BYTES);
    return BUFFER_BYTES - this.used;
  }

  /** At least `bytes` free in the batch buffer (bytes ≤ DIRECT_BYTES). */
  private reserve(bytes: number): void {
    if (this.room() < bytes) {
      this.sealBuffer();
      this.room();
    }
  }

  /** A string too long for the batch's room, and its line end. */
  private writeLong(text: string): void {
    if (text.length > DIRECT_BYTES) {
      this.sealBuffer();
      this.pending.push(text);
      this.pendingBytes += text.length;
      this.reserve(1);
    } else {
      this.reserve(text.length * 3 + 1);
      this.used += this.buf!.write(text, this.used);
    }
    this.buf![this.used++] = NEWLINE;
  }

  /** Moves the batch buffer's bytes to the pending pieces. */
  private sealBuffer(): void {
    if (this.buf === null || this.used === 0) return;
    this.pending.push(this.buf.subarray(0, this.used));
    this.pendingBytes += this.used;
    this.buf = null;
    this.used = 0;
  }

  private waitDrain(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wakeAll(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /**
   * Writes one line given in parts (a large record serialised piece by piece), after what is
   * batched, waiting for 'drain' between parts: no part, and no copy of the whole line, is held.
   */
  async writeParts(parts: Iterable<string>): Promise<void> {
    await this.flush();
    for (const part of parts) {
      if (this.closed) return;
      if (!this.stream.write(part)) await this.waitDrain();
    }
    if (this.closed) return;
    if (!this.stream.write('\n', (err) => this.took(err, 1))) await this.waitDrain();
  }

  private took(err: Error | null | undefined, lines: number): void {
    if (!err) this.written += lines;
  }

  /** Flushes and waits until the stream has handed everything to the OS. */
  async end(): Promise<void> {
    await this.flush();
    await this.guard.settled();
  }
}

function isPlainRecord(rec: OutputRecord): rec is Exclude<OutputRecord, AppendedJson | RawJson | EncodedJson> {
  return !(rec instanceof AppendedJson || rec instanceof RawJson || rec instanceof EncodedJson);
}
