// Checks a view against its contract and returns flags (an empty list is a pass). The shape
// checks walk the view's schema (view-shape.ts), so they cannot drift from the prompt skeleton;
// the flag names are DESIGN.md §3's, plus rca's stricter item, key, emptiness and grounding checks.
import type { ChunkContext } from '../contracts/chunk.js';
import { TRUSTED_KEYS } from '../contracts/vocabulary.js';
import { isPlainObject, type JsonObject } from '../contracts/json.js';
import { chunkViewEvidence, type EvidenceOptions, type ViewEvidence } from './evidence.js';
import { GroundingText, quotedPhrases } from './grounding.js';
import { normalisedPaths, stampProvenance } from './view-skeleton.js';
import { VIEW_KINDS } from './kinds/index.js';
import { VIEW_SHAPES, type FieldShape, type ObjectShape } from './view-shape.js';
import type { ViewType } from '../contracts/vocabulary.js';

// Trusted fields come from the context, not the model: nothing in them needs grounding.
const TRUSTED = new Set<string>(TRUSTED_KEYS);
// A Python or JSON structure flattened into a string ("['6.2']", "{'action': ...}", "[]").
const STRINGIFIED_RE = /^\s*(?:\[\s*(?:['"[\]{}]|$)[^]*\]|\{\s*(?:['"}]|$)[^]*\})\s*$/;
// An item with no letter or digit ("", "  ", "----------") says nothing.
const HAS_CONTENT_RE = /[\p{L}\p{N}]/u;
const FLAG_VALUE_MAX = 80;

export interface ViewValidation {
  /** The stamped view: the same object, changed in place, with only contract keys in contract order. */
  view: JsonObject;
  flags: string[];
  /** Trusted paths whose stored value differed and was overwritten, e.g. "citations.page_start". */
  fixed: string[];
  /** Trusted paths whose stored value was the trusted one written differently (markdown emphasis,
   *  page -1 for unknown): overwritten too, but not a forged value. Not in `fixed`. */
  normalised: string[];
  /** Where each item's support is in the chunk text, and the view's grounding summary. */
  evidence: ViewEvidence;
}

/**
 * Stamps trusted provenance (in place), checks shape and quality, keeps only the contract's keys
 * in contract order, and checks that numbers, equipment ids and quoted phrases occur in the chunk text.
 */
export function validateView(view: ViewType, obj: JsonObject, context: ChunkContext, text: string | GroundingText, options: EvidenceOptions = {}): ViewValidation {
  const storedCitations = obj.citations;
  const changed = stampProvenance(obj, view, context);
  const normalised = normalisedPaths(storedCitations, obj.citations as JsonObject, changed);
  const fixed = changed.filter((path) => !normalised.includes(path));
  const flags = checkView(view, obj);
  keepContractKeys(VIEW_SHAPES[view], obj);
  const grounding = typeof text === 'string' ? new GroundingText(text) : text;
  const checked = chunkViewEvidence(view, obj, grounding, context.chunk_id, { context: [context.section_path, context.doc_id, context.chunk_id], ...options });
  return { view: obj, flags: unique([...flags, ...groundingFlags(view, obj, grounding), ...checked.flags]), fixed, normalised, evidence: checked.evidence };
}

/** Shape and quality flags of a view as given (no stamping, no grounding, nothing changed). */
export function checkView(view: ViewType, obj: unknown): string[] {
  if (!isPlainObject(obj)) return ['view_not_object'];
  return unique([...shapeFlags(VIEW_SHAPES[view], obj), ...qualityFlags(view, obj)]);
}

/** Flags of an object against a view's shape: missing or mistyped keys, list items, keys outside the contract. */
export function shapeFlags(shape: ObjectShape, obj: JsonObject): string[] {
  const flags: string[] = [];
  for (const [key, field] of shape.fields) {
    if (!Object.hasOwn(obj, key)) {
      flags.push(field.kind === 'literal' ? `bad_${key}` : `missing_${key}`);
      continue;
    }
    const value = obj[key];
    switch (field.kind) {
      case 'literal':
      case 'enum':
        if (!fits(field, value)) flags.push(`bad_${key}`);
        break;
      case 'string':
        if (typeof value !== 'string') flags.push(`${key}_not_str`);
        break;
      case 'integer':
        if (!fits(field, value)) flags.push(`${key}_wrong_type`);
        break;
      case 'list':
        if (!Array.isArray(value)) flags.push(`${key}_not_list`);
        else itemFlags(key, value, flags);
        break;
      case 'object':
        if (!isPlainObject(value)) {
          flags.push(`${key}_not_object`);
          break;
        }
        for (const [child, childShape] of field.fields) {
          const present = Object.hasOwn(value, child);
          const childValue = value[child];
          if (childShape.kind === 'list') {
            if (!present || !Array.isArray(childValue)) flags.push(`${key}_${child}_missing_or_not_list`);
            else itemFlags(`${key}_${child}`, childValue, flags);
          } else if (!present) flags.push(`${key}_${child}_missing`);
          else if (!fits(childShape, childValue)) flags.push(`${key}_${child}_wrong_type`);
        }
        for (const extra of Object.keys(value)) if (!field.fields.has(extra)) flags.push(`unexpected_key_${key}.${extra}`);
        break;
    }
  }
  for (const extra of Object.keys(obj)) if (!shape.fields.has(extra)) flags.push(`unexpected_key_${extra}`);
  return flags;
}

function itemFlags(name: string, items: unknown[], flags: string[]): void {
  let notString = false;
  let blank = false;
  let duplicate = false;
  let stringified = false;
  const seen = new Set<string>();
  for (const item of items) {
    if (typeof item !== 'string') {
      notString = true;
      continue;
    }
    if (!HAS_CONTENT_RE.test(item)) {
      blank = true;
      continue;
    }
    if (STRINGIFIED_RE.test(item)) stringified = true;
    const key = collapseSpaces(item).toLowerCase();
    if (seen.has(key)) duplicate = true;
    seen.add(key);
  }
  if (notString) flags.push(`${name}_item_not_string`);
  if (blank) flags.push(`${name}_item_blank`);
  if (duplicate) flags.push(`${name}_item_duplicate`);
  if (stringified) flags.push(`${name}_item_stringified`);
}

/** item.trim().replace(/\s+/g, ' '): the item itself when it has only single spaces inside. */
export function collapseSpaces(item: string): string {
  const n = item.length;
  let space = true;
  for (let i = 0; i < n; i++) {
    const c = item.charCodeAt(i);
    if (c === 32) {
      if (space) return item.trim().replace(/\s+/g, ' ');
      space = true;
    } else if ((c >= 9 && c <= 13) || c >= 128) {
      // Other whitespace, or a character that may be (\s knows Unicode spaces): the general way.
      return item.trim().replace(/\s+/g, ' ');
    } else {
      space = false;
    }
  }
  return space && n > 0 ? item.trim().replace(/\s+/g, ' ') : item;
}

// Each view's own rules are its kind's: a view without a kind does not compile.
function qualityFlags(view: ViewType, obj: JsonObject): string[] {
  return VIEW_KINDS[view].quality(obj, VIEW_SHAPES[view]);
}

function groundingFlags(view: ViewType, obj: JsonObject, text: GroundingText): string[] {
  const flags: string[] = [];
  // Numbers are checked in every claim of the view with its evidence (evidence.ts).
  for (const path of VIEW_KINDS[view].identifiers) {
    for (const item of stringsAt(obj, path)) {
      const id = item.trim();
      if (id !== '' && !text.hasIdentifier(id)) flags.push(`ungrounded_equipment_id:${flagValue(id)}`);
    }
  }
  for (const [key, value] of Object.entries(obj)) {
    if (TRUSTED.has(key)) continue;
    for (const s of allStrings(value)) {
      for (const phrase of quotedPhrases(s)) if (!text.hasPhrase(phrase)) flags.push(`ungrounded_quote:${flagValue(phrase)}`);
    }
  }
  return flags;
}

// Only contract keys remain, in contract order (a stamped key the model had left out would
// otherwise trail at the end). The object keeps its identity: callers may hold it.
export function keepContractKeys(shape: ObjectShape, obj: JsonObject): void {
  if (inContractOrder(shape, obj)) return;
  const kept: [string, unknown][] = [];
  for (const [key, field] of shape.fields) {
    if (!Object.hasOwn(obj, key)) continue;
    const value = obj[key];
    if (field.kind === 'object' && isPlainObject(value)) keepContractKeys(field, value);
    kept.push([key, value]);
  }
  for (const key of Object.keys(obj)) delete obj[key];
  for (const [key, value] of kept) obj[key] = value;
}

// Only contract keys, in contract order, already (what a backend writes): nothing to move. Deleting
// and adding every key would also leave the object in V8's slow dictionary form for stringify.
function inContractOrder(shape: ObjectShape, obj: JsonObject): boolean {
  const fields = shape.fields;
  const it = fields.entries();
  for (const key in obj) {
    if (!Object.hasOwn(obj, key)) return false;
    let next = it.next();
    while (!next.done && next.value[0] !== key) next = it.next();
    if (next.done) return false;
    const field = next.value[1];
    if (field.kind === 'object') {
      const value = obj[key];
      if (isPlainObject(value) && !inContractOrder(field, value)) return false;
    }
  }
  return true;
}

function stringsAt(obj: JsonObject, path: string): string[] {
  let value: unknown = obj;
  for (const part of path.split('.')) value = isPlainObject(value) ? value[part] : undefined;
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function allStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (isPlainObject(value)) return Object.values(value).flatMap(allStrings);
  return [];
}

function fits(shape: FieldShape, value: unknown): boolean {
  switch (shape.kind) {
    case 'string':
      return typeof value === 'string';
    case 'list':
      return Array.isArray(value);
    case 'literal':
      return value === shape.value;
    case 'enum':
      return typeof value === 'string' && shape.values.includes(value);
    case 'integer':
      return Number.isInteger(value) || (shape.nullable && value === null);
    case 'object':
      return isPlainObject(value);
  }
}

/** Flags are one-line tokens: whitespace collapsed, long values cut. */
export function flagValue(value: string): string {
  const one = value.replace(/\s+/g, ' ').trim();
  return one.length > FLAG_VALUE_MAX ? `${one.slice(0, FLAG_VALUE_MAX - 1)}…` : one;
}

function unique(flags: string[]): string[] {
  return [...new Set(flags)];
}
