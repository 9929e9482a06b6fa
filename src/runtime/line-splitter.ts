import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';

export type LineEvent =
  /** `bytes`: the line's UTF-8 bytes (a view of the chunk read), for a line within one chunk. */
  | { kind: 'line'; line: number; text: string; bytes?: Buffer }
  | { kind: 'too-long'; line: number; bytes: number; preview: string }
  | { kind: 'bad-utf8'; line: number; preview: string };

/** The reject of a line refused as it is read (the runner's and rca-tag's block threads' alike). */
export function refusedLine(event: Extract<LineEvent, { kind: 'too-long' | 'bad-utf8' }>, maxLineBytes: number): { code: string; message: string } {
  return event.kind === 'too-long'
    ? { code: 'LINE_TOO_LONG', message: `line of ${event.bytes} bytes exceeds --max-line-bytes ${maxLineBytes}` }
    : { code: 'BAD_UTF8', message: 'line is not valid UTF-8' };
}

const NEWLINE = 0x0a;
const CR = 0x0d;
const PREVIEW_BYTES = 200;

/**
 * Splits a byte stream into lines. Works on bytes, so a multi-byte UTF-8 character split across
 * two chunks is joined before decoding. Handles CRLF, a missing final newline and a BOM at the
 * start. Blank lines are counted (line numbers stay true to the file) but not emitted. A line
 * longer than maxLineBytes is reported without being buffered: its bytes are dropped as they arrive.
 *
 * A line within one chunk is decoded from the chunk. A line over several chunks is decoded as it
 * arrives (a streaming, fatal UTF-8 decoder), so its bytes are not held until it ends: a line of
 * N bytes costs its text and the pieces it is joined from, not also N bytes of chunks and their
 * N-byte concatenation.
 */
export class LineSplitter {
  private lineNo = 0;
  private pieces: string[] = [];
  private decoder: TextDecoder | null = null;
  /** The held line's bytes are not valid UTF-8 (its decoding stopped). */
  private badUtf8 = false;
  /** Its first bytes, for the preview of a refused line. */
  private head: Buffer[] = [];
  private headBytes = 0;
  private partBytes = 0;
  private overflowBytes = -1; // -1: not in an over-long line
  private overflowPreview = '';
  private atStart = true;

  /** `lineBefore`: lines of the source already read elsewhere (a splitter that starts at a line
   *  boundary inside a source: numbers continue from there, and only line 1 may open with a BOM). */
  constructor(private readonly maxLineBytes: number, lineBefore = 0) {
    this.lineNo = lineBefore;
    this.atStart = lineBefore === 0;
  }

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
        this.keep(chunk, start, nl);
        this.emitHeld(out);
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
      this.emitHeld(out);
    }
  }

  /** Decodes bytes of an unfinished line as they come, or counts and drops them once the line is too long. */
  private keep(chunk: Buffer, from: number, to: number): void {
    if (from >= to) return;
    if (this.overflowBytes >= 0) {
      this.overflowBytes += to - from;
      return;
    }
    const part = chunk.subarray(from, to);
    this.keepHead(part);
    if (this.partBytes + part.length > this.maxLineBytes) {
      this.overflowPreview = this.headText();
      this.overflowBytes = this.partBytes + part.length;
      this.dropHeld();
      return;
    }
    this.partBytes += part.length;
    if (this.badUtf8) return;
    this.decoder ??= new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    try {
      this.pieces.push(this.decoder.decode(part, { stream: true }));
    } catch {
      this.badUtf8 = true;
      this.pieces = [];
    }
  }

  private keepHead(part: Buffer): void {
    if (this.headBytes >= PREVIEW_BYTES) return;
    // Copied: only these few bytes outlive the chunk.
    const take = Buffer.from(part.subarray(0, PREVIEW_BYTES - this.headBytes));
    this.head.push(take);
    this.headBytes += take.length;
  }

  private headText(): string {
    return Buffer.concat(this.head, this.headBytes).toString('utf8');
  }

  private dropHeld(): void {
    this.pieces = [];
    this.decoder = null;
    this.badUtf8 = false;
    this.head = [];
    this.headBytes = 0;
    this.partBytes = 0;
  }

  /** Ends the line held over several chunks. */
  private emitHeld(out: LineEvent[]): void {
    let text: string | null = null;
    if (!this.badUtf8) {
      try {
        this.pieces.push(this.decoder!.decode());
        text = this.pieces.join('');
      } catch {
        // The line ends inside a multi-byte character.
      }
    }
    const preview = text === null ? this.headText() : '';
    this.dropHeld();
    this.lineNo++;
    if (text === null) {
      this.atStart = false;
      out.push({ kind: 'bad-utf8', line: this.lineNo, preview: preview.replace(/\r$/, '').slice(0, PREVIEW_BYTES) });
      return;
    }
    if (this.atStart) {
      this.atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text === '' || isBlank(text)) return;
    out.push({ kind: 'line', line: this.lineNo, text });
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
    out.push({ kind: 'line', line: this.lineNo, text, bytes: buf.subarray(from, to) });
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
