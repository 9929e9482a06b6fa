// The options generate and summarize share, and their resolution into one run configuration
// (flags first, then the environment, then the defaults). Pure: the environment is passed in. A
// bad value is a ConfigError (or the ViewListError of --views); the stages make it a usage error.
import { CACHE_OPTIONS, CacheSettingError, resolveCacheSetting, type CacheSetting } from '../cache/cache-options.js';
import { DEFAULT_HOST, HostListError, parseHostSpecs, type HostSpec } from '../llm/host-pool.js';
import { resolveBaseUrl } from '../llm/openai-request.js';
import { FLAG_OPTIONS } from '../runtime/options.js';
import type { Env, OptionsSpec, OptionValues } from '../runtime/stage.js';
import { PROMPT_STYLES, SECTION_VIEW, VIEW_TYPES, type PromptStyle, type ViewName, type ViewType } from '../contracts/vocabulary.js';
import { parseViewList, ViewListError } from '../views/view-types.js';
import { parsePrice, type Price } from './price.js';

// ollama: the product (model output), on one host or spread over several; openai: any server
// with an OpenAI-compatible /v1/chat/completions (vLLM, llama.cpp's server, LM Studio, TGI,
// Ollama's own /v1); extractive: model-free, deterministic, for trying the toolkit without a
// server and as the baseline model output is compared with.
export const BACKENDS = ['ollama', 'openai', 'extractive'] as const;
export type BackendName = (typeof BACKENDS)[number];

/** What sets the backends apart, in one place: everything else reads these, never a backend's name. */
export interface BackendTraits {
  /** Where its requests go: Ollama hosts (--host), one OpenAI-compatible API (--base-url), or nowhere. */
  server: 'hosts' | 'base-url' | 'none';
  /** --num-ctx (and OLLAMA_NUM_CTX) may be given: false where the server fixes its context when it starts. */
  takesNumCtx: boolean;
  /** num_ctx is sent and recorded: the context a prompt must fit and a reply's counts are held to. */
  sendsNumCtx: boolean;
  /** It sends requests --dry-run can show. */
  sendsRequests: boolean;
  /** --model-id stands in for a model digest the server does not report. */
  takesModelId: boolean;
}

export const BACKEND_TRAITS: Readonly<Record<BackendName, BackendTraits>> = {
  ollama: { server: 'hosts', takesNumCtx: true, sendsNumCtx: true, sendsRequests: true, takesModelId: false },
  openai: { server: 'base-url', takesNumCtx: false, sendsNumCtx: false, sendsRequests: true, takesModelId: true },
  extractive: { server: 'none', takesNumCtx: true, sendsNumCtx: false, sendsRequests: false, takesModelId: false },
};

/** A bad value among the options or the environment; the stage reports it as a usage error. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** What resolveConfig may throw about its values; the stages make each a usage error. */
export const CONFIG_ERRORS = [ConfigError, ViewListError, HostListError, CacheSettingError] as const;

const DEFAULT_MODEL = 'mistral:latest';
const DEFAULT_NUM_CTX = 8192;
// Backoff doubles from --retry-delay up to this cap; a server's Retry-After is capped the same way.
export const MAX_RETRY_DELAY_MS = 30_000;

/** --think: off sends the servers' switch to keep a thinking model from reasoning, on lets it, server sends none. */
export const THINK_MODES = ['off', 'on', 'server'] as const;
export type ThinkMode = (typeof THINK_MODES)[number];

