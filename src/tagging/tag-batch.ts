// What a block of input bytes becomes in `rca-tag --jobs N`, on a worker thread (or on the main
// thread before any worker has started): the block is split, parsed and tagged as the runner and
// the one-thread tagger would do it line by line, and comes back as finished output bytes, the
// rejects with their line numbers, and what the main thread needs to check each doc type.
//
// The doc type of a record without a usable one of its own is decided once per document, from its
// first chunk, and that chunk may be in an earlier block on another thread: a block tagged here
// guesses from what this thread has seen, and says, per such line, which type it assumed and what
// the decision reads (the evidence). The main thread decides in input order and tags again, on its
// own thread, the rare line whose guess was wrong.
//
// A chunk's section role may be the one of the section the chunk before it left open
// (ContextBuilder.carry), and the chunk before may be in another block: each block starts with
// no section open, and says per line whether its role depended on it and what it left open; the
// main thread follows the sections in input order and tags again a line that continued another.

import type { NerSeed } from '../contracts/chunk.js';
import { DOC_TYPES, type DocType } from '../contracts/vocabulary.js';
import { formAt, formIndex, type DocForm } from './doc-type.js';
import { LineSplitter, refusedLine, type LineEvent } from '../runtime/line-splitter.js';
import { LineWriter } from '../runtime/output.js';
import { messageOf, parseRecordLine } from '../runtime/record-line.js';
import type { JsonObject, OutputRecord, Outcome } from '../runtime/stage.js';
import { ContextBuilder, type ChunkFacts, type ContextOptions, type RoleCarry } from './context.js';
import { buildGazetteer } from './gazetteer.js';
import { buildKeywordLists } from './keyword-lists.js';
import type { LexiconEntry } from './lexicon.js';
import { addDocTypeEvidence, docTypeDependsOnHistory, sameNamedDocument, type DocTypeEvidenceFields } from './tag-record.js';
import { Tagger } from './tagger.js';

/** Everything a tagging thread needs, plain data (it crosses to worker threads once, at start). */
export interface TagSetup {
  lexicon: LexiconEntry[];
  keywordFiles: Parameters<typeof buildKeywordLists>[0];
  context: ContextOptions;
}

/**
 * Memory shared with the workers, posted once when a worker starts: a block is copied into a
 * slot's `input` and its output into the slot's `output`, so no buffer crosses threads per block
 * (a buffer that arrives from another thread lives until a full garbage collection, and a stream
 * of them made the main thread collect every few MB).
 */
export interface BlockSlot {
  input: SharedArrayBuffer;
  output: SharedArrayBuffer;
}

export interface WorkerSetup {
  setup: TagSetup;
  slots: BlockSlot[];
}

/** The block a thread tags: its bytes, and where it sits in its source. */
export interface BlockInput {
  bytes: Uint8Array;
  lineBefore: number;
  maxLineBytes: number;
}

/** A block sent to a worker: in slot `slot` (its first `length` bytes), or, when slot is -1, in `bytes`. */
export interface BlockJob {
  id: number;
  slot: number;
  length: number;
  bytes?: Uint8Array;
  lineBefore: number;
  maxLineBytes: number;
}

/**
 * A tagged block. Per tagged line (index j: the j-th output line), its line number, its flags and,
 * for a line whose doc type depends on earlier records, the type assumed; the evidence columns
 * hold one entry per such line, in order.
 */
