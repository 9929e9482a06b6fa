// What `rca index` keeps of a record (pure): a chunk's ids, trusted context, raw text and the
// flattened text of its views; a section's id, tree links, path and summary; and the vector of
// either when rca-embed added one. A record that cannot be searched for is refused with a code.
import { isPlainObject, type JsonObject } from '../contracts/json.js';
import { chunkIdOf, chunkTextOf, docIdOf, stringField } from '../tagging/chunk-fields.js';
import { vectorOf, type EmbeddingInfo } from '../contracts/embedding-field.js';

export interface IndexedVector {
  info: EmbeddingInfo;
  vector: number[];
}

export interface IndexedChunk {
  kind: 'chunk';
  docId: string;
  chunkId: string;
  sectionId: string | null;
  sectionPath: string;
  docType: string;
  sectionRole: string;
  authority: string;
  text: string;
  /** The views' embedding text (embedding_text.combined, else the views' texts); "" when the record has none. */
  views: string;
  vector: IndexedVector | null;
}

export interface IndexedSection {
  kind: 'section';
  sectionId: string;
  docId: string;
  parentId: string | null;
  sectionPath: string;
  title: string;
  level: number;
  /** section_summary.summary and its concepts; "" when the section was not summarised. */
  summary: string;
  summarized: boolean;
  vector: IndexedVector | null;
}

export type Indexed = IndexedChunk | IndexedSection;
export type IndexedOrReject = Indexed | { reject: { code: string; message: string } };

const reject = (code: string, message: string) => ({ reject: { code, message } });

export function indexedOf(record: JsonObject): IndexedOrReject {
  const vector = vectorOf(record);
  if ('reject' in vector) return vector;
  if (record.kind === 'section') return sectionOf(record, vector.value);
  return chunkOf(record, vector.value);
}

function chunkOf(record: JsonObject, vector: IndexedVector | null): IndexedOrReject {
  const context = isPlainObject(record.context) ? record.context : {};
  const chunkId = stringField(context.chunk_id) ?? chunkIdOf(record);
  if (chunkId === undefined || chunkId === '') return reject('MISSING_CHUNK_ID', 'the record has no chunk_id: a search hit must name its chunk');
  const docId = stringField(context.doc_id) ?? docIdOf(record);
  if (docId === undefined || docId === '') return reject('MISSING_DOC_ID', `chunk ${chunkId} has no doc_id (run rca-tag first, or give the chunks a doc_id)`);
  const text = chunkTextOf(record);
  if (text === undefined) return reject('MISSING_TEXT', `chunk ${chunkId} has no text to index`);
  return {
    kind: 'chunk',
    docId,
    chunkId,
    sectionId: stringField(record.section_id) ?? null,
    sectionPath: stringField(context.section_path) ?? stringField(record.section_path) ?? '',
    docType: stringField(context.doc_type) ?? stringField(record.doc_type) ?? '',
    sectionRole: stringField(context.section_role) ?? '',
    authority: stringField(context.authority_level) ?? '',
    text,
    views: viewsText(record.embedding_text),
    vector,
  };
}

// rca-flatten's combined text holds every view (and the section path) once; without it, the
// views' own texts in the record's order.
function viewsText(value: unknown): string {
  if (!isPlainObject(value)) return '';
  if (typeof value.combined === 'string') return value.combined;
  return Object.values(value).filter((v): v is string => typeof v === 'string' && v !== '').join('\n');
}

function sectionOf(record: JsonObject, vector: IndexedVector | null): IndexedOrReject {
  const sectionId = stringField(record.section_id);
  const docId = stringField(record.doc_id);
  const sectionPath = stringField(record.section_path);
  if (sectionId === undefined || docId === undefined || sectionPath === undefined) {
    return reject('BAD_SECTION', 'a section record needs section_id, doc_id and section_path (as rca-count-sections writes them)');
  }
  const view = isPlainObject(record.section_summary) ? record.section_summary : null;
  const summary = typeof view?.summary === 'string' ? view.summary : '';
  const concepts = Array.isArray(view?.concepts) ? view.concepts.filter((c): c is string => typeof c === 'string') : [];
  return {
    kind: 'section',
    sectionId,
    docId,
    parentId: stringField(record.parent_id) ?? null,
    sectionPath,
    title: stringField(record.title) ?? sectionPath,
    level: typeof record.level === 'number' && Number.isInteger(record.level) ? record.level : 0,
    summary: [summary, concepts.join(', ')].filter((s) => s !== '').join('\n'),
    summarized: view !== null,
    vector,
  };
}