export const GENERATE_OPTIONS = {
  backend: {
    type: 'string',
    placeholder: 'NAME',
    default: 'ollama',
    choices: BACKENDS,
    help: 'where the views come from: Ollama (ollama), a server with an OpenAI-compatible API such as vLLM (openai, with --base-url), or rules that take them from the chunk text and its NER seed (extractive; no server needed)',
  },
  host: {
    type: 'list',
    placeholder: 'URL',
    help: `Ollama server; give it several times (or a comma list) to spread requests over several hosts, each with --concurrency slots or its own as host=URL,slots=N [default: $OLLAMA_HOSTS (a comma list), else $OLLAMA_HOST, else $OLLAMA_BASE_URL, else ${DEFAULT_HOST}]`,
  },
  'base-url': { type: 'string', placeholder: 'URL', help: 'with --backend openai: the server\'s OpenAI-compatible API, e.g. http://localhost:8000/v1 (vLLM)' },
  'api-key-env': { type: 'string', placeholder: 'NAME', help: 'with --backend openai: the environment variable that holds the API key (sent as a bearer token; never printed)' },
  model: { type: 'string', placeholder: 'NAME', help: `model to run [default: $OLLAMA_MODEL, else ${DEFAULT_MODEL}]` },
  'num-ctx': { type: 'number', placeholder: 'N', min: 256, integer: true, help: `context window in tokens, one value per run (a change reloads the model) [default: $OLLAMA_NUM_CTX, else ${DEFAULT_NUM_CTX}]` },
  seed: { type: 'number', placeholder: 'N', default: 42, integer: true, help: 'sampling seed (temperature is always 0)' },
  'max-output-tokens': { type: 'number', placeholder: 'N', default: 2048, min: 1, integer: true, help: 'cap on the tokens of one reply (num_predict); a reply cut there is retried' },
  think: {
    type: 'string',
    placeholder: 'MODE',
    default: 'off',
    choices: THINK_MODES,
    help: "a thinking model (qwen3, deepseek-r1, gpt-oss, gemma) reasoning before it answers: off sends Ollama think: false and an OpenAI-compatible server chat_template_kwargs {enable_thinking: false} (vLLM, SGLang, llama-server; gpt-oss models: reasoning_effort low); on lets it reason; server sends no switch (the server's default)",
  },
  'prompt-style': {
    type: 'string',
    placeholder: 'STYLE',
    default: 'compact',
    choices: PROMPT_STYLES,
    help: "compact: the model writes the content fields only (rca stamps the trusted ones), the chunk-independent part of the prompt comes first for the engine's prefix cache, the NER seed holds its non-empty lists only; dackar: the seed project's layout, the whole view asked for (to measure the saving against)",
  },
  'views-per-request': {
    type: 'number',
    placeholder: 'N',
    default: 1,
    min: 1,
    integer: true,
    help: 'chunk views asked for in one request: 2 sends both views of a chunk in one request (compact style; a view whose part fails goes on alone with feedback), 1 one request per view',
  },
  price: { type: 'string', placeholder: 'PRICES', help: 'IN,OUT[,CACHED]: prices per million prompt and output tokens (and prompt tokens served from the engine\'s cache, default IN): the summary and --stats add the cost of the tokens counted' },
  'keep-alive': { type: 'string', placeholder: 'DURATION', default: '30m', help: 'how long the server keeps the model loaded after a request (e.g. 30m, 2h, -1 for ever)' },
  timeout: { type: 'number', placeholder: 'SECONDS', default: 120, min: 0, help: 'deadline of one request, streaming included' },
  'load-timeout': { type: 'number', placeholder: 'SECONDS', default: 600, min: 0, help: 'Ollama: deadline of loading the model before the first request (a first load can take minutes)' },
  concurrency: { type: 'number', placeholder: 'N', default: 2, min: 1, integer: true, help: "requests in flight across records and views, per Ollama host; set it to the server's OLLAMA_NUM_PARALLEL" },
  window: { type: 'number', placeholder: 'N', min: 1, integer: true, help: 'records in progress at once, written in input order (default: 8 x the requests in flight)' },
  'max-transport-retries': { type: 'number', placeholder: 'N', default: 5, min: 0, integer: true, help: 'retries of a request after a connection error, timeout, 429, 500, 502, 503 or 504' },
  'retry-delay': { type: 'number', placeholder: 'MS', default: 500, min: 0, integer: true, help: `first transport retry waits up to MS, doubling each time (random jitter, at most ${MAX_RETRY_DELAY_MS / 1000} s)` },
  'give-up-after': { type: 'number', placeholder: 'SECONDS', default: 120, min: 0, help: 'stop the run (exit 3) when the server (every host) has failed every request for this long; 0 never stops' },
  'max-tries': { type: 'number', placeholder: 'N', default: 3, min: 1, integer: true, help: 'attempts per view when the reply is not usable: the prompt, then with feedback, then with the text cut' },
  'truncate-chars': { type: 'number', placeholder: 'N', default: 4000, min: 1, integer: true, help: 'the third attempt cuts the chunk text to N characters at a sentence boundary' },
  'max-chars': { type: 'number', placeholder: 'N', min: 1, integer: true, help: 'cut the chunk text to N characters in every attempt (default: no cut)' },
  views: { type: 'list', placeholder: 'VIEWS', default: [...VIEW_TYPES], help: `comma-separated views to generate (${VIEW_TYPES.join(', ')})` },
  ...FLAG_OPTIONS,
  overwrite: { type: 'boolean', default: false, help: 'regenerate views already present and valid (default: such records pass through untouched)' },
  'dry-run': { type: 'boolean', default: false, help: 'write the requests (host, model, options, format, prompt) as records under "requests"; call no model' },
  ...CACHE_OPTIONS,
} as const satisfies OptionsSpec;