export interface TaggedBlock {
  /** The output, each byte array its own ArrayBuffer (transferable); empty when in the slot. */
  output: Uint8Array[];
  /** The output's length in the job's slot, or -1: it is in `output`. */
  outputLength: number;
  records: number;
  rejects: { line: number; code: string; message: string; raw: string }[];
  firstLine?: string;
  fatal?: { line: number; message: string };
  lineNos: Int32Array;
  /** The line's flags joined by FLAG_SEPARATOR ('' for none). */
  flags: string[];
  /** The form assumed (doc-type.ts formIndex), or -1: the form did not depend on earlier records. */
  assumed: Int8Array;
  /**
   * 1: the line names the same document as the line before it in the block whose type depended on
   * history (so its type is that line's, and it has no evidence entry of its own).
   */
  follows: Uint8Array;
  docId: (string | undefined)[];
  docTypeField: (string | undefined)[];
  docName: (string | undefined)[];
  sourcePath: (string | undefined)[];
  text: (string | undefined)[];
  /** The section path as the record gives it (section_segments, else a path string): the document's title. */
  sectionPath: (string | string[] | undefined)[];
  /** 1: the line's section role depended on the section the line before left open. */
  carryDepends: Uint8Array;
  /**
   * The section each line left open (ContextBuilder.carry after it); undefined: the same as after
   * the line before in the block. Before the first line, none is open.
   */
  carryAfter: (RoleCarry | null | undefined)[];
}

export interface BlockReply {
  id: number;
  tagged: TaggedBlock;
}

export const FLAG_SEPARATOR = '\u0000';

/** The transfer list of a tagged block: its byte arrays move to the main thread. */
export function transferList(tagged: TaggedBlock): ArrayBuffer[] {
  return [...tagged.output, tagged.lineNos, tagged.assumed, tagged.follows, tagged.carryDepends].map((a) => a.buffer as ArrayBuffer);
}

/** A worker's answer to a job: the block tagged from its slot, the output into the slot when it fits. */
export function tagJob(tagBlock: (block: BlockInput) => TaggedBlock, slots: readonly BlockSlot[], job: BlockJob): BlockReply {
  const slot = job.slot >= 0 ? slots[job.slot]! : null;
  const bytes = slot !== null ? new Uint8Array(slot.input, 0, job.length) : job.bytes!;
  const tagged = tagBlock({ bytes, lineBefore: job.lineBefore, maxLineBytes: job.maxLineBytes });
  let size = 0;
  for (const piece of tagged.output) size += piece.length;
  if (slot !== null && size <= slot.output.byteLength) {
    const into = new Uint8Array(slot.output);
    let at = 0;
    for (const piece of tagged.output) {
      into.set(piece, at);
      at += piece.length;
    }
    tagged.output = [];
    tagged.outputLength = size;
  }
  return { id: job.id, tagged };
}

/**
 * A ContextBuilder that lends the Tagger whichever builder is set as `target` (this thread's own,
 * the main thread's in-order one, or one forced to a type) and remembers the last facts built.
 */
class ContextsSwitch extends ContextBuilder {
  target: ContextBuilder;
  last: ChunkFacts | null = null;

  constructor(options: ContextOptions) {
    super(options);
    this.target = new ContextBuilder(options);
  }

  override build(record: Record<string, unknown>): ChunkFacts {
    const facts = this.target.build(record);
    this.last = facts;
    return facts;
  }
}

/** One thread's tagger: the matchers are built once, whichever context builder decides. */
export class ThreadTagger {
  private readonly contexts: ContextsSwitch;
  private readonly tagger: Tagger;

  constructor(setup: TagSetup) {
    this.contexts = new ContextsSwitch(setup.context);
    this.tagger = new Tagger(
      { ...setup.context, gazetteer: buildGazetteer(setup.lexicon), keywords: buildKeywordLists(setup.keywordFiles) },
      this.contexts,
    );
  }

  /** tag(), the seed made by `seed` (the run's worker thread); the context is built now. */
  tagWith(record: JsonObject, meta: { raw: string; bytes?: Buffer }, contexts: ContextBuilder, seed: (text: string) => Promise<NerSeed>): Promise<{ outcome: Outcome; facts: ChunkFacts }> {
    this.contexts.target = contexts;
    this.contexts.last = null;
    const outcome = this.tagger.processWith(record, meta, seed);
    const facts = this.contexts.last as ChunkFacts | null;
    if (facts === null) throw new Error('the tagger built no context');
    return outcome.then((o) => ({ outcome: o, facts }));
  }

