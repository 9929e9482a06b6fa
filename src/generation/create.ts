// Wires a ViewGenerator for a run: the view kinds and their record kind, the clock, the model
// client (Ollama on one host or a pool of hosts, or an OpenAI-compatible server), its preflight,
// the request gate sized to what the servers can take, the run control, the backend and the
// response cache. The one place in generation that reaches the network and the cache file before
// the first record.
import type { JsonObject } from '../contracts/json.js';
import { HostPool, type HostPoolEvent } from '../llm/host-pool.js';
import type { ModelClient } from '../llm/model-client.js';
import { FatalError } from '../runtime/exit-codes.js';
import type { OffThreadRunner } from '../runtime/stage.js';
import type { ExtractiveKernelSetup } from './extractive-kernel.js';
import { VIEW_KINDS } from '../views/kinds/index.js';
import type { ViewKind } from '../views/kinds/kind.js';
import type { ExtractiveSetup } from '../views/records/record-kind.js';
import { recordKindOf } from '../views/records/records.js';
import { BACKEND_TRAITS, type GenerateConfig, type SectionMode } from './config.js';
import { ViewGenerator, type GeneratorDeps, type HostCounts } from './generator.js';
import type { LadderPolicy } from './ladder.js';
import type { ModelBackendName } from './model-backend.js';
import { RunControl, type Clock } from './run-control.js';
import { hostEventMessage } from './stats.js';
import { ViewCache, type ReplyStore } from './view-cache.js';

export interface CreateOptions {
  finishRecord?: (record: JsonObject) => JsonObject;
  /** --view: that view of other records instead of the chunk views (config.views). */
  sections?: SectionMode | null;
  /** What the extractive builders need (the lexicon, read by the stage); by default none. */
  extractiveSetup?: ExtractiveSetup;
  /** Tests inject a client; by default the config's (see connect()). */
  client?: ModelClient;
  /** Tests inject a store; by default the SQLite cache at config.cache.path. */
  openStore?: (path: string) => ReplyStore;
  now?: Clock;
  /** One line on stderr now (SetupContext.say): a wait for a server is said when it starts. */
  say?: (line: string) => void;
  /** The run's worker thread, for the extractive views of a large record (SetupContext.offThread). */
  offThread?: OffThreadRunner;
}

/** The servers of a run, checked: who sends, the digest they agree on, how many requests they take at once. */
interface Servers {
  /** Null in a dry run: nothing is sent. */
  client: ModelClient | null;
  digest: string | null;
  slots: number;
  /** How messages name the servers ("… has failed every request for 120 s"). */
  describe: string;
  hosts: HostCounts | null;
  /** Set-up messages for stderr (see GeneratorDeps.notices). */
  notices: string[];
}

// A starting server is probed at least this often (backoff from --retry-delay up to here).
const PREFLIGHT_MAX_DELAY_MS = 2_000;

const NO_LEXICON: ExtractiveSetup = {
  lexicon: () => {
    throw new Error('no lexicon was given for the extractive rules');
  },
};

