// The model backends: one attempt is one chat request, sent through the request gate and retried
// on transport faults with backoff (--max-transport-retries). The client behind it is Ollama on
// one host, a pool of Ollama hosts, or an OpenAI-compatible server; the backend only differs in
// what the record and the cache key say about the request, and in how --dry-run shows it.
// Every answer and failure is reported to the run control: a request that keeps failing while
// the server answers others fails its view; requests failing while the server answers nobody wait
// for it instead, up to the run's give-up clock, so an outage never turns into an error record per
// chunk.
import { ModelError, type GenerateReply, type GenerateRequest, type ModelClient } from '../llm/model-client.js';
import { abortableSleep, backoffDelay, withTransportRetries } from '../llm/transport-retry.js';
import type { JsonObject } from '../contracts/json.js';
import type { KindPrompt } from '../views/records/record-kind.js';
import type { ChildrenCut } from '../views/section-prompt.js';
import type { TextCut } from '../views/text-cut.js';
import type { AttemptInput, Backend, BackendInfo, BackendReply, Job, RecordedOptions } from './backend.js';
import { BACKEND_TRAITS, MAX_RETRY_DELAY_MS, type BackendName, type GenerateConfig } from './config.js';
import type { RequestGate } from './request-gate.js';
import { attemptPrompt, generateRequest, pairRequest, renderChatCompletion, renderOllamaRequest } from './requests.js';
import { VIEW_TYPES } from '../contracts/vocabulary.js';
import { pairLane } from './pair.js';
import type { RunControl } from './run-control.js';

