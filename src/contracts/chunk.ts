import { z } from 'zod';
import { AUTHORITY_LEVELS, DOC_TYPES, NER_SEED_KEYS } from './vocabulary.js';

/** What tag reads from a chunk. Loose: every field another stage owns survives untouched. */
export const ChunkInput = z.looseObject({
  chunk_id: z.string().optional(),
  doc_id: z.string().optional(),
  doc_type: z.string().optional(),
  doc_name: z.string().optional(),
  source_path: z.string().optional(),
  section_title: z.string().optional(),
  section_path: z.string().optional(),
  sectionPath: z.string().optional(),
  text: z.string().optional(),
  raw_text: z.string().optional(),
  page_start: z.number().int().nullable().optional(),
  page_end: z.number().int().nullable().optional(),
});
export type ChunkInput = z.infer<typeof ChunkInput>;

/** The trusted provenance of a chunk: the model never decides any of these. Strict: a context
 *  with keys of its own was not written by tag. */
export const ChunkContext = z.strictObject({
  doc_id: z.string(),
  doc_type: z.enum(DOC_TYPES),
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
