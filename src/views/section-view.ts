// The section_summary view: what it needs of a section record, its shape (read from the JSON
// Schema generated from src/contracts/sections.ts), its skeleton with the trusted fields filled,
// and the stamping of those fields (its embedding text is its kind's flatten layout). Zod-free, like the chunk views' modules.
import { jsonSchemaFor } from '../contracts/checkers.js';
import { SECTION_TRUSTED_KEYS, SECTION_VIEW } from '../contracts/vocabulary.js';
import type { SectionSummary } from '../contracts/sections.js';
import type { JsonObject } from '../contracts/json.js';
import { shapeOf, type ObjectShape } from './view-shape.js';
import { citationDifferences, contentSkeleton, emptyValue, withTrustedFields } from './view-skeleton.js';

export const SECTION_SUMMARY_SHAPE = shapeOf(jsonSchemaFor(SECTION_VIEW)) as ObjectShape;

/** What the view needs of a section record (rca-count-sections output). */
export interface SectionInput {
  section_id: string;
  doc_id: string;
  section_path: string;
  title: string;
  level: number;
  parent_id: string | null;
  child_count: number;
  /** The chunks of the section and its subsections: the view's chunk_count. */
  total_count: number;
  page_start: number | null;
  page_end: number | null;
  /** The section's own text (its direct chunks'). */
  text: string;
  /** Its direct chunks, in input order: where evidence spans in `text` point. */
  chunk_ids?: readonly string[];
}

/** A finished child's contribution to its parent's prompt (--bottom-up). */
export interface ChildSummary {
  title: string;
  summary: string;
  /** The child's section id: where evidence spans in its summary point. */
  section_id?: string;
}

/** Fields the model never decides: stamped from the section record before any check. */
type SectionTrustedKey = (typeof SECTION_TRUSTED_KEYS)[number];

function sectionTrustedFields(section: SectionInput): Record<SectionTrustedKey, unknown> {
  const citationsShape = SECTION_SUMMARY_SHAPE.fields.get('citations');
  const citations: JsonObject = {};
  if (citationsShape?.kind === 'object') {
    for (const key of citationsShape.fields.keys()) citations[key] = (section as unknown as Record<string, unknown>)[key];
  }
  return {
    section_id: section.section_id,
    doc_id: section.doc_id,
    section_path: section.section_path,
    view_type: SECTION_VIEW,
    chunk_count: section.total_count,
    citations,
  };
}

/** Every key in contract order, empty values of the right type, the trusted fields filled: the prompt's OUTPUT JSON. */
export function emptySectionSummary(section: SectionInput): SectionSummary {
  const skeleton = emptyValue(SECTION_SUMMARY_SHAPE) as JsonObject;
  Object.assign(skeleton, sectionTrustedFields(section));
  return skeleton as SectionSummary;
}

/** The skeleton of what the model is asked to write (compact prompts): the content fields alone. */
export function sectionContentSkeleton(): JsonObject {
  return contentSkeleton(SECTION_SUMMARY_SHAPE, SECTION_TRUSTED_KEYS);
}

/** A reply of content fields alone with the trusted fields put in their contract places (see withTrustedFields). */
export function sectionReplyAsView(reply: JsonObject, section: SectionInput): JsonObject {
  return withTrustedFields(reply, SECTION_SUMMARY_SHAPE, sectionTrustedFields(section));
}

/** Overwrites the trusted fields from the section record, in place; returns the paths whose stored value differed. */
export function stampSectionProvenance(obj: JsonObject, section: SectionInput): string[] {
  const trusted = sectionTrustedFields(section);
  const fixed: string[] = [];
  for (const key of SECTION_TRUSTED_KEYS) {
    const want = trusted[key];
    if (key === 'citations') fixed.push(...citationDifferences(obj[key], want as JsonObject));
    else if (obj[key] !== want) fixed.push(key);
    obj[key] = want;
  }
  return fixed;
}
