import type { Writable } from 'node:stream';

const FLUSH_BYTES = 64 * 1024;

/**
 * Batches output lines and writes them with backpressure: Node does not block on a full pipe,
 * so every write() that returns false is followed by waiting for 'drain' before more is written.
 * EPIPE (the reader went away, e.g. `| head -1`) is a normal end: `closed` becomes true and
 * everything after is dropped quietly.
 */
export class LineWriter {
  private pending: string[] = [];
  private pendingChars = 0;
  closed = false;
  error: Error | null = null;
  /** Lines handed to the stream so far (what the end-of-run summary reports as written). */
  written = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly stream: Writable, private readonly onClosed: () => void) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') {
        this.closed = true;
      } else {
        this.error = err;
        this.closed = true;
      }
      this.pending = [];
      this.pendingChars = 0;
      this.onClosed();
      this.wakeAll();
    });
    stream.on('drain', () => this.wakeAll());
  }

  push(line: string): void {
    if (this.closed) return;
    this.pending.push(line);
    this.pendingChars += line.length + 1;
  }

  get needsFlush(): boolean {
    return this.pendingChars >= FLUSH_BYTES;
  }

  /** Writes what is batched; resolves when the stream can take more. */
  async flush(): Promise<void> {
    if (this.closed || this.pending.length === 0) return;
    const data = this.pending.join('\n');
    this.written += this.pending.length;
    this.pending = [];
    this.pendingChars = 0;
    // The newline goes on its own: `data + '\n'` is a rope that writing copies flat, a second copy
    // of a batch that may be one record of many megabytes.
    this.stream.write(data);
    if (!this.stream.write('\n')) await this.waitDrain();
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
    this.written++;
    if (!this.stream.write('\n')) await this.waitDrain();
  }

  /** Flushes and waits until the stream has handed everything to the OS. */
  async end(): Promise<void> {
    await this.flush();
    if (this.closed) return;
    await new Promise<void>((resolve) => {
      // stdout is never really ended (Node owns it); an empty write's callback means all before it is out.
      this.stream.write('', () => resolve());
    });
  }
}
