// Input sources: how the bytes of one input become records for the runner. A source is pushed the
// bytes as they are read and appends events; the runner turns each event into one record or one
// reject, so every record of a source is accounted for whatever its format.
import type { LineEvent } from '../line-splitter.js';

/** What a document source knows about the document its records come from. */
export interface DocumentInfo {
  /** 'stdin' or the file path. */
  source: string;
  /** Where the records sit, e.g. "chunks" ("" for a top-level array). */
  recordsAt: string;
  /** The id given to records that carry none, and where it came from. */
  docId: string | undefined;
  docIdFrom: DocIdFrom | undefined;
  /** The document's other fields (metadata, toc, ...), filled in as they are read: a field that
   *  comes after the records array is here only once the records have been read. */
  fields: Record<string, unknown>;
}

export type DocIdFrom = 'document' | 'file_name' | `metadata.${string}`;

export type SourceEvent =
  | LineEvent
  /** One element of a document's records array; `at` names it, e.g. "chunks[12]". */
  | { kind: 'record'; line: number; at: string; record: Record<string, unknown>; raw: string; document: DocumentInfo }
  /** A refused element (or a broken document), named like a record. */
  | { kind: 'reject'; line: number; at: string; code: string; message: string; raw: string }
  /** A one-line message about the source (e.g. which document fields were kept beside the records). */
  | { kind: 'note'; text: string }
  /** Whole JSON Lines as bytes, for a stage that takes blocks (SourceOptions.blocks). */
  | { kind: 'block'; block: InputBlock };

export interface RecordSource {
  push(chunk: Buffer, out: SourceEvent[]): void;
  end(out: SourceEvent[]): void;
}

export const INPUT_FORMATS = ['auto', 'jsonl', 'document'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

export interface SourceOptions {
  /** 'stdin' or the file path (the document id may come from the file name). */
  name: string;
  format: InputFormat;
  /** --records-at: a dotted path of keys; undefined = "chunks" for an object, the top level for an array. */
  recordsAt: string | undefined;
  maxRecordBytes: number;
  /** The document fields the stage reads (Processor.documentFields); undefined = all. */
  keepFields?: readonly string[];
  /** JSON Lines go to the stage in blocks of whole lines (the `blocks` line adapter, stage.ts). */
  blocks?: boolean;
}

/**
 * Whole input lines as bytes, for a stage that takes its JSON Lines input in blocks
 * (the `blocks` line adapter, stage.ts). `bytes` is its own ArrayBuffer, free to transfer to another thread;
 * it ends with a newline except at the end of a source without one.
 */
export interface InputBlock {
  source: string;
  bytes: Uint8Array;
  /** Physical lines of the source before the block: its first line is lineBefore + 1. */
  lineBefore: number;
  /** --max-line-bytes: a longer line in the block is refused as the runner's splitter refuses it. */
  maxLineBytes: number;
}
