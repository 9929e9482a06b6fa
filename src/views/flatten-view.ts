// Embedding text of a view (DESIGN.md §3): one "LABEL: value" line per non-empty field, in the
// order of the view kind's flatten layout; empty fields give no line; an empty or missing view
// gives "". Zod-free: flatten runs over whole corpora and must not pay for the schemas (a unit
// test ties the layouts' paths to them).
import { VIEW_TYPES, type ViewName, type ViewType } from '../contracts/vocabulary.js';
import { collapseWhitespace } from '../tagging/spacing.js';
import { VIEW_KINDS } from './kinds/index.js';
import type { FlattenLayout } from './kinds/kind.js';
import type { ViewFields } from './view-types.js';

// Items with no letter or digit ("", "----------") add nothing to an embedding.
const HAS_CONTENT_RE = /[\p{L}\p{N}]/u;

export function flattenView(view: ViewName, obj: unknown): string {
  const layout = VIEW_KINDS[view].flatten;
  const content = flattenFields(layout, obj);
  if (!layout.pathLine || content === '') return content;
  const path = (obj as Record<string, unknown>).section_path;
  return combinedText(typeof path === 'string' ? path : '', [content]);
}

function flattenFields(layout: FlattenLayout, obj: unknown): string {
  if (!isObject(obj)) return '';
  const lines: string[] = [];
  for (const [label, path] of layout.fields) {
    const value = textOf(valueAt(obj, path), layout.separator);
    if (value !== '') lines.push(`${label}: ${value}`);
  }
  return lines.join('\n');
}

/** A chunk's embedding_text: each chunk view's text (read from `fields`), and with `combined` the one text of them all. */
export function embeddingTexts(record: Record<string, unknown>, fields: ViewFields, combined: boolean): Partial<Record<ViewType | 'combined', string>> {
  const texts: Partial<Record<ViewType | 'combined', string>> = {};
  for (const view of VIEW_TYPES) {
    const field = fields[view];
    texts[view] = field === undefined ? '' : flattenView(view, record[field]);
  }
  if (combined) texts.combined = combinedText(sectionPathOf(record, fields), VIEW_TYPES.map((v) => texts[v] ?? ''));
  return texts;
}

// The trusted path first; a view's stamped citations next; the raw upstream path last.
function sectionPathOf(record: Record<string, unknown>, fields: ViewFields): string {
  const candidates: unknown[] = [field(record.context, 'section_path')];
  for (const view of VIEW_TYPES) {
    const name = fields[view];
    if (name !== undefined) candidates.push(field(field(record[name], 'citations'), 'section_path'));
  }
  candidates.push(record.section_path, record.sectionPath);
  for (const c of candidates) if (typeof c === 'string' && c.trim() !== '') return c;
  return '';
}

function field(value: unknown, key: string): unknown {
  return isObject(value) ? value[key] : undefined;
}

/** One text per chunk: the section path, then each view's text; "" when no view has content. */
export function combinedText(sectionPath: string, viewTexts: readonly string[]): string {
  const parts = viewTexts.filter((t) => t !== '');
  if (parts.length === 0) return '';
  const section = oneLine(sectionPath);
  return [...(section === '' ? [] : [`SECTION: ${section}`]), ...parts].join('\n');
}

// The layouts' paths, split once (a fixed set: the view kinds' own).
const PATH_PARTS = new Map<string, readonly string[]>();

function valueAt(obj: Record<string, unknown>, path: string): unknown {
  let parts = PATH_PARTS.get(path);
  if (parts === undefined) PATH_PARTS.set(path, (parts = path.split('.')));
  let value: unknown = obj;
  for (const part of parts) value = isObject(value) ? value[part] : undefined;
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
  return collapseWhitespace(text).trim();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
