// The objects rca export writes, built from one record at a time (pure): a count-sections record
// (with its section_summary view, when summarised) becomes a Weaviate Summary object, a chunk
// record a Weaviate Chunk object; for Chroma, a chunk's or section's embedding text becomes
// {id, document, metadata}. Summary and Chunk carry the same normalised sectionPath, so a
// Summary's chunks are the Chunk objects at its sectionPath or under it, by whole segments, and
// chunksCount is count-sections' total_count of that subtree.
import { createHash } from 'node:crypto';
import { vectorOf } from '../contracts/embedding-field.js';
import { chunkIdOf, chunkTextOf, docIdOf, orderOf, sectionPathOf, stringField } from '../tagging/chunk-fields.js';
import { normaliseSegments, PATH_SEPARATOR } from '../tagging/section-path.js';

type Json = Record<string, unknown>;

export type Built = { object: Json; summarised?: boolean } | { reject: { code: string; message: string } };

/** The document-level fields an export may draw on (a library_rag document's metadata). */
export interface DocumentMeta {
  /** Work.title as library_rag's ingest takes it: metadata.work, else original_title, else title. */
  title?: string;
  /** original_author, else author. */
  author?: string;
  language?: string;
  edition?: string;
}

export function documentMetaOf(metadata: unknown): DocumentMeta {
  if (!isObject(metadata)) return {};
  const out: DocumentMeta = {};
  const first = (...keys: string[]) => keys.map((k) => stringField(metadata[k])).find((v) => v !== undefined && v.trim() !== '');
  const title = first('work', 'original_title', 'title');
  const author = first('original_author', 'author');
  const language = first('language');
  const edition = first('edition');
  if (title !== undefined) out.title = title;
  if (author !== undefined) out.author = author;
  if (language !== undefined) out.language = language;
  if (edition !== undefined) out.edition = edition;
  return out;
}

/** The record's vector from rca-embed, with the text it embedded; null when it has none (or a malformed one, which the index refuses). */
function embeddedOf(record: Json): { vector: number[]; field: string; model: string } | null {
  const read = vectorOf(record);
  if ('reject' in read || read.value === null) return null;
  return { vector: read.value.vector, field: read.value.info.field, model: read.value.info.model };
}

export function isSectionRecord(record: Json): boolean {
  return record.kind === 'section';
}

/** A Weaviate Summary object from a count-sections record (summarised or not). */
export function weaviateSummary(record: Json): Built {
  const path = stringField(record.section_path);
  const docId = stringField(record.doc_id);
  const total = record.total_count;
  if (path === undefined || docId === undefined || typeof total !== 'number') {
    return { reject: { code: 'NOT_A_SECTION', message: 'a section record needs section_path, doc_id and total_count (rca-count-sections output)' } };
  }
  const view = isObject(record.section_summary) ? record.section_summary : null;
  const summary = view ? stringField(view.summary) : undefined;
  const concepts = view && Array.isArray(view.concepts) ? view.concepts.filter((c): c is string => typeof c === 'string') : [];
  const embedded = embeddedOf(record);
  return {
    summarised: summary !== undefined,
    object: {
      class: 'Summary',
      id: uuidOf('section', docId, path),
      properties: {
        sectionPath: path,
        title: stringField(record.title) ?? '',
        level: typeof record.level === 'number' ? record.level : normaliseSegments(path).length,
        text: summary ?? '',
        concepts,
        chunksCount: total,
        document: { sourceId: docId },
      },
      ...(embedded === null ? {} : { vector: embedded.vector }),
    },
  };
}

/**
 * A Weaviate Chunk object from a chunk record (tagged or not): exactly the properties of library_rag's
 * Chunk collection (schema.py), each of its type, "" / [] where the record has nothing for it.
 * summary and keywords are rca's own: the retrieval_summary view's scope and keywords_synonyms
 * (an upstream keyword list is not one: DACKAR's holds table separators). `position` is the
 * chunk's place among its document's chunks as read: its orderIndex when it states none.
 */
