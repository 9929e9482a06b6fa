// The seam between the retry ladder and whatever writes a view. The ladder asks for one attempt
// at a time and validates every reply itself, so a backend only turns (job, attempt) into a reply:
// a model backend (Ollama on one host or several, an OpenAI-compatible server) renders a prompt
// and calls the server; an extractive backend fills the view from the
// chunk text and seed (it ignores the prompt, and one attempt is all it needs). A backend whose
// replies are worth keeping names the request of a view's first attempt (`cacheKeyParts`): the
// response cache keeps the outcome of the view's whole ladder under it (see view-cache.ts).
import type { CacheKeyParts } from '../cache/cache-key.js';
import type { ChunkContext, NerSeed } from '../contracts/chunk.js';
import type { JsonObject } from '../runtime/stage.js';
import type { ChildrenCut } from '../views/section-prompt.js';
import type { TextCut } from '../views/text-cut.js';
import type { ViewType } from '../contracts/vocabulary.js';
import type { BackendName, ModelOptions } from './config.js';
import type { SectionJob } from './section-job.js';

/** One view of one record. */
export interface ViewJob {
  view: ViewType;
  context: ChunkContext;
  nerSeed: NerSeed;
  text: string;
  /** Input position of the record: earlier records go first when requests wait for a slot. */
  seq: number;
}

/** What the ladder and the backends are given: a chunk view, or the section_summary of a section (section-job.ts). */
export type Job = ViewJob | SectionJob;

/** What changes from one attempt to the next. */
export interface AttemptInput {
  /** 1-based. */
  attempt: number;
  /** What was wrong with the previous reply, said to the model; null on the first attempt. */
  feedback: string | null;
  /** Cut the chunk text to this many characters (undefined: whole text). */
  maxChars: number | undefined;
  /** Bound a section's CHILD_SUMMARIES to this many characters (undefined: all of them; the cut-text attempts set it). */
  maxChildChars?: number;
}

export interface BackendReply {
  content: string;
  doneReason: string | null;
  promptTokens: number | null;
  outputTokens: number | null;
  /** Characters of reasoning that came apart from the content (0: none). */
  thinkingChars?: number;
  /** Transport retries spent on this attempt. */
  transportRetries: number;
  /** How the chunk text was cut for this attempt, or null. */
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
  /** What determines the reply to this attempt (absent: replies are not cached). */
  cacheKeyParts?(job: Job, input: AttemptInput): CacheKeyParts;
}
