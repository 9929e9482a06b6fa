// rca export: writes what the retrieval systems ingest, one JSON object a line. --target weaviate
// (default): library_rag's Summary objects from count-sections records (summarised by rca-summarize
// --view section_summary, or not) and its Chunk objects from chunk records, as Weaviate batch
// objects {class, id, properties}; --target chroma: DACKAR's {id, document, metadata} from the
// embedding text of chunks and sections. Records stream through the runner (JSON Lines or
// documents), so memory stays bounded; a record that cannot become an object is a reject.
import type { Command } from './command.js';
import { runStageCommand, type StageCommandIO } from './stage-command.js';
import { defineStage, type JsonObject, type Outcome, type RecordMeta } from '../runtime/stage.js';
import { SeenDocuments } from '../sections/seen-documents.js';
import { docIdOf } from '../tagging/chunk-fields.js';
import { DocumentPlacements } from '../tagging/toc-placement.js';
import { chromaRecord, documentMetaOf, isSectionRecord, weaviateChunk, weaviateSummary, type Built, type DocumentMeta } from '../export/objects.js';

export const exportStage = defineStage({
  name: 'export',
  summary: 'write the Weaviate Summary and Chunk objects (or Chroma records) of sections and chunks',
  description: `Input: rca-count-sections records (best after rca-summarize --view section_summary [--bottom-up])
and chunk records (best after rca-tag), in any order, from JSON Lines or a library_rag document.

--target weaviate (default) writes Weaviate batch objects {class, id, properties}:
  Summary  {sectionPath, title, level, text, concepts, chunksCount, document: {sourceId}} per section:
           text and concepts from its section_summary ("" and [] when it has none: a TOC section
           without chunks), chunksCount its subtree's chunks counted by whole path segments
           (total_count), title and level as the TOC states them when there is one;
  Chunk    {text, summary, sectionPath, sectionLevel, chapterTitle, canonicalReference, unitType,
           keywords, orderIndex, language, document: {sourceId, edition}, work: {title, author}}
           per chunk: exactly the properties of library_rag's Chunk collection, each written
           ("" or [] where unknown). summary and keywords are rca's own: the retrieval_summary
           view's scope and keywords_synonyms; sectionLevel the depth of its path (the level of its
           Summary); orderIndex its own, else its place among its document's chunks as read.
  Both carry the normalised sectionPath: a Summary's chunks are the Chunk objects at its path or
  under it. work {title, author}, language and edition come from the chunk, else from --document
  FILE's metadata (or the metadata of the document read as input: work, else original_title,
  else title; original_author, else author, as library_rag's ingest reads them). ids are UUIDs
  derived from the document and section or chunk id, so a re-export replaces rather than
  duplicates.
--target chroma writes {id, document, metadata}: the document text is embedding_text.<--view>
  (default: section_summary for sections; combined, else retrieval_summary, for chunks), the
  metadata the trusted citations (tag's context; a section's id, path, pages and chunk_count),
  scalars only. Records without that embedding text are refused (NO_EMBEDDING_TEXT), and chunks
  without a chunk id (MISSING_CHUNK_ID).
No id is written twice: a record whose object has the id of one written before (two records with
one chunk or section id) is refused (DUPLICATE_ID), for either target.
Records embedded by rca-embed bring their vectors, for a store without a vectoriser: a Weaviate
object gets vector, a Chroma record embeddings (and metadata.embedding_model) when the vector
is of the text it exports (embedding.input.field is embedding_text.<view>).
Schemas: rca schema weaviate_summary | weaviate_chunk | chroma_record.`,
  examples: [
    'rca-tag doc_chunks.json | tee tagged.jsonl | rca-count-sections --toc doc_chunks.json \\\n    | rca-summarize --view section_summary --bottom-up --backend extractive > sections.jsonl\n  rca export --document doc_chunks.json sections.jsonl tagged.jsonl > weaviate.jsonl',
    'rca export --target chroma summarized.jsonl > chroma.jsonl',
  ],
  options: {
    target: { type: 'string', placeholder: 'TARGET', default: 'weaviate', choices: ['weaviate', 'chroma'], help: 'which ingest to write for' },
    document: { type: 'string', placeholder: 'FILE', help: "take work {title, author}, language and edition from this document's metadata" },
    view: { type: 'string', placeholder: 'VIEW', help: 'with --target chroma: the embedding_text key to write (default: see above)' },
    only: { type: 'string', placeholder: 'KIND', choices: ['sections', 'chunks'], help: 'write only the objects of sections or of chunks (the other records are skipped and counted)' },
  },
  create(options, setup) {
    const fixed = options.document ? documentMetaOf(setup.readDocumentFields(options.document, ['metadata']).fields.metadata) : null;
    const metaOf = new WeakMap<object, DocumentMeta>();
    const counts = { summaries: 0, summarised: 0, chunks: 0, chroma: 0, skipped: 0 };
    // An id written twice is an object lost in the store (Weaviate and Chroma keep the last):
    // the second is refused. Ids are held as 64-bit fingerprints, 16 bytes each at most.
    const ids = new SeenDocuments();
    // A chunk's place among its document's chunks as read: its orderIndex when it states none.
    const positions = new Map<string, number>();
    const placements = new DocumentPlacements();
    const take = (built: Built, count: () => void): Outcome => {
      if ('reject' in built) return { reject: built.reject };
      const id = built.object.id as string;
      if (ids.has(id)) return { reject: { code: 'DUPLICATE_ID', message: `id ${JSON.stringify(id)} was written already (two records with one chunk or section id); this one is not written` } };
      ids.add(id);
      count();
      return { records: [built.object] };
    };
    return {
      documentFields: ['metadata', 'toc'],
      process(input: JsonObject, meta: RecordMeta): Outcome {
        // A library_rag v2 chunk read from its document is placed in its TOC as rca-tag places it.
        const record = placements.place(input, meta.document);
        const section = isSectionRecord(record);
        if (options.only && (options.only === 'sections') !== section) {
          counts.skipped++;
          return {};
        }
        if (options.target === 'chroma') return take(chromaRecord(record, options.view), () => counts.chroma++);
        if (section) {
          const built = weaviateSummary(record);
          return take(built, () => {
            counts.summaries++;
            if ('summarised' in built && built.summarised) counts.summarised++;
          });
        }
        let docMeta = fixed;
        if (!docMeta && meta.document) {
          docMeta = metaOf.get(meta.document) ?? documentMetaOf(meta.document.fields.metadata);
          metaOf.set(meta.document, docMeta);
        }
        const docId = docIdOf(record) ?? '';
        const position = positions.get(docId) ?? 0;
        positions.set(docId, position + 1);
        return take(weaviateChunk(record, docMeta ?? {}, position), () => counts.chunks++);
      },
      summary() {
        const skipped = counts.skipped ? `; ${counts.skipped} records skipped (--only ${options.only})` : '';
        if (options.target === 'chroma') return [`${counts.chroma} Chroma records${skipped}`];
        const bare = counts.summaries - counts.summarised;
        return [`${counts.summaries} Summary objects (${bare} without a summary: text ""), ${counts.chunks} Chunk objects${skipped}`];
      },
      stats: () => ({ ...counts }),
    };
  },
});

export type ExportIO = StageCommandIO;

const command: Command = {
  name: 'export',
  summary: 'write the Weaviate Summary/Chunk objects or Chroma records of sections and chunks (rca export --help)',
  run(io: ExportIO): Promise<number> {
    return runStageCommand(exportStage, 'rca export', io);
  },
};

export default command;
