// The options generate and summarize share, and their resolution into one run configuration
// (flags first, then the environment, then the defaults). Pure: the environment is passed in.
import { CACHE_OPTIONS, resolveCacheSetting, type CacheSetting } from '../cache/cache-options.js';
import { UsageError } from '../runtime/exit-codes.js';
import type { OptionsSpec, OptionValues } from '../runtime/stage.js';
import { parseViewList, VIEW_TYPES, type ViewType } from '../views/view-types.js';

// ollama: the product (model output); extractive: model-free, deterministic, for trying the
// toolkit without a server and as the baseline model output is compared with.
export const BACKENDS = ['ollama', 'extractive'] as const;
export type BackendName = (typeof BACKENDS)[number];

export const DEFAULT_HOST = 'http://localhost:11434';
export const DEFAULT_MODEL = 'mistral:latest';
export const DEFAULT_NUM_CTX = 8192;
const DEFAULT_OLLAMA_PORT = '11434';
// Backoff doubles from --retry-delay up to this cap; a server's Retry-After is capped the same way.
export const MAX_RETRY_DELAY_MS = 30_000;

export const GENERATE_OPTIONS = {
  backend: {
    type: 'string',
    placeholder: 'NAME',
    default: 'ollama',
    choices: BACKENDS,
    help: 'where the views come from: a local model (ollama), or rules that take them from the chunk text and its NER seed (extractive; no server needed)',
  },
  host: { type: 'string', placeholder: 'URL', help: `Ollama server [default: $OLLAMA_HOST, else $OLLAMA_BASE_URL, else ${DEFAULT_HOST}]` },
  model: { type: 'string', placeholder: 'NAME', help: `model to run [default: $OLLAMA_MODEL, else ${DEFAULT_MODEL}]` },
  'num-ctx': { type: 'number', placeholder: 'N', min: 256, integer: true, help: `context window in tokens, one value per run (a change reloads the model) [default: $OLLAMA_NUM_CTX, else ${DEFAULT_NUM_CTX}]` },
  seed: { type: 'number', placeholder: 'N', default: 42, integer: true, help: 'sampling seed (temperature is always 0)' },
  'max-output-tokens': { type: 'number', placeholder: 'N', default: 2048, min: 1, integer: true, help: 'cap on the tokens of one reply (num_predict); a reply cut there is retried' },
  'keep-alive': { type: 'string', placeholder: 'DURATION', default: '30m', help: 'how long the server keeps the model loaded after a request (e.g. 30m, 2h, -1 for ever)' },
  timeout: { type: 'number', placeholder: 'SECONDS', default: 120, min: 0, help: 'deadline of one request, streaming included' },
  concurrency: { type: 'number', placeholder: 'N', default: 2, min: 1, integer: true, help: "requests in flight across records and views; set it to the server's OLLAMA_NUM_PARALLEL" },
  window: { type: 'number', placeholder: 'N', min: 1, integer: true, help: 'records in progress at once, written in input order (default: 8 x --concurrency)' },
  'max-transport-retries': { type: 'number', placeholder: 'N', default: 5, min: 0, integer: true, help: 'retries of a request after a connection error, timeout, 429, 500, 502, 503 or 504' },
  'retry-delay': { type: 'number', placeholder: 'MS', default: 500, min: 0, integer: true, help: `first transport retry waits up to MS, doubling each time (random jitter, at most ${MAX_RETRY_DELAY_MS / 1000} s)` },
  'give-up-after': { type: 'number', placeholder: 'SECONDS', default: 120, min: 0, help: 'stop the run (exit 3) when the server has failed every request for this long; 0 never stops' },
  'max-tries': { type: 'number', placeholder: 'N', default: 3, min: 1, integer: true, help: 'attempts per view when the reply is not usable: the prompt, then with feedback, then with the text cut' },
  'truncate-chars': { type: 'number', placeholder: 'N', default: 4000, min: 1, integer: true, help: 'the third attempt cuts the chunk text to N characters at a sentence boundary' },
  'max-chars': { type: 'number', placeholder: 'N', min: 1, integer: true, help: 'cut the chunk text to N characters in every attempt (default: no cut)' },
  views: { type: 'list', placeholder: 'VIEWS', default: [...VIEW_TYPES], help: `comma-separated views to generate (${VIEW_TYPES.join(', ')})` },
  'flags-ok': { type: 'boolean', default: false, help: 'a view kept with quality flags does not make the exit status 1' },
  overwrite: { type: 'boolean', default: false, help: 'regenerate views already present and valid (default: such records pass through untouched)' },
  'dry-run': { type: 'boolean', default: false, help: 'write the requests (host, model, options, format, prompt) as records under "requests"; call no model' },
  ...CACHE_OPTIONS,
} as const satisfies OptionsSpec;