export type GenerateOptionValues = OptionValues<typeof GENERATE_OPTIONS>;

export const SECTION_OPTIONS = {
  view: {
    type: 'string',
    placeholder: 'VIEW',
    choices: [SECTION_VIEW],
    help: 'section_summary: summarise the sections of rca-count-sections output, one view per section, instead of the chunk views (--views)',
  },
  'bottom-up': {
    type: 'boolean',
    default: false,
    help: "with --view section_summary: a section's prompt also holds its subsections' summaries, so headings without text of their own and whole chapters get summaries",
  },
} as const satisfies OptionsSpec;

export const SECTION_DESCRIPTION = `--view section_summary reads rca-count-sections records instead of tagged chunks and writes
one section_summary per section: {section_id, doc_id, section_path, view_type, summary (100 to
200 words), concepts (5 to 10 exact phrases of the section), chunk_count, citations}, its flags
under view_flags.section_summary (the record's own flags are count-sections'). --bottom-up adds
the summaries of a section's subsections to its prompt (they come first in count-sections output),
so a chapter is summarised from its own text and its sections' summaries; memory holds only the
summaries waiting for their parent. A section with no text of its own and no child summary passes
through without a view. --backend extractive takes the leading sentences and the lexicon terms
and identifiers of the section (and of its children's summaries).`;

/** --view section_summary: a view of other records than chunks (the sections'), its children's summaries in its prompt with --bottom-up. */
export interface SectionMode {
  view: Exclude<ViewName, ViewType>;
  bottomUp: boolean;
}

/** The section settings of a run, or null for the chunk views. */
export function resolveSectionMode(options: { view: string | undefined; 'bottom-up': boolean; views: string[] }): SectionMode | null {
  if (options.view === undefined) {
    if (options['bottom-up']) throw new ConfigError('--bottom-up works with --view section_summary');
    return null;
  }
  const defaultViews = options.views.length === VIEW_TYPES.length && VIEW_TYPES.every((v, i) => options.views[i] === v);
  if (!defaultViews) throw new ConfigError('--views names chunk views and --view section_summary summarises sections: give one or the other');
  // The option's choices hold the value to these names.
  return { view: options.view as SectionMode['view'], bottomUp: options['bottom-up'] };
}

export interface ModelOptions {
  temperature: number;
  seed: number;
  num_predict: number;
  num_ctx: number;
}

