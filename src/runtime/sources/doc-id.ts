// The document id given to a document's records when they carry none: the document's own name
// (library_rag's top-level "document", the doc_name its ingest writes as document.sourceId), else
// its metadata's id when it names one, else the file name ("<doc>_chunks.json").
import { basename } from 'node:path';
import type { DocIdFrom } from './source.js';

const METADATA_ID_FIELDS = ['doc_id', 'docId', 'sourceId', 'source_id', 'id'] as const;
const FILE_SUFFIX = /(?:[._-]chunks)?\.(?:jsonl?|ndjson)$/i;

export function documentIdOf(fields: Record<string, unknown>, sourceName: string, fromStdin: boolean): { docId: string; from: DocIdFrom } | null {
  const own = fields.document;
  if (typeof own === 'string' && own.trim() !== '') return { docId: own, from: 'document' };
  const metadata = fields.metadata;
  if (metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata)) {
    for (const field of METADATA_ID_FIELDS) {
      const value = (metadata as Record<string, unknown>)[field];
      if (typeof value === 'string' && value.trim() !== '') return { docId: value, from: `metadata.${field}` };
    }
  }
  if (fromStdin) return null;
  const stem = basename(sourceName).replace(FILE_SUFFIX, '');
  return stem === '' ? null : { docId: stem, from: 'file_name' };
}

/** Whether a record already names its document (the fields chunk-fields.ts reads as the doc id). */
export function hasDocId(record: Record<string, unknown>): boolean {
  if (typeof record.doc_id === 'string') return true;
  const document = record.document;
  return document !== null && typeof document === 'object' && typeof (document as Record<string, unknown>).sourceId === 'string';
}
