// The record kind of the chunk views: tagged chunks (rca-tag output). A record is read once for
// all its views; each view's prompt is prompt-text.ts's, its check validate-view.ts's, and its
// results go at the view's own key with `flags.<view>`, `provenance_fixed.<view>`,
// `evidence.<view>` and `generation.<view>` (the shape rca-validate writes).
import type { ChunkContext, NerSeed } from '../../contracts/chunk.js';
import { isPlainObject, type JsonObject } from '../../contracts/json.js';
import { checkerFor } from '../../contracts/checkers.js';
import { chunkTextOf } from '../../tagging/chunk-fields.js';
import { negatedMentions } from '../claims.js';
import type { ExtractiveInput } from '../extractive.js';
import { GroundingText } from '../grounding.js';
import { buildPrompt } from '../prompt-text.js';
import { validateView } from '../validate-view.js';
import type { ChunkViewKind } from './kind.js';
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
  const badContext = checkerFor('chunk_context')(record.context, 'context');
  if (badContext !== null) return { ok: false, code: 'BAD_CONTEXT', message: badContext };
  const badSeed = checkerFor('ner_seed')(record.ner_seed, 'ner_seed');
  if (badSeed !== null) return { ok: false, code: 'BAD_NER_SEED', message: badSeed };
  const text = chunkTextOf(record) ?? '';
  if (text.trim() === '') return { ok: false, code: 'NO_TEXT', message: 'record has no chunk text to prompt with' };
  // The checkers hold these to the contracts' JSON Schemas, which are the zod types' own.
  return { ok: true, value: { context: record.context as ChunkContext, nerSeed: record.ner_seed as NerSeed, text } };
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

export const CHUNK_RECORDS: RecordKind<TaggedChunk, TaggedChunk, ChunkViewKind> = {
  read: readTaggedChunk,
  run: () => CHUNK_RUN,
  text: (chunk) => chunk.text,
  grounding: (chunk) => GroundingText.of(chunk.text),
  boundsChildren: false,
  prompt(kind, chunk, budgets) {
    const built = buildPrompt(chunk.context, chunk.nerSeed, chunk.text, kind.name, { maxChars: budgets.maxChars });
    return { prompt: built.prompt, textCut: built.truncated };
  },
  shrink: () => null,
  check(kind, chunk, grounding, value) {
    const checked = validateView(kind.name, value, chunk.context, grounding, { negated: negatedMentions(chunk.nerSeed) });
    return { view: checked.view, flags: checked.flags, fixed: checked.fixed, evidence: checked.evidence, withinContract: checkerFor(kind.name)(checked.view) === null };
  },
  // A view of the extractive builder holds the contract by construction (the skeleton's keys in
  // contract order, strings in its lists, the trusted fields from the checked context): the
  // contract check is left out. test/generation/built-views.property.test.ts holds this to `check`
  // of the view's JSON text.
  checkBuilt(kind, chunk, grounding, view) {
    const checked = validateView(kind.name, view, chunk.context, grounding, { negated: negatedMentions(chunk.nerSeed) });
    return { view: checked.view, flags: checked.flags, fixed: checked.fixed, evidence: checked.evidence, withinContract: true };
  },
  feedbackSource: () => undefined,
  isDone: (kind, value) => isPlainObject(value) && checkerFor(kind.name)(value) === null,
  place(record, results) {
    // A key the record already has keeps its place. `provenance_fixed` names the trusted fields
    // each kept reply got wrong (as rca-validate writes it).
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
    if (kind.extractive === undefined) throw new Error(`--backend extractive has no rules for ${kind.name}`);
    const build = await kind.extractive();
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
