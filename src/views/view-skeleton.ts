import type { ChunkContext } from '../contracts/chunk.js';
import type { View } from '../contracts/views.js';
import { TRUSTED_KEYS } from '../contracts/vocabulary.js';
import type { JsonObject } from '../contracts/json.js';
import { VIEW_SHAPES, type FieldShape, type ObjectShape } from './view-shape.js';
import type { ViewType } from '../contracts/vocabulary.js';
import { unwrapMarkers, type MarkerRules } from '../tagging/section-path.js';

type TrustedKey = (typeof TRUSTED_KEYS)[number];

/** The values the model never decides, from the trusted context. */
function trustedFields(view: ViewType, context: ChunkContext): Record<TrustedKey, unknown> {
  const citationsShape = VIEW_SHAPES[view].fields.get('citations');
  const citations: JsonObject = {};
  if (citationsShape?.kind === 'object') {
    for (const key of citationsShape.fields.keys()) citations[key] = (context as Record<string, unknown>)[key];
  }
  return { chunk_id: context.chunk_id, doc_type: context.doc_type, view_type: view, citations };
}

/** The skeleton of what the model is asked to write (compact prompts): the view's content fields alone, empty. */
export function contentSkeleton(shape: ObjectShape, trusted: readonly string[]): JsonObject {
  const skeleton = emptyValue(shape) as JsonObject;
  for (const key of trusted) delete skeleton[key];
  return skeleton;
}

/** The chunk view's content skeleton. */
export function viewContentSkeleton(view: ViewType): JsonObject {
  return contentSkeleton(VIEW_SHAPES[view], TRUSTED_KEYS);
}

/**
 * A reply that holds none of the trusted fields (what a compact prompt asks for) as a whole view:
 * the trusted values at their contract places among the reply's fields, the reply's own keys
 * outside the contract after them. A reply that holds any trusted field (a prompt that asked for
 * the whole view, or a model that wrote one anyway) is returned as it is: stamping then overwrites
 * those fields in place and reports the ones it got wrong, as rca-validate does.
 */
export function withTrustedFields(reply: JsonObject, shape: ObjectShape, trusted: Record<string, unknown>): JsonObject {
  const keys = Object.keys(trusted);
  if (keys.some((key) => Object.hasOwn(reply, key))) return reply;
  const out: JsonObject = {};
  for (const key of shape.fields.keys()) {
    if (Object.hasOwn(trusted, key)) out[key] = trusted[key];
    else if (Object.hasOwn(reply, key)) out[key] = reply[key];
  }
  for (const key of Object.keys(reply)) if (!Object.hasOwn(out, key)) out[key] = reply[key];
  return out;
}

/** A chunk view's reply of content fields alone as the whole view (see withTrustedFields). */
export function replyAsView(reply: JsonObject, view: ViewType, context: ChunkContext): JsonObject {
  return withTrustedFields(reply, VIEW_SHAPES[view], trustedFields(view, context));
}

/** Every key of the view in contract order, empty values of the right type, trusted provenance filled. */
export function emptyView(view: ViewType, context: ChunkContext): View {
  const skeleton = emptyValue(VIEW_SHAPES[view]) as JsonObject;
  Object.assign(skeleton, trustedFields(view, context));
  return skeleton as View;
}

export function emptyValue(shape: FieldShape): unknown {
  switch (shape.kind) {
    case 'string':
      return '';
    case 'list':
      return [];
    case 'literal':
      return shape.value;
    case 'enum':
      return shape.values[0];
    case 'integer':
      return shape.nullable ? null : 0;
    case 'object': {
      const out: JsonObject = {};
      for (const [key, child] of shape.fields) out[key] = emptyValue(child);
      return out;
    }
  }
}

/**
 * Overwrites chunk_id, doc_type, view_type and citations from the context, in place (a key the
 * object already has keeps its position). Returns the paths whose stored value differed.
 */
export function stampProvenance(obj: JsonObject, view: ViewType, context: ChunkContext): string[] {
  const trusted = trustedFields(view, context);
  const fixed: string[] = [];
  for (const key of TRUSTED_KEYS) {
    const want = trusted[key];
    if (key === 'citations') fixed.push(...citationDifferences(obj[key], want as JsonObject));
    else if (obj[key] !== want) fixed.push(key);
    obj[key] = want;
  }
  return fixed;
}

/**
 * Which of the paths stampProvenance reports are only a different writing of the trusted value:
 * a section path with markdown emphasis ("**1. Scope**" for "1. Scope"), or a page of -1 where the
 * trusted page is unknown (null). Audits list them apart from real fixes (provenance_normalised).
 */
export function normalisedPaths(stored: unknown, want: JsonObject, paths: readonly string[]): string[] {
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return [];
  const have = stored as JsonObject;
  return paths.filter((path) => {
    const key = path.startsWith('citations.') ? path.slice('citations.'.length) : null;
    if (key === null || !Object.hasOwn(have, key) || !Object.hasOwn(want, key)) return false;
    const s = have[key];
    const w = want[key];
    if (key === 'section_path') return typeof s === 'string' && typeof w === 'string' && withoutEmphasis(s) === withoutEmphasis(w);
    if (key === 'page_start' || key === 'page_end') return s === -1 && w === null;
    return false;
  });
}

const EMPHASIS: MarkerRules = { markers: ['**', '__', '*', '_'], empty: false, lines: false };
function withoutEmphasis(path: string): string {
  let prev = path;
  for (let next = unwrapMarkers(path, EMPHASIS); next !== prev; next = unwrapMarkers(next, EMPHASIS)) prev = next;
  return prev.replace(/\s+/g, ' ').trim();
}

export function citationDifferences(stored: unknown, want: JsonObject): string[] {
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return ['citations'];
  const have = stored as JsonObject;
  const paths: string[] = [];
  for (const key of Object.keys(want)) if (!Object.hasOwn(have, key) || have[key] !== want[key]) paths.push(`citations.${key}`);
  for (const key of Object.keys(have)) if (!Object.hasOwn(want, key)) paths.push(`citations.${key}`);
  return paths;
}
