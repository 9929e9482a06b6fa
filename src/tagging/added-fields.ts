// The fields rca's stages write on a chunk record, and what happens to an input field of the same
// name. A value in exactly the shape the stage writes is rca's own (a record processed before): it
// is replaced. Any other value is the upstream's (RAG formats often carry a `context` string,
// DACKAR's processed records an `embedding_text` string that is their only copy of the chunk's
// text): it is kept, renamed to `upstream_<field>` (`upstream_<field>_2`, … when that name is taken
// too), in its place. tag renames every such field, of every stage, since a chunk pipeline starts
// with it, and its tag_flags say so (`embedding_text_kept_as:upstream_embedding_text`); a later
// stage that still meets one (a field some other tool added after tag) keeps it the same way. No
// input field is overwritten or lost. null is a placeholder (DACKAR's records carry
// `"ner_seed": null` for tag to fill) and is replaced.

import { checkerFor } from '../contracts/checkers.js';
import { isPlainObject } from '../contracts/json.js';
import { VIEW_TYPES } from '../contracts/vocabulary.js';

/** The fields tag adds, in the order it writes them. */
export const ADDED_KEYS = ['context', 'section_id', 'ner_seed', 'tag_flags'] as const;
export type AddedKey = (typeof ADDED_KEYS)[number];

const OWN_SECTION_ID = /^sec_[0-9a-f]{16}$/;
// Every flag tag writes has one of these shapes (see the tag stage's --help).
const OWN_FLAG = /^(?:missing_[a-z_]+|[A-Za-z_.]+_(?:coerced|dropped)|section_path_folded|section_role_inherited|section_role_continued|[a-z_]+_kept_as:[A-Za-z0-9_]+)$/;

const isString = (v: unknown) => typeof v === 'string';
const isStringList = (v: unknown) => Array.isArray(v) && v.every(isString);
/** An object whose every value passes `each` ({<view>: …}, the shape of the per-view maps). */
const mapOf = (each: (v: unknown) => boolean) => (v: unknown) => isPlainObject(v) && Object.values(v).every(each);

/** The shape each stage writes under each of its fields. */
const OWN_SHAPES: Readonly<Record<string, (value: unknown) => boolean>> = {
  context: (v) => checkerFor('chunk_context')(v, 'context') === null,
  section_id: (v) => typeof v === 'string' && OWN_SECTION_ID.test(v),
  ner_seed: (v) => checkerFor('ner_seed')(v, 'ner_seed') === null,
  tag_flags: (v) => Array.isArray(v) && v.every((f) => typeof f === 'string' && OWN_FLAG.test(f)),
  // rca-prompt
  prompts: mapOf(isString),
  prompt_truncation: isPlainObject,
  // rca-generate, rca-validate, rca-summarize: the views and their per-view maps
  ...Object.fromEntries(VIEW_TYPES.map((view) => [view, isPlainObject])),
  flags: mapOf(isStringList),
  provenance_fixed: mapOf(isStringList),
  provenance_normalised: mapOf(isStringList),
  evidence: mapOf(isPlainObject),
  generation: mapOf(isPlainObject),
  requests: isPlainObject,
  // rca-flatten, rca-summarize
  embedding_text: mapOf(isString),
  // rca-summarize --view section_summary, on section records
  section_summary: isPlainObject,
  view_flags: mapOf(isStringList),
};

/** Every field a stage writes on a chunk record: tag's, then those of the later stages. */
export const STAGE_FIELDS: readonly string[] = Object.keys(OWN_SHAPES);

/** Whether `value` is what the stage writing `key` itself writes there. */
export function isOwnValue(key: string, value: unknown): boolean {
  if (value === null) return true;
  const own = OWN_SHAPES[key];
  return own === undefined || own(value);
}

/** A record that already carries one of tag's fields must be rebuilt (keys replaced or renamed). */
export function hasAddedKeys(record: Record<string, unknown>): boolean {
  for (const k of ADDED_KEYS) if (Object.hasOwn(record, k)) return true;
  return false;
}

/** [field, new name] for each upstream field of `keys` a stage would otherwise overwrite; usually none. */
export function upstreamRenames(record: Record<string, unknown>, keys: readonly string[] = STAGE_FIELDS): [string, string][] {
  let renames: [string, string][] | null = null;
  for (const key of keys) {
    if (!Object.hasOwn(record, key) || isOwnValue(key, record[key])) continue;
    let name = `upstream_${key}`;
    for (let n = 2; Object.hasOwn(record, name) || renames?.some(([, taken]) => taken === name); n++) name = `upstream_${key}_${n}`;
    (renames ??= []).push([key, name]);
  }
  return renames ?? NONE;
}

const NONE: [string, string][] = [];

/** The record with each renamed field under its new name, in its place (the same object when none). */
export function renamed<T extends Record<string, unknown>>(record: T, renames: readonly [string, string][]): T {
  if (renames.length === 0) return record;
  const names = new Map<string, string>(renames);
  // fromEntries defines properties: a "__proto__" key stays a plain field.
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [names.get(k) ?? k, v] as const)) as T;
}

/** The record with the upstream values of `keys` kept under their upstream_ names, for a stage about to write `keys`. */
export function keepUpstream<T extends Record<string, unknown>>(record: T, keys: readonly string[]): T {
  return renamed(record, upstreamRenames(record, keys));
}

/** The tag_flags entry of a rename. */
export function renameFlag([key, name]: readonly [string, string]): string {
  return `${key}_kept_as:${name}`;
}

const KEPT_FLAG = /^([a-z_]+)_kept_as:([A-Za-z0-9_]+)$/;

/**
 * The tag_flags entries of the renames, and those an earlier run wrote whose field is still there:
 * re-tagging a tagged record writes the same bytes.
 */
export function renameFlags(record: Record<string, unknown>, renames: readonly [string, string][]): string[] {
  const flags = renames.map(renameFlag);
  const previous = record.tag_flags;
  if (!Array.isArray(previous) || renames.some(([key]) => key === 'tag_flags')) return flags;
  for (const flag of previous as string[]) {
    const kept = KEPT_FLAG.exec(flag);
    if (kept !== null && Object.hasOwn(record, kept[2]!) && !flags.includes(flag)) flags.push(flag);
  }
  return flags;
}

/** Where an upstream `key` is kept on a tagged record: the name its tag_flags give, else `upstream_<key>`. */
export function keptNameOf(record: Record<string, unknown>, key: string): string {
  const flags = record.tag_flags;
  if (Array.isArray(flags)) {
    for (const flag of flags) {
      if (typeof flag !== 'string') continue;
      const kept = KEPT_FLAG.exec(flag);
      if (kept !== null && kept[1] === key) return kept[2]!;
    }
  }
  return `upstream_${key}`;
}

/**
 * What identifies a record whatever the stages did to it: its fields less those in a stage's own
 * shape, with upstream values under the names a stage keeps them under (rca merge compares these).
 */
export function inputFieldsOf(record: Record<string, unknown>): Record<string, unknown> {
  const kept = renamed(record, upstreamRenames(record));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(kept)) if (!Object.hasOwn(OWN_SHAPES, k)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}
