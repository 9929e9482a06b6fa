// What `rca export` writes: the objects library_rag's Weaviate ingest inserts (Summary and Chunk,
// each as a Weaviate batch object {class, id, properties}), and the records DACKAR's Chroma ingest
// adds ({id, document, metadata}). Strict: these go to another system's schema, so nothing else.
import { z } from 'zod';

const int = (meaning: string) => z.number().int().describe(meaning);
const uuid = z.string().describe('a deterministic UUID (from the document and section or chunk id), so a re-export replaces, not duplicates');

// The properties of library_rag's Weaviate collections, exactly (generations/library_rag/schema.py:
// create_chunk_collection, create_summary_collection): names, and types TEXT → string, INT →
// integer, TEXT_ARRAY → string[], OBJECT → its nested properties. Every property is written.
export const DocumentRef = z.strictObject({
  sourceId: z.string().describe('the document id (doc_id; a library_rag document\'s own "document" name)'),
  edition: z.string().describe('the edition ("" when unknown)'),
});

export const WorkRef = z.strictObject({
  title: z.string().describe('the work title ("" when unknown)'),
  author: z.string().describe('the author ("" when unknown)'),
});

export const WeaviateSummaryProperties = z.strictObject({
  sectionPath: z.string().describe('the normalised section path, " > "-joined: the Chunk objects of the section have the same sectionPath or one under it'),
  title: z.string().describe('the section title (as the TOC states it, when there is one)'),
  level: int('the hierarchy level (as the TOC states it, when there is one)'),
  text: z.string().describe('the section summary ("" when the section has none: no text of its own and no summarised subsection)'),
  concepts: z.array(z.string()).describe("the section summary's key concepts"),
  chunksCount: int('the chunks of the section and its subsections, counted by whole path segments ("CP 5.314" is not inside "CP 5.31")'),
  document: z.strictObject({ sourceId: z.string() }),
});

const vector = z.array(z.number()).describe("the record's embedding.vector (rca-embed), for a collection without a vectoriser").optional();

export const WeaviateSummary = z
  .strictObject({ class: z.literal('Summary'), id: uuid, properties: WeaviateSummaryProperties, vector })
  .describe('weaviate_summary: one section summary as a Weaviate batch object of the Summary collection');
export type WeaviateSummary = z.infer<typeof WeaviateSummary>;

export const WeaviateChunkProperties = z.strictObject({
  text: z.string().describe('the chunk text'),
  summary: z.string().describe("the chunk's retrieval_summary scope (\"\" before rca-summarize)"),
  sectionPath: z.string().describe("the chunk's normalised section path: the link to its Summary objects"),
  sectionLevel: int("the depth of the chunk's section path (1 = top level), as library_rag's schema describes it: the level of its Summary"),
  chapterTitle: z.string().describe('the chunk\'s chapterTitle, else the first segment of its path'),
  canonicalReference: z.string().describe('the chunk\'s canonicalReference ("" when none)'),
  unitType: z.string().describe('the chunk\'s unitType, else its type ("main_content", "TextChunk", "Table", …)'),
  keywords: z.array(z.string()).describe("the retrieval_summary view's keywords_synonyms ([] before rca-summarize)"),
  orderIndex: int("the chunk's orderIndex, else its place among its document's chunks as read (0-based)"),
  language: z.string().describe('the chunk\'s language, else the document metadata\'s ("" when unknown)'),
  document: DocumentRef,
  work: WorkRef,
});

export const WeaviateChunk = z
  .strictObject({ class: z.literal('Chunk'), id: uuid, properties: WeaviateChunkProperties, vector })
  .describe('weaviate_chunk: one chunk as a Weaviate batch object of the Chunk collection');
export type WeaviateChunk = z.infer<typeof WeaviateChunk>;

const text = z.string().optional();
const whole = z.number().int().optional();

/** Chroma metadata: scalars only, and a key left out rather than null. */
export const ChromaMetadata = z.strictObject({
  kind: z.enum(['chunk', 'section']),
  view: z.string().describe('the embedding_text key the document text is'),
  doc_id: text,
  chunk_id: text,
  section_id: text,
  section_path: text,
  doc_type: text,
  authority_level: text,
  section_role: text,
  title: text,
  level: whole,
  chunk_count: whole.describe("a section's chunks, counted by whole path segments"),
  page_start: whole,
  page_end: whole,
  embedding_model: text.describe('with embeddings: the model that made them (rca-embed)'),
});

export const ChromaRecord = z
  .strictObject({
    id: z.string().describe('the chunk id, or the section id for a section summary'),
    document: z.string().describe('the embedding text of the view (embedding_text.<view>)'),
    metadata: ChromaMetadata.describe('the trusted citations and the view; scalars only, nulls left out, as Chroma requires'),
    embeddings: z.array(z.number()).describe("the vector of the document text (the record's embedding.vector, when rca-embed embedded that same text), for a collection without an embedding function").optional(),
  })
  .describe("chroma_record: one chunk view or section summary as DACKAR's Chroma ingest adds it");
export type ChromaRecord = z.infer<typeof ChromaRecord>;
