// Chooses the source for one input: JSON Lines, a JSON document with its records in an array
// (--input-format document, --records-at PATH), or, by default, whichever the first bytes show.
import { DocumentSource } from './document-source.js';
import { BlockSource } from './block-source.js';
import { JsonlSource } from './jsonl-source.js';
import type { InputFormat, RecordSource, SourceEvent, SourceOptions } from './source.js';

export type { InputFormat, SourceEvent } from './source.js';

/** The options every stage that reads records takes. */
export const INPUT_OPTIONS = {
  'input-format': {
    type: 'string',
    placeholder: 'FORMAT',
    default: 'auto',
    choices: ['auto', 'jsonl', 'document'],
    help: 'jsonl: one record a line; document: one JSON document with the records in an array (--records-at); auto: a document when the first line is a lone "{" or "[" and the next one a member or element',
  },
  'records-at': {
    type: 'string',
    placeholder: 'PATH',
    help: 'where the records sit in a document: dotted keys (default "chunks"; "" for a top-level array); implies --input-format document',
  },
} as const;

/** How much of the first line auto-detection looks at before settling for JSON Lines. */
const SNIFF_BYTES = 64 * 1024;

export function createSource(options: SourceOptions): RecordSource {
  const format: InputFormat = options.format === 'auto' && options.recordsAt !== undefined ? 'document' : options.format;
  if (format === 'jsonl') return jsonlSource(options);
  if (format === 'document') return documentSource(options, options.recordsAt ?? 'chunks');
  return new AutoSource(options);
}

function jsonlSource(options: SourceOptions): RecordSource {
  return options.blocks ? new BlockSource(options.name, options.maxRecordBytes) : new JsonlSource(options.maxRecordBytes);
}

function documentSource(options: SourceOptions, recordsAt: string): DocumentSource {
  return new DocumentSource({
    name: options.name,
    fromStdin: options.name === 'stdin',
    recordsPath: recordsAt === '' ? [] : recordsAt.split('.'),
    maxRecordBytes: options.maxRecordBytes,
    ...(options.keepFields ? { keepFields: options.keepFields } : {}),
  });
}

/**
 * Holds the first bytes until they show the format: input whose first line is a lone "{" followed
 * by a member line (`"metadata": {`), or a lone "[" followed by an element, is a document (records
 * at "chunks" of an object, or the top-level array); anything else is JSON Lines. Then replays
 * them to the chosen source. A document on one line is told by its content: an object with a
 * "chunks" array of records.
 */
class AutoSource implements RecordSource {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private chosen: RecordSource | null = null;

  constructor(private readonly options: SourceOptions) {}

  /** Set when the first line opens an object: is it a record, or a whole document on one line? */
  private scanner: ChunksMemberScanner | null = null;

  push(chunk: Buffer, out: SourceEvent[]): void {
    if (this.chosen) return this.chosen.push(chunk, out);
    // Held as given (a read stream hands each chunk over, never to refill it): a first line of
    // megabytes is not held twice.
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.scanner === null && opensObjectLine(Buffer.concat(this.held, this.heldBytes))) {
      this.scanner = new ChunksMemberScanner();
      for (const held of this.held.slice(0, -1)) this.scanner.feed(held);
    }
    if (this.scanner !== null) {
      // Past --max-line-bytes it is JSON Lines, whose splitter refuses the line.
      const seen = this.scanner.feed(chunk);
      if (seen === 'more' && this.heldBytes <= this.options.maxRecordBytes) return;
      this.replay(seen === 'yes' ? documentSource(this.options, 'chunks') : jsonlSource(this.options), out);
      return;
    }
    const source = this.decide(false);
    if (source) this.replay(source, out);
  }

  end(out: SourceEvent[]): void {
    if (!this.chosen && this.scanner !== null) this.replay(jsonlSource(this.options), out);
    if (!this.chosen) this.replay(this.decide(true)!, out);
    this.chosen!.end(out);
  }

  private replay(source: RecordSource, out: SourceEvent[]): void {
    this.chosen = source;
    // Piece by piece: a long first line is not copied once more.
    const held = this.held;
    this.held = [];
    while (held.length > 0) source.push(held.shift()!, out);
  }

  private decide(atEnd: boolean): RecordSource | null {
    const bytes = Buffer.concat(this.held, this.heldBytes);
    const kind = sniff(bytes, atEnd || this.heldBytes >= SNIFF_BYTES);
    if (kind === null) return null;
    if (kind === 'jsonl') return jsonlSource(this.options);
    return documentSource(this.options, kind === 'array' ? '' : 'chunks');
  }
}

