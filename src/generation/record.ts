// What generate reads from a tagged record, which of its views still need work, and how the
// results are written back: each view at its own key, its flags under `flags.<view>` (the shape
// rca-validate writes), its evidence under `evidence.<view>`, and `generation.<view>`. Fields owned by other stages pass through.
import type { ChunkContext, NerSeed } from '../contracts/chunk.js';
import { checkerFor } from '../contracts/runtime.js';
import { chunkTextOf } from '../tagging/chunk-fields.js';
import type { JsonObject } from '../runtime/stage.js';
import { isPlainObject } from '../views/validate-view.js';
import type { ViewType } from '../contracts/vocabulary.js';
import type { ViewResult } from './ladder.js';

export interface TaggedChunk {
  context: ChunkContext;
  nerSeed: NerSeed;
  text: string;
}

// The same codes and wording as rca-prompt, which reads the same fields.
export function readTaggedChunk(record: JsonObject): { ok: true; chunk: TaggedChunk } | { ok: false; code: string; message: string } {
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
  return { ok: true, chunk: { context: record.context as ChunkContext, nerSeed: record.ner_seed as NerSeed, text } };
}

/** Views to generate: all asked for with --overwrite, else those not already present and within their contract. */
export function viewsToGenerate(record: JsonObject, views: readonly ViewType[], overwrite: boolean): ViewType[] {
  if (overwrite) return [...views];
  return views.filter((view) => !isDone(record[view], view));
}

function isDone(value: unknown, view: ViewType): boolean {
  return isPlainObject(value) && checkerFor(view)(value) === null;
}

/** The record with its new views; a key the record already has keeps its place. `provenance_fixed`
 *  names the trusted fields each kept reply got wrong (as rca-validate writes it). */
export function withResults(record: JsonObject, results: ReadonlyMap<ViewType, ViewResult>): JsonObject {
  const out: JsonObject = { ...record };
  const flags: JsonObject = isPlainObject(record.flags) ? { ...record.flags } : {};
  const fixed: JsonObject = isPlainObject(record.provenance_fixed) ? { ...record.provenance_fixed } : {};
  const generation: JsonObject = isPlainObject(record.generation) ? { ...record.generation } : {};
  const evidence: JsonObject = isPlainObject(record.evidence) ? { ...record.evidence } : {};
  for (const [view, result] of results) {
    out[view] = result.view;
    if (result.flags === null) delete flags[view];
    else flags[view] = result.flags;
    if (result.fixed === null) delete fixed[view];
    else fixed[view] = result.fixed;
    generation[view] = result.generation;
    if (result.evidence === null) delete evidence[view];
    else evidence[view] = result.evidence;
  }
  out.flags = flags;
  out.provenance_fixed = fixed;
  out.evidence = evidence;
  out.generation = generation;
  return out;
}

/** The record with the requests --dry-run would have sent. */
export function withRequests(record: JsonObject, requests: ReadonlyMap<ViewType, JsonObject>): JsonObject {
  const rendered: JsonObject = isPlainObject(record.requests) ? { ...record.requests } : {};
  for (const [view, request] of requests) rendered[view] = request;
  return { ...record, requests: rendered };
}
