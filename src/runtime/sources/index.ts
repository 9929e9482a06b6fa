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
 * them to the chosen source. A document on one line needs --input-format document.
 */
class AutoSource implements RecordSource {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private chosen: RecordSource | null = null;

  constructor(private readonly options: SourceOptions) {}

  push(chunk: Buffer, out: SourceEvent[]): void {
    if (this.chosen) return this.chosen.push(chunk, out);
    this.held.push(Buffer.from(chunk));
    this.heldBytes += chunk.length;
    const source = this.decide(false);
    if (source) this.replay(source, out);
  }

  end(out: SourceEvent[]): void {
    if (!this.chosen) this.replay(this.decide(true)!, out);
    this.chosen!.end(out);
  }

  private replay(source: RecordSource, out: SourceEvent[]): void {
    this.chosen = source;
    const held = Buffer.concat(this.held, this.heldBytes);
    this.held = [];
    source.push(held, out);
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

/** The first line of a pretty-printed object's member: `"key": ...`. */
const MEMBER = /^"(?:[^"\\]|\\.)*"\s*:/;