export function weaviateChunk(record: Json, meta: DocumentMeta, position: number): Built {
  const text = chunkTextOf(record);
  const docId = docIdOf(record);
  if (text === undefined) return { reject: { code: 'MISSING_TEXT', message: 'a chunk needs text (or raw_text, or embedding_text) to be a Chunk object' } };
  if (docId === undefined || docId === '') return { reject: { code: 'MISSING_DOC_ID', message: 'a chunk needs doc_id (or document.sourceId) to be a Chunk object' } };
  const rawPath = sectionPathOf(record);
  const segments = rawPath === undefined ? [] : normaliseSegments(rawPath);
  const chunkId = chunkIdOf(record);
  const work = isObject(record.work) ? record.work : {};
  const edition = (isObject(record.document) ? stringField(record.document.edition) : undefined) ?? meta.edition;
  const order = orderOf(record);
  const view = isObject(record.retrieval_summary) ? record.retrieval_summary : null;
  const properties: Json = {
    text,
    summary: (view && stringField(view.scope)) ?? '',
    sectionPath: segments.join(PATH_SEPARATOR),
    // Depth in the hierarchy, as library_rag's schema describes it: the Summary level of its section.
    sectionLevel: segments.length,
    chapterTitle: stringField(record.chapterTitle) ?? segments[0] ?? '',
    canonicalReference: stringField(record.canonicalReference) ?? '',
    unitType: stringField(record.unitType) ?? stringField(record.type) ?? '',
    keywords: (view && strings(view.keywords_synonyms)) ?? [],
    orderIndex: order !== null && Number.isSafeInteger(order) ? order : position,
    language: stringField(record.language) ?? meta.language ?? '',
    document: { sourceId: docId, edition: edition ?? '' },
    work: { title: stringField(work.title) ?? meta.title ?? '', author: stringField(work.author) ?? meta.author ?? '' },
  };
  const embedded = embeddedOf(record);
  return { object: { class: 'Chunk', id: uuidOf('chunk', docId, chunkId ?? `${order ?? position}:${text}`), properties, ...(embedded === null ? {} : { vector: embedded.vector }) } };
}

/** The embedding-text view a Chroma record carries: the one asked for, else the first there is. */
export function chromaRecord(record: Json, view: string | undefined): Built {
  const texts = isObject(record.embedding_text) ? record.embedding_text : null;
  const section = isSectionRecord(record);
  const chosen = view ?? (section ? 'section_summary' : texts && 'combined' in texts ? 'combined' : 'retrieval_summary');
  const document = texts ? stringField(texts[chosen]) : undefined;
  if (document === undefined || document === '') {
    return { reject: { code: 'NO_EMBEDDING_TEXT', message: `no embedding_text.${chosen} (run rca-flatten or rca-summarize first${section ? '; a section without a summary has none' : ''})` } };
  }
  // Only the vector of the very text exported goes with it: another text's would mislead a search.
  const found = embeddedOf(record);
  const embedded = found !== null && found.field === `embedding_text.${chosen}` ? found : null;
  const vectorPart = embedded === null ? {} : { embeddings: embedded.vector };
  const modelPart = embedded === null ? {} : { embedding_model: embedded.model };
  if (section) {
    const id = stringField(record.section_id);
    if (id === undefined) return { reject: { code: 'NOT_A_SECTION', message: 'a section record needs section_id' } };
    return {
      object: {
        id,
        document,
        metadata: scalars({
          kind: 'section', view: chosen, section_id: id, doc_id: record.doc_id, section_path: record.section_path,
          title: record.title, level: record.level, chunk_count: record.total_count, page_start: record.page_start, page_end: record.page_end,
          ...modelPart,
        }),
        ...vectorPart,
      },
    };
  }
  // The trusted provenance is tag's context: a record without it has no citations to carry.
  const context = isObject(record.context) ? record.context : null;
  const chunkId = context ? stringField(context.chunk_id) : undefined;
  if (!context || chunkId === undefined) return { reject: { code: 'NOT_TAGGED', message: 'a chunk needs the context rca-tag adds (its trusted citations) to be a Chroma record' } };
  // Chroma keeps one record per id: an empty one would stand for every chunk without an id.
  if (chunkId === '') return { reject: { code: 'MISSING_CHUNK_ID', message: 'a chunk without a chunk id (context.chunk_id is "") cannot be a Chroma record: give it chunk_id (or provenance.chunk_id, record_id) and tag it again' } };
  return {
    object: {
      // One view per export (metadata.view names it): the chunk id is the record's id.
      id: chunkId,
      document,
      metadata: scalars({
        kind: 'chunk', view: chosen, doc_id: context.doc_id, chunk_id: chunkId, doc_type: context.doc_type, section_path: context.section_path,
        page_start: context.page_start, page_end: context.page_end, authority_level: context.authority_level, section_role: context.section_role,
        section_id: record.section_id,
        ...modelPart,
      }),
      ...vectorPart,
    },
  };
}

/** A UUID (version 5 layout) from a SHA-1 of the parts: the same object gets the same id. */
function uuidOf(...parts: string[]): string {
  const h = createHash('sha1').update(JSON.stringify(['rca', ...parts]), 'utf8').digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined;
}

function scalars(fields: Json): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) out[k] = v;
  }
  return out;
}
