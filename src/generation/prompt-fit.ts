// A prompt fitted to the model's context: the text (or the parts a record kind shares the cut
// among) cut further when the whole prompt is estimated not to fit --num-ctx minus the reply's
// room, and the first attempt's prompt of a view built once (the cache key and the request share it).
import type { KindPrompt } from '../views/records/record-kind.js';
import type { ChildrenCut } from '../views/section-prompt.js';
import { VIEW_TYPES } from '../contracts/vocabulary.js';
import type { AttemptInput, Job } from './backend.js';
import { BACKEND_TRAITS, type BackendName, type GenerateConfig } from './config.js';
import { attemptPrompt } from './requests.js';

// A token of English technical text is 3 to 4 characters; identifiers and numbers run shorter.
// 2.5 errs on the safe side: a prompt estimated to fit does.
const CHARS_PER_TOKEN_ESTIMATE = 2.5;

/** A prompt and, when it was cut to fit, why (for stderr). */
export type FittedPrompt = KindPrompt & { fitted: string | null };

export interface PromptFitter {
  /** A view's attempt: the first one's prompt built once per job and budgets, later ones each time. */
  view(job: Job, input: AttemptInput): FittedPrompt;
  /** The one prompt of several views of a chunk (--views-per-request). */
  pair(jobs: readonly Job[], input: AttemptInput): FittedPrompt;
}

export function createPromptFitter(name: BackendName, config: GenerateConfig): PromptFitter {
  // What a prompt may hold: the context (--num-ctx; Ollama only: an OpenAI-compatible server
  // answers 400 instead, which the ladder takes as PROMPT_TOO_LONG) minus room for the reply.
  const { num_ctx: numCtx, num_predict: numPredict } = config.modelOptions;
  const promptBudget = BACKEND_TRAITS[name].sendsNumCtx ? numCtx - numPredict : null;
  // The pair's reply has room for each view's.
  const pairBudget = promptBudget === null ? null : numCtx - numPredict * VIEW_TYPES.length;
  const firsts = new WeakMap<Job, FittedPrompt & { budgets: { maxChars: number | undefined; maxChildChars: number | undefined } }>();
  return {
    view(job, input) {
      // Later attempts differ by their feedback and budgets: each is built when it is sent.
      if (input.attempt !== 1 || input.feedback !== null) return fitPrompt(job, input, promptBudget);
      let first = firsts.get(job);
      if (first === undefined || !sameBudgets(first.budgets, input)) {
        first = { ...fitPrompt(job, input, promptBudget), budgets: { maxChars: input.maxChars, maxChildChars: input.maxChildChars } };
        firsts.set(job, first);
      }
      return first;
    },
    pair(jobs, input) {
      const records = jobs[0]!.records;
      if (records.pairPrompt === undefined) throw new Error('this record kind has no request for several views');
      const build = (maxChars: number | undefined): KindPrompt => records.pairPrompt!(jobs.map((j) => j.kind), jobs[0]!.input, { ...input, maxChars });
      return fitBuilt(build, jobs[0]!.text, input.maxChars, pairBudget);
    },
  };
}

/** How far a prompt is estimated to exceed `budget` (null: it fits, or there is no budget). */
function overBudget(prompt: string, budget: number | null): { excessChars: number; why: string } | null {
  if (budget === null || budget <= 0) return null;
  const estimated = Math.ceil(prompt.length / CHARS_PER_TOKEN_ESTIMATE);
  if (estimated <= budget) return null;
  return {
    excessChars: Math.ceil((estimated - budget) * CHARS_PER_TOKEN_ESTIMATE),
    why: `prompt of about ${estimated} tokens does not fit --num-ctx minus --max-output-tokens (${budget})`,
  };
}

/** A prompt built by `build` at a text budget, its text cut further when it is estimated not to fit `budget`. */
function fitBuilt(build: (maxChars: number | undefined) => KindPrompt, text: string, maxChars: number | undefined, budget: number | null): FittedPrompt {
  const first = build(maxChars);
  const over = overBudget(first.prompt, budget);
  if (over === null) return { ...first, fitted: null };
  const cutTo = Math.max(1, Math.min(text.length, maxChars ?? Number.POSITIVE_INFINITY) - over.excessChars);
  return { ...build(cutTo), fitted: `${over.why}: chunk text cut to ${cutTo} characters` };
}

/**
 * The attempt's prompt, cut further when the whole prompt is estimated not to fit the budget
 * (recorded in text_cut like any cut; `fitted` says why, for stderr): the text alone, or the
 * parts the record kind shares the cut among (a section's text and its CHILD_SUMMARIES).
 */
function fitPrompt(job: Job, input: AttemptInput, budget: number | null): FittedPrompt {
  const first = attemptPrompt(job, input);
  const over = overBudget(first.prompt, budget);
  if (over === null) return { ...first, fitted: null };
  const shared = job.records.shrink(job.input, input, over.excessChars);
  if (shared !== null) {
    const cut = attemptPrompt(job, { ...input, ...shared });
    const parts = [
      ...(shared.maxChars === input.maxChars ? [] : [`chunk text cut to ${shared.maxChars} characters`]),
      ...(cut.childrenCut ? [childrenNotice(cut.childrenCut, `cut to ${shared.maxChildChars} characters`)] : []),
    ];
    return { ...cut, fitted: `${over.why}: ${parts.join('; ')}` };
  }
  const textChars = Math.min(job.text.length, input.maxChars ?? Number.POSITIVE_INFINITY);
  const maxChars = Math.max(1, textChars - over.excessChars);
  const cut = attemptPrompt(job, { ...input, maxChars });
  return { ...cut, fitted: `${over.why}: chunk text cut to ${maxChars} characters` };
}

function sameBudgets(a: { maxChars: number | undefined; maxChildChars?: number | undefined }, b: AttemptInput): boolean {
  return a.maxChars === b.maxChars && a.maxChildChars === b.maxChildChars;
}

/** The stderr line of a bounded CHILD_SUMMARIES. */
export function childrenNotice(cut: ChildrenCut, how: string): string {
  return `child summaries ${how}: ${cut.kept_children} of ${cut.children} shown, ${cut.children - cut.kept_children} left out (children_cut)`;
}
