// Ollama's streamed chat reply: NDJSON objects split as the bytes arrive, and the reply they add up to.

export interface ChatChunk {
  message?: { content?: unknown; thinking?: unknown };
  done?: unknown;
  done_reason?: unknown;
  prompt_eval_count?: unknown;
  eval_count?: unknown;
  error?: unknown;
}

/** The streamed pieces of one chat reply, up to and including the first `done: true` object. */
export class ChatAccumulator {
  content = '';
  thinkingChars = 0;
  chunks = 0;
  final: ChatChunk | null = null;

  /** What add() does with a chunk that is exactly `{…, message: {role: 'assistant', content}, done: false}`. */
  addPiece(content: string): void {
    if (this.final !== null) return;
    this.chunks += 1;
    this.content += content;
  }

  add(chunk: ChatChunk): void {
    if (this.final !== null) return;
    // As ollama-js: an object with `error` ends the stream with a plain Error (classify: STREAM_ERROR).
    if ('error' in chunk) throw new Error(String(chunk.error));
    this.chunks += 1;
    const piece: unknown = chunk.message?.content;
    if (typeof piece === 'string') this.content += piece;
    const thought: unknown = chunk.message?.thinking;
    if (typeof thought === 'string') this.thinkingChars += thought.length;
    if (chunk.done === true) this.final = chunk;
  }
}

// Ollama's line for one piece of a reply, `{"model":…,"created_at":…,"message":{"role":"assistant",
// "content":…},"done":false}`, whose model and created_at hold no quote, backslash or control
// character and whose content is any valid JSON string: JSON.parse of such a line could only give
// that object, of which a ChatAccumulator reads only the content — the string's value, which is
// its text when it has no escape and JSON.parse of the string alone when it has. Matched in place
// (sticky) without slicing the line, it costs a fraction of the JSON.parse of the whole line (the
// largest share of the client's CPU at a fast server); any other line — thinking, the final
// object, other keys or order, CRLF — goes to JSON.parse whole.
const PIECE_LINE = /\{"model":"[^"\\\x00-\x1f]*","created_at":"[^"\\\x00-\x1f]*","message":\{"role":"assistant","content":"([^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*)"\},"done":false\}/y;

/**
 * An NDJSON body split into objects as its bytes arrive, one JSON.parse per line; lines that are
 * not JSON objects are skipped, as ollama-js skips them. `tooLong` makes the error thrown when one
 * line outgrows `maxLineChars` (a server streaming without newlines). One decode per piece of the
 * body; scanning resumes where the previous piece stopped, so the work stays linear in the reply
 * however the bytes arrive.
 */
export class NdjsonLines {
  private readonly decoder = new TextDecoder();
  private buffer = '';

  constructor(
    private readonly maxLineChars: number,
    private readonly onObject: (chunk: ChatChunk) => void,
    private readonly tooLong: () => Error,
    /** Takes the content of a line that is exactly Ollama's plain piece (PIECE_LINE), the line unparsed. */
    private readonly onPiece?: (content: string) => void,
  ) {}

  push(bytes: Uint8Array): void {
    this.scan(this.decoder.decode(bytes, { stream: true }));
    if (this.buffer.length > this.maxLineChars) throw this.tooLong();
  }

  end(): void {
    this.scan(this.decoder.decode());
    this.line(this.buffer);
    this.buffer = '';
  }

  private scan(text: string): void {
    let newline = text.indexOf('\n');
    if (newline < 0) {
      this.buffer += text;
      return;
    }
    // The first line may continue what the previous pieces left; the rest lie within `text`.
    if (this.buffer === '') this.lineAt(text, 0, newline);
    else {
      const first = this.buffer + text.slice(0, newline);
      this.lineAt(first, 0, first.length);
    }
    let start = newline + 1;
    for (newline = text.indexOf('\n', start); newline >= 0; newline = text.indexOf('\n', start)) {
      this.lineAt(text, start, newline);
      start = newline + 1;
    }
    this.buffer = start < text.length ? text.slice(start) : '';
  }

  private lineAt(text: string, start: number, end: number): void {
    if (this.onPiece !== undefined) {
      PIECE_LINE.lastIndex = start;
      const match = PIECE_LINE.exec(text);
      if (match !== null && PIECE_LINE.lastIndex === end) {
        const raw = match[1]!;
        this.onPiece(raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw);
        return;
      }
    }
    this.line(text.slice(start, end));
  }

  private line(text: string): void {
    if (text === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    if (parsed !== null && typeof parsed === 'object') this.onObject(parsed as ChatChunk);
  }
}

/** Reads an NDJSON fetch body to its end (NdjsonLines says how). */
export async function readLines(body: ReadableStream<Uint8Array>, lines: NdjsonLines): Promise<void> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      lines.push(value);
    }
    lines.end();
  } catch (err) {
    await reader.cancel().catch(() => {});
    throw err;
  }
}
