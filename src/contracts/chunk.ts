import { z } from 'zod';
import { AUTHORITY_LEVELS, DOC_SUBTYPES, DOC_TYPES, NER_SEED_KEYS } from './vocabulary.js';

// Every field a stage reads from a chunk (src/tagging/chunk-fields.ts is the one reader; a test
// holds its CHUNK_FIELDS equal to these keys). Types are what is accepted: a value of another type
// is dropped and flagged (`<field>_dropped` in tag_flags), a coerced one is flagged `<field>_coerced`.
const id = (use: string) => z.union([z.string(), z.number()]).optional().describe(use);
const text = (use: string) => z.string().optional().describe(use);
const pageNumber = (use: string) =>
  z.union([z.number().int(), z.string()]).nullable().optional()
    .describe(`${use}; a string of digits is coerced ("3" → 3), a negative, fractional or overflowing number is dropped, null is unknown`);
const derived = (use: string) => z.unknown().optional().describe(use);

/** What the stages read from a chunk. Loose: every field another stage owns survives untouched. */
export const ChunkInput = z
  .looseObject({
    chunk_id: id('the chunk id cited by every view (a number becomes its string); missing: tag_flags missing_chunk_id'),
    provenance: z
      .looseObject({ chunk_id: id("DACKAR's processed records: the chunk id, when chunk_id is absent") })
      .optional()
      .describe("DACKAR's processed records: the chunk's provenance (provenance.chunk_id)"),
    record_id: id("DACKAR's processed records: the chunk id when chunk_id and provenance.chunk_id are absent"),
    doc_id: id('the document id (a number becomes its string); with the section path it makes section_id; missing: missing_doc_id'),
    document: z
      .looseObject({ sourceId: id('library_rag: the document id, when doc_id is absent') })
      .optional()
      .describe('library_rag: the document the chunk belongs to (document.sourceId)'),
    doc_type: text('SOP, CR, WO, ECA or OTHER (case-insensitive); kept under --doc-type auto, else detected per document'),
    doc_name: text('file name: evidence for doc-type detection'),
    source_path: text('source file path: evidence for doc-type detection'),
    section_segments: z.array(z.string()).optional().describe('the section path as headings, never split; wins over every string path'),
    section_path: text('the section path, headings joined with " > "; normalised (markdown, NFC, spaces) and cut at --max-depth'),
    sectionPath: text('library_rag: the section path, when section_path is absent'),
    section: text('a lone heading, used as a one-heading path when no path is given (cited and filed under the same section_id)'),
    section_title: text('the same, after section'),
    hierarchy: z
      .looseObject({
        part: z.string().nullable().optional().describe('the level-1 heading'),
        chapter: z.string().nullable().optional().describe('the level-2 heading'),
        section: z.string().nullable().optional().describe('the level-3 heading'),
        subsection: z.string().nullable().optional().describe('the heading of level 4 or deeper'),
      })
      .optional()
      .describe("library_rag v1: the chunk's headings; those set make its path (part > chapter > section > subsection) when no path or heading is given"),
    title: text("library_rag v1: the chunk's heading, its path when its hierarchy names none (read only with hierarchy)"),
    sectionLevel: z.number().int().optional().describe("library_rag: the level of the chunk's heading: where a TOC places a chunk that names only its heading"),
    section_level: z.number().int().optional().describe('the same, when sectionLevel is absent'),
    level: z.number().int().optional().describe('library_rag v1: the same, read only with hierarchy'),
    text: text('the chunk text: NER seed, grounding and section text'),
    raw_text: text('the chunk text when text is absent'),
    embedding_text: z
      .union([z.string(), z.looseObject({})])
      .optional()
      .describe("DACKAR's processed records: the chunk text when text and raw_text are absent (rca-summarize's own object of texts is not read). A string is kept by tag as upstream_embedding_text, and read there"),
    page_start: pageNumber('first page, cited in context.page_start'),
    page_end: pageNumber('last page, cited in context.page_end'),
    page: pageNumber("a table's page: stands in for page_start and page_end when they are unknown"),
    orderIndex: z.number().optional().describe('library_rag: position in the document; count-sections orders a document by it when every chunk has one'),
    order_index: z.number().optional().describe('the same, when orderIndex is absent'),
    section_id: derived("written by tag; count-sections flags section_id_mismatch when it differs from its own. An input value not in tag's shape is kept as upstream_section_id"),
    context: derived("written by tag. An input value not in tag's shape (e.g. a RAG format's context text) is kept as upstream_context, flagged context_kept_as:upstream_context"),
    ner_seed: derived("written by tag; null is replaced. Any other value not in tag's shape is kept as upstream_ner_seed"),
    tag_flags: derived("written by tag. An input value not in tag's shape is kept as upstream_tag_flags"),
  })
  .describe('chunk: a chunk as the upstream parser writes it; the fields the stages read (all optional), every other field passes through');
