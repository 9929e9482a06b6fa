// Telling a JSON Lines input from one JSON document given by mistake (a pretty-printed file, a
// JSON array on one line): every line of such a file is rejected, and one hint at the end says
// what to run instead. Pure bookkeeping per source; the runner feeds it and prints the hint.

/** A rejected line that opens the chunk list of a pretty-printed document: `  "chunks": [`. */
const CHUNKS_OPENING = /^\s*"chunks"\s*:\s*\[/;

export class InputShape {
  private firstSeen = false;
  get seenFirst(): boolean {
    return this.firstSeen;
  }
  private documentLike = false;
  private hasChunks = false;
  /** Line 1 was an object holding a chunk array. */
  private chunkList = false;
  private lines = 0;
  private rejects = 0;

  constructor(readonly source: string) {}

  /** Every non-blank line of the source. The first: `{` or `[` alone opens a pretty-printed
   *  document, and a line starting with `[` is a JSON array (or the start of one). */
  line(text: string): void {
    this.lines++;
    if (this.firstSeen) return;
    this.firstSeen = true;
    const start = text.trimStart();
    this.documentLike = start.startsWith('[') || start.trimEnd() === '{';
  }

  /** Line 1 parsed as one object holding a chunk array: a whole document on one line. */
  firstRecord(record: Record<string, unknown>): void {
    if (Array.isArray(record.chunks)) {
      this.documentLike = true;
      this.hasChunks = true;
      this.chunkList = true;
    }
  }

  rejected(text: string): void {
    this.rejects++;
    if (this.documentLike && !this.hasChunks && CHUNKS_OPENING.test(text)) this.hasChunks = true;
  }

  /** The hint for the end of the run, or null when the source looks like JSON Lines. */
  hint(): string | null {
    // A source that is one object holding a chunk array gets the hint even if a stage took it.
    if (!this.documentLike || (this.rejects === 0 && !(this.chunkList && this.lines === 1))) return null;
    const [at, jq] = this.hasChunks ? ['chunks', '.chunks[]'] : ["''", '.[]'];
    return `${this.source}: looks like one JSON document, not JSON Lines: read it with --records-at ${at}, or try jq -c '${jq}'`;
  }
}