/** 'array' / 'object' (a document), 'jsonl', or null when more bytes are needed. */
export function sniff(bytes: Buffer, final: boolean): 'array' | 'object' | 'jsonl' | null {
  // The first three non-blank lines, trimmed; the last may still be unfinished.
  const lines: { text: string; complete: boolean }[] = [];
  let at = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (lines.length < 3 && at < bytes.length) {
    const nl = bytes.indexOf(0x0a, at);
    const end = nl === -1 ? bytes.length : nl;
    const text = bytes.toString('utf8', at, end).trim();
    if (text !== '') lines.push({ text, complete: nl !== -1 || final });
    at = end + 1;
  }
  const more = final ? 'jsonl' : null;
  const [first, second, third] = lines;
  if (!first) return more;
  // An object whose members include a "chunks" array of records, however it is spaced
  // ({"document": "x", "toc": [...], "chunks": [{...}]} on one line), was told by
  // ChunksMemberScanner before this. An array on one line stays JSON Lines: each of its lines is
  // refused (NOT_OBJECT) and the hint at the end names --records-at ''.
  // Pretty-printers (JSON.stringify, Python's json.dump, jq) put the opening bracket alone on the
  // first line and a member or element on the next; record lines never look like that, so a
  // broken record line (a lone "{" among records) stays a BAD_JSON line.
  if (first.text !== '{' && first.text !== '[') return 'jsonl';
  if (!first.complete || !second?.complete) return more;
  if (first.text === '{') return MEMBER.test(second.text) ? 'object' : 'jsonl';
  if (second.text === ']' || (/^[[{]/.test(second.text) && second.text.endsWith(','))) return 'array';
  if (second.text !== '{') return 'jsonl';
  if (!third?.complete) return more;
  return MEMBER.test(third.text) ? 'array' : 'jsonl';
}

/**
 * Reads a first line that opens an object, byte by byte as it arrives (JSON's structure is ASCII,
 * so UTF-8 needs no decoding here), to tell a whole document on one line from a record: 'yes' once
 * a top-level member "chunks" holds an array starting with an object, 'no' once the object or the
 * line ends without one, 'more' until then. Each byte is looked at once: linear in the line.
 */
export class ChunksMemberScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The text of the top-level string being read (a key, if a colon follows), up to 7 bytes. */
  private text = '';
  private lastString: string | null = null;
  private key: string | null = null;
  private afterChunks = false;
  private started = false;

  feed(bytes: Uint8Array): 'yes' | 'no' | 'more' {
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) {
          this.inString = false;
          if (this.depth === 1) this.lastString = this.text;
        } else if (this.depth === 1 && this.text.length < 7) this.text += String.fromCharCode(c);
        continue;
      }
      if (c === 0x20 || c === 0x09 || c === 0x0d || (c === 0xef && !this.started) || (!this.started && (c === 0xbb || c === 0xbf))) continue;
      if (c === 0x0a) {
        if (this.started) return 'no';
        continue;
      }
      if (this.afterChunks) return c === 0x7b ? 'yes' : 'no';
      this.started = true;
      if (c === 0x22) {
        this.inString = true;
        this.text = '';
      } else if (c === 0x3a) {
        if (this.depth === 1) this.key = this.lastString;
      } else if (c === 0x2c) {
        if (this.depth === 1) this.key = null;
      } else if (c === 0x7b || c === 0x5b) {
        if (this.depth === 1 && c === 0x5b && this.key === 'chunks') this.afterChunks = true;
        this.depth++;
      } else if (c === 0x7d || c === 0x5d) {
        if (--this.depth <= 0) return 'no';
      }
    }
    return 'more';
  }
}

/** The bytes start (after a BOM and blank space) with "{" and, on that line, something after it. */
function opensObjectLine(bytes: Buffer): boolean {
  let i = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  if (bytes[i] !== 0x7b) return false;
  for (let j = i + 1; j < bytes.length && bytes[j] !== 0x0a; j++) if (bytes[j] !== 0x20 && bytes[j] !== 0x09 && bytes[j] !== 0x0d) return true;
  return false;
}

/** The first line of a pretty-printed object's member: `"key": ...`. */
const MEMBER = /^"(?:[^"\\]|\\.)*"\s*:/;