export type GenerateOptionValues = OptionValues<typeof GENERATE_OPTIONS>;

export interface ModelOptions {
  temperature: number;
  seed: number;
  num_predict: number;
  num_ctx: number;
}

export interface GenerateConfig {
  backend: BackendName;
  host: string;
  model: string;
  modelOptions: ModelOptions;
  keepAlive: string;
  timeoutMs: number;
  concurrency: number;
  window: number;
  maxTransportRetries: number;
  retryDelayMs: number;
  /** 0: never give up. */
  giveUpAfterMs: number;
  maxTries: number;
  truncateChars: number;
  maxChars: number | undefined;
  views: ViewType[];
  flagsOk: boolean;
  overwrite: boolean;
  dryRun: boolean;
  /** The response cache; only the ollama backend uses it, and never in a dry run. */
  cache: CacheSetting;
}

export type Env = Readonly<Record<string, string | undefined>>;

export function resolveConfig(options: GenerateOptionValues, env: Env): GenerateConfig {
  const host = normaliseHost(firstSet(options.host, env.OLLAMA_HOST, env.OLLAMA_BASE_URL) ?? DEFAULT_HOST);
  const model = firstSet(options.model, env.OLLAMA_MODEL) ?? DEFAULT_MODEL;
  const numCtx = options['num-ctx'] ?? numCtxFromEnv(env.OLLAMA_NUM_CTX) ?? DEFAULT_NUM_CTX;
  if (options.timeout <= 0) throw new UsageError(`--timeout must be more than 0 seconds, got ${options.timeout}`);
  const backend = options.backend as BackendName;
  if (backend === 'extractive' && options['dry-run']) throw new UsageError('--dry-run shows the requests a model would get; --backend extractive sends none');
  const cache = resolveCacheSetting(options, env);
  return {
    backend,
    host,
    model,
    modelOptions: { temperature: 0, seed: options.seed, num_predict: options['max-output-tokens'], num_ctx: numCtx },
    keepAlive: normaliseKeepAlive(options['keep-alive']),
    timeoutMs: Math.round(options.timeout * 1000),
    concurrency: options.concurrency,
    window: options.window ?? 8 * options.concurrency,
    maxTransportRetries: options['max-transport-retries'],
    retryDelayMs: options['retry-delay'],
    giveUpAfterMs: Math.round(options['give-up-after'] * 1000),
    maxTries: options['max-tries'],
    truncateChars: options['truncate-chars'],
    maxChars: options['max-chars'],
    views: parseViewList(options.views),
    flagsOk: options['flags-ok'],
    overwrite: options.overwrite,
    dryRun: options['dry-run'],
    cache,
  };
}

function firstSet(...values: (string | undefined)[]): string | undefined {
  for (const v of values) if (v !== undefined && v.trim() !== '') return v.trim();
  return undefined;
}

function numCtxFromEnv(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n < 256) throw new UsageError(`OLLAMA_NUM_CTX must be a whole number of at least 256, got '${raw}'`);
  return n;
}

const SCHEME_RE = /^[a-z][a-z0-9+.-]*:\/\//i;
const TRAILING_SLASHES_RE = /\/+$/;

/** Ollama's own reading of OLLAMA_HOST: the scheme defaults to http, and a bare host to port 11434. */
export function normaliseHost(raw: string): string {
  const hasScheme = SCHEME_RE.test(raw);
  let url: URL;
  try {
    url = new URL(hasScheme ? raw : `http://${raw}`);
  } catch {
    throw new UsageError(`--host must be a URL such as ${DEFAULT_HOST}, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--host must be an http or https URL, got '${raw}'`);
  }
  if (!hasScheme && url.port === '') url.port = DEFAULT_OLLAMA_PORT;
  return `${url.protocol}//${url.host}${url.pathname.replace(TRAILING_SLASHES_RE, '')}`;
}

// Go durations ("30m", "1h30m", "-1s"); a bare number means seconds, as the server reads a number.
const DURATION_RE = /^-?(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
const SECONDS_RE = /^-?\d+$/;

export function normaliseKeepAlive(raw: string): string {
  const value = raw.trim();
  if (SECONDS_RE.test(value)) return `${value}s`;
  if (DURATION_RE.test(value)) return value;
  throw new UsageError(`--keep-alive expects a duration such as 30m, 2h or -1, got '${raw}'`);
}
