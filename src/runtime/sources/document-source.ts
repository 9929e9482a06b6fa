// A JSON document whose records sit in an array at a path (library_rag's "<doc>_chunks.json":
// {metadata, toc, ..., chunks: [...]}), read with stream-json's tokenizer and Assembler: memory
// holds one record at a time (and the document's other fields, which are small), so a 5 GB document
// flows like a 5 GB JSON Lines file. Records are named by their index ("chunks[12]"); the other
// fields are kept in DocumentInfo.fields for the stages that read them (count-sections' TOC).
import { createRequire } from 'node:module';
import type * as ChainDefs from 'stream-chain/defs.js';
import type * as FixUtf8 from 'stream-chain/utils/fixUtf8Stream.js';
import type * as AssemblerModule from 'stream-json/assembler.js';
import type * as ParserModule from 'stream-json/parser.js';
import { documentIdOf, hasDocId } from './doc-id.js';
import type { DocumentInfo, RecordSource, SourceEvent } from './source.js';

// stream-json and stream-chain are 16 modules: loaded on the first document, not at start-up, so a
// stage reading JSON Lines never loads them (test/runtime/bins.test.ts holds that). Node
// 20.19+ requires ES modules synchronously, which the synchronous push() needs.
const require = createRequire(import.meta.url);
let lib:
  | { defs: typeof ChainDefs; fixUtf8Stream: typeof FixUtf8.default; Assembler: typeof AssemblerModule.default; jsonParser: typeof ParserModule.jsonParser }
  | undefined;
function streamJson(): NonNullable<typeof lib> {
  return (lib ??= {
    defs: require('stream-chain/defs.js') as typeof ChainDefs,
    fixUtf8Stream: (require('stream-chain/utils/fixUtf8Stream.js') as typeof FixUtf8).default,
    Assembler: (require('stream-json/assembler.js') as typeof AssemblerModule).default,
    jsonParser: (require('stream-json/parser.js') as typeof ParserModule).jsonParser,
  });
}
type Assembler = InstanceType<typeof AssemblerModule.default>;

type Token = { name: string; value?: unknown };
type Step = (input: unknown) => unknown;

const PREVIEW_CHARS = 200;
/** Kept whatever the stage reads: the document id may come from its name or its metadata, and the
 *  stated record count is checked against the records read. */
const ALWAYS_KEPT = ['document', 'metadata', 'chunks_count'];
/** The tokenizer is fed at most this much text at a time, cut after a newline where there is one:
 *  a syntax error loses the tokens of its own slice only, so the records before it are written and
 *  the reject names the first element not read. */
const SLICE_CHARS = 16 * 1024;

interface Capture {
  asm: Assembler;
  depth: number;
  bytes: number;
  oversize: boolean;
  /** A record's index in the array, or the dotted name of a document field. */
  index: number;
  field: string | null;
}

export interface DocumentSourceOptions {
  name: string;
  fromStdin: boolean;
  /** Dotted path of keys to the records array; [] = the top-level value is the array. */
  recordsPath: string[];
  maxRecordBytes: number;
  /** false: step over the records without assembling them (to read only the other fields). */
  keepRecords?: boolean;
  /** The document fields to keep (dotted names); the others are stepped over, and named in the
   *  end-of-document note. `document`, `metadata` and `chunks_count` are always kept (ALWAYS_KEPT). */
  keepFields?: readonly string[];
}

export class DocumentSource implements RecordSource {
  private readonly decode: Step = streamJson().fixUtf8Stream() as Step;
  private readonly tokenize: Step = streamJson().jsonParser({ packValues: true, streamValues: false }) as Step;
  private readonly info: DocumentInfo;
  /** Keys of the objects open on the way to the records array (each frame's current key). */
  private readonly frames: (string | null)[] = [];
  private started = false;
  private inRecords = false;
  private recordsFound = false;
  private capture: Capture | null = null;
  private nextIndex = 0;
  private dead = false;
  private docIdDecided = false;
  /** Depth inside a value being stepped over; 0 = none. */
  private skipDepth = 0;
  private readonly keep: Set<string> | null;
  private readonly stepped: string[] = [];

  /** The document's fields other than the records, as read so far. */
  get fields(): Record<string, unknown> {
    return this.info.fields;
  }

  constructor(private readonly options: DocumentSourceOptions) {
    this.info = { source: options.name, recordsAt: options.recordsPath.join('.'), docId: undefined, docIdFrom: undefined, fields: {} };
    this.keep = options.keepFields ? new Set([...options.keepFields, ...ALWAYS_KEPT]) : null;
  }

