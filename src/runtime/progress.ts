// The progress line of a run on stderr (--progress, or a terminal): counts, rate, how much of the
// input is read and an ETA, a few times a second. Messages said meanwhile replace the line; the
// next refresh draws it again below them.
import type { Writable } from 'node:stream';

/** What the line shows, read at each refresh. */
export interface ProgressCounts {
  records: number;
  rejected: number;
  bytesRead: number;
  seconds: number;
  /** The stage's own text (Processor.progress), if any. */
  extra: string | undefined;
}

const REFRESH_MS = 250;
const CLEAR_LINE = '\r\x1b[K';

export class ProgressLine {
  private shown = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  /** The line was asked for in this run (the summary then names a slow record). */
  on = false;

  constructor(
    private readonly stderr: Writable,
    private readonly tool: string,
    private readonly counts: () => ProgressCounts,
  ) {}

  /** Starts the refreshes; `totalBytes` (null: a pipe) gives the share read and the ETA. */
  start(totalBytes: number | null): void {
    this.on = true;
    this.timer = setInterval(() => this.draw(totalBytes), REFRESH_MS);
    this.timer.unref();
  }

  /** What goes before a message on stderr: the line cleared, when it is shown. */
  clearForMessage(): string {
    const clear = this.shown ? CLEAR_LINE : '';
    this.shown = false;
    return clear;
  }

  /** Stops the refreshes and clears the line (once; later calls do nothing). */
  stop(): void {
    if (this.timer === null) return;
    clearInterval(this.timer);
    this.timer = null;
    this.stderr.write(CLEAR_LINE);
    this.shown = false;
  }

  private draw(totalBytes: number | null): void {
    const { records, rejected, bytesRead, seconds, extra } = this.counts();
    const rate = seconds > 0 ? (records / seconds).toFixed(1) : '0';
    let eta = '';
    if (totalBytes && bytesRead > 0 && seconds > 0.5) {
      const left = (seconds / bytesRead) * Math.max(0, totalBytes - bytesRead);
      eta = `, ${Math.round((100 * bytesRead) / totalBytes)}% read, ETA ${formatDuration(left)}`;
    }
    this.stderr.write(`${CLEAR_LINE}${this.tool}: ${records} records, ${rate}/s${eta}${rejected ? `, ${rejected} rejected` : ''}${extra ? `, ${extra}` : ''}`);
    this.shown = true;
  }
}

function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