export interface GenerateConfig {
  backend: BackendName;
  /** Where requests go, as messages and --stats name it: the Ollama host(s), or the OpenAI-compatible base URL; null for extractive. */
  host: string | null;
  /** The Ollama hosts and their slots (one: the plain single-host path); empty for the other backends. */
  hosts: HostSpec[];
  /** The API key for the openai backend (from the variable --api-key-env names), else null. */
  apiKey: Secret | null;
  model: string;
  modelOptions: ModelOptions;
  keepAlive: string;
  timeoutMs: number;
  /** --think: let a thinking model reason first (on), keep it from it (off), or leave it to the server. */
  think: ThinkMode;
  /** --prompt-style. */
  promptStyle: PromptStyle;
  /** --views-per-request: chunk views asked for in one request. */
  viewsPerRequest: number;
  /** --price: per million tokens; null when not given. */
  price: Price | null;
  /** --load-timeout: the deadline of the model load before the first request (Ollama). */
  loadTimeoutMs: number;
  /** Requests in flight: per Ollama host without its own slots=N, else for the one server. */
  concurrency: number;
  /** --window; null: 8 x the requests in flight, known once the hosts are (see create.ts). */
  window: number | null;
  maxTransportRetries: number;
  retryDelayMs: number;
  /** 0: never give up. */
  giveUpAfterMs: number;
  maxTries: number;
  truncateChars: number;
  maxChars: number | undefined;
  views: ViewType[];
  overwrite: boolean;
  dryRun: boolean;
  /** The response cache; only the model backends use it, and never in a dry run. */
  cache: CacheSetting;
}

export function resolveConfig(options: GenerateOptionValues, env: Env): GenerateConfig {
  const backend = options.backend as BackendName;
  const traits = BACKEND_TRAITS[backend];
  const server = resolveServer(backend, options, env);
  const model = firstSet(options.model, env.OLLAMA_MODEL) ?? DEFAULT_MODEL;
  // An OpenAI-compatible server fixes its context length when it starts (vLLM's --max-model-len).
  if (!traits.takesNumCtx && options['num-ctx'] !== undefined) throw new ConfigError('--num-ctx is for Ollama; an OpenAI-compatible server sets its context length when it starts');
  const numCtx = options['num-ctx'] ?? (traits.takesNumCtx ? numCtxFromEnv(env.OLLAMA_NUM_CTX) : undefined) ?? DEFAULT_NUM_CTX;
  if (options.timeout <= 0) throw new ConfigError(`--timeout must be more than 0 seconds, got ${options.timeout}`);
  if (options['load-timeout'] <= 0) throw new ConfigError(`--load-timeout must be more than 0 seconds, got ${options['load-timeout']}`);
  if (!traits.sendsRequests && options['dry-run']) throw new ConfigError('--dry-run shows the requests a model would get; --backend extractive sends none');
  const cache = resolveCacheSetting(options, env);
  if (options['views-per-request'] > VIEW_TYPES.length) throw new ConfigError(`--views-per-request is at most ${VIEW_TYPES.length} (the chunk views), got ${options['views-per-request']}`);
  if (options['views-per-request'] > 1 && options['prompt-style'] !== 'compact') throw new ConfigError('--views-per-request 2 asks for the views in one compact request; --prompt-style dackar asks for each view on its own');
  if (cache.modelId !== undefined && !traits.takesModelId) throw new ConfigError('--model-id is for --backend openai (an Ollama model is known by its digest)');
  return {
    backend,
    ...server,
    model,
    modelOptions: { temperature: 0, seed: options.seed, num_predict: options['max-output-tokens'], num_ctx: numCtx },
    keepAlive: normaliseKeepAlive(options['keep-alive']),
    timeoutMs: Math.round(options.timeout * 1000),
    think: options.think as ThinkMode,
    promptStyle: options['prompt-style'] as PromptStyle,
    viewsPerRequest: options['views-per-request'],
    price: options.price === undefined ? null : priceOf(options.price),
    loadTimeoutMs: Math.round(options['load-timeout'] * 1000),
    concurrency: options.concurrency,
    window: options.window ?? null,
    maxTransportRetries: options['max-transport-retries'],
    retryDelayMs: options['retry-delay'],
    giveUpAfterMs: Math.round(options['give-up-after'] * 1000),
    maxTries: options['max-tries'],
    truncateChars: options['truncate-chars'],
    maxChars: options['max-chars'],
    views: parseViewList(options.views),
    overwrite: options.overwrite,
    dryRun: options['dry-run'],
    cache,
  };
}

