// The retry ladder of one view. Transport faults were already retried inside the backend; what
// comes back here is a reply, and a reply that cannot be used earns another attempt, up to
// maxTries: (1) the prompt; (2) the prompt with feedback naming exactly what failed; (3) the same
// with the chunk text cut to truncateChars. Every reply goes through the validate stage's own
// check (provenance stamped first), so a view written here is one rca-validate would pass as is.
// A reply replayed from the response cache goes through the same check before it is used.
import type { CachedReply } from '../cache/response-cache.js';
import type { PromptStyle } from '../contracts/vocabulary.js';
import type { JsonObject } from '../contracts/json.js';
import { isReplyFault, ModelError } from '../llm/model-client.js';
import type { ViewEvidence } from '../views/evidence.js';
import { feedbackFor, type ReplyProblem } from '../views/feedback.js';
import type { GroundingText } from '../views/grounding.js';
import { recoverJson } from '../views/json-recovery.js';
import type { CheckedReply } from '../views/records/record-kind.js';
import type { ChildrenCut } from '../views/section-prompt.js';
import type { TextCut } from '../views/text-cut.js';
import type { AttemptInput, Backend, BackendInfo, BackendReply, Job } from './backend.js';

export interface LadderPolicy {
  maxTries: number;
  truncateChars: number;
  /** A cut applied to every attempt (--max-chars); the third attempt cuts to the smaller of the two. */
  maxChars: number | undefined;
  maxOutputTokens: number | null;
  /** The context the server runs (--num-ctx, Ollama); a reply whose counts fill it was written without the whole prompt. */
  numCtx?: number | null;
  /** --prompt-style (compact when absent). */
  promptStyle?: PromptStyle;
}

/** The flag of a reply whose prompt and reply tokens filled the server's context. */
const SERVER_CUT_FLAG = 'prompt_cut_by_server';

export interface ViewError {
  /** REPLY_NOT_JSON, REPLY_INVALID, REPLY_CUT, REPLY_ONLY_THINKING, or the client's ModelError code (PROMPT_TOO_LONG and REPLY_INCOMPLETE go through the ladder). */
  code: string;
  message: string;
  attempts: number;
}

/**
 * The tokens of a view's requests, every attempt's added up: `prompt` every prompt token, `cached`
 * those of them the engine served from its prompt cache (so prompt − cached were computed),
 * `output` the reply tokens. null: the server did not say (Ollama gives no cached count).
 */
export interface TokenCounts {
  prompt: number | null;
  cached: number | null;
  output: number | null;
}

/** `generation.<view>` on the record: no timestamps or durations, so the record stays byte-stable. */
export interface GenerationEntry extends BackendInfo {
  attempts: number;
  done_reason: string | null;
  tokens: TokenCounts;
  /** The view's first attempt was one request with the chunk's other views (--views-per-request): its tokens are shared out (see pair.ts). */
  shared_request?: true;
  text_cut: TextCut | null;
  /** Sections only, and only when CHILD_SUMMARIES was bounded for the kept reply (see section-prompt.ts). */
  children_cut?: ChildrenCut;
  /** The outcome was replayed from the response cache: no request was sent for it in this run. */
  cached: boolean;
  error: ViewError | null;
}

export type ViewResult = (
  /** `content`: the accepted reply as the backend gave it (what the response cache keeps). */
  | { status: 'ok'; view: JsonObject; flags: string[]; fixed: string[]; evidence: ViewEvidence; generation: GenerationEntry; transportRetries: number; content: string }
  /** `content`: the reply kept with its flags; `keptAttempt`: the attempt that gave it. */
  | { status: 'flagged'; view: JsonObject; flags: string[]; fixed: string[]; evidence: ViewEvidence; generation: GenerationEntry; transportRetries: number; content: string; keptAttempt: number }
  | { status: 'failed'; view: null; flags: null; fixed: null; evidence: null; generation: GenerationEntry; transportRetries: number }
) & { /** What the backend said about its attempts (a prompt cut to fit the context), for stderr. */ notices?: string[] };

/** The text budget of an attempt: --max-chars throughout, and from the third on at most --truncate-chars. */
function attemptMaxChars(policy: LadderPolicy, attempt: number): number | undefined {
  return attempt >= 3 ? Math.min(policy.truncateChars, policy.maxChars ?? Number.POSITIVE_INFINITY) : policy.maxChars;
}

/** The CHILD_SUMMARIES budget of an attempt (kinds that bound one): none, except on the cut-text attempts (--truncate-chars). */
function attemptMaxChildChars(job: Job, policy: LadderPolicy, attempt: number): number | undefined {
  return job.records.boundsChildren && attempt >= 3 ? policy.truncateChars : undefined;
}