  push(chunk: Buffer, out: SourceEvent[]): void {
    if (this.dead) return;
    this.run(() => this.feedText(this.decode(chunk), out), out);
  }

  end(out: SourceEvent[]): void {
    if (!this.dead) {
      this.run(() => {
        const rest = this.decode(streamJson().defs.none);
        if (typeof rest === 'string') this.feedText(rest, out);
        this.feed(this.tokenize(streamJson().defs.none), out);
      }, out);
    }
    if (!this.dead && !this.recordsFound) {
      const kept = Object.keys(this.info.fields);
      this.reject(out, this.info.recordsAt || '(top level)', 'NO_RECORDS',
        `no array of records at '${this.info.recordsAt || '(top level)'}'` + (kept.length ? ` (fields: ${kept.join(', ')}); see --records-at` : ''), '');
    }
    out.push({ kind: 'note', text: this.describe() });
  }

  private run(step: () => void, out: SourceEvent[]): void {
    try {
      step();
    } catch (err) {
      // The tokenizer cannot resume after a syntax error: the rest of this source is not read.
      this.dead = true;
      const message = err instanceof Error ? err.message : String(err);
      this.reject(out, this.where(), 'BAD_JSON', `${message.replace(/^Parser cannot parse input: /, '')}; the rest of the document is not read`, '');
    }
  }

  private feedText(text: unknown, out: SourceEvent[]): void {
    if (typeof text !== 'string') return;
    for (let pos = 0; pos < text.length && !this.dead; ) {
      let end = Math.min(pos + SLICE_CHARS, text.length);
      const nl = text.lastIndexOf('\n', end - 2);
      if (nl >= pos) end = nl + 1;
      this.feed(this.tokenize(text.slice(pos, end)), out);
      pos = end;
    }
  }

  private feed(result: unknown, out: SourceEvent[]): void {
    if (result === streamJson().defs.none || result === undefined) return;
    if (streamJson().defs.isMany(result)) {
      for (const token of streamJson().defs.getManyValues(result) as Token[]) this.token(token, out);
    } else {
      this.token(result as Token, out);
    }
  }

  private token(t: Token, out: SourceEvent[]): void {
    const capture = this.capture;
    if (capture) {
      this.captureToken(capture, t, out);
      return;
    }
    if (this.skipDepth > 0) {
      if (t.name === 'startObject' || t.name === 'startArray') this.skipDepth++;
      else if (t.name === 'endObject' || t.name === 'endArray') this.skipDepth--;
      return;
    }
    if (this.inRecords) {
      if (t.name === 'endArray') {
        this.inRecords = false;
        return;
      }
      if (this.options.keepRecords === false) {
        this.nextIndex++;
        this.stepOver(t);
        return;
      }
      this.capture = newCapture(this.nextIndex++, null);
      this.captureToken(this.capture, t, out);
      return;
    }
    if (!this.started) {
      this.started = true;
      const wanted = this.options.recordsPath.length === 0 ? 'startArray' : 'startObject';
      if (t.name !== wanted) {
        this.dead = true;
        this.reject(out, '(top level)', 'NOT_DOCUMENT', `expected the document to be a JSON ${wanted === 'startArray' ? 'array' : 'object'}, got ${tokenKind(t)}`, '');
        return;
      }
      if (wanted === 'startArray') this.openRecords();
      else this.frames.push(null);
      return;
    }
    const depth = this.frames.length;
    if (depth === 0) return; // after the document's end the tokenizer refuses anything but space
    if (t.name === 'keyValue') {
      this.frames[depth - 1] = t.value as string;
      return;
    }
    if (t.name === 'endObject') {
      this.frames.pop();
      return;
    }
    const path = this.frames as string[];
    const wanted = this.options.recordsPath;
    const onTheWay = path.every((key, i) => key === wanted[i]);
    if (onTheWay && depth === wanted.length && t.name === 'startArray') {
      this.openRecords();
    } else if (onTheWay && depth < wanted.length && t.name === 'startObject') {
      this.frames.push(null);
    } else {
      const name = path.join('.');
      if (this.keep && !this.keep.has(name)) {
        this.stepped.push(name);
        this.stepOver(t);
        return;
      }
      this.capture = newCapture(-1, name);
      this.captureToken(this.capture, t, out);
    }
  }