  /** The one-thread tagger's outcome for the record, its context built by `contexts`. */
  tag(record: JsonObject, meta: { raw: string; bytes?: Buffer }, contexts: ContextBuilder): { outcome: Outcome; facts: ChunkFacts } {
    this.contexts.target = contexts;
    this.contexts.last = null;
    const outcome = this.tagger.process(record, meta);
    const facts = this.contexts.last as ChunkFacts | null;
    if (facts === null) throw new Error('the tagger built no context');
    return { outcome, facts };
  }
}

/** Output lines as the runner writes them, into bytes held here (LineWriter on a collector). */
export class BlockOutput {
  private readonly pieces: (Buffer | string)[] = [];
  private readonly writer = new LineWriter(
    { write: (piece: Buffer | string) => (this.pieces.push(piece), true), on: () => undefined } as never,
    () => undefined,
  );
  lines = 0;

  /** The records of one outcome, as the runner writes them (LineWriter.pushRecord: a huge string is not cut in pieces here, the text is the same). */
  add(records: readonly OutputRecord[]): void {
    for (const rec of records) {
      this.lines++;
      this.writer.pushRecord(rec);
      // Synchronous: the collector never asks to wait.
      if (this.writer.needsFlush) void this.writer.flush();
    }
  }

  /**
   * Everything written, in byte arrays that each own their ArrayBuffer (transferable): the
   * writer's batch buffers as they are; a view of the input (a long line's bytes) or a long string
   * is copied into one of its own.
   */
  bytes(input: Uint8Array | null): Uint8Array[] {
    void this.writer.flush();
    return this.pieces.map((piece) => {
      if (typeof piece === 'string') {
        const own = Buffer.from(new ArrayBuffer(Buffer.byteLength(piece)));
        own.write(piece);
        return own;
      }
      if (piece.buffer !== input?.buffer && piece.byteOffset === 0 && !isPooled(piece)) return piece;
      const own = new Uint8Array(new ArrayBuffer(piece.length));
      own.set(piece);
      return own;
    });
  }
}

/** A buffer cut from Node's shared pool (small allocations) cannot be transferred. */
function isPooled(buf: Buffer): boolean {
  return buf.buffer.byteLength !== buf.byteLength + buf.byteOffset && buf.buffer.byteLength <= Buffer.poolSize;
}

/** What InputShape reads of a source's first line: a lone "{", a "[" opening it, or neither. */
function shapeOf(text: string): string {
  const start = text.trimStart();
  if (start.trimEnd() === '{') return '{';
  return start.startsWith('[') ? '[' : '.';
}

/** The lines of a block, as the runner's splitter gives them. */
export function blockLines(bytes: Uint8Array, lineBefore: number, maxLineBytes: number): LineEvent[] {
  const events: LineEvent[] = [];
  const splitter = new LineSplitter(maxLineBytes, lineBefore);
  splitter.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), events);
  splitter.end(events);
  return events;
}

