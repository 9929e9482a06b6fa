// JSON Lines in blocks of whole lines, for a stage that takes its input as bytes
// (the `blocks` line adapter, e.g. to tag on worker threads): the bytes are cut at line ends and
// handed on whole, not split into lines, decoded or parsed here. A line too long for a block goes
// through the runner's own line splitter instead, so it is never held whole in a block (and a
// line over --max-line-bytes is refused without being buffered, as on the line path).
import { LineSplitter, type LineEvent } from '../line-splitter.js';
import type { RecordSource, SourceEvent } from './source.js';

const NEWLINE = 0x0a;
/** A block is cut at the first line end past this many bytes. */
export const BLOCK_BYTES = 256 * 1024;
/** An unfinished line this long leaves the block path: the line splitter takes it. */
export const LONG_LINE_BYTES = 1024 * 1024;
/**
 * A read shorter than this means the input is arriving slowly (a pipe that has no more for now):
 * the complete lines go out at once instead of waiting for a full block.
 */
const SHORT_READ_BYTES = 16 * 1024;

export class BlockSource implements RecordSource {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes after the last line end in `pending` (an unfinished line). */
  private tail = 0;
  private lineBefore = 0;
  /** The splitter reading one long line, until its line end. */
  private long: LineSplitter | null = null;

  constructor(
    private readonly name: string,
    private readonly maxLineBytes: number,
    private readonly blockBytes = BLOCK_BYTES,
  ) {}

  push(chunk: Buffer, out: SourceEvent[]): void {
    if (this.long !== null) {
      const nl = chunk.indexOf(NEWLINE);
      if (nl === -1) return this.long.push(chunk, out as LineEvent[]);
      this.long.push(chunk.subarray(0, nl + 1), out as LineEvent[]);
      this.long = null;
      this.lineBefore++;
      if (nl + 1 === chunk.length) return;
      chunk = chunk.subarray(nl + 1);
    }
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const nl = chunk.lastIndexOf(NEWLINE);
    this.tail = nl === -1 ? this.tail + chunk.length : chunk.length - nl - 1;
    if (this.tail >= LONG_LINE_BYTES) {
      this.cut(out);
      this.long = new LineSplitter(this.maxLineBytes, this.lineBefore);
      for (const piece of this.pending) this.long.push(piece, out as LineEvent[]);
      this.pending = [];
      this.pendingBytes = 0;
      this.tail = 0;
      return;
    }
    if (this.pendingBytes - this.tail >= this.blockBytes || (chunk.length < SHORT_READ_BYTES && this.pendingBytes > this.tail)) this.cut(out);
  }

  end(out: SourceEvent[]): void {
    if (this.long !== null) {
      this.long.end(out as LineEvent[]);
      this.long = null;
      return;
    }
    this.tail = 0;
    this.cut(out);
  }

  /** The complete lines held go out, in blocks of about blockBytes; the unfinished line stays. */
  private cut(out: SourceEvent[]): void {
    const size = this.pendingBytes - this.tail;
    if (size === 0) return;
    const held = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    for (let from = 0; from < size; ) {
      let to = size;
      if (size - from > this.blockBytes) {
        const nl = held.indexOf(NEWLINE, from + this.blockBytes - 1);
        if (nl !== -1 && nl + 1 < size) to = nl + 1;
      }
      // A fresh ArrayBuffer of its own: the stage may transfer it to another thread.
      const bytes = new Uint8Array(new ArrayBuffer(to - from));
      bytes.set(held.subarray(from, to));
      out.push({ kind: 'block', block: { source: this.name, bytes, lineBefore: this.lineBefore, maxLineBytes: this.maxLineBytes } });
      this.lineBefore += countLineEnds(bytes);
      from = to;
    }
    this.pending = this.tail > 0 ? [held.subarray(size)] : [];
    this.pendingBytes = this.tail;
  }
}

function countLineEnds(bytes: Uint8Array): number {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let n = 0;
  for (let at = buf.indexOf(NEWLINE); at !== -1; at = buf.indexOf(NEWLINE, at + 1)) n++;
  return n;
}
