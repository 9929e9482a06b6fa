// The seam between the retry ladder and whatever writes a view. The ladder asks for one attempt
// at a time and validates every reply itself, so a backend only turns (job, attempt) into a reply:
// a model backend (Ollama on one host or several, an OpenAI-compatible server) renders the prompt
// of the job's view kind and calls the server; the extractive backend fills the view by the
// kind's rules (it ignores the prompt, and one attempt is all it needs). A backend whose replies
// are worth keeping names the request of a view's first attempt (`cacheKeyParts`): the response
// cache keeps the outcome of the view's whole ladder under it (see view-cache.ts).
import type { CacheKeyParts } from '../cache/cache-key.js';
import type { JsonObject } from '../contracts/json.js';
import type { GenerateReply } from '../llm/model-client.js';
import type { ViewKind } from '../views/kinds/kind.js';
import type { PromptBudgets } from '../views/records/record-kind.js';
import { recordKindOf, type AnyRecordKind } from '../views/records/records.js';
import type { ChildrenCut } from '../views/section-prompt.js';
import type { TextCut } from '../views/text-cut.js';
import type { BackendName, ModelOptions } from './config.js';

/** One view of one record: its kind, the record kind that reads it, and the input read. */
export interface Job {
  readonly kind: ViewKind;
  readonly records: AnyRecordKind;
  readonly input: unknown;
  /** The text --max-chars and the cut-text attempts cut. */
  readonly text: string;
  /** Input position of the record: earlier records go first when requests wait for a slot. */
  readonly seq: number;
}

export function jobOf(kind: ViewKind, input: unknown, seq: number): Job {
  const records = recordKindOf(kind);
  return { kind, records, input, text: records.text(input), seq };
}

/** What changes from one attempt to the next: its number, its feedback and its prompt's budgets. */
export interface AttemptInput extends PromptBudgets {
  /** 1-based. */
  attempt: number;
  /** What was wrong with the previous reply, said to the model; null on the first attempt. */
  feedback: string | null;
}

/** The model's reply, and how the attempt went. */
export interface BackendReply extends GenerateReply {
  /** Transport retries spent on this attempt. */
  transportRetries: number;
  /** How the text was cut for this attempt, or null. */
  textCut: TextCut | null;
  /** How a section's CHILD_SUMMARIES was bounded for this attempt (absent or null: not cut). */
  childrenCut?: ChildrenCut | null;
  /** Why the text was cut before sending (the prompt would not fit the context), for stderr. */
  notice?: string;
}

/** The generation options a record names: Ollama's four; an OpenAI-compatible server takes no num_ctx. */
export type RecordedOptions = Omit<ModelOptions, 'num_ctx'> & { num_ctx?: number };

/** What `generation.<view>` records about the backend: everything that determines a reply. */
export interface BackendInfo {
  backend: BackendName;
  model: string | null;
  /** Null when the server reports none (an OpenAI-compatible server never does) or nothing was asked (dry run, extractive). */
  model_digest: string | null;
  /** Null for a backend without generation options (extractive). */
  options: RecordedOptions | null;
}

export interface Backend {
  readonly info: BackendInfo;
  /** False when another attempt cannot give another reply (a deterministic backend): the ladder stops after one. */
  readonly retries: boolean;
  /** One attempt; transport retries happen inside. Rejects only with a ModelError. */
  attempt(job: Job, input: AttemptInput, signal: AbortSignal): Promise<BackendReply>;
  /** The request one attempt would send, for --dry-run. */
  render(job: Job, input: AttemptInput): JsonObject;
  /** How this attempt's prompt cuts the text and a section's children (absent: as the ladder's budgets alone cut them). */
  cuts?(job: Job, input: AttemptInput): { textCut: TextCut | null; childrenCut: ChildrenCut | null };
  /** What determines the reply to this attempt (absent: replies are not cached); with `pair`, to the job's part of the request for those jobs. */
  cacheKeyParts?(job: Job, input: AttemptInput, pair?: readonly Job[]): CacheKeyParts;
  /** One request for the first attempts of several views of a record (--views-per-request); absent: each view is asked alone. */
  pairAttempt?(jobs: readonly Job[], input: AttemptInput, signal: AbortSignal): Promise<BackendReply>;
  /** The pair request as --dry-run shows it. */
  renderPair?(jobs: readonly Job[], input: AttemptInput): JsonObject;
  /**
   * A backend that makes the view object itself, at once (extractive): the view of an attempt,
   * which the ladder checks as it is, with no reply text to parse and no promise (builtResult).
   * `attempt` gives the same view as JSON text.
   */
  build?(job: Job, input: AttemptInput): BuiltView;
}

/** A view as a backend built it, and how the text it was taken from was cut. */
export interface BuiltView {
  view: JsonObject;
  textCut: TextCut | null;
}