/** Where a model backend's requests go (also rca-embed's): the Ollama hosts, or the base URL and its key. */
export function resolveServer(backend: BackendName, options: Pick<GenerateOptionValues, 'base-url' | 'api-key-env' | 'host' | 'concurrency'>, env: Env): Pick<GenerateConfig, 'host' | 'hosts' | 'apiKey'> {
  const baseUrl = options['base-url'];
  const keyVariable = options['api-key-env'];
  const { server } = BACKEND_TRAITS[backend];
  if (server === 'base-url') {
    if (baseUrl === undefined || baseUrl.trim() === '') {
      throw new ConfigError("--backend openai needs --base-url URL, the server's OpenAI-compatible API (e.g. http://localhost:8000/v1)");
    }
    if (options.host.some((h) => h.trim() !== '')) throw new ConfigError('--host names Ollama servers; with --backend openai the server is --base-url');
    let host: string;
    try {
      host = resolveBaseUrl(baseUrl).host;
    } catch (err) {
      // resolveBaseUrl throws a TypeError for a value that is not an http(s) URL.
      throw new ConfigError(`--base-url: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { host, hosts: [], apiKey: keyVariable === undefined ? null : apiKeyFrom(keyVariable, env) };
  }
  if (baseUrl !== undefined) throw new ConfigError('--base-url is for --backend openai; Ollama hosts are given with --host');
  if (keyVariable !== undefined) throw new ConfigError('--api-key-env is for --backend openai');
  if (server === 'none') return { host: null, hosts: [], apiKey: null };
  const hosts = parseHostSpecs(options.host, env, options.concurrency);
  return { host: hosts.map((h) => h.url).join(','), hosts, apiKey: null };
}

const VARIABLE_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

// The key comes only from the variable the user names: never a default variable, never a flag
// (a flag's value shows in `ps` and in shell history).
function apiKeyFrom(name: string, env: Env): Secret {
  if (!VARIABLE_NAME_RE.test(name)) throw new ConfigError(`--api-key-env expects the name of an environment variable, got '${name}'`);
  const value = env[name]?.trim();
  if (value === undefined || value === '') throw new ConfigError(`--api-key-env ${name}: the variable is not set or empty`);
  return new Secret(value);
}

/** A value that stays out of anything printed or serialised: only reveal() gives it. */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return '[redacted]';
  }

  toString(): string {
    return '[redacted]';
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'Secret [redacted]';
  }
}

function priceOf(raw: string): Price {
  try {
    return parsePrice(raw);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

function firstSet(...values: (string | undefined)[]): string | undefined {
  for (const v of values) if (v !== undefined && v.trim() !== '') return v.trim();
  return undefined;
}

function numCtxFromEnv(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n < 256) throw new ConfigError(`OLLAMA_NUM_CTX must be a whole number of at least 256, got '${raw}'`);
  return n;
}

// Go durations ("30m", "1h30m", "-1s"); a bare number means seconds, as the server reads a number.
const DURATION_RE = /^-?(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
const SECONDS_RE = /^-?\d+$/;

export function normaliseKeepAlive(raw: string): string {
  const value = raw.trim();
  if (SECONDS_RE.test(value)) return `${value}s`;
  if (DURATION_RE.test(value)) return value;
  throw new ConfigError(`--keep-alive expects a duration such as 30m, 2h or -1, got '${raw}'`);
}