export type ChunkInput = z.infer<typeof ChunkInput>;

/** The trusted provenance of a chunk: the model never decides any of these. Strict: a context
 *  with keys of its own was not written by tag. */
export const ChunkContext = z.strictObject({
  doc_id: z.string(),
  doc_type: z.enum(DOC_TYPES),
  doc_subtype: z
    .enum(DOC_SUBTYPES)
    .nullable()
    .optional()
    .describe("the document's finer kind, from its own form (EN, LER, PART21, IR, IN, GL, BULLETIN, CIRCULAR, NUREG, EOP, PROC); null when the form does not say. rca-tag always writes it; a context written before it existed has none"),
  chunk_id: z.string(),
  section_path: z.string(),
  page_start: z.number().int().nullable(),
  page_end: z.number().int().nullable(),
  authority_level: z.enum(AUTHORITY_LEVELS),
  section_role: z.string(),
});
export type ChunkContext = z.infer<typeof ChunkContext>;

export const Measurement = z.strictObject({
  value: z.string().describe('the number exactly as written, e.g. "1175", "2,250", "100-120"'),
  unit: z.string().describe('the unit exactly as written, e.g. "psig", "%", "°F"'),
  text: z.string().describe('the whole matched span'),
});
export type Measurement = z.infer<typeof Measurement>;

export const LabelledSpan = z.strictObject({
  text: z.string(),
  sub_label: z.string(),
});
export type LabelledSpan = z.infer<typeof LabelledSpan>;

/** A mention the text rules out ("no evidence of fouling", "did not trip", "fouling was ruled out"). */
export const NegatedMention = z.strictObject({
  text: z.string().describe('the mention as written'),
  kind: z.string().describe('the seed list it would otherwise be in, e.g. "mechanisms", "outcomes"'),
  cue: z.string().describe('the negation cue as written, e.g. "no evidence of", "was ruled out"'),
});
export type NegatedMention = z.infer<typeof NegatedMention>;

const strings = z.array(z.string());
const shapes = {
  systems: strings,
  equipment_ids: strings,
  components: strings,
  mechanisms: strings,
  outcomes: strings,
  surveillance_actions: strings,
  maintenance_actions: strings,
  properties: strings,
  tools: strings,
  fm_ids: strings,
  doc_refs: strings,
  alarm_ids: strings,
  measurements: z.array(Measurement),
  temporal_refs: strings,
  temporal_relations: z.array(LabelledSpan),
  temporal_qualifiers: strings,
  locations: z.array(LabelledSpan),
  conjectures: strings,
} satisfies Record<(typeof NER_SEED_KEYS)[number], z.ZodType>;

/**
 * The NER seed: all 18 lists, always present, in NER_SEED_KEYS order; then `negated`, the
 * mentions found only inside a negated or ruled-out scope (never also in a positive list). rca-tag
 * always writes it; a seed written elsewhere may lack it.
 */
export const NerSeed = z.strictObject({ ...shapes, negated: z.array(NegatedMention).optional() });
export type NerSeed = z.infer<typeof NerSeed>;
