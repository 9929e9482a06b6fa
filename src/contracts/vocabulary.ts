// Zod-free constants shared by the schemas and by hot-path code (tag must not pay zod's
// import cost at start-up). The schemas in this folder are built from these lists, so the
// vocabulary is still declared exactly once.

export const DOC_TYPES = ['SOP', 'CR', 'WO', 'ECA', 'OTHER'] as const;
export type DocType = (typeof DOC_TYPES)[number];

/**
 * The finer kind of a document, from its own form (tagging/doc-type.ts): NRC event notification,
 * Licensee Event Report, 10 CFR Part 21 / 50.55(e) report, inspection report or finding,
 * information notice, generic letter, bulletin, circular, NUREG, emergency or abnormal operating
 * procedure, other plant procedure. Null in a context when the form does not say. The five doc
 * types still drive the prompts.
 */
export const DOC_SUBTYPES = ['EN', 'LER', 'PART21', 'IR', 'IN', 'GL', 'BULLETIN', 'CIRCULAR', 'NUREG', 'EOP', 'PROC'] as const;
export type DocSubtype = (typeof DOC_SUBTYPES)[number];

export const AUTHORITY_LEVELS = ['mandatory', 'guidance', 'informational', 'unknown'] as const;
export type AuthorityLevel = (typeof AUTHORITY_LEVELS)[number];

/** The 18 NER seed fields, in the order every record and prompt uses. */
export const NER_SEED_KEYS = [
  'systems',
  'equipment_ids',
  'components',
  'mechanisms',
  'outcomes',
  'surveillance_actions',
  'maintenance_actions',
  'properties',
  'tools',
  'fm_ids',
  'doc_refs',
  'alarm_ids',
  'measurements',
  'temporal_refs',
  'temporal_relations',
  'temporal_qualifiers',
  'locations',
  'conjectures',
] as const;

/** Seed fields filled from the gazetteer (lexicon labels route into these). */
export const LEXICON_FIELDS = [
  'systems',
  'components',
  'mechanisms',
  'outcomes',
  'surveillance_actions',
  'maintenance_actions',
  'properties',
  'tools',
] as const;
export type LexiconField = (typeof LEXICON_FIELDS)[number];

/** Section roles per doc type, in rule order (DESIGN.md §2). `unknown` when nothing matches. */
export const SECTION_ROLES = {
  SOP: ['purpose', 'scope', 'references', 'definitions', 'preconditions', 'constraints', 'steps', 'acceptance', 'records', 'attachments'],
  CR: ['header', 'description', 'immediate_actions', 'impact', 'cause_statement', 'corrective_actions', 'evidence', 'reportability', 'previous_events'],
  WO: ['header', 'task', 'steps', 'as_found', 'work_performed', 'as_left', 'verification', 'parts_tools', 'closeout'],
  ECA: ['event_summary', 'timeline', 'evidence_items', 'rationale', 'causal_factors', 'actions', 'lessons'],
  // NRC inspection reports and generic communications (information notices, generic letters,
  // bulletins, circulars): the parts their standard formats have.
  OTHER: ['header', 'summary', 'purpose', 'description', 'discussion', 'inspection_scope', 'finding', 'assessment', 'enforcement', 'corrective_actions', 'requested_actions', 'references', 'contacts'],
} as const satisfies Record<DocType, readonly string[]>;

/** View fields the model never decides: stamped from the ChunkContext before any check. */
export const TRUSTED_KEYS = ['chunk_id', 'doc_type', 'view_type', 'citations'] as const;

/** Section summary fields the model never decides: stamped from the section record before any check. */
export const SECTION_TRUSTED_KEYS = ['section_id', 'doc_id', 'section_path', 'view_type', 'chunk_count', 'citations'] as const;

/**
 * How prompts are laid out. compact: the model is asked for the content fields only, everything
 * that does not depend on the chunk comes first (for the engine's prefix cache), the NER seed holds
 * only its non-empty lists. dackar: the seed's own layout (DESIGN.md §4), the full view asked for,
 * kept so the saving can be measured against it in one run.
 */
export const PROMPT_STYLES = ['compact', 'dackar'] as const;
export type PromptStyle = (typeof PROMPT_STYLES)[number];

/** The chunk views: the views generate writes for each tagged chunk, in canonical order. */
export const VIEW_TYPES = ['retrieval_summary', 'rca_frame'] as const;
export type ViewType = (typeof VIEW_TYPES)[number];

/** The view of a section (rca-count-sections records). */
export const SECTION_VIEW = 'section_summary';

/** Every view, whatever records it is written on. */
export const VIEW_NAMES = [...VIEW_TYPES, SECTION_VIEW] as const;
export type ViewName = (typeof VIEW_NAMES)[number];

export function isViewType(value: unknown): value is ViewType {
  return (VIEW_TYPES as readonly unknown[]).includes(value);
}
