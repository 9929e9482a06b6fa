// The section records rca-count-sections writes, and the section_summary view a model writes for
// each of them. As for the chunk views, the view's schema is the one definition of its prompt
// skeleton, the JSON Schema sent as `format`, its shape checks and `rca schema section_summary`.
import { z } from 'zod';
import { Citations } from './views.js';

const count = (meaning: string) => z.number().int().describe(meaning);
const page = z.number().int().nullable();
const order = z.number().nullable();

/** Loose: it is the input of rca-summarize --view section_summary, whose fields pass through. */
export const SectionRecord = z
  .looseObject({
    kind: z.literal('section'),
    section_id: z.string().describe('the id rca-tag puts on each chunk of the section (document and normalised path)'),
    doc_id: z.string(),
    section_path: z.string().describe('the normalised segments joined with " > "; "" for the unsectioned node'),
    segments: z.array(z.string()),
    title: z.string().describe('the last segment; "(unsectioned)" for the chunks without a path'),
    level: count('depth: 1 for a top-level heading, 0 for the unsectioned node'),
    parent_id: z.string().nullable(),
    parent_path: z.string().nullable(),
    direct_count: count("the section's own chunks"),
    total_count: count('the chunks of the section and all its subsections'),
    child_count: count('direct subsections'),
    chunk_ids: z.array(z.string()).describe("the section's own chunks, in input order"),
    page_start: page,
    page_end: page,
    first_order: order,
    last_order: order,
    text: z.string().describe("the section's own chunks' text, joined, up to --max-text-chars"),
    text_truncated: z.boolean(),
    flags: z.array(z.string()).describe('unsectioned, missing_doc_id, missing_chunk_id, missing_text, section_id_mismatch, section_path_folded, duplicate_chunk_id'),
  })
  .describe("section: one node of a document's section tree, children before their parent, as rca-count-sections writes it");
export type SectionRecord = z.infer<typeof SectionRecord>;

export const SectionSummary = z
  .strictObject({
    section_id: z.string().describe('trusted: the section id from CONTEXT'),
    doc_id: z.string().describe('trusted: the document id from CONTEXT'),
    section_path: z.string().describe('trusted: the section path from CONTEXT'),
    view_type: z.literal('section_summary'),
    summary: z.string().describe('what the section covers in 100 to 200 words, extractive and faithful to SECTION_TEXT (and CHILD_SUMMARIES when given)'),
    concepts: z.array(z.string()).describe('the 5 to 10 key concepts of the section, each an exact phrase of SECTION_TEXT (or CHILD_SUMMARIES)'),
    chunk_count: count('trusted: the chunks of the section and its subsections, from CONTEXT'),
    citations: Citations,
  })
  .describe('section_summary: a summary and the key concepts of one section, to search sections before their chunks');
export type SectionSummary = z.infer<typeof SectionSummary>;
