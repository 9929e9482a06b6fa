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
import type { JsonObject } from '../runtime/stage.js';
import { childSummaryLines, type ChildrenCut } from '../views/section-prompt.js';
import type { TextCut } from '../views/text-cut.js';
import type { AttemptInput, Backend, BackendInfo, BackendReply, Job, RecordedOptions } from './backend.js';
import { MAX_RETRY_DELAY_MS, type GenerateConfig } from './config.js';
import { attemptPrompt, generateRequest, renderChatCompletion, renderOllamaRequest, type AttemptPrompt } from './requests.js';
import { isSectionJob, type SectionJob } from './section-job.js';
import type { RunControl } from './run-control.js';
import type { RequestGate } from './scheduler.js';

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

export type ModelBackendName = 'ollama' | 'openai';

/** What differs between the wire formats: the options a record names, the key's extra parts, the dry-run view. */
interface Dialect {
  options: RecordedOptions;
  /** Options of the cache key: what determines the reply besides model, digest, schema and prompt. */
  keyOptions: Record<string, unknown>;
  render(request: GenerateRequest, textCut: TextCut | null): JsonObject;
}

function dialectOf(name: ModelBackendName, config: GenerateConfig): Dialect {
  const host = config.host ?? '';
  if (name === 'ollama') {
    // Host, keep_alive and timeout change where and how long, not what the model answers: a
    // pool of hosts and a single host share their cache entries (preflight made the digests agree).
    // --think changes what the model answers; the default (think: false) keeps the keys as they were.
    const keyOptions = { ...config.modelOptions, ...(config.think ? { think: true } : {}) };
    return { options: { ...config.modelOptions }, keyOptions, render: (request, cut) => renderOllamaRequest(host, request, cut) };
  }
  // num_ctx is not sent: the server fixed its context length when it started. Such a server
  // reports no digest, so the base URL stands in for the model's identity in the key: another
  // server may serve other weights under the same name. A model redeployed under the same name
  // at the same URL goes unnoticed: --refresh asks again. --model-id (the operator's fingerprint
  // of the weights) stands in for the URL, so N servers on N task-local URLs share entries.
  const { num_ctx: _notSent, ...options } = config.modelOptions;
  const served = config.cache.modelId === undefined ? { base_url: host } : { model_id: config.cache.modelId };
  return { options, keyOptions: { ...options, ...served }, render: (request, cut) => renderChatCompletion(host, request, cut) };
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
  const promptBudget = name === 'ollama' ? config.modelOptions.num_ctx - config.modelOptions.num_predict : null;

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

  return {
    info,
    retries: true,
    async attempt(job, input, signal): Promise<BackendReply> {
      const { prompt, textCut, childrenCut, fitted } = fitPrompt(job, input, promptBudget);
      // The fit explains its own cut; a cut-text attempt that bounded the children says so too.
      const notice = fitted ?? (childrenCut ? childrenNotice(childrenCut, `cut to ${input.maxChildChars} characters (--truncate-chars, the cut-text attempt)`) : null);
      const request = generateRequest(config, job.view, prompt);
      let failedAt: number | null = null;
      const once = async () => {
        try {
          return await call(request, job.seq, signal, job.view);
        } catch (err) {
          if (err instanceof ModelError && err.retryable) failedAt ??= control.answerMark();
          throw err;
        }
      };
      const reply = (value: GenerateReply, transportRetries: number): BackendReply => ({
        content: value.content,
        doneReason: value.doneReason,
        promptTokens: value.promptTokens,
        outputTokens: value.outputTokens,
        thinkingChars: value.thinkingChars,
        transportRetries,
        textCut,
        ...(childrenCut === undefined ? {} : { childrenCut }),
        ...(notice === null ? {} : { notice }),
      });
      try {
        const { value, retries } = await withTransportRetries(once, { ...policy, signal });
        return reply(value, retries);
      } catch (err) {
        if (!(err instanceof ModelError) || !err.retryable) throw err;
        // Out of retries while the server has answered nobody since this request began failing:
        // the server is down, not this request. Failing the view would write an error record
        // per chunk for the whole outage; instead keep trying at the longest delay, and let the
        // run's give-up clock bound the wait (the record is then left unwritten, not failed).
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
            return reply(await once(), retries);
          } catch (next) {
            if (!(next instanceof ModelError) || !next.retryable) throw next instanceof ModelError ? withRetries(next, retries) : next;
            last = next;
          }
        }
        throw withRetries(last, retries);
      }
    },
    render(job, input) {
      const { prompt, textCut, childrenCut } = fitPrompt(job, input, promptBudget);
      const rendered = dialect.render(generateRequest(config, job.view, prompt), textCut);
      return childrenCut ? { ...rendered, children_cut: { ...childrenCut } } : rendered;
    },
    cuts(job, input) {
      const { textCut, childrenCut } = fitPrompt(job, input, promptBudget);
      return { textCut, childrenCut: childrenCut ?? null };
    },
    cacheKeyParts(job, input) {
      const { prompt } = fitPrompt(job, input, promptBudget);
      const request = generateRequest(config, job.view, prompt);
      return { backend: name, model: request.model, modelDigest: deps.modelDigest, options: { ...dialect.keyOptions }, schema: request.format, prompt };
    },
  };
}

