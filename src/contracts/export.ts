// What `rca export` writes: the objects library_rag's Weaviate ingest inserts (Summary and Chunk,
// each as a Weaviate batch object {class, id, properties}), and the records DACKAR's Chroma ingest
// adds ({id, document, metadata}). Strict: these go to another system's schema, so nothing else.
import { z } from 'zod';

const int = (meaning: string) => z.number().int().describe(meaning);
const uuid = z.string().describe('a deterministic UUID (from the document and section or chunk id), so a re-export replaces, not duplicates');

export const DocumentRef = z.strictObject({
  sourceId: z.string().describe('the document id (doc_id)'),
  edition: z.string().optional(),
});

export const WorkRef = z.strictObject({
  title: z.string().optional(),
  author: z.string().optional(),
  year: z.number().int().optional(),
  language: z.string().optional(),
  genre: z.string().optional(),
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
  text: z.string(),
  sectionPath: z.string().describe("the chunk's normalised section path: the link to its Summary objects"),
  sectionLevel: int('the number of path segments, or the level the chunk states'),
  chapterTitle: z.string().optional(),
  canonicalReference: z.string().optional(),
  unitType: z.string().optional(),
  keywords: z.array(z.string()),
  concepts: z.array(z.string()).optional(),
  language: z.string().optional(),
  orderIndex: int('position in the document').optional(),
  work: WorkRef.optional(),
  document: DocumentRef,
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
