// rca-embed's options and their resolution into one run configuration (pure: the environment is
// passed in). The server options are generate's own (generation/config.ts), read the same way.
import { CACHE_OPTIONS, resolveCacheSetting, type CacheSetting } from '../cache/cache-options.js';
import { BACKEND_TRAITS, ConfigError, GENERATE_OPTIONS, MAX_RETRY_DELAY_MS, normaliseKeepAlive, resolveServer, type GenerateConfig } from '../generation/config.js';
import type { HostSpec } from '../llm/host-pool.js';
import type { Env, OptionsSpec, OptionValues } from '../runtime/stage.js';

export const EMBED_BACKENDS = ['ollama', 'openai'] as const;
export type EmbedBackend = (typeof EMBED_BACKENDS)[number];

/** Which text of a record is embedded: `text`, or an embedding_text key. */
export const EMBED_TEXTS = ['combined', 'text', 'retrieval_summary', 'rca_frame', 'section_summary'] as const;
export type EmbedText = (typeof EMBED_TEXTS)[number];

export const LONG_INPUTS = ['split', 'refuse'] as const;
export type LongInput = (typeof LONG_INPUTS)[number];

const DEFAULT_MODEL = 'nomic-embed-text';
/** llama-server's physical batch (-ub) by default: no input may hold more tokens. */
export const OPENAI_DEFAULT_MAX_INPUT_TOKENS = 512;

const g = GENERATE_OPTIONS;
export const SERVER_OPTIONS = {
  backend: { type: 'string', placeholder: 'NAME', default: 'ollama', choices: EMBED_BACKENDS, help: 'Ollama (/api/embed) or a server with an OpenAI-compatible /v1/embeddings (vLLM, llama-server --embedding)' },
  host: g.host,
  'base-url': { ...g['base-url'], help: "with --backend openai: the server's OpenAI-compatible API, e.g. http://localhost:8080/v1 (llama-server --embedding)" },
  'api-key-env': g['api-key-env'],
  timeout: { ...g.timeout, default: 60 },
  'max-transport-retries': g['max-transport-retries'],
  'retry-delay': g['retry-delay'],
  'give-up-after': g['give-up-after'],
  'keep-alive': g['keep-alive'],
  cache: CACHE_OPTIONS.cache,
  'no-cache': CACHE_OPTIONS['no-cache'],
  refresh: { ...CACHE_OPTIONS.refresh, help: 'ignore cached vectors; store the new ones in their place' },
  'model-id': CACHE_OPTIONS['model-id'],
} as const satisfies OptionsSpec;

export const EMBED_OPTIONS = {
  ...SERVER_OPTIONS,
  model: { type: 'string', placeholder: 'NAME', help: `embedding model [default: $RCA_EMBED_MODEL, else ${DEFAULT_MODEL}]` },
  text: { type: 'string', placeholder: 'TEXT', default: 'combined', choices: EMBED_TEXTS, help: "what to embed: combined (a chunk's embedding_text.combined, a section's embedding_text.section_summary), text (the record's own text), or one view's embedding_text" },
  prefix: { type: 'string', placeholder: 'TEXT', default: '', help: 'put before every text (e5, bge and nomic models want one, e.g. "passage: " or "search_document: "); recorded in embedding.prefix' },
  dimensions: { type: 'number', placeholder: 'N', min: 1, integer: true, help: 'ask for vectors of N dimensions (Matryoshka models; a server that cannot cut them says so, or answers longer ones, which the record then shows)' },
  'num-ctx': { type: 'number', placeholder: 'N', min: 16, integer: true, help: 'Ollama: the context the inputs are held to (options.num_ctx) [default: the server\'s]' },
  'max-input-tokens': { type: 'number', placeholder: 'N', min: 8, integer: true, help: `the most tokens one input may hold, estimated from its length [default: Ollama: the model's context length (or --num-ctx when lower); openai: ${OPENAI_DEFAULT_MAX_INPUT_TOKENS}, llama-server's physical batch]` },
  long: { type: 'string', placeholder: 'WHAT', default: 'split', choices: LONG_INPUTS, help: 'a text longer than --max-input-tokens: split it at word boundaries, embed the pieces and average their vectors (recorded in embedding.input.pieces), or refuse it (embedding.error INPUT_TOO_LONG)' },
  batch: { type: 'number', placeholder: 'N', default: 16, min: 1, integer: true, help: 'texts per request (Ollama and llama-server embed the texts of one request together)' },
  concurrency: { ...g.concurrency, help: 'requests in flight, per Ollama host (an Ollama embedding model runs one at a time: batching is what speeds it up)' },
  window: g.window,
  overwrite: { type: 'boolean', default: false, help: 'embed records again that already carry a vector of this model, text and prefix (default: they pass through untouched)' },
} as const satisfies OptionsSpec;

export type EmbedOptionValues = OptionValues<typeof EMBED_OPTIONS>;

export interface ServerConfig {
  backend: EmbedBackend;
  host: string;
  hosts: HostSpec[];
  apiKey: GenerateConfig['apiKey'];
  timeoutMs: number;
  maxTransportRetries: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
  giveUpAfterMs: number;
  keepAlive: string;
  concurrency: number;
  cache: CacheSetting;
}

export interface EmbedConfig extends ServerConfig {
  model: string;
  text: EmbedText;
  prefix: string;
  dimensions: number | null;
  numCtx: number | null;
  maxInputTokens: number | null;
  long: LongInput;
  batch: number;
  window: number | null;
  overwrite: boolean;
}

type ServerValues = OptionValues<typeof SERVER_OPTIONS> & { concurrency: number };

export function resolveServerConfig(values: ServerValues, env: Env): ServerConfig {
  const backend = values.backend as EmbedBackend;
  if (values.timeout <= 0) throw new ConfigError(`--timeout must be more than 0 seconds, got ${values.timeout}`);
  const server = resolveServer(backend, values, env);
  const cache = resolveCacheSetting(values, env);
  if (cache.modelId !== undefined && !BACKEND_TRAITS[backend].takesModelId) throw new ConfigError('--model-id is for --backend openai (an Ollama model is known by its digest)');
  return {
    backend,
    host: server.host ?? '',
    hosts: server.hosts,
    apiKey: server.apiKey,
    timeoutMs: Math.round(values.timeout * 1000),
    maxTransportRetries: values['max-transport-retries'],
    retryDelayMs: values['retry-delay'],
    maxRetryDelayMs: Math.max(values['retry-delay'], MAX_RETRY_DELAY_MS),
    giveUpAfterMs: Math.round(values['give-up-after'] * 1000),
    keepAlive: normaliseKeepAlive(values['keep-alive']),
    concurrency: values.concurrency,
    cache,
  };
}

export function resolveEmbedConfig(values: EmbedOptionValues, env: Env): EmbedConfig {
  const server = resolveServerConfig(values, env);
  if (server.backend !== 'ollama' && values['num-ctx'] !== undefined) throw new ConfigError('--num-ctx is for Ollama; an OpenAI-compatible server sets its context length when it starts');
  const model = [values.model, env.RCA_EMBED_MODEL].find((v) => v !== undefined && v.trim() !== '')?.trim() ?? DEFAULT_MODEL;
  return {
    ...server,
    model,
    text: values.text as EmbedText,
    prefix: values.prefix,
    dimensions: values.dimensions ?? null,
    numCtx: values['num-ctx'] ?? null,
    maxInputTokens: values['max-input-tokens'] ?? null,
    long: values.long as LongInput,
    batch: values.batch,
    window: values.window ?? null,
    overwrite: values.overwrite,
  };
}