export interface ModelBackendDeps {
  /** Null for --dry-run: nothing is sent. */
  client: ModelClient | null;
  gate: RequestGate;
  control: RunControl;
  /** Digest from the preflight (null when unknown: a dry run, or a server that reports none). */
  modelDigest: string | null;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The backends that send requests (BACKEND_TRAITS.sendsRequests). */
export type ModelBackendName = Exclude<BackendName, 'extractive'>;

/** What differs between the wire formats: the options a record names, the key's extra parts, the dry-run view. */
interface Dialect {
  options: RecordedOptions;
  /** Options of the cache key: what determines the reply besides model, digest, schema and prompt. */
  keyOptions: Record<string, unknown>;
  render(request: GenerateRequest, textCut: TextCut | null): JsonObject;
}

const DIALECTS: Readonly<Record<ModelBackendName, (config: GenerateConfig, host: string) => Dialect>> = {
  ollama(config, host) {
    // Host, keep_alive and timeout change where and how long, not what the model answers: a
    // pool of hosts and a single host share their cache entries (preflight made the digests agree).
    // --think changes what the model answers; the default (off) keeps the keys as they were.
    const keyOptions = { ...config.modelOptions, ...thinkKey(config) };
    return { options: { ...config.modelOptions }, keyOptions, render: (request, cut) => renderOllamaRequest(host, request, cut) };
  },
  openai(config, host) {
    // num_ctx is not sent: the server fixed its context length when it started. Such a server
    // reports no digest, so the base URL stands in for the model's identity in the key: another
    // server may serve other weights under the same name. A model redeployed under the same name
    // at the same URL goes unnoticed: --refresh asks again. --model-id (the operator's fingerprint
    // of the weights) stands in for the URL, so N servers on N task-local URLs share entries.
    const { num_ctx: _notSent, ...options } = config.modelOptions;
    const served = config.cache.modelId === undefined ? { base_url: host } : { model_id: config.cache.modelId };
    return { options, keyOptions: { ...options, ...served, ...thinkKey(config) }, render: (request, cut) => renderChatCompletion(host, request, cut) };
  },
};

/** --think in the cache key: nothing for the default (off), the mode otherwise. */
function thinkKey(config: GenerateConfig): Record<string, unknown> {
  return config.think === 'on' ? { think: true } : config.think === 'server' ? { think: 'server' } : {};
}

function dialectOf(name: ModelBackendName, config: GenerateConfig): Dialect {
  return DIALECTS[name](config, config.host ?? '');
}

export function createModelBackend(name: ModelBackendName, config: GenerateConfig, deps: ModelBackendDeps): Backend {
  const policy = {
    maxRetries: config.maxTransportRetries,
    baseDelayMs: config.retryDelayMs,
    maxDelayMs: Math.max(config.retryDelayMs, MAX_RETRY_DELAY_MS),
    ...(deps.random ? { random: deps.random } : {}),
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
  };
  const sleep = deps.sleep ?? abortableSleep;
  const dialect = dialectOf(name, config);
  const info: BackendInfo = { backend: name, model: config.model, model_digest: deps.modelDigest, options: dialect.options };
  const { client, gate, control } = deps;
  // What a prompt may hold: the context (--num-ctx; Ollama only: an OpenAI-compatible server
  // answers 400 instead, which the ladder takes as PROMPT_TOO_LONG) minus room for the reply.
  const promptBudget = BACKEND_TRAITS[name].sendsNumCtx ? config.modelOptions.num_ctx - config.modelOptions.num_predict : null;
  // The first attempt's prompt, fitted, is built once per view: the cache key names it, and on a
  // miss the ladder's first attempt (or --dry-run) sends it.
  const firsts = new WeakMap<Job, FittedPrompt & { budgets: { maxChars: number | undefined; maxChildChars: number | undefined } }>();
  const fitted = (job: Job, input: AttemptInput): FittedPrompt => {
    // Later attempts differ by their feedback and budgets: each is built when it is sent.
    if (input.attempt !== 1 || input.feedback !== null) return fitPrompt(job, input, promptBudget);
    let first = firsts.get(job);
    if (first === undefined || !sameBudgets(first.budgets, input)) {
      first = { ...fitPrompt(job, input, promptBudget), budgets: { maxChars: input.maxChars, maxChildChars: input.maxChildChars } };
      firsts.set(job, first);
    }
    return first;
  };

  // One HTTP call. A 404 now means the model was removed mid-run (from every host of a pool),
  // and a refused key means it was revoked: every later record would fail the same way, so the
  // run stops rather than writing an error record per chunk. The client's message says which.
  const call = async (request: GenerateRequest, seq: number, signal: AbortSignal, view: string) => {
    if (client === null) throw new ModelError('BAD_RESPONSE', 'no model client in a dry run', { retryable: false });
    try {
      // The view is the request's lane: prompts of a view share their head (view-lanes.ts).
      const reply = await gate.run(() => client.generate(request, signal), seq, signal, view);
      control.serverAnswered();
      return reply;
    } catch (err) {
      if (err instanceof ModelError) {
        if (err.code === 'HTTP_404' || err.code === 'AUTH') control.fail(err.message);
        else if (err.retryable) control.serverFailed(err);
        else if (err.code !== 'ABORTED') control.serverAnswered();
      }
      throw err;
    }
  };

  // One request with its transport retries. Out of retries while the server has answered nobody
  // since this request began failing: the server is down, not this request. Failing the view
  // would write an error record per chunk for the whole outage; instead keep trying at the longest
  // delay, and let the run's give-up clock bound the wait (the record is then left unwritten).
  const send = async (request: GenerateRequest, seq: number, signal: AbortSignal, lane: string): Promise<{ value: GenerateReply; retries: number }> => {
    let failedAt: number | null = null;
    const once = async () => {
      try {
        return await call(request, seq, signal, lane);
      } catch (err) {
        if (err instanceof ModelError && err.retryable) failedAt ??= control.answerMark();
        throw err;
      }
    };
    try {
      return await withTransportRetries(once, { ...policy, signal });
    } catch (err) {
      if (!(err instanceof ModelError) || !err.retryable) throw err;
      let last = err;
      let retries = err.retries;
      while (config.giveUpAfterMs > 0 && failedAt !== null && !control.answeredSince(failedAt)) {
        try {
          await sleep(backoffDelay(config.maxTransportRetries, policy, last.retryAfterMs), signal);
        } catch {
          throw withRetries(new ModelError('ABORTED', `cancelled while waiting to retry after: ${last.message}`), retries);
        }
        retries++;
        try {
          return { value: await once(), retries };
        } catch (next) {
          if (!(next instanceof ModelError) || !next.retryable) throw next instanceof ModelError ? withRetries(next, retries) : next;
          last = next;
        }
      }
      throw withRetries(last, retries);
    }
  };

  // The pair's prompt, fitted to the context as a view's is (its reply has room for each view's).
  const pairBudget = promptBudget === null ? null : config.modelOptions.num_ctx - config.modelOptions.num_predict * VIEW_TYPES.length;
  const fittedPair = (jobs: readonly Job[], input: AttemptInput): FittedPrompt => {
    const records = jobs[0]!.records;
    if (records.pairPrompt === undefined) throw new Error('this record kind has no request for several views');
    const build = (maxChars: number | undefined): KindPrompt => records.pairPrompt!(jobs.map((j) => j.kind), jobs[0]!.input, { ...input, maxChars });
    return fitBuilt(build, jobs[0]!.text, input.maxChars, pairBudget);
  };

  return {
    info,
    retries: true,
    async attempt(job, input, signal): Promise<BackendReply> {
      const { prompt, textCut, childrenCut, fitted: fit } = fitted(job, input);
      // The fit explains its own cut; a cut-text attempt that bounded the children says so too.
      const notice = fit ?? (childrenCut ? childrenNotice(childrenCut, `cut to ${input.maxChildChars} characters (--truncate-chars, the cut-text attempt)`) : null);
      const { value, retries } = await send(generateRequest(config, job.kind.name, prompt), job.seq, signal, job.kind.name);
      return {
        ...value,
        transportRetries: retries,
        textCut,
        ...(childrenCut === undefined ? {} : { childrenCut }),
        ...(notice === null ? {} : { notice }),
      };
    },
    async pairAttempt(jobs, input, signal): Promise<BackendReply> {
      const { prompt, textCut, fitted: fit } = fittedPair(jobs, input);
      const { value, retries } = await send(pairRequest(config, jobs.map((j) => j.kind.name), prompt), jobs[0]!.seq, signal, pairLane(jobs));
      return { ...value, transportRetries: retries, textCut, ...(fit === null ? {} : { notice: fit }) };
    },
    renderPair(jobs, input) {
      const { prompt, textCut } = fittedPair(jobs, input);
      return dialect.render(pairRequest(config, jobs.map((j) => j.kind.name), prompt), textCut);
    },
    render(job, input) {
      const { prompt, textCut, childrenCut } = fitted(job, input);
      const rendered = dialect.render(generateRequest(config, job.kind.name, prompt), textCut);
      return childrenCut ? { ...rendered, children_cut: { ...childrenCut } } : rendered;
    },
    cuts(job, input) {
      const { textCut, childrenCut } = fitted(job, input);
      return { textCut, childrenCut: childrenCut ?? null };
    },
    cacheKeyParts(job, input, pair) {
      if (pair !== undefined) {
        // A view's part of the pair request: the pair's prompt and format, and which part it is.
        const { prompt } = fittedPair(pair, input);
        const request = pairRequest(config, pair.map((j) => j.kind.name), prompt);
        return { backend: name, model: request.model, modelDigest: deps.modelDigest, options: { ...dialect.keyOptions, part: job.kind.name }, schema: request.format, prompt };
      }
      const { prompt } = fitted(job, input);
      const request = generateRequest(config, job.kind.name, prompt);
      return { backend: name, model: request.model, modelDigest: deps.modelDigest, options: { ...dialect.keyOptions }, schema: request.format, prompt };
    },
  };
}

// A token of English technical text is 3 to 4 characters; identifiers and numbers run shorter.
// 2.5 errs on the safe side: a prompt estimated to fit does.
const CHARS_PER_TOKEN_ESTIMATE = 2.5;

function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN_ESTIMATE);
}