/** The input of an attempt at this budget: its number and feedback, the text budget, and a children budget where the kind has one. */
export function attemptInput(job: Job, policy: LadderPolicy, attempt: number, feedback: string | null, budgetAttempt = attempt): AttemptInput {
  const maxChildChars = attemptMaxChildChars(job, policy, budgetAttempt);
  return {
    attempt,
    feedback,
    maxChars: attemptMaxChars(policy, budgetAttempt),
    ...(maxChildChars === undefined ? {} : { maxChildChars }),
    ...(policy.promptStyle === undefined ? {} : { style: policy.promptStyle }),
  };
}

/** What an attempt's cuts add to its generation entry: children_cut only when the children were bounded. */
function childrenCutEntry(cut: ChildrenCut | null | undefined): { children_cut?: ChildrenCut } {
  return cut === null || cut === undefined ? {} : { children_cut: cut };
}

/** A reply parsed and checked by the job's record kind, as rca-validate checks it. */
function checkReply(job: Job, grounding: GroundingText, content: string): ({ ok: true } & CheckedReply) | { ok: false; error: string } {
  const recovered = recoverJson(content);
  if (!recovered.ok) return { ok: false, error: recovered.error };
  return { ok: true, ...job.records.check(job.kind, job.input, grounding, recovered.value) };
}

/**
 * The ladder of a backend that builds its views (Backend.build; deterministic, so one attempt):
 * the result ladderSteps gives for the same view, made at once. The view is checked as built where
 * its record kind knows such views hold the contract (RecordKind.checkBuilt), otherwise as a
 * reply: its JSON text parsed back.
 */
export function builtResult(job: Job, grounding: GroundingText, backend: Backend, policy: LadderPolicy): ViewResult {
  if (backend.build === undefined || backend.retries) throw new Error('builtResult is for a backend that builds its views in one attempt');
  const { view, textCut } = backend.build(job, attemptInput(job, policy, 1, null));
  const content = JSON.stringify(view);
  const checked = job.records.checkBuilt !== undefined ? ({ ok: true, ...job.records.checkBuilt(job.kind, job.input, grounding, view) } as const) : checkReply(job, grounding, content);
  const entry = (error: ViewError | null): GenerationEntry => ({
    ...backend.info,
    attempts: 1,
    done_reason: null,
    tokens: { prompt: null, cached: null, output: null },
    text_cut: textCut,
    cached: false,
    error,
  });
  if (!checked.ok) return { status: 'failed', view: null, flags: null, fixed: null, evidence: null, generation: entry({ code: 'REPLY_NOT_JSON', message: checked.error, attempts: 1 }), transportRetries: 0 };
  if (!checked.withinContract) {
    return { status: 'failed', view: null, flags: null, fixed: null, evidence: null, generation: entry({ code: 'REPLY_INVALID', message: checked.flags.join(', '), attempts: 1 }), transportRetries: 0 };
  }
  const { flags, fixed, evidence } = checked;
  if (flags.length === 0) return { status: 'ok', view: checked.view, flags, fixed, evidence, generation: entry(null), transportRetries: 0, content };
  return { status: 'flagged', view: checked.view, flags, fixed, evidence, generation: entry(null), transportRetries: 0, content, keptAttempt: 1 };
}

/** What the response cache holds for a view: its accepted reply and the ladder's totals. */
export type LadderOutcome = CachedReply & { attempts: number };

/** The outcome of a ladder that kept a reply, as the cache keeps it (replayOutcome turns it back). */
export function ladderOutcome(result: Extract<ViewResult, { content: string }>): LadderOutcome {
  const { generation } = result;
  return {
    content: result.content,
    doneReason: generation.done_reason,
    promptTokens: generation.tokens.prompt,
    outputTokens: generation.tokens.output,
    attempts: generation.attempts,
    ...(result.status === 'flagged' ? { flagged: { flags: result.flags, keptAttempt: result.keptAttempt } } : {}),
  };
}

/**
 * A cached outcome as the ladder would have written it, or null when the reply no longer passes
 * today's checks (then the view is generated again). The text cut is the one of the attempt that
 * was kept, so the record is the one the first run wrote, apart from `cached`.
 */
