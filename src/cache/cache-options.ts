// The cache flags a generating stage offers, and where the cache lives. Kept apart from the
// store so that declaring the options (read by every `--help`) never loads SQLite.
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { Env, OptionsSpec } from '../runtime/stage.js';

const CACHE_FILE_NAME = 'responses.sqlite';
const DEFAULT_LOCATION_HELP = `$RCA_CACHE, else $XDG_CACHE_HOME/rca/${CACHE_FILE_NAME}, else ~/.cache/rca/${CACHE_FILE_NAME}`;

export const CACHE_OPTIONS = {
  cache: { type: 'string', placeholder: 'PATH', help: `response cache file, shared safely by parallel runs [default: ${DEFAULT_LOCATION_HELP}]` },
  'no-cache': { type: 'boolean', default: false, help: 'neither read nor write the response cache' },
  refresh: { type: 'boolean', default: false, help: 'ignore cached replies; store the new ones in their place' },
  'retry-flagged': { type: 'boolean', default: false, help: 'ask again for views whose cached outcome was kept with quality flags (other cached views are still used)' },
  'model-id': { type: 'string', placeholder: 'ID', help: "(--backend openai) a fingerprint of the served weights (e.g. the checkpoint's hash) that stands for the base URL in the cache key, so servers at other URLs with the same weights share entries" },
} as const satisfies OptionsSpec;

/** Cache flags that cannot go together or a value the cache cannot use; the message names the flags. */
export class CacheSettingError extends Error {
  override name = 'CacheSettingError';
}

/** Where the cache is when --cache is not given. */
export function defaultCachePath(env: Env): string {
  const explicit = nonEmpty(env.RCA_CACHE);
  if (explicit !== undefined) return explicit;
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = nonEmpty(env.XDG_CACHE_HOME);
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'rca', CACHE_FILE_NAME);
  return join(nonEmpty(env.HOME) ?? homeFromPasswd() ?? tmpdir(), '.cache', 'rca', CACHE_FILE_NAME);
}

// Without $HOME (a bin run with a bare environment) the account's home is still known; a user
// with no passwd entry (some containers) gets the temporary folder rather than a failed run.
function homeFromPasswd(): string | undefined {
  try {
    return nonEmpty(homedir());
  } catch {
    return undefined;
  }
}

export interface CacheSetting {
  /** null: no cache. */
  path: string | null;
  /** Skip lookups but still store accepted replies (overwriting what was there). */
  refresh: boolean;
  /** Skip the lookups of flagged outcomes only (--retry-flagged); absent: false. */
  retryFlagged?: true;
  /** --model-id: names the weights in the key of an OpenAI-compatible server instead of its base URL; absent: the URL. */
  modelId?: string;
}

/** --cache / --no-cache / --refresh and the environment → what the run does with its cache. */
export function resolveCacheSetting(
  values: { cache?: string | undefined; 'no-cache'?: boolean | undefined; refresh?: boolean | undefined; 'retry-flagged'?: boolean | undefined; 'model-id'?: string | undefined },
  env: Env,
): CacheSetting {
  const off = values['no-cache'] === true;
  const refresh = values.refresh === true;
  const retryFlagged = values['retry-flagged'] === true;
  const modelId = values['model-id'] ?? null;
  if (modelId !== null && !/^[\x21-\x7e]{1,200}$/.test(modelId)) throw new CacheSettingError(`--model-id expects 1 to 200 printable characters without spaces, got '${modelId}'`);
  if (off && retryFlagged) throw new CacheSettingError('--retry-flagged and --no-cache contradict each other (without a cache every view is asked)');
  if (off && values.cache !== undefined) throw new CacheSettingError('--cache and --no-cache contradict each other');
  if (off && refresh) throw new CacheSettingError('--refresh and --no-cache contradict each other');
  if (values.cache !== undefined && values.cache.trim() === '') throw new CacheSettingError('--cache needs a file path');
  // Present only when given: a setting without them has no such keys.
  const extra = { ...(retryFlagged ? { retryFlagged: true as const } : {}), ...(modelId !== null ? { modelId } : {}) };
  if (off) return { path: null, refresh: false, ...extra };
  return { path: values.cache ?? defaultCachePath(env), refresh, ...extra };
}

const DURATION_RE = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "30d", "12h", "90m", "45s", "2w", "1.5h" → milliseconds; null when not a duration. */
export function parseDuration(text: string): number | null {
  const m = DURATION_RE.exec(text.trim());
  if (!m) return null;
  return Math.round(Number(m[1]) * UNIT_MS[m[2]!]!);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
