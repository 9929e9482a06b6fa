// rca index: writes chunk and section records into a search index (retrieval/index-store.ts), as a
// stage run by the runner: JSON Lines or documents in, streamed, a record that cannot be indexed
// is a reject with its line, nothing on stdout. A re-run or another shard into the same file
// replaces what it indexed before.
import type { Command } from './command.js';
import { runStageCommand, type StageCommandIO } from './stage-command.js';
import { indexedOf } from '../retrieval/index-records.js';
import { IndexError, IndexStore } from '../retrieval/index-store.js';
import { FatalError, UsageError } from '../runtime/exit-codes.js';
import { defineStage, type JsonObject, type Outcome } from '../runtime/stage.js';

export const indexStage = defineStage({
  name: 'index',
  summary: 'write chunk and section records into a search index: one SQLite file with BM25 full-text search and, when the records carry vectors, vector search',
  writes: 'nothing to stdout (the records go into --db FILE)',
  description: `Input: chunk records (rca-tag output, best after rca-summarize --combined, which adds the
views' embedding_text) and rca-count-sections records (best after rca-summarize --view
section_summary), in any order and any number of files; records after rca-embed also bring
their vectors.
Per chunk it keeps doc_id, chunk_id, section_id, the trusted context (doc type, section role,
authority, section path), its text and its views' text (embedding_text.combined, else the views'
texts), each searchable on its own (rca search --text). Per section: section_id, its parent,
path and title, and its summary with its concepts. Texts go into FTS5 tables (BM25 ranking,
Porter stemming); vectors into sqlite-vec tables, which take one model, text and prefix: a
record embedded otherwise is refused (EMBEDDING_MISMATCH). Without sqlite-vec for this platform
the vectors are left out with one message and keyword search works without them.
A chunk is known by (doc_id, chunk_id), a section by its section_id: indexing a record again
replaces it, so a re-run, a second shard or another file adds to one index without duplicates.
Several processes may index into one file at once (each writes in short transactions and waits
for the others). Refused: a chunk without chunk_id, doc_id or text, a section record without
section_id, doc_id or section_path, an embedding that is not rca-embed's.`,
  examples: [
    'rca index --db out/index.sqlite out/sample.summarized.jsonl out/sample.section-summaries.jsonl',
    'rca index --db out/corpus/index.sqlite out/corpus/*.summarized.jsonl',
  ],
  options: {
    db: { type: 'string', placeholder: 'FILE', writes: true, help: 'the index file (created when missing; records already in it are replaced)' },
  },
  create(options) {
    if (options.db === undefined) throw new UsageError('--db FILE names the index to write');
    let store: IndexStore;
    try {
      store = IndexStore.open(options.db, { create: true });
    } catch (err) {
      throw err instanceof IndexError ? new FatalError(err.message) : err;
    }
    const counts = { chunks: 0, sections: 0, added: 0, replaced: 0, vectors: 0, vectorsLeftOut: 0 };
    let noted = false;
    let final: { index: ReturnType<IndexStore['counts']>; bytes: number } | null = null;
    return {
      process(record: JsonObject): Outcome {
        const item = indexedOf(record);
        if ('reject' in item) return { reject: item.reject };
        let result;
        try {
          result = store.put(item);
        } catch (err) {
          return { fatal: err instanceof Error ? err.message : String(err) };
        }
        if ('reject' in result) return { reject: result.reject };
        counts[item.kind === 'chunk' ? 'chunks' : 'sections']++;
        counts[result.added ? 'added' : 'replaced']++;
        if (result.vector) counts.vectors++;
        else if (item.vector !== null) {
          counts.vectorsLeftOut++;
          // Said once, with the first record whose vector could not be kept.
          if (!noted) {
            noted = true;
            return { warnings: [store.vectorProblem ?? 'vectors left out'] };
          }
        }
        return {};
      },
      finish(): Outcome {
        try {
          store.commit();
          final = { index: store.counts(), bytes: store.fileBytes() };
        } catch (err) {
          return { fatal: err instanceof Error ? err.message : String(err) };
        }
        return {};
      },
      close() {
        store.close();
      },
      summary() {
        const total = final?.index ?? null;
        const lines = [`${counts.chunks} chunks and ${counts.sections} sections indexed (${counts.added} new, ${counts.replaced} replaced), ${counts.vectors} with vectors`];
        if (counts.vectorsLeftOut > 0) lines.push(`${counts.vectorsLeftOut} vectors left out: ${store.vectorProblem ?? ''}`);
        if (total !== null) lines.push(`${options.db} now holds ${total.chunks} chunks, ${total.sections} sections (${total.summarizedSections} summarised), ${total.chunkVectors} chunk vectors, ${total.sectionVectors} section vectors`);
        return lines;
      },
      stats: () => ({ ...counts, db: options.db, ...(final ?? {}) }),
    };
  },
});

export type IndexIO = StageCommandIO;

const command: Command = {
  name: 'index',
  summary: 'write chunk and section records into a search index with full-text and vector search (rca index --help)',
  run(io: IndexIO): Promise<number> {
    return runStageCommand(indexStage, 'rca index', io);
  },
};

export default command;