export async function createGenerator(config: GenerateConfig, opts: CreateOptions = {}): Promise<ViewGenerator> {
  const now = opts.now ?? (() => performance.now());
  const policy = ladderPolicy(config);
  const kinds: ViewKind[] = opts.sections ? [VIEW_KINDS[opts.sections.view]] : config.views.map((view) => VIEW_KINDS[view]);
  const records = recordKindOf(kinds[0]!);
  const views = { kinds, records, run: records.run({ bottomUp: opts.sections?.bottomUp ?? false }), ...(opts.finishRecord ? { finishRecord: opts.finishRecord } : {}) };
  const build = (deps: Omit<GeneratorDeps, keyof typeof views>) => new ViewGenerator({ ...deps, ...views });

  if (!BACKEND_TRAITS[config.backend].sendsRequests) {
    const control = new RunControl(now, 0, 'the extractive backend');
    const { createExtractiveBackend } = await import('./extractive-backend.js');
    const backend = await createExtractiveBackend(kinds, opts.extractiveSetup ?? NO_LEXICON);
    const window = config.window ?? 8 * config.concurrency;
    const lexicon = (opts.extractiveSetup ?? NO_LEXICON).lexicon;
    // Plain data for the worker thread; the lexicon is read when the first large record is sent.
    const kernelSetup: ExtractiveKernelSetup = {
      views: kinds.map((kind) => kind.name),
      policy,
      get lexicon() {
        return lexicon();
      },
    };
    const offThread = opts.offThread ? { offThread: { runner: opts.offThread, setup: kernelSetup } } : {};
    return build({ config, policy, backend, control, gate: null, cache: null, now, slots: config.concurrency, window, hosts: null, ...offThread });
  }

  // Loaded here, not at the top: the extractive backend sends no request.
  const [{ RequestGate }, { createModelBackend }] = await Promise.all([import('./request-gate.js'), import('./model-backend.js')]);
  const servers = await connect(config, opts, now);
  const gate = new RequestGate(servers.slots, now);
  const control = new RunControl(now, config.giveUpAfterMs, servers.describe);
  const backend = createModelBackend(config.backend as ModelBackendName, config, { client: servers.client, gate, control, modelDigest: servers.digest });
  // Opened after the preflight: the key needs the model's digest, and a run that cannot reach
  // its server should not create a cache file.
  const cache = config.dryRun || config.cache.path === null ? null : new ViewCache(await openStore(config.cache.path, opts.openStore), backend, policy, config.cache.refresh, config.cache.retryFlagged === true);
  // Enough records in progress to keep every slot busy while the oldest one waits its turn.
  const window = config.window ?? 8 * servers.slots;
  return build({ config, policy, backend, control, gate: config.dryRun ? null : gate, cache, now, slots: servers.slots, window, hosts: servers.hosts, notices: servers.notices });
}

// The clients are loaded here, not at the top: the ollama package is loaded only for Ollama
// hosts, and a dry run loads no client at all.
async function connect(config: GenerateConfig, opts: CreateOptions, now: Clock): Promise<Servers> {
  const host = config.host ?? '';
  if (BACKEND_TRAITS[config.backend].server === 'base-url') {
    const describe = `the server at ${host}`;
    if (config.dryRun) return { client: null, digest: null, slots: config.concurrency, describe, hosts: null, notices: [] };
    const { createOpenAiClient } = await import('../llm/openai-client.js');
    const client = opts.client ?? createOpenAiClient({ baseUrl: host, apiKey: config.apiKey?.reveal() ?? null });
    const { value: info, waited } = await preflight(() => untilUp(config, now, describe, opts.say, () => client.preflight(config.model)));
    return { client, digest: info.digest, slots: config.concurrency, describe, hosts: null, notices: waited };
  }

  const specs = config.hosts;
  const describe = `Ollama at ${specs.map((s) => s.url).join(', ')}`;
  const allSlots = specs.reduce((sum, s) => sum + s.slots, 0);
  if (config.dryRun) return { client: null, digest: null, slots: allSlots, describe, hosts: null, notices: [] };
  const single = async (client: ModelClient): Promise<Servers> => {
    const { value: info, waited } = await preflight(() => untilUp(config, now, describe, opts.say, () => client.preflight(config.model)));
    // Loaded now, on --load-timeout, so the first requests do not spend their --timeout on it.
    if (client.load !== undefined) {
      await preflight(() => client.load!({ model: config.model, keepAlive: config.keepAlive, numCtx: config.modelOptions.num_ctx, timeoutMs: config.loadTimeoutMs }));
    }
    return { client, digest: info.digest, slots: allSlots, describe, hosts: null, notices: [...waited, ...contextNotices(config, info.contextLength ?? null)] };
  };
  if (opts.client !== undefined) return single(opts.client);
  const { createOllamaClient } = await import('../llm/ollama-client.js');
  if (specs.length === 1) return single(createOllamaClient({ host: specs[0]!.url }));

  const messages: string[] = [];
  const pool = new HostPool(
    specs.map((s) => ({ url: s.url, slots: s.slots, client: createOllamaClient({ host: s.url }) })),
    { now, onEvent: (event: HostPoolEvent) => messages.push(hostEventMessage(event)) },
  );
  // Hosts without the model are left out (a message each); only a pool where none has it, or
  // hosts whose digests differ, stop the run before it starts.
  const { value: checked, waited } = await preflight(() => untilUp(config, now, describe, opts.say, () => pool.checkHosts(config.model)));
  // The gate lets exactly the pool's slots through: requests waiting inside the pool, ready for the
  // next free slot, were measured to gain nothing (bench/multi-host-throughput.mjs: rca-generate
  // already runs at the rate the pool and client alone reach against the same hosts).
  return { client: pool, digest: checked.info.digest, slots: pool.capacity, describe, hosts: { stats: () => pool.stats(), messages }, notices: waited };
}