export function replayOutcome(job: Job, grounding: GroundingText, info: BackendInfo, policy: LadderPolicy, outcome: LadderOutcome, cutsOf?: Backend['cuts']): ViewResult | null {
  // More tries than this run allows: this run would not have written that view.
  if (outcome.attempts < 1 || outcome.attempts > policy.maxTries) return null;
  const { flagged } = outcome;
  // A flagged outcome is what a ladder of exactly this many tries ends with: one allowed more
  // tries would have asked again.
  if (flagged !== undefined && outcome.attempts !== policy.maxTries) return null;
  const checked = checkReply(job, grounding, outcome.content);
  if (!checked.ok || !checked.withinContract) return null;
  // Today's validator must say what it said then: clean for an outcome that passed, the same
  // flags for a flagged one; otherwise the view is asked again.
  if (flagged === undefined ? checked.flags.length > 0 : !sameFlags(checked.flags, flagged.flags)) return null;
  // The kept attempt's cuts as its prompt made them (the fit to the context included); what its
  // feedback added to the prompt is not known here, so a later attempt is taken without it.
  const kept = flagged?.keptAttempt ?? outcome.attempts;
  const input = attemptInput(job, policy, kept, null);
  const cuts = cutsOf?.(job, input) ?? cutsOfPrompt(job.records.prompt(job.kind, job.input, input));
  const generation: GenerationEntry = {
    ...info,
    attempts: outcome.attempts,
    done_reason: outcome.doneReason,
    // The first run's counts; the cache keeps no cached count.
    tokens: { prompt: outcome.promptTokens, cached: null, output: outcome.outputTokens },
    text_cut: cuts.textCut,
    ...childrenCutEntry(cuts.childrenCut),
    cached: true,
    error: null,
  };
  if (flagged !== undefined) {
    return { status: 'flagged', view: checked.view, flags: checked.flags, fixed: checked.fixed, evidence: checked.evidence, generation, transportRetries: 0, content: outcome.content, keptAttempt: flagged.keptAttempt };
  }
  return { status: 'ok', view: checked.view, flags: [], fixed: checked.fixed, evidence: checked.evidence, generation, transportRetries: 0, content: outcome.content };
}

function cutsOfPrompt(prompt: { textCut: TextCut | null; childrenCut?: ChildrenCut | null }): { textCut: TextCut | null; childrenCut: ChildrenCut | null } {
  return { textCut: prompt.textCut, childrenCut: prompt.childrenCut ?? null };
}

function sameFlags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((flag, i) => flag === b[i]);
}

interface Candidate {
  content: string;
  attempt: number;
  view: JsonObject;
  flags: string[];
  fixed: string[];
  evidence: ViewEvidence;
  doneReason: string | null;
  textCut: TextCut | null;
  childrenCut: ChildrenCut | null | undefined;
}

/**
 * The ladder of one view. `first`, when given, stands in for the first attempt: the view's part of
 * one request made for several views of the chunk (--views-per-request, pair.ts); a part that
 * cannot be used goes on through this view's own attempts, with feedback, as any first reply would.
 */
export async function runLadder(job: Job, grounding: GroundingText, backend: Backend, policy: LadderPolicy, signal: AbortSignal, first?: () => Promise<BackendReply>): Promise<ViewResult> {
  const notices: string[] = [];
  const result = await ladderSteps(job, grounding, backend, policy, signal, notices, first);
  return notices.length === 0 ? result : { ...result, notices: [...new Set(notices)] };
}

