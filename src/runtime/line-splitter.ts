import { isUtf8 } from 'node:buffer';

export type LineEvent =
  | { kind: 'line'; line: number; text: string }
  | { kind: 'too-long'; line: number; bytes: number; preview: string }
  | { kind: 'bad-utf8'; line: number; preview: string };

const NEWLINE = 0x0a;
const CR = 0x0d;
const PREVIEW_BYTES = 200;

/**
 * Splits a byte stream into lines. Works on bytes, so a multi-byte UTF-8 character split across
 * two chunks is joined before decoding. Handles CRLF, a missing final newline and a BOM at the
 * start. Blank lines are counted (line numbers stay true to the file) but not emitted. A line
 * longer than maxLineBytes is reported without being buffered: its bytes are dropped as they arrive.
 */
export class LineSplitter {
  private lineNo = 0;
  private parts: Buffer[] = [];
  private partBytes = 0;
  private overflowBytes = -1; // -1: not in an over-long line
  private overflowPreview = '';
  private atStart = true;

  constructor(private readonly maxLineBytes: number) {}

  push(chunk: Buffer, out: LineEvent[]): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) {
        this.keep(chunk, start, chunk.length);
        return;
      }
      if (this.overflowBytes >= 0 || this.partBytes + (nl - start) > this.maxLineBytes) {
        this.keep(chunk, start, nl);
        this.closeOverflow(out);
      } else if (this.partBytes > 0) {
        this.parts.push(chunk.subarray(start, nl));
        const whole = Buffer.concat(this.parts, this.partBytes + (nl - start));
        this.parts = [];
        this.partBytes = 0;
        this.emit(whole, 0, whole.length, out);
      } else {
        this.emit(chunk, start, nl, out);
      }
      start = nl + 1;
    }
  }

  end(out: LineEvent[]): void {
    if (this.overflowBytes >= 0) {
      this.closeOverflow(out);
    } else if (this.partBytes > 0) {
      const whole = Buffer.concat(this.parts, this.partBytes);
      this.parts = [];
      this.partBytes = 0;
      this.emit(whole, 0, whole.length, out);
    }
  }

  /** Holds bytes of an unfinished line, or counts and drops them once the line is too long. */
  private keep(chunk: Buffer, from: number, to: number): void {
    if (from >= to) return;
    if (this.overflowBytes >= 0) {
      this.overflowBytes += to - from;
      return;
    }
    if (this.partBytes + (to - from) > this.maxLineBytes) {
      // Only the first parts make the preview: joining all held parts would copy up to maxLineBytes.
      const head: Buffer[] = [];
      let headBytes = 0;
      for (const part of [...this.parts, chunk.subarray(from, Math.min(to, from + PREVIEW_BYTES))]) {
        if (headBytes >= PREVIEW_BYTES) break;
        head.push(part);
        headBytes += part.length;
      }
      this.overflowPreview = Buffer.concat(head, headBytes).subarray(0, PREVIEW_BYTES).toString('utf8');
      this.overflowBytes = this.partBytes + (to - from);
      this.parts = [];
      this.partBytes = 0;
      return;
    }
    // Copy: the stream may reuse the chunk's memory after we return.
    this.parts.push(Buffer.from(chunk.subarray(from, to)));
    this.partBytes += to - from;
  }

  private closeOverflow(out: LineEvent[]): void {
    this.lineNo++;
    this.atStart = false;
    out.push({ kind: 'too-long', line: this.lineNo, bytes: this.overflowBytes, preview: this.overflowPreview.replace(/\r$/, '') });
    this.overflowBytes = -1;
    this.overflowPreview = '';
  }

  private emit(buf: Buffer, from: number, to: number, out: LineEvent[]): void {
    this.lineNo++;
    if (this.atStart) {
      this.atStart = false;
      if (to - from >= 3 && buf[from] === 0xef && buf[from + 1] === 0xbb && buf[from + 2] === 0xbf) from += 3;
    }
    if (to > from && buf[to - 1] === CR) to--;
    if (to === from) return;
    const text = buf.toString('utf8', from, to);
    // Decoding replaces bad bytes with U+FFFD; only then pay for a full validity check.
    if (text.includes('\uFFFD') && !isUtf8(buf.subarray(from, to))) {
      out.push({ kind: 'bad-utf8', line: this.lineNo, preview: text.slice(0, PREVIEW_BYTES) });
      return;
    }
    if (isBlank(text)) return;
    out.push({ kind: 'line', line: this.lineNo, text });
  }
}

function isBlank(text: string): boolean {
  // Fast path: a record line starts with '{' almost always. Any other visible ASCII character
  // cannot be whitespace either; everything else (\v, \f, NBSP, U+2028...) is left to trim(), so
  // a line is blank by one rule whatever whitespace it starts with.
  const c = text.charCodeAt(0);
  if (c > 0x20 && c < 0xa0) return false;
  return text.trim() === '';
}
