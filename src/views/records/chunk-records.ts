// The record kind of the chunk views: tagged chunks (rca-tag output). A record is read once for
// all its views; each view's prompt is prompt-text.ts's, its check validate-view.ts's, and its
// results go at the view's own key with `flags.<view>`, `provenance_fixed.<view>`,
// `evidence.<view>` and `generation.<view>` (the shape rca-validate writes).
import type { ChunkContext, NerSeed } from '../../contracts/chunk.js';
import { isPlainObject, type JsonObject } from '../../contracts/json.js';
import { checkerFor } from '../../contracts/checkers.js';
import { AUTHORITY_LEVELS, DOC_SUBTYPES, DOC_TYPES, NER_SEED_KEYS } from '../../contracts/vocabulary.js';
import { keepUpstream } from '../../tagging/added-fields.js';
import { chunkTextOf } from '../../tagging/chunk-fields.js';
import { negatedMentions } from '../claims.js';
import { GroundingText } from '../grounding.js';
import { buildPairPrompt, buildPrompt } from '../prompt-text.js';
import { validateView } from '../validate-view.js';
import { replyAsView } from '../view-skeleton.js';
import type { ChunkViewKind, ExtractiveInput } from '../kinds/kind.js';
import { setViewEntry, viewMap, type ReadResult, type RecordKind, type RecordRun } from './record-kind.js';

export interface TaggedChunk {
  context: ChunkContext;
  nerSeed: NerSeed;
  text: string;
}

/** The fields every chunk view reads: the same codes and wording for rca-prompt and rca-generate. */
export function readTaggedChunk(record: JsonObject): ReadResult<TaggedChunk> {
  if (record.context === undefined || record.ner_seed === undefined) {
    return { ok: false, code: 'NOT_TAGGED', message: `record has no ${record.context === undefined ? 'context' : 'ner_seed'} (run rca-tag first)` };
  }
  // The quick checks accept only what the contracts' checkers accept; whatever they do not accept
  // goes to the checker, whose verdict and message stand.
  const badContext = isTaggedContext(record.context) ? null : checkerFor('chunk_context')(record.context, 'context');
  if (badContext !== null) return { ok: false, code: 'BAD_CONTEXT', message: badContext };
  const badSeed = seedKeysOf(record.ner_seed) !== null ? null : checkerFor('ner_seed')(record.ner_seed, 'ner_seed');
  if (badSeed !== null) return { ok: false, code: 'BAD_NER_SEED', message: badSeed };
  const text = chunkTextOf(record) ?? '';
  if (text.trim() === '') return { ok: false, code: 'NO_TEXT', message: 'record has no chunk text to prompt with' };
  // The checkers hold these to the contracts' JSON Schemas, which are the zod types' own.
  return { ok: true, value: { context: record.context as ChunkContext, nerSeed: record.ner_seed as NerSeed, text } };
}

const CONTEXT_KEYS = ['doc_id', 'doc_type', 'doc_subtype', 'chunk_id', 'section_path', 'page_start', 'page_end', 'authority_level', 'section_role'] as const;
// A context written before doc_subtype existed.
const CONTEXT_KEYS_BEFORE_SUBTYPE = CONTEXT_KEYS.filter((k) => k !== 'doc_subtype');
const SEED_KEYS_NEGATED: readonly string[] = [...NER_SEED_KEYS, 'negated'];
const SEED_ITEM_KEYS: Readonly<Record<string, readonly string[]>> = {
  measurements: ['value', 'unit', 'text'],
  temporal_relations: ['text', 'sub_label'],
  locations: ['text', 'sub_label'],
  negated: ['text', 'kind', 'cue'],
};

/** Own keys exactly `keys`, in that order (own: a key read below is then never an inherited one). */
function hasKeys(value: JsonObject, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  if (own.length !== keys.length) return false;
  for (let i = 0; i < own.length; i++) if (own[i] !== keys[i]) return false;
  return true;
}

function isPage(value: unknown): boolean {
  return value === null || (typeof value === 'number' && Number.isSafeInteger(value));
}

/**
 * A context as rca-tag writes it (the contract's keys in its order, each of its type; doc_subtype
 * absent in one written before it existed): the chunk_context checker accepts every such value.
 * False is no verdict: the checker decides.
 */
export function isTaggedContext(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const withSubtype = hasKeys(value, CONTEXT_KEYS);
  if (!withSubtype && !hasKeys(value, CONTEXT_KEYS_BEFORE_SUBTYPE)) return false;
  return (
    typeof value.doc_id === 'string' &&
    (DOC_TYPES as readonly unknown[]).includes(value.doc_type) &&
    (!withSubtype || value.doc_subtype === null || (DOC_SUBTYPES as readonly unknown[]).includes(value.doc_subtype)) &&
    typeof value.chunk_id === 'string' &&
    typeof value.section_path === 'string' &&
    isPage(value.page_start) &&
    isPage(value.page_end) &&
    (AUTHORITY_LEVELS as readonly unknown[]).includes(value.authority_level) &&
    typeof value.section_role === 'string'
  );
}

/**
 * The keys of a seed as rca-tag writes it — NER_SEED_KEYS in order, then `negated` or not; lists
 * of strings, or of objects with exactly their contract's string fields in order — else null.
 * The ner_seed checker accepts every seed this names the keys of; null is no verdict.
 */
