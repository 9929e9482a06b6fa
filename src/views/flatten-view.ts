// Embedding text of a view (DESIGN.md §3): one "LABEL: value" line per non-empty field, in a
// fixed order; empty fields give no line; an empty or missing view gives "". Zod-free: flatten
// runs over whole corpora and must not pay for the schemas (a unit test ties these paths to them).
import type { ViewType } from '../contracts/vocabulary.js';

export interface FlattenLayout {
  /** Joins the items of a list field. */
  separator: string;
  /** [label, path in the view] in output order. */
  fields: ReadonlyArray<readonly [string, string]>;
}

export const FLATTEN_LAYOUTS: Readonly<Record<ViewType, FlattenLayout>> = {
  retrieval_summary: {
    separator: ', ',
    fields: [
      ['SCOPE', 'scope'],
      ['SYSTEMS', 'entities.systems'],
      ['EQUIPMENT', 'entities.equipment_ids'],
      ['COMPONENTS', 'entities.components'],
      ['SYMPTOMS/OUTCOMES', 'symptoms_outcomes'],
      ['MECHANISMS', 'mechanisms'],
      ['DIAGNOSTICS', 'diagnostics'],
      ['ACTIONS', 'corrective_actions'],
      ['NUMBERS/LIMITS', 'numbers_limits'],
      ['KEYWORDS', 'keywords_synonyms'],
    ],
  },
  rca_frame: {
    separator: '; ',
    fields: [
      ['OBSERVED', 'observed'],
      ['HYPOTHESES', 'hypotheses'],
      ['TESTS', 'tests_to_confirm'],
      ['ACTIONS', 'candidate_actions'],
      ['CONSTRAINTS', 'constraints'],
    ],
  },
};

const WHITESPACE_RE = /\s+/g;
// Items with no letter or digit ("", "----------") add nothing to an embedding.
const HAS_CONTENT_RE = /[\p{L}\p{N}]/u;

export function flattenView(view: ViewType, obj: unknown): string {
  return flattenFields(FLATTEN_LAYOUTS[view], obj);
}

/** The "LABEL: value" lines of any layout (the section view has its own). */
export function flattenFields(layout: FlattenLayout, obj: unknown): string {
  if (!isObject(obj)) return '';
  const lines: string[] = [];
  for (const [label, path] of layout.fields) {
    const value = textOf(valueAt(obj, path), layout.separator);
    if (value !== '') lines.push(`${label}: ${value}`);
  }
  return lines.join('\n');
}

/** One text per chunk: the section path, then each view's text; "" when no view has content. */
export function combinedText(sectionPath: string, viewTexts: readonly string[]): string {
  const parts = viewTexts.filter((t) => t !== '');
  if (parts.length === 0) return '';
  const section = oneLine(sectionPath);
  return [...(section === '' ? [] : [`SECTION: ${section}`]), ...parts].join('\n');
}

function valueAt(obj: Record<string, unknown>, path: string): unknown {
  let value: unknown = obj;
  for (const part of path.split('.')) value = isObject(value) ? value[part] : undefined;
  return value;
}

// A line per field, whatever the model put in the value: whitespace runs (newlines included)
// become one space; items that are neither strings nor numbers, or have no letter or digit, are left out.
function textOf(value: unknown, separator: string): string {
  if (typeof value === 'string') return HAS_CONTENT_RE.test(value) ? oneLine(value) : '';
  if (!Array.isArray(value)) return '';
  const items: string[] = [];
  for (const item of value) {
    const text = typeof item === 'string' ? oneLine(item) : typeof item === 'number' && Number.isFinite(item) ? String(item) : '';
    if (HAS_CONTENT_RE.test(text)) items.push(text);
  }
  return items.join(separator);
}

function oneLine(text: string): string {
  return text.replace(WHITESPACE_RE, ' ').trim();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
