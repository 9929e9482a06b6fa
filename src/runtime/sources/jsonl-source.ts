// JSON Lines: the runner's own line splitter; each line is parsed by the runner.
import { LineSplitter, type LineEvent } from '../line-splitter.js';
import type { RecordSource, SourceEvent } from './source.js';

export class JsonlSource implements RecordSource {
  private readonly splitter: LineSplitter;

  constructor(maxLineBytes: number) {
    this.splitter = new LineSplitter(maxLineBytes);
  }

  push(chunk: Buffer, out: SourceEvent[]): void {
    this.splitter.push(chunk, out as LineEvent[]);
  }

  end(out: SourceEvent[]): void {
    this.splitter.end(out as LineEvent[]);
  }
}
