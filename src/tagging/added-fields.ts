// The four fields tag writes, and what happens to an input field of the same name. A value in
// exactly the shape tag writes is tag's own (a record tagged before): it is replaced. Any other
// value is the upstream's (RAG formats often carry a `context` string): it is kept, renamed to
// `upstream_<field>` (`upstream_<field>_2`, … when that name is taken too), and the record's
// tag_flags say so (`context_kept_as:upstream_context`). No input field is overwritten or lost.
// null is a placeholder (DACKAR's records carry `"ner_seed": null` for tag to fill) and is replaced.

import { checkerFor } from '../contracts/checkers.js';

/** The fields tag adds, in the order it writes them. */
export const ADDED_KEYS = ['context', 'section_id', 'ner_seed', 'tag_flags'] as const;
export type AddedKey = (typeof ADDED_KEYS)[number];

const OWN_SECTION_ID = /^sec_[0-9a-f]{16}$/;
// Every flag tag writes has one of these shapes (see the tag stage's --help).
const OWN_FLAG = /^(?:missing_[a-z_]+|[A-Za-z_.]+_(?:coerced|dropped)|section_path_folded|[a-z_]+_kept_as:[A-Za-z0-9_]+)$/;

/** Whether `value` is what tag itself writes under `key`. */
export function isOwnValue(key: AddedKey, value: unknown): boolean {
  if (value === null) return true;
  switch (key) {
    case 'context':
      return checkerFor('chunk_context')(value, 'context') === null;
    case 'section_id':
      return typeof value === 'string' && OWN_SECTION_ID.test(value);
    case 'ner_seed':
      return checkerFor('ner_seed')(value, 'ner_seed') === null;
    case 'tag_flags':
      return Array.isArray(value) && value.every((f) => typeof f === 'string' && OWN_FLAG.test(f));
  }
}

/** A record that already carries one of our fields must be rebuilt (keys replaced or renamed). */
export function hasAddedKeys(record: Record<string, unknown>): boolean {
  for (const k of ADDED_KEYS) if (Object.hasOwn(record, k)) return true;
  return false;
}

/** [field, new name] for each upstream field tag would otherwise overwrite; usually none. */
export function upstreamRenames(record: Record<string, unknown>): [AddedKey, string][] {
  let renames: [AddedKey, string][] | null = null;
  for (const key of ADDED_KEYS) {
    if (!Object.hasOwn(record, key) || isOwnValue(key, record[key])) continue;
    let name = `upstream_${key}`;
    for (let n = 2; Object.hasOwn(record, name) || renames?.some(([, taken]) => taken === name); n++) name = `upstream_${key}_${n}`;
    (renames ??= []).push([key, name]);
  }
  return renames ?? NONE;
}

const NONE: [AddedKey, string][] = [];

/** The tag_flags entry of a rename. */
export function renameFlag([key, name]: [AddedKey, string]): string {
  return `${key}_kept_as:${name}`;
}

const KEPT_FLAG = /^[a-z_]+_kept_as:([A-Za-z0-9_]+)$/;

/**
 * The tag_flags entries of the renames, and those an earlier run wrote whose field is still there:
 * re-tagging a tagged record writes the same bytes.
 */
export function renameFlags(record: Record<string, unknown>, renames: readonly [AddedKey, string][]): string[] {
  const flags = renames.map(renameFlag);
  const previous = record.tag_flags;
  if (!Array.isArray(previous) || renames.some(([key]) => key === 'tag_flags')) return flags;
  for (const flag of previous as string[]) {
    const kept = KEPT_FLAG.exec(flag);
    if (kept !== null && Object.hasOwn(record, kept[1]!) && !flags.includes(flag)) flags.push(flag);
  }
  return flags;
}
