// What one attempt sends to the model: the prompt of the job's view kind (with the previous
// attempt's feedback first and the text cut when asked), the view's JSON Schema as `format`, and
// the fixed options; and how --dry-run shows it for each backend.
import type { JsonObject, JsonSchema } from '../contracts/json.js';
import { jsonSchemaFor } from '../contracts/checkers.js';
import type { PromptStyle, ViewName } from '../contracts/vocabulary.js';
import type { GenerateRequest } from '../llm/model-client.js';
import { chatCompletionBody, resolveBaseUrl, thinkingSwitch } from '../llm/openai-request.js';
import type { KindPrompt } from '../views/records/record-kind.js';
import type { TextCut } from '../views/text-cut.js';
import type { AttemptInput, Job } from './backend.js';
import type { GenerateConfig } from './config.js';
import { boundedFormat } from './format-bounds.js';

// One object per view and prompt style for the whole run: every request of a view sends the same
// schema, the view's contract with the grammar bounds of format-bounds.ts; in the compact style
// (the default, what `rca schema --format` prints) its content fields alone.
const FORMATS = new Map<string, JsonSchema>();
export function formatOf(view: ViewName, style: PromptStyle = 'compact'): JsonSchema {
  const key = `${view}\n${style}`;
  let format = FORMATS.get(key);
  if (format === undefined) {
    format = boundedFormat(view, jsonSchemaFor(view), style === 'compact');
    FORMATS.set(key, format);
  }
  return format;
}

/**
 * The format of one request for several views of a chunk (--views-per-request): an object with
 * each view's content format under its name, in the order given.
 */
export function pairFormatOf(views: readonly ViewName[]): JsonSchema {
  const key = views.join('+');
  let format = FORMATS.get(key);
  if (format === undefined) {
    format = {
      type: 'object',
      properties: Object.fromEntries(views.map((view) => [view, formatOf(view, 'compact')])),
      required: [...views],
      additionalProperties: false,
    };
    FORMATS.set(key, format);
  }
  return format;
}

/** The prompt of one attempt: the feedback note, then the kind's prompt for this attempt's budgets. */
export function attemptPrompt(job: Job, input: AttemptInput): KindPrompt {
  const budgets = {
    maxChars: input.maxChars,
    ...(input.maxChildChars === undefined ? {} : { maxChildChars: input.maxChildChars }),
    ...(input.style === undefined ? {} : { style: input.style }),
  };
  const built = job.records.prompt(job.kind, job.input, budgets);
  return input.feedback === null ? built : { ...built, prompt: `${input.feedback}\n\n${built.prompt}` };
}

export type RequestSettings = Pick<GenerateConfig, 'model' | 'modelOptions' | 'keepAlive' | 'timeoutMs'> & Partial<Pick<GenerateConfig, 'think' | 'promptStyle'>>;

/** --think as the request says it: false (off), true (on), null (no switch sent: the server's default). */
export function thinkOf(mode: GenerateConfig['think'] | undefined): boolean | null {
  return mode === 'on' ? true : mode === 'server' ? null : false;
}

export function generateRequest(settings: RequestSettings, view: ViewName, prompt: string, requestId?: string): GenerateRequest {
  return {
    model: settings.model,
    prompt,
    format: formatOf(view, settings.promptStyle ?? 'compact'),
    options: { ...settings.modelOptions },
    keepAlive: settings.keepAlive,
    timeoutMs: settings.timeoutMs,
    think: thinkOf(settings.think),
    ...(requestId === undefined ? {} : { requestId }),
  };
}

/**
 * The one request for several views of a chunk (--views-per-request): the pair format, and room
 * for each view's reply (--max-output-tokens is per view).
 */
export function pairRequest(settings: RequestSettings, views: readonly ViewName[], prompt: string, requestId?: string): GenerateRequest {
  const request = generateRequest(settings, views[0]!, prompt, requestId);
  return { ...request, format: pairFormatOf(views), options: { ...request.options, num_predict: request.options.num_predict * views.length } };
}

/** A request as --dry-run shows it: what would be POSTed to <host>/api/chat, plus how the text was cut. */
export function renderOllamaRequest(host: string, request: GenerateRequest, textCut: TextCut | null): JsonObject {
  return {
    host,
    endpoint: '/api/chat',
    model: request.model,
    request_id: request.requestId ?? null,
    options: request.options,
    keep_alive: request.keepAlive,
    think: request.think,
    truncate: false,
    timeout_ms: request.timeoutMs,
    format: request.format,
    prompt: request.prompt,
    text_cut: textCut,
  };
}

/**
 * A request to an OpenAI-compatible server as --dry-run shows it: what would be POSTed to
 * <host><endpoint>, the prompt as the one user message, and how the text was cut. The API key is
 * a header, never part of it.
 */
export function renderChatCompletion(baseUrl: string, request: GenerateRequest, textCut: TextCut | null): JsonObject {
  const { host, apiRoot } = resolveBaseUrl(baseUrl);
  const body = chatCompletionBody(request);
  return {
    host,
    endpoint: `${apiRoot.slice(host.length)}/chat/completions`,
    model: body.model,
    request_id: request.requestId ?? null,
    options: { temperature: body.temperature, seed: body.seed, max_tokens: body.max_tokens },
    // --think as sent: chat_template_kwargs.enable_thinking (and reasoning_effort for gpt-oss), or nothing.
    thinking: thinkingSwitch(request),
    timeout_ms: request.timeoutMs,
    response_format: body.response_format,
    prompt: request.prompt,
    text_cut: textCut,
  };
}
