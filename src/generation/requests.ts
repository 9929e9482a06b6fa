// What one attempt sends to the model: the prompt (with the previous attempt's feedback first and
// the chunk text cut when asked), the view's JSON Schema as `format`, and the fixed options.
import { viewFormatSchema, type JsonSchema } from '../contracts/index.js';
import type { GenerateRequest } from '../llm/model-client.js';
import type { JsonObject } from '../runtime/stage.js';
import { buildPrompt } from '../views/prompt-text.js';
import type { TextCut } from '../views/text-cut.js';
import { VIEW_TYPES, type ViewType } from '../views/view-types.js';
import type { AttemptInput, ViewJob } from './backend.js';
import type { GenerateConfig } from './config.js';

// Derived once per process: the schema walk is not free and every request of a view sends the same one.
const FORMATS = new Map<ViewType, JsonSchema>();
export function formatOf(view: ViewType): JsonSchema {
  let format = FORMATS.get(view);
  if (format === undefined) {
    format = viewFormatSchema(view);
    FORMATS.set(view, format);
  }
  return format;
}

export function viewFormats(): Record<ViewType, JsonSchema> {
  return Object.fromEntries(VIEW_TYPES.map((v) => [v, formatOf(v)])) as Record<ViewType, JsonSchema>;
}

export interface AttemptPrompt {
  prompt: string;
  textCut: TextCut | null;
}

/** The prompt of one attempt: the feedback note, then the prompt rebuilt for this attempt's text budget. */
export function attemptPrompt(job: ViewJob, input: AttemptInput): AttemptPrompt {
  const built = buildPrompt(job.context, job.nerSeed, job.text, job.view, { maxChars: input.maxChars });
  const prompt = input.feedback === null ? built.prompt : `${input.feedback}\n\n${built.prompt}`;
  return { prompt, textCut: built.truncated };
}

export type RequestSettings = Pick<GenerateConfig, 'model' | 'modelOptions' | 'keepAlive' | 'timeoutMs'>;

export function generateRequest(settings: RequestSettings, view: ViewType, prompt: string): GenerateRequest {
  return {
    model: settings.model,
    prompt,
    format: formatOf(view),
    options: { ...settings.modelOptions },
    keepAlive: settings.keepAlive,
    timeoutMs: settings.timeoutMs,
  };
}

/** A request as --dry-run shows it: what would be POSTed to <host>/api/chat, plus how the text was cut. */
export function renderRequest(host: string, request: GenerateRequest, textCut: TextCut | null): JsonObject {
  return {
    host,
    endpoint: '/api/chat',
    model: request.model,
    options: request.options,
    keep_alive: request.keepAlive,
    timeout_ms: request.timeoutMs,
    format: request.format,
    prompt: request.prompt,
    text_cut: textCut,
  };
}