async function ladderSteps(job: Job, grounding: GroundingText, backend: Backend, policy: LadderPolicy, signal: AbortSignal, notices: string[], first?: () => Promise<BackendReply>): Promise<ViewResult> {
  const shared = first !== undefined;
  const tries = backend.retries ? policy.maxTries : 1;
  const tokens: TokenCounts = { prompt: null, cached: null, output: null };
  let transportRetries = 0;
  let problem: ReplyProblem | null = null;
  let lastError: Omit<ViewError, 'attempts'> = { code: 'REPLY_INVALID', message: 'no attempt was made' };
  let lastDoneReason: string | null = null;
  let lastCut: TextCut | null = null;
  let lastChildrenCut: ChildrenCut | null | undefined = null;
  // The contract-valid reply with the fewest quality flags, kept if no attempt passes outright.
  let best: Candidate | null = null;

  const entry = (attempts: number, from: { doneReason: string | null; textCut: TextCut | null; childrenCut?: ChildrenCut | null | undefined }, error: ViewError | null): GenerationEntry => ({
    ...backend.info,
    attempts,
    done_reason: from.doneReason,
    tokens: { ...tokens },
    ...(shared ? { shared_request: true as const } : {}),
    text_cut: from.textCut,
    ...childrenCutEntry(from.childrenCut),
    cached: false,
    error,
  });

  // Set once the server said the prompt does not fit its context: every later attempt cuts the text.
  let cutText = false;
  for (let attempt = 1; attempt <= tries; attempt++) {
    const cutAttempt = cutText ? Math.max(attempt, 3) : attempt;
    const feedback = problem === null ? null : feedbackFor(problem, job.records.feedbackSource(job.input));
    let reply;
    try {
      reply = attempt === 1 && first !== undefined ? await first() : await backend.attempt(job, attemptInput(job, policy, attempt, feedback, cutAttempt), signal);
    } catch (err) {
      if (!(err instanceof ModelError)) throw err;
      transportRetries += err.retries;
      if (isReplyFault(err.code)) {
        lastError = { code: err.code, message: err.message };
        lastDoneReason = null;
        if (err.code === 'PROMPT_TOO_LONG') {
          // The model never saw this prompt: no feedback, the text cut instead.
          cutText = true;
          problem = null;
        } else {
          problem = { parseError: 'it stopped before the JSON object was complete (the server ends a reply that repeats itself); do not repeat words or items, and keep every item short' };
        }
        continue;
      }
      // A transport failure that survived its retries, or a refusal: another prompt will not help.
      const error = { code: err.code, message: err.message, attempts: attempt };
      return { status: 'failed', view: null, flags: null, fixed: null, evidence: null, generation: entry(attempt, { doneReason: null, textCut: lastCut, childrenCut: lastChildrenCut }, error), transportRetries };
    }
    transportRetries += reply.transportRetries;
    if (reply.notice !== undefined) notices.push(reply.notice);
    tokens.prompt = addCount(tokens.prompt, reply.promptTokens);
    tokens.cached = addCount(tokens.cached, reply.cachedTokens ?? null);
    tokens.output = addCount(tokens.output, reply.outputTokens);
    lastDoneReason = reply.doneReason;
    lastCut = reply.textCut;
    lastChildrenCut = reply.childrenCut;

    const thinking = reply.thinkingChars ?? 0;
    const thoughtOnly = reply.content.trim() === '' && thinking > 0;
    // A cut reply may still hold a complete inner object (recovery would find "entities"): never parse it.
    if (reply.doneReason === 'length') {
      problem = { parseError: 'it was cut off at the output token limit before the JSON object was complete; keep every item short' };
      const limit = policy.maxOutputTokens === null ? '' : ` (--max-output-tokens ${policy.maxOutputTokens})`;
      const spent = thoughtOnly ? `; the model spent them on ${thinking} characters of thinking and wrote no answer` : '';
      lastError = { code: 'REPLY_CUT', message: `reply cut at the output token limit${limit}${spent}` };
      continue;
    }
    // A thinking model that reasoned and never answered: not a JSON problem, and not to be called one.
    if (thoughtOnly) {
      problem = { parseError: 'it held only reasoning and no JSON object; answer with the JSON object only' };
      lastError = { code: 'REPLY_ONLY_THINKING', message: `the model wrote ${thinking} characters of thinking and no answer (a thinking model: --think off sends the server's switch to answer without reasoning; this model or server did not honour it)` };
      continue;
    }
    const checked = checkReply(job, grounding, reply.content);
    if (!checked.ok) {
      problem = { parseError: checked.error };
      lastError = { code: 'REPLY_NOT_JSON', message: checked.error };
      continue;
    }
    const { withinContract } = checked;
    // prompt + reply tokens filling the context: the server cut the prompt's head (Ollama without
    // truncate: false) or shifted the context mid-reply. Kept only as a flagged last resort; the
    // next attempts cut the text.
    const numCtx = policy.numCtx ?? null;
    if (numCtx !== null && reply.promptTokens !== null && reply.promptTokens + (reply.outputTokens ?? 0) >= numCtx) {
      cutText = true;
      checked.flags.push(SERVER_CUT_FLAG);
    }
    if (withinContract && checked.flags.length === 0) {
      return { status: 'ok', view: checked.view, flags: [], fixed: checked.fixed, evidence: checked.evidence, generation: entry(attempt, reply, null), transportRetries, content: reply.content };
    }
    if (withinContract && (best === null || checked.flags.length < best.flags.length)) {
      best = { content: reply.content, attempt, view: checked.view, flags: checked.flags, fixed: checked.fixed, evidence: checked.evidence, doneReason: reply.doneReason, textCut: reply.textCut, childrenCut: reply.childrenCut };
    }
    // The model cannot fix the server's cut: feedback names only what it can.
    const fixable = checked.flags.filter((f) => f !== SERVER_CUT_FLAG);
    problem = fixable.length === 0 ? null : { flags: fixable };
    lastError = { code: 'REPLY_INVALID', message: checked.flags.join(', ') };
  }

  // Out of tries. A reply within the contract is kept with its flags (in band, for the reader to
  // judge); anything else leaves the view null with the last reason.
  if (best !== null) {
    return { status: 'flagged', view: best.view, flags: best.flags, fixed: best.fixed, evidence: best.evidence, generation: entry(tries, best, null), transportRetries, content: best.content, keptAttempt: best.attempt };
  }
  const error = { ...lastError, attempts: tries };
  return { status: 'failed', view: null, flags: null, fixed: null, evidence: null, generation: entry(tries, { doneReason: lastDoneReason, textCut: lastCut, childrenCut: lastChildrenCut }, error), transportRetries };
}

function addCount(total: number | null, more: number | null): number | null {
  if (more === null) return total;
  return (total ?? 0) + more;
}