/** Builds the matchers once (the costly part of a thread's start) and returns the block tagger. */
export function createBlockTagger(setup: TagSetup, tagger = new ThreadTagger(setup)): (job: BlockInput) => TaggedBlock {
  // This thread's own doc-type decisions: right unless the document began in a block it did not see.
  const contexts = new ContextBuilder(setup.context);

  return (job) => {
    const out = new BlockOutput();
    const rejects: TaggedBlock['rejects'] = [];
    const lineNos: number[] = [];
    const flags: string[] = [];
    const assumed: number[] = [];
    const follows: number[] = [];
    const docId: (string | undefined)[] = [];
    const docTypeField: (string | undefined)[] = [];
    const docName: (string | undefined)[] = [];
    const sourcePath: (string | undefined)[] = [];
    const text: (string | undefined)[] = [];
    const sectionPath: (string | string[] | undefined)[] = [];
    const carryDepends: number[] = [];
    const carryAfter: (RoleCarry | null | undefined)[] = [];
    let firstLine: string | undefined;
    let fatal: TaggedBlock['fatal'];
    let records = 0;
    // The main thread knows which section is open where the block starts; this thread does not.
    contexts.carry = null;
    let open: RoleCarry | null = null;
    // Consecutive lines naming the same document: the first one's text decided its type.
    let previous: DocTypeEvidenceFields | null = null;

    for (const event of blockLines(job.bytes, job.lineBefore, job.maxLineBytes)) {
      records++;
      if (event.kind === 'too-long' || event.kind === 'bad-utf8') {
        rejects.push({ line: event.line, ...refusedLine(event, job.maxLineBytes), raw: event.preview });
        continue;
      }
      firstLine ??= shapeOf(event.text);
      const parsed = parseRecordLine(event.text);
      if (parsed.reject) {
        rejects.push({ line: event.line, code: parsed.reject.code, message: parsed.reject.message, raw: event.text });
        continue;
      }
      const record = parsed.record;
      let tagged: { outcome: Outcome; facts: ChunkFacts };
      try {
        tagged = tagger.tag(record, { raw: event.text, ...(event.bytes ? { bytes: event.bytes } : {}) }, contexts);
        if (tagged.outcome.records?.length !== 1 || tagged.outcome.reject || tagged.outcome.fatal) {
          throw new Error('the tagger gave other than one record for a line');
        }
      } catch (err) {
        // As the runner reports an exception in process(): INTERNAL_ERROR, then fatal.
        rejects.push({ line: event.line, code: 'INTERNAL_ERROR', message: messageOf(err), raw: event.text });
        fatal = { line: event.line, message: `internal error: ${messageOf(err)}` };
        break;
      }
      out.add(tagged.outcome.records!);
      lineNos.push(event.line);
      flags.push(tagged.facts.flags.join(FLAG_SEPARATOR));
      const carry = tagged.facts.carry;
      carryDepends.push(carry.depends ? 1 : 0);
      carryAfter.push(carry.after === open ? undefined : carry.after);
      open = carry.after;
      if (docTypeDependsOnHistory(record, setup.context)) {
        assumed.push(formIndex({ type: tagged.facts.context.doc_type, subtype: tagged.facts.context.doc_subtype ?? null }));
        const evidence: DocTypeEvidenceFields = {};
        addDocTypeEvidence(evidence, record, false);
        // Right after a line naming the same document, ContextBuilder has the type in memory.
        const same = previous !== null && sameNamedDocument(previous, evidence);
        previous = evidence;
        follows.push(same ? 1 : 0);
        if (same) continue;
        addDocTypeEvidence(evidence, record, true);
        docId.push(evidence.doc_id);
        docTypeField.push(evidence.doc_type);
        docName.push(evidence.doc_name);
        sourcePath.push(evidence.source_path);
        text.push(evidence.text);
        sectionPath.push(evidence.section_segments ?? evidence.section_path);
      } else {
        assumed.push(-1);
        follows.push(0);
      }
    }
    return {
      output: out.bytes(job.bytes),
      outputLength: -1,
      records,
      rejects,
      ...(firstLine !== undefined ? { firstLine } : {}),
      ...(fatal ? { fatal } : {}),
      lineNos: Int32Array.from(lineNos),
      flags,
      assumed: Int8Array.from(assumed),
      follows: Uint8Array.from(follows),
      docId,
      docTypeField,
      docName,
      sourcePath,
      text,
      sectionPath,
      carryDepends: Uint8Array.from(carryDepends),
      carryAfter,
    };
  };
}

/** The doc form a line of a tagged block assumed (-1: none that depends on history). */
export function assumedForm(index: number): DocForm | null {
  return index < 0 ? null : formAt(index);
}