// A token of English technical text is 3 to 4 characters; identifiers and numbers run shorter.
// 2.5 errs on the safe side: a prompt estimated to fit does.
export const CHARS_PER_TOKEN_ESTIMATE = 2.5;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN_ESTIMATE);
}

type FittedPrompt = AttemptPrompt & { fitted: string | null };

/**
 * The attempt's prompt, its chunk text cut further when the whole prompt is estimated not to fit
 * the budget (recorded in text_cut like any cut; `fitted` says why, for stderr). A section's
 * CHILD_SUMMARIES shares the cut with its text (fitSection).
 */
export function fitPrompt(job: Job, input: AttemptInput, budget: number | null): FittedPrompt {
  const first = attemptPrompt(job, input);
  if (budget === null || budget <= 0) return { ...first, fitted: null };
  const estimated = estimateTokens(first.prompt);
  if (estimated <= budget) return { ...first, fitted: null };
  const excessChars = Math.ceil((estimated - budget) * CHARS_PER_TOKEN_ESTIMATE);
  if (isSectionJob(job) && job.children.length > 0) return fitSection(job, input, excessChars, `prompt of about ${estimated} tokens does not fit --num-ctx minus --max-output-tokens (${budget})`);
  const textChars = Math.min(job.text.length, input.maxChars ?? Number.POSITIVE_INFINITY);
  const maxChars = Math.max(1, textChars - excessChars);
  const cut = attemptPrompt(job, { ...input, maxChars });
  const fitted = `prompt of about ${estimated} tokens does not fit --num-ctx minus --max-output-tokens (${budget}): chunk text cut to ${maxChars} characters`;
  return { ...cut, fitted };
}

/**
 * A section prompt `excess` characters shorter: its text and its CHILD_SUMMARIES share what is
 * left, each keeping all it has when that is under half, the other taking the rest. So a parent
 * with a short text and very many children keeps its text and the first children that fit, and
 * one with a long text and a few children keeps its children (the text alone is cut, as before).
 */
function fitSection(job: SectionJob, input: AttemptInput, excess: number, why: string): FittedPrompt {
  const textChars = Math.min(job.text.length, input.maxChars ?? Number.POSITIVE_INFINITY);
  const shown = childSummaryLines(job.children, input.maxChildChars);
  const childChars = shown.cut?.kept_chars ?? shown.lines.reduce((n, line) => n + line.length + 1, 0);
  const room = Math.max(0, textChars + childChars - excess);
  const half = Math.floor(room / 2);
  let maxChars = input.maxChars;
  let maxChildChars = input.maxChildChars;
  if (childChars <= half) maxChars = Math.max(1, room - childChars);
  else if (textChars <= half) maxChildChars = room - textChars;
  else {
    maxChars = Math.max(1, room - half);
    maxChildChars = half;
  }
  const cut = attemptPrompt(job, { ...input, maxChars, ...(maxChildChars === undefined ? {} : { maxChildChars }) });
  const parts = [
    ...(maxChars === input.maxChars ? [] : [`chunk text cut to ${maxChars} characters`]),
    ...(cut.childrenCut ? [childrenNotice(cut.childrenCut, `cut to ${maxChildChars} characters`)] : []),
  ];
  return { ...cut, fitted: `${why}: ${parts.join('; ')}` };
}

/** The stderr line of a bounded CHILD_SUMMARIES. */
function childrenNotice(cut: ChildrenCut, how: string): string {
  return `child summaries ${how}: ${cut.kept_children} of ${cut.children} shown, ${cut.children - cut.kept_children} left out (children_cut)`;
}

function withRetries(error: ModelError, retries: number): ModelError {
  error.retries = retries;
  return error;
}
