// What a request to an OpenAI-compatible server is: where it goes (the base URL read once) and the
// /v1/chat/completions body. Apart from the client, so that --dry-run and the config read it
// without loading the client.
import type { GenerateRequest } from './model-client.js';
import { withoutTrailingSlashes } from './model-client.js';

const V1_SUFFIX = /\/v1$/;
const SCHEMA_NAME_UNSAFE = /[^A-Za-z0-9_-]+/g;
const SCHEMA_NAME_MAX = 64;
const DEFAULT_SCHEMA_NAME = 'reply';

// `host` is what messages show (the base URL without credentials, query or trailing slash);
// `apiRoot` is where /chat/completions and /models live. Both `http://h:8000` and
// `http://h:8000/v1` are accepted, as SDKs and server docs use either.
export function resolveBaseUrl(raw: string): { host: string; apiRoot: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new TypeError(`the base URL must be an http or https URL such as http://localhost:8000/v1, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`the base URL must be an http or https URL, got '${url.protocol}'`);
  }
  const host = `${url.protocol}//${url.host}${withoutTrailingSlashes(url.pathname)}`;
  return { host, apiRoot: V1_SUFFIX.test(host) ? host : `${host}/v1` };
}

// json_schema.name must match ^[a-zA-Z0-9_-]{1,64}$ on OpenAI itself; other servers ignore it.
export function schemaName(format: Record<string, unknown>): string {
  const title = typeof format.title === 'string' ? format.title.replace(SCHEMA_NAME_UNSAFE, '_').slice(0, SCHEMA_NAME_MAX) : '';
  return title === '' || title === '_' ? DEFAULT_SCHEMA_NAME : title;
}

// gpt-oss cannot turn its reasoning off: its control is reasoning_effort, whose least is "low"
// (vLLM's ChatCompletionRequest.reasoning_effort, llama-server's reasoning_effort → the
// template's kwarg). Other thinking models take chat_template_kwargs.enable_thinking.
const EFFORT_CONTROLLED_RE = /gpt-oss/i;

/**
 * The thinking switch of the body: `think` false (--think off) sends
 * `chat_template_kwargs: {enable_thinking: false}`, which vLLM and SGLang pass to the chat
 * template (Qwen3's renders an empty think block) and llama-server reads itself
 * (tools/server/server-common.cpp, oaicompat_chat_params_parse: the "enable_thinking" kwarg sets
 * inputs.enable_thinking); gpt-oss models get `reasoning_effort: "low"` as well. true sends
 * enable_thinking: true; null sends nothing (the server's default).
 */
export function thinkingSwitch(request: GenerateRequest): Record<string, unknown> {
  if (request.think === null) return {};
  return {
    chat_template_kwargs: { enable_thinking: request.think },
    ...(!request.think && EFFORT_CONTROLLED_RE.test(request.model) ? { reasoning_effort: 'low' } : {}),
  };
}

// num_ctx and keepAlive have no OpenAI equivalent (the context length is fixed when the server
// starts), so they are not sent.
export function chatCompletionBody(request: GenerateRequest): Record<string, unknown> {
  return {
    model: request.model,
    messages: [{ role: 'user', content: request.prompt }],
    response_format: { type: 'json_schema', json_schema: { name: schemaName(request.format), schema: request.format, strict: true } },
    temperature: request.options.temperature,
    seed: request.options.seed,
    max_tokens: request.options.num_predict,
    stream: true,
    // Without it a streamed reply carries no token counts.
    stream_options: { include_usage: true },
    ...thinkingSwitch(request),
  };
}
