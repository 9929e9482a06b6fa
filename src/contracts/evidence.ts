// The evidence of a view, written beside it on the record as `evidence.<view>` by rca-validate,
// rca-generate and rca-summarize (never sent to a model): where each item's support is in the
// source text, how it matched, and which claim checks it failed; per view a grounding summary.
// src/views/evidence.ts computes it; these schemas document it for downstream tools.
import { z } from 'zod';

export const EvidenceSpan = z
  .strictObject({
    source: z
      .enum(['chunk', 'section_text', 'title', 'child'])
      .describe("chunk: offsets into the chunk's text (for a section, one of its chunks); section_text: into the section's joined text when its chunks cannot be told apart; title: a section title; child: a child section's summary"),
    id: z.string().nullable().describe('the chunk id, or the section id of a title or child summary; null where unknown'),
    start: z.number().int().describe('offset of the first character (UTF-16 code units, as JavaScript strings count)'),
    end: z.number().int().describe('offset after the last character'),
  })
  .describe('a span of source text that supports an item');
export type EvidenceSpan = z.infer<typeof EvidenceSpan>;

export const ItemEvidence = z
  .strictObject({
    field: z.string().describe('the view field, dotted for nested ones: "symptoms_outcomes", "entities.systems", "summary", "concepts"'),
    index: z.number().int().describe('position in the list; 0 for scope; for summary the sentence number'),
    role: z
      .enum(['claim', 'summary', 'entity', 'id', 'free'])
      .describe('claim: checked for support, numbers, ids, units, comparators, negation, entities; summary: scope, checked as a claim except that a description no clause supports is not flagged; entity: a system or component name; id: located only (its own check is ungrounded_equipment_id / ungrounded_concept); free: keywords and unknowns, located, never flagged, not counted'),
    match: z.enum(['exact', 'normalised', 'partial', 'none']).describe('exact: as written; normalised: after folding case, whitespace, punctuation, markdown and number formatting; partial: a clause holds at least 60% of its content words; none'),
    score: z.number().describe('1 for exact and normalised; otherwise the share of content words found in the best clause'),
    spans: z.array(EvidenceSpan).describe('where the support is; [] for none'),
    checks: z.array(z.string()).describe("the claim checks the item failed: the flags it adds to the view's flags"),
    model_check: z
      .strictObject({
        model: z.string(),
        supported: z.boolean().nullable().describe("the model's answer; null when none could be had"),
        error: z.string().nullable().describe('why there is no answer: a model error code, REPLY_INVALID or REPLY_NOT_JSON'),
      })
      .optional()
      .describe('with rca-validate --check-claims MODEL: whether the model finds the claim in the source'),
  })
  .describe('the evidence of one item of a view');
export type ItemEvidence = z.infer<typeof ItemEvidence>;

export const GroundingSummary = z
  .strictObject({
    items: z.number().int().describe('items counted (every role but free)'),
    exact: z.number().describe('share of counted items, 3 decimals'),
    normalised: z.number(),
    partial: z.number(),
    none: z.number(),
    entities: z.number().int().describe('entity names used: entity items, acronyms and "<modifier> <component>" phrases in claims'),
    novel_entities: z.number().int().describe('of those, names the source never mentions'),
    novel_entity_rate: z.number().nullable().describe('novel_entities / entities; null when there are none'),
    limited: z.literal(true).optional().describe('present when the source text is over 1,000,000 characters: items were located by exact match only, and the text-wide claim checks (units, comparators, negation, entities) were not run; numbers and ids still were'),
  })
  .describe('how the items of a view are supported');
export type GroundingSummary = z.infer<typeof GroundingSummary>;

export const ViewEvidence = z
  .strictObject({
    items: z.array(ItemEvidence),
    grounding: GroundingSummary,
  })
  .describe('evidence.<view>: where every item of the view is supported in its source text');
export type ViewEvidence = z.infer<typeof ViewEvidence>;
