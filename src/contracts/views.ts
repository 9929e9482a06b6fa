// The two views a model writes for each chunk. These schemas are the single definition from
// which the prompt skeleton, the JSON Schema sent to Ollama (`format`), the validator's checks
// and `rca schema` are all derived. Only constructs Ollama's grammar converter supports: objects,
// string arrays, strings, enums, literals and nullable integers (no regex or string formats).
import { z } from 'zod';
import { ChunkContext } from './chunk.js';
import { DOC_TYPES } from './vocabulary.js';
import type { ViewType } from './vocabulary.js';

const strings = (meaning: string) => z.array(z.string()).describe(meaning);

/** Where the chunk comes from: copied from the trusted ChunkContext, never from the model. */
export const Citations = z
  .strictObject(ChunkContext.pick({ doc_id: true, section_path: true, page_start: true, page_end: true }).shape)
  .describe('trusted provenance copied from CONTEXT; overwritten after generation, whatever the model wrote');
export type Citations = z.infer<typeof Citations>;

const trusted = {
  chunk_id: z.string().describe('trusted: the chunk id from CONTEXT'),
  doc_type: z.enum(DOC_TYPES).describe('trusted: the document type from CONTEXT'),
};

export const RetrievalSummary = z
  .strictObject({
    ...trusted,
    view_type: z.literal('retrieval_summary'),
    scope: z.string().describe('one or two sentences saying what the chunk covers, in the words of CHUNK_TEXT (at least 15 characters)'),
    entities: z
      .strictObject({
        systems: strings('plant systems named in CHUNK_TEXT'),
        equipment_ids: strings('equipment identifiers exactly as written in CHUNK_TEXT, e.g. "P-101A"; each must occur in it'),
        components: strings('components and parts named in CHUNK_TEXT'),
      })
      .describe('what the chunk is about'),
    symptoms_outcomes: strings('symptoms, failures and outcomes stated in CHUNK_TEXT'),
    mechanisms: strings('degradation or failure mechanisms stated in CHUNK_TEXT'),
    diagnostics: strings('checks, tests, inspections and measurements described'),
    corrective_actions: strings('actions taken, planned or required'),
    numbers_limits: strings('values, limits and setpoints with their units, exactly as written; every number must occur in CHUNK_TEXT'),
    keywords_synonyms: strings('at least 3 search terms and synonyms a user might type to find this chunk'),
    unknowns: strings('short notes on what CHUNK_TEXT leaves open or could not fill'),
    citations: Citations,
  })
  .describe('retrieval_summary: a search-oriented summary of one chunk');
export type RetrievalSummary = z.infer<typeof RetrievalSummary>;

export const RcaFrame = z
  .strictObject({
    ...trusted,
    view_type: z.literal('rca_frame'),
    observed: strings('what CHUNK_TEXT states happened, was found or is required'),
    hypotheses: strings('possible causes, only where CHUNK_TEXT states them'),
    tests_to_confirm: strings('checks, tests and measurements that confirm or refute a cause or requirement'),
    candidate_actions: strings('actions taken, planned, recommended or allowed'),
    constraints: strings('holds, cautions, prerequisites, limits, assumptions and limitations'),
    citations: Citations,
  })
  .describe('rca_frame: the root-cause-analysis reading of one chunk');
export type RcaFrame = z.infer<typeof RcaFrame>;

export const VIEW_SCHEMAS = {
  retrieval_summary: RetrievalSummary,
  rca_frame: RcaFrame,
} as const satisfies Record<ViewType, z.ZodObject>;

export type View = RetrievalSummary | RcaFrame;