  /** Steps over the value `t` starts, without assembling it. */
  private stepOver(t: Token): void {
    if (t.name === 'startObject' || t.name === 'startArray') this.skipDepth = 1;
  }

  private openRecords(): void {
    this.inRecords = true;
    this.recordsFound = true;
  }

  private captureToken(c: Capture, t: Token, out: SourceEvent[]): void {
    if (!c.oversize) {
      c.bytes += typeof t.value === 'string' ? t.value.length + 3 : 1;
      if (c.bytes > this.options.maxRecordBytes) {
        c.oversize = true;
        c.asm = new (streamJson().Assembler)(); // let go of what was assembled
      } else {
        c.asm.consume(t as never);
      }
    }
    if (t.name === 'startObject' || t.name === 'startArray') c.depth++;
    else if (t.name === 'endObject' || t.name === 'endArray') c.depth--;
    if (c.depth === 0) {
      this.capture = null;
      this.finish(c, out);
    }
  }

  private finish(c: Capture, out: SourceEvent[]): void {
    if (c.field !== null) {
      if (c.oversize) out.push({ kind: 'note', text: `${this.info.source}: document field '${c.field}' is larger than ${this.options.maxRecordBytes} bytes and was not kept` });
      else this.info.fields[c.field] = c.asm.current;
      return;
    }
    const at = this.at(c.index);
    if (c.oversize) {
      this.reject(out, at, 'RECORD_TOO_LONG', `record larger than --max-line-bytes ${this.options.maxRecordBytes}`, '', c.index);
      return;
    }
    const value: unknown = c.asm.current;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
      this.reject(out, at, 'NOT_OBJECT', `expected a JSON object, got ${kind}`, preview(value), c.index);
      return;
    }
    const record = value as Record<string, unknown>;
    this.decideDocId();
    if (this.info.docId !== undefined && !hasDocId(record)) {
      record.doc_id = this.info.docId;
      record.doc_id_from = this.info.docIdFrom;
    }
    out.push({ kind: 'record', line: c.index + 1, at, record, raw: JSON.stringify(record), document: this.info });
  }

  /** Fixed at the first record, from the document's name or metadata read so far, or the file name. */
  private decideDocId(): void {
    if (this.docIdDecided) return;
    this.docIdDecided = true;
    const id = documentIdOf(this.info.fields, this.options.name, this.options.fromStdin);
    if (id) {
      this.info.docId = id.docId;
      this.info.docIdFrom = id.from;
    }
  }

  private at(index: number): string {
    return `${this.info.recordsAt}[${index}]`;
  }

  /** Where the tokenizer is, for a syntax error. */
  private where(): string {
    if (this.capture && this.capture.field === null) return this.at(this.capture.index);
    if (this.inRecords) return this.at(this.nextIndex);
    if (this.capture) return this.capture.field!;
    return this.frames.filter((k) => k !== null).join('.') || '(top level)';
  }

  private reject(out: SourceEvent[], at: string, code: string, message: string, raw: string, index = -1): void {
    out.push({ kind: 'reject', line: index + 1, at, code, message, raw });
  }

  private describe(): string {
    const fields = Object.keys(this.info.fields);
    const declared = this.info.fields.chunks_count;
    const mismatch = typeof declared === 'number' && declared !== this.nextIndex ? ` (chunks_count says ${declared})` : '';
    const id = this.info.docId === undefined ? 'no document id (records keep their own)' : `doc_id ${JSON.stringify(this.info.docId)} from ${this.info.docIdFrom}`;
    const stepped = this.stepped.length ? `; not read by this stage: ${this.stepped.join(', ')}` : '';
    return `${this.info.source}: document: ${this.nextIndex} records at '${this.info.recordsAt || '(top level)'}'${mismatch}; ${id}; ` +
      `document fields kept beside the records: ${fields.length ? fields.join(', ') : 'none'}${stepped}`;
  }
}

function newCapture(index: number, field: string | null): Capture {
  return { asm: new (streamJson().Assembler)(), depth: 0, bytes: 0, oversize: false, index, field };
}

function tokenKind(t: Token): string {
  switch (t.name) {
    case 'startObject': return 'an object';
    case 'startArray': return 'an array';
    case 'stringValue': return 'a string';
    case 'numberValue': return 'a number';
    case 'nullValue': return 'null';
    default: return 'a boolean';
  }
}

function preview(value: unknown): string {
  return (JSON.stringify(value) ?? '').slice(0, PREVIEW_CHARS);
}
