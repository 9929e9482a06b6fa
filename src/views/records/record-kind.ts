// The machinery a family of views shares: how their records are read, how the prompt of an
// attempt is built and cut, how a reply is checked, and where the results go on the record.
// One per record kind (chunk-records.ts, section-records.ts; RECORD_KINDS in records.ts), each
// handed the view kind it works for. Generation knows views only through this and ViewKind.
import type { ViewEvidence } from '../../contracts/evidence.js';
import { isPlainObject, type JsonObject } from '../../contracts/json.js';
import type { LexiconEntry } from '../../tagging/lexicon.js';
import type { GroundingText } from '../grounding.js';
import type { ChildrenCut } from '../section-prompt.js';
import type { TextCut } from '../text-cut.js';
import type { ViewKind } from '../kinds/kind.js';
import type { PromptStyle } from '../../contracts/vocabulary.js';

/** The budgets of one attempt's prompt. */
export interface PromptBudgets {
  /** Cut the source text to this many characters (undefined: whole text). */
  maxChars: number | undefined;
  /** Bound a second part of the prompt (a section's CHILD_SUMMARIES) to this many characters; only kinds with `boundsChildren`. */
  maxChildChars?: number;
  /** The prompt's layout (--prompt-style); compact when absent. */
  style?: PromptStyle;
}

/** An attempt's prompt and how its parts were cut. */
export interface KindPrompt {
  prompt: string;
  textCut: TextCut | null;
  /** Kinds with `boundsChildren` only: how the second part was bounded, null when whole. */
  childrenCut?: ChildrenCut | null;
}

/** A recovered reply after the check: the view with provenance stamped, its flags, and whether it fits the contract. */
export interface CheckedReply {
  view: JsonObject;
  flags: string[];
  /** Trusted fields the reply got wrong: stamped over, and reported in the record. */
  fixed: string[];
  evidence: ViewEvidence;
  withinContract: boolean;
}

/** A view's result as the record takes it. */
export interface PlacedResult {
  view: JsonObject | null;
  flags: string[] | null;
  fixed: string[] | null;
  evidence: ViewEvidence | null;
  generation: object;
}

export type ReadResult<R> = { ok: true; value: R } | { ok: false; code: string; message: string };

/** What a run over these records needs from its settings. */
export interface RunSettings {
  /** --bottom-up: a section's prompt holds its subsections' summaries. */
  bottomUp: boolean;
}

/** What the extractive builders may need: the built-in lexicon, read only when asked for. */
export interface ExtractiveSetup {
  lexicon: () => LexiconEntry[];
}

/** One run over records of this kind: how a record's input is made, and what the run counts. */
export interface RecordRun<R, I> {
  /**
   * Called for every record read, in input order: the input of its jobs, now or once what it
   * waits for has settled (--bottom-up: a parent waits for its children's summaries).
   */
  input(read: R): I | Promise<I>;
  /** What the record hands on to the records waiting for it: its view once known (null: none). */
  handOn(read: R, view: JsonObject | null | Promise<JsonObject | null>): void;
  /** True for an input with nothing to write a view from: the record passes through (counted). */
  empty(input: I): boolean;
  /** True: a job is not started once the run has stopped (a parent's prompt would lack a child cut short). */
  readonly startsOnlyWhileRunning: boolean;
  /** Called when the record's views are written: the extra fields of `generation.<view>`, or null. */
  written(input: I): JsonObject | null;
  /** Lines for the end-of-run summary. */
  summaryLines(): string[];
  /** Fields for --stats, or null. */
  stats(): JsonObject | null;
}

export interface RecordKind<R, I, K extends ViewKind> {
  /** Reads one record; a record it cannot use is a reject with this code and message. */
  read(record: JsonObject): ReadResult<R>;
  /** A run over such records. */
  run(settings: RunSettings): RecordRun<R, I>;
  /** The text --max-chars and the cut-text attempts cut. */
  text(input: I): string;
  /** The input's id (a chunk's chunk_id, a section's section_id): it names the input's requests (X-Request-Id). */
  id(input: I): string;
  /** What replies are grounded in, made once per record and shared by its views. */
  grounding(input: I): GroundingText;
  /** The prompt has a second part bounded on the cut-text attempts (PromptBudgets.maxChildChars). */
  readonly boundsChildren: boolean;
  /** The prompt of an attempt, before any feedback. */
  prompt(kind: K, input: I, budgets: PromptBudgets): KindPrompt;
  /** The prompt of one request for several views of the input at once (--views-per-request); absent: the kind asks for each view alone. */
  pairPrompt?(kinds: readonly K[], input: I, budgets: PromptBudgets): KindPrompt;
  /** Budgets of a prompt `excess` characters shorter when its parts share the cut; null: the text alone is cut. */
  shrink(input: I, budgets: PromptBudgets, excess: number): PromptBudgets | null;
  /** A recovered reply checked as rca-validate checks it. */
  check(kind: K, input: I, grounding: GroundingText, value: JsonObject): CheckedReply;
  /**
   * A view the kind's extractive builder made, checked as it is: what `check` gives for its JSON
   * text parsed back, less the checks such a view passes by construction (absent: the text is
   * parsed back and checked).
   */
  checkBuilt?(kind: K, input: I, grounding: GroundingText, view: JsonObject): CheckedReply;
  /** How feedback names the text a reply must come from (undefined: CHUNK_TEXT). */
  feedbackSource(input: I): string | undefined;
  /** The view is on the record already and within its contract (it is not asked again unless --overwrite). */
  isDone(kind: K, value: unknown): boolean;
  /** The record with its views' results, in the order given, and `extra` in their generation entries. */
  place(record: JsonObject, results: ReadonlyArray<readonly [K, PlacedResult]>, extra: JsonObject | null): JsonObject;
  /** The extractive builder of a view; rejects for a view without one. */
  extractive(kind: K, setup: ExtractiveSetup): Promise<(input: I, text: string) => JsonObject>;
}

/** A copy of a record's per-view map (`flags`, `evidence`, `generation`, …), or a new one. */
export function viewMap(value: unknown): JsonObject {
  return isPlainObject(value) ? { ...value } : {};
}

/** Sets a view's entry in such a map, or removes it where the view has none (null). */
export function setViewEntry(map: JsonObject, view: string, value: unknown): void {
  if (value === null) delete map[view];
  else map[view] = value;
}
