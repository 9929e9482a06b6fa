// The model backends: one attempt is one chat request, its prompt fitted to the context
// (prompt-fit.ts) and sent with its transport retries (model-sender.ts). The client behind it is
// Ollama on one host, a pool of Ollama hosts, or an OpenAI-compatible server; the backend only
// differs in what the record and the cache key say about the request, and in how --dry-run shows it.
import type { GenerateRequest } from '../llm/model-client.js';
import type { JsonObject } from '../contracts/json.js';
import type { TextCut } from '../views/text-cut.js';
import type { Backend, BackendInfo, BackendReply, Job, RecordedOptions } from './backend.js';
import type { BackendName, GenerateConfig } from './config.js';
import { createSender, type SenderDeps } from './model-sender.js';
import { pairLane } from './pair.js';
import { childrenNotice, createPromptFitter } from './prompt-fit.js';
import { generateRequest, pairRequest, renderChatCompletion, renderOllamaRequest } from './requests.js';

export interface ModelBackendDeps extends SenderDeps {
  /** Digest from the preflight (null when unknown: a dry run, or a server that reports none). */
  modelDigest: string | null;
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

/** `<input id> <view>[+<view>…]`: what the request is for, as its X-Request-Id says. */
function requestIdOf(jobs: readonly Job[]): string {
  return `${jobs[0]!.records.id(jobs[0]!.input)} ${jobs.map((j) => j.kind.name).join('+')}`;
}

function dialectOf(name: ModelBackendName, config: GenerateConfig): Dialect {
  return DIALECTS[name](config, config.host ?? '');
}

export function createModelBackend(name: ModelBackendName, config: GenerateConfig, deps: ModelBackendDeps): Backend {
  const dialect = dialectOf(name, config);
  const info: BackendInfo = { backend: name, model: config.model, model_digest: deps.modelDigest, options: dialect.options };
  const send = createSender(config, deps);
  const fit = createPromptFitter(name, config);
  const viewRequest = (job: Job, prompt: string): GenerateRequest => generateRequest(config, job.kind.name, prompt, requestIdOf([job]));
  const jobsRequest = (jobs: readonly Job[], prompt: string): GenerateRequest => pairRequest(config, jobs.map((j) => j.kind.name), prompt, requestIdOf(jobs));

  return {
    info,
    retries: true,
    async attempt(job, input, signal): Promise<BackendReply> {
      const { prompt, textCut, childrenCut, fitted } = fit.view(job, input);
      // The fit explains its own cut; a cut-text attempt that bounded the children says so too.
      const notice = fitted ?? (childrenCut ? childrenNotice(childrenCut, `cut to ${input.maxChildChars} characters (--truncate-chars, the cut-text attempt)`) : null);
      const { value, retries } = await send(viewRequest(job, prompt), job.seq, signal, job.kind.name);
      return {
        ...value,
        transportRetries: retries,
        textCut,
        ...(childrenCut === undefined ? {} : { childrenCut }),
        ...(notice === null ? {} : { notice }),
      };
    },
    async pairAttempt(jobs, input, signal): Promise<BackendReply> {
      const { prompt, textCut, fitted } = fit.pair(jobs, input);
      const { value, retries } = await send(jobsRequest(jobs, prompt), jobs[0]!.seq, signal, pairLane(jobs));
      return { ...value, transportRetries: retries, textCut, ...(fitted === null ? {} : { notice: fitted }) };
    },
    renderPair(jobs, input) {
      const { prompt, textCut } = fit.pair(jobs, input);
      return dialect.render(jobsRequest(jobs, prompt), textCut);
    },
    render(job, input) {
      const { prompt, textCut, childrenCut } = fit.view(job, input);
      const rendered = dialect.render(viewRequest(job, prompt), textCut);
      return childrenCut ? { ...rendered, children_cut: { ...childrenCut } } : rendered;
    },
    cuts(job, input) {
      const { textCut, childrenCut } = fit.view(job, input);
      return { textCut, childrenCut: childrenCut ?? null };
    },
    cacheKeyParts(job, input, pair) {
      if (pair !== undefined) {
        // A view's part of the pair request: the pair's prompt and format, and which part it is.
        const { prompt } = fit.pair(pair, input);
        const request = jobsRequest(pair, prompt);
        return { backend: name, model: request.model, modelDigest: deps.modelDigest, options: { ...dialect.keyOptions, part: job.kind.name }, schema: request.format, prompt };
      }
      const { prompt } = fit.view(job, input);
      const request = viewRequest(job, prompt);
      return { backend: name, model: request.model, modelDigest: deps.modelDigest, options: { ...dialect.keyOptions }, schema: request.format, prompt };
    },
  };
}
