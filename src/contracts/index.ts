// The registry of record kinds: one zod schema each, and the JSON Schema derived from it for
// downstream users (`rca schema`) and for Ollama's `format`.
import { z } from 'zod';
import { ChunkContext, ChunkInput, NerSeed } from './chunk.js';
import { ChromaRecord, WeaviateChunk, WeaviateSummary } from './export.js';
import { ViewEvidence } from './evidence.js';
import { RejectRecord } from './reject.js';
import { SectionRecord, SectionSummary } from './sections.js';
import { RcaFrame, RetrievalSummary, VIEW_SCHEMAS } from './views.js';
import type { JsonSchema } from './json.js';
import type { ViewType } from './vocabulary.js';

export const RECORD_KINDS = {
  chunk: { schema: ChunkInput, summary: 'a chunk as the upstream parser writes it (the fields the stages read; others pass through)' },
  chunk_context: { schema: ChunkContext, summary: 'the trusted provenance tag adds as `context`' },
  ner_seed: { schema: NerSeed, summary: 'the 18 NER lists tag adds as `ner_seed`' },
  retrieval_summary: { schema: RetrievalSummary, summary: 'the search-oriented view of a chunk' },
  rca_frame: { schema: RcaFrame, summary: 'the root-cause-analysis view of a chunk' },
  section: { schema: SectionRecord, summary: 'a node of a section tree, as rca-count-sections writes it' },
  section_summary: { schema: SectionSummary, summary: 'the summary and key concepts of a section' },
  view_evidence: { schema: ViewEvidence, summary: 'evidence.<view>: where each item of a view is supported in its source text' },
  reject: { schema: RejectRecord, summary: 'a refused input line, as written by --rejects' },
  weaviate_summary: { schema: WeaviateSummary, summary: 'a section summary as a Weaviate Summary object (rca export)' },
  weaviate_chunk: { schema: WeaviateChunk, summary: 'a chunk as a Weaviate Chunk object (rca export)' },
  chroma_record: { schema: ChromaRecord, summary: 'a chunk view or section summary as a Chroma record (rca export --target chroma)' },
} as const satisfies Record<string, { schema: z.ZodType; summary: string }>;
export type RecordKind = keyof typeof RECORD_KINDS;

export function isRecordKind(name: string): name is RecordKind {
  return Object.hasOwn(RECORD_KINDS, name);
}


/** JSON Schema (draft 2020-12) of a schema, without zod's ±2^53 bounds on every integer. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    override(ctx) {
      const js = ctx.jsonSchema as JsonSchema;
      // "any integer" is what the contracts mean; the bounds only add grammar states in Ollama.
      if (js.minimum === Number.MIN_SAFE_INTEGER) delete js.minimum;
      if (js.maximum === Number.MAX_SAFE_INTEGER) delete js.maximum;
    },
  }) as JsonSchema;
}

/** The schema to send as Ollama's `format` for a view (enforced by its grammar; still validate). */
export function viewFormatSchema(view: ViewType): JsonSchema {
  const { $schema: _ignored, ...schema } = jsonSchemaOf(VIEW_SCHEMAS[view]);
  return schema;
}