export function seedKeysOf(value: unknown): readonly string[] | null {
  if (!isPlainObject(value)) return null;
  const keys = hasKeys(value, SEED_KEYS_NEGATED) ? SEED_KEYS_NEGATED : hasKeys(value, NER_SEED_KEYS) ? NER_SEED_KEYS : null;
  if (keys === null) return null;
  for (const key of keys) {
    const list = value[key];
    if (!Array.isArray(list)) return null;
    const itemKeys = SEED_ITEM_KEYS[key];
    for (const item of list) {
      if (itemKeys === undefined) {
        if (typeof item !== 'string') return null;
        continue;
      }
      if (!isPlainObject(item) || !hasKeys(item, itemKeys)) return null;
      for (const k of itemKeys) if (typeof item[k] !== 'string') return null;
    }
  }
  return keys;
}

// Chunks need nothing from one another: a record's input is what was read.
const CHUNK_RUN: RecordRun<TaggedChunk, TaggedChunk> = {
  input: (chunk) => chunk,
  handOn: () => undefined,
  empty: () => false,
  startsOnlyWhileRunning: false,
  written: () => null,
  summaryLines: () => [],
  stats: () => null,
};

/** A chunk view checked against its chunk: what `check` and `checkBuilt` both keep of validateView. */
function checkedView(kind: ChunkViewKind, chunk: TaggedChunk, grounding: GroundingText, value: JsonObject) {
  // A compact prompt's reply holds the content fields only: the trusted ones go in their places first.
  const checked = validateView(kind.name, replyAsView(value, kind.name, chunk.context), chunk.context, grounding, { negated: negatedMentions(chunk.nerSeed) });
  return { view: checked.view, flags: checked.flags, fixed: checked.fixed, evidence: checked.evidence };
}

const CHUNK_VIEW_MAPS = ['flags', 'provenance_fixed', 'evidence', 'generation'];

export const CHUNK_RECORDS: RecordKind<TaggedChunk, TaggedChunk, ChunkViewKind> = {
  read: readTaggedChunk,
  run: () => CHUNK_RUN,
  text: (chunk) => chunk.text,
  id: (chunk) => chunk.context.chunk_id,
  grounding: (chunk) => GroundingText.of(chunk.text),
  boundsChildren: false,
  prompt(kind, chunk, budgets) {
    const built = buildPrompt(chunk.context, chunk.nerSeed, chunk.text, kind.name, { maxChars: budgets.maxChars, ...(budgets.style === undefined ? {} : { style: budgets.style }) });
    return { prompt: built.prompt, textCut: built.truncated };
  },
  pairPrompt(kinds, chunk, budgets) {
    const built = buildPairPrompt(chunk.context, chunk.nerSeed, chunk.text, kinds.map((k) => k.name), { maxChars: budgets.maxChars });
    return { prompt: built.prompt, textCut: built.truncated };
  },
  shrink: () => null,
  check(kind, chunk, grounding, value) {
    const checked = checkedView(kind, chunk, grounding, value);
    return { ...checked, withinContract: checkerFor(kind.name)(checked.view) === null };
  },
  // A view of the extractive builder holds the contract by construction (the skeleton's keys in
  // contract order, strings in its lists, the trusted fields from the checked context): the
  // contract check is left out. test/generation/built-views.property.test.ts holds this to `check`
  // of the view's JSON text.
  checkBuilt: (kind, chunk, grounding, view) => ({ ...checkedView(kind, chunk, grounding, view), withinContract: true }),
  feedbackSource: () => undefined,
  isDone: (kind, value) => isPlainObject(value) && checkerFor(kind.name)(value) === null,
  place(input, results) {
    // A key the record already has keeps its place; an upstream value of another shape under one
    // of these names is kept under its upstream_ name. `provenance_fixed` names the trusted fields
    // each kept reply got wrong (as rca-validate writes it).
    const record = keepUpstream(input, [...results.map(([kind]) => kind.name), ...CHUNK_VIEW_MAPS]);
    const out: JsonObject = { ...record };
    const flags = viewMap(record.flags);
    const fixed = viewMap(record.provenance_fixed);
    const generation = viewMap(record.generation);
    const evidence = viewMap(record.evidence);
    for (const [{ name: view }, result] of results) {
      out[view] = result.view;
      setViewEntry(flags, view, result.flags);
      setViewEntry(fixed, view, result.fixed);
      generation[view] = result.generation;
      setViewEntry(evidence, view, result.evidence);
    }
    out.flags = flags;
    out.provenance_fixed = fixed;
    out.evidence = evidence;
    out.generation = generation;
    return out;
  },
  async extractive(kind) {
    const build = kind.extractive ? (await import('../extractive.js')).EXTRACTIVE_BUILDERS[kind.name] : undefined;
    if (build === undefined) throw new Error(`--backend extractive has no rules for ${kind.name}`);
    return (chunk, text) => build(extractiveInputOf(chunk, text));
  },
};

// One input per chunk and text, whatever view is built from it: the rules split and classify the
// text once per input for all the views (extractive.ts keeps that with the input).
const extractiveInputs = new WeakMap<TaggedChunk, ExtractiveInput>();
function extractiveInputOf(chunk: TaggedChunk, text: string): ExtractiveInput {
  const known = extractiveInputs.get(chunk);
  if (known !== undefined && known.text === text) return known;
  const made: ExtractiveInput = { context: chunk.context, nerSeed: chunk.nerSeed, text };
  extractiveInputs.set(chunk, made);
  return made;
}
