// The Ollama backend: one attempt is one chat request, sent through the request gate and retried
// on transport faults with backoff (--max-transport-retries). Every answer and failure is reported
// to the run control: a request that keeps failing while the server answers others fails its
// view; requests failing while the server answers nobody wait for it instead, up to the run's
// give-up clock, so an outage never turns into an error record per chunk.
import { ModelError, type GenerateReply, type ModelClient } from '../llm/model-client.js';
import { modelNotFoundMessage } from '../llm/ollama-client.js';
import { abortableSleep, backoffDelay, withTransportRetries } from '../llm/transport-retry.js';
import type { Backend, BackendInfo, BackendReply } from './backend.js';
import { MAX_RETRY_DELAY_MS, type GenerateConfig } from './config.js';
import { attemptPrompt, generateRequest, renderRequest } from './requests.js';
import type { RequestGate, RunControl } from './scheduler.js';

export interface OllamaBackendDeps {
  /** Null for --dry-run: nothing is sent. */
  client: ModelClient | null;
  gate: RequestGate;
  control: RunControl;
  /** Digest from the preflight (null when unknown, e.g. in a dry run). */
  modelDigest: string | null;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export function createOllamaBackend(config: GenerateConfig, deps: OllamaBackendDeps): Backend {
  const policy = {
    maxRetries: config.maxTransportRetries,
    baseDelayMs: config.retryDelayMs,
    maxDelayMs: Math.max(config.retryDelayMs, MAX_RETRY_DELAY_MS),
    ...(deps.random ? { random: deps.random } : {}),
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
  };
  const sleep = deps.sleep ?? abortableSleep;
  const info: BackendInfo = { backend: 'ollama', model: config.model, model_digest: deps.modelDigest, options: { ...config.modelOptions } };
  const { client, gate, control } = deps;

  // One HTTP call. A 404 now means the model was removed mid-run: every later record would fail
  // the same way, so the run stops rather than writing an error record per chunk.
  const call = async (request: ReturnType<typeof generateRequest>, seq: number, signal: AbortSignal) => {
    if (client === null) throw new ModelError('BAD_RESPONSE', 'no model client in a dry run', { retryable: false });
    try {
      const reply = await gate.run(() => client.generate(request, signal), seq, signal);
      control.serverAnswered();
      return reply;
    } catch (err) {
      if (err instanceof ModelError) {
        if (err.code === 'HTTP_404') control.fail(modelNotFoundMessage(request.model));
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
      const { prompt, textCut } = attemptPrompt(job, input);
      const request = generateRequest(config, job.view, prompt);
      let failedAt: number | null = null;
      const once = async () => {
        try {
          return await call(request, job.seq, signal);
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
        transportRetries,
        textCut,
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
            await sleep(backoffDelay(config.maxTransportRetries, policy), signal);
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
      const { prompt, textCut } = attemptPrompt(job, input);
      return renderRequest(config.host, generateRequest(config, job.view, prompt), textCut);
    },
    // Host, keep_alive and timeout change where and how long, not what the model answers.
    cacheKeyParts(job, input) {
      const { prompt } = attemptPrompt(job, input);
      const request = generateRequest(config, job.view, prompt);
      return { backend: info.backend, model: request.model, modelDigest: deps.modelDigest, options: { ...request.options }, schema: request.format, prompt };
    },
  };
}

function withRetries(error: ModelError, retries: number): ModelError {
  error.retries = retries;
  return error;
}
