// Reads named top-level fields of a JSON document file (e.g. the toc of a <doc>_chunks.json) in
// bounded memory: the records array is stepped over, not assembled, and reading stops as soon as
// every wanted field is in.
import { closeSync, openSync, readSync } from 'node:fs';
import { DocumentSource } from './document-source.js';
import type { SourceEvent } from './source.js';

const READ_BYTES = 1 << 20;

export interface DocumentFields {
  /** The whole value when the file is a top-level array (a bare list, e.g. a TOC on its own). */
  array?: unknown[];
  fields: Record<string, unknown>;
  /** Refusals met on the way (e.g. a syntax error), as "at: CODE: message". */
  problems: string[];
}

export function readDocumentFields(path: string, wanted: readonly string[], maxFieldBytes: number, recordsAt = 'chunks'): DocumentFields {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(READ_BYTES);
    const first = readSync(fd, buffer, 0, READ_BYTES, null);
    const head = buffer.subarray(0, first);
    const start = head.findIndex((b) => b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0xef && b !== 0xbb && b !== 0xbf);
    const isArray = start >= 0 && head[start] === 0x5b;
    // A top-level array is the value asked for (e.g. a TOC file), kept whole; in an object, the
    // records array is stepped over.
    const source = new DocumentSource({ name: path, fromStdin: false, recordsPath: isArray ? [] : recordsAt.split('.'), maxRecordBytes: maxFieldBytes, keepRecords: isArray, keepFields: wanted });
    const events: SourceEvent[] = [];
    const array: unknown[] = [];
    const problems: string[] = [];
    const take = () => {
      for (const e of events) {
        if (e.kind === 'record') array.push(e.record);
        else if (e.kind === 'reject' && e.code !== 'NO_RECORDS') problems.push(`${e.at}: ${e.code}: ${e.message}`);
      }
      events.length = 0;
    };
    let n = first;
    while (n > 0) {
      source.push(Buffer.from(buffer.subarray(0, n)), events);
      take();
      if (!isArray && wanted.every((name) => name in source.fields)) return { fields: source.fields, problems };
      n = readSync(fd, buffer, 0, READ_BYTES, null);
    }
    source.end(events);
    take();
    return isArray ? { array, fields: {}, problems } : { fields: source.fields, problems };
  } finally {
    closeSync(fd);
  }
}