type FittedPrompt = KindPrompt & { fitted: string | null };


/** A prompt built by `build` at a text budget, its text cut further when it is estimated not to fit `budget`. */
function fitBuilt(build: (maxChars: number | undefined) => KindPrompt, text: string, maxChars: number | undefined, budget: number | null): FittedPrompt {
  const first = build(maxChars);
  if (budget === null || budget <= 0) return { ...first, fitted: null };
  const estimated = estimateTokens(first.prompt);
  if (estimated <= budget) return { ...first, fitted: null };
  const excessChars = Math.ceil((estimated - budget) * CHARS_PER_TOKEN_ESTIMATE);
  const cutTo = Math.max(1, Math.min(text.length, maxChars ?? Number.POSITIVE_INFINITY) - excessChars);
  return { ...build(cutTo), fitted: `prompt of about ${estimated} tokens does not fit --num-ctx minus --max-output-tokens (${budget}): chunk text cut to ${cutTo} characters` };
}

function sameBudgets(a: { maxChars: number | undefined; maxChildChars?: number | undefined }, b: AttemptInput): boolean {
  return a.maxChars === b.maxChars && a.maxChildChars === b.maxChildChars;
}

/**
 * The attempt's prompt, cut further when the whole prompt is estimated not to fit the budget
 * (recorded in text_cut like any cut; `fitted` says why, for stderr): the text alone, or the
 * parts the record kind shares the cut among (a section's text and its CHILD_SUMMARIES).
 */
function fitPrompt(job: Job, input: AttemptInput, budget: number | null): FittedPrompt {
  const first = attemptPrompt(job, input);
  if (budget === null || budget <= 0) return { ...first, fitted: null };
  const estimated = estimateTokens(first.prompt);
  if (estimated <= budget) return { ...first, fitted: null };
  const excessChars = Math.ceil((estimated - budget) * CHARS_PER_TOKEN_ESTIMATE);
  const why = `prompt of about ${estimated} tokens does not fit --num-ctx minus --max-output-tokens (${budget})`;
  const shared = job.records.shrink(job.input, input, excessChars);
  if (shared !== null) {
    const cut = attemptPrompt(job, { ...input, ...shared });
    const parts = [
      ...(shared.maxChars === input.maxChars ? [] : [`chunk text cut to ${shared.maxChars} characters`]),
      ...(cut.childrenCut ? [childrenNotice(cut.childrenCut, `cut to ${shared.maxChildChars} characters`)] : []),
    ];
    return { ...cut, fitted: `${why}: ${parts.join('; ')}` };
  }
  const textChars = Math.min(job.text.length, input.maxChars ?? Number.POSITIVE_INFINITY);
  const maxChars = Math.max(1, textChars - excessChars);
  const cut = attemptPrompt(job, { ...input, maxChars });
  return { ...cut, fitted: `${why}: chunk text cut to ${maxChars} characters` };
}

/** The stderr line of a bounded CHILD_SUMMARIES. */
function childrenNotice(cut: ChildrenCut, how: string): string {
  return `child summaries ${how}: ${cut.kept_children} of ${cut.children} shown, ${cut.children - cut.kept_children} left out (children_cut)`;
}

function withRetries(error: ModelError, retries: number): ModelError {
  error.retries = retries;
  return error;
}