/**
 * Runs a server's preflight until the server is up, for either backend: a server started just
 * before rca (a script, `make corpus`, a job step) may not listen yet, or answer 503 "Loading
 * model" (llama-server) until its weights are in. The wait is said at once, with what it waits
 * for, how it backs off and until when; it ends at --give-up-after (0: never). The notices say how
 * long it took, with the first record.
 */
async function untilUp<T>(config: GenerateConfig, now: Clock, describe: string, say: ((line: string) => void) | undefined, check: () => Promise<T>): Promise<{ value: T; waited: string[] }> {
  const { waitForServer, isStarting } = await import('../llm/transport-retry.js');
  const baseDelayMs = Math.max(config.retryDelayMs, 1);
  let waiting = false;
  try {
    const { value, waited } = await waitForServer(check, {
      giveUpAfterMs: config.giveUpAfterMs,
      baseDelayMs,
      maxDelayMs: PREFLIGHT_MAX_DELAY_MS,
      now,
      onWait(failure) {
        waiting = true;
        say?.(`waiting for ${describe} to start ${waitPlan(baseDelayMs, config.giveUpAfterMs)}; Ctrl-C stops. Now: ${failure.message}`);
      },
    });
    const notices = waited === null ? [] : [`waited ${(waited.ms / 1000).toFixed(1)} s for ${describe} to start (${waited.tries} ${waited.tries === 1 ? 'try' : 'tries'}; last: ${waited.last.message})`];
    return { value, waited: notices };
  } catch (err) {
    if (waiting && isStarting(err)) throw new Error(`${err.message} (no answer within --give-up-after ${seconds(config.giveUpAfterMs)} s; a larger value waits longer)`);
    throw err;
  }
}

/** How a server that is not up is waited for, in words: until when, and the backoff. */
function waitPlan(baseDelayMs: number, giveUpAfterMs: number): string {
  const until = giveUpAfterMs > 0 ? `for up to ${seconds(giveUpAfterMs)} s (--give-up-after SECONDS)` : 'for as long as it takes (--give-up-after 0)';
  const backoff = baseDelayMs >= PREFLIGHT_MAX_DELAY_MS
    ? `every ${seconds(PREFLIGHT_MAX_DELAY_MS)} s at most`
    : `with backoff (random waits of up to ${seconds(baseDelayMs)} s, doubling to ${seconds(PREFLIGHT_MAX_DELAY_MS)} s)`;
  return `${until}, trying again ${backoff}`;
}

function seconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(3)));
}

// Ollama caps num_ctx at the model's trained context: the num_ctx recorded would not be what ran.
function contextNotices(config: GenerateConfig, contextLength: number | null): string[] {
  const numCtx = config.modelOptions.num_ctx;
  if (contextLength === null || numCtx <= contextLength) return [];
  return [`--num-ctx ${numCtx} is more than the context length of ${config.model} (${contextLength} tokens): the server runs it at ${contextLength}`];
}

async function preflight<T>(check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (err) {
    // The clients' messages are the user-facing ones: unreachable host, model not pulled, key refused.
    throw new FatalError(err instanceof Error ? err.message : String(err));
  }
}

export function ladderPolicy(config: GenerateConfig): LadderPolicy {
  return {
    maxTries: config.maxTries,
    truncateChars: config.truncateChars,
    maxChars: config.maxChars,
    maxOutputTokens: config.modelOptions.num_predict,
    // Only Ollama is sent num_ctx; an OpenAI-compatible server refuses what does not fit (400).
    numCtx: BACKEND_TRAITS[config.backend].sendsNumCtx ? config.modelOptions.num_ctx : null,
    promptStyle: config.promptStyle,
  };
}

async function openStore(path: string, open?: (path: string) => ReplyStore): Promise<ReplyStore> {
  try {
    if (open) return open(path);
    // Loaded only when a cache is used: the SQLite addon is the heaviest thing rca loads.
    const { openResponseCache } = await import('../cache/response-cache.js');
    return openResponseCache(path);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new FatalError(`cannot use the response cache: ${message} (--cache PATH names another file; --no-cache runs without one)`);
  }
}
