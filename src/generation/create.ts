// Wires a Generator for a run: the clock, the request gate, the run control, the backend, the
// preflight and the response cache. The one place in generation that reaches the network and the
// cache file before the first record.
import { FatalError } from '../runtime/exit-codes.js';
import type { JsonObject } from '../runtime/stage.js';
import type { ModelClient } from '../llm/model-client.js';
import type { GenerateConfig } from './config.js';
import { Generator } from './generator.js';
import type { LadderPolicy } from './ladder.js';
import { RequestGate, RunControl, type Clock } from './scheduler.js';
import { ViewCache, type ReplyStore } from './view-cache.js';

export interface CreateOptions {
  finishRecord?: (record: JsonObject) => JsonObject;
  /** Tests inject a client; by default the Ollama client for config.host. */
  client?: ModelClient;
  /** Tests inject a store; by default the SQLite cache at config.cache.path. */
  openStore?: (path: string) => ReplyStore;
  now?: Clock;
}

export async function createGenerator(config: GenerateConfig, opts: CreateOptions = {}): Promise<Generator> {
  const now = opts.now ?? (() => performance.now());
  const gate = new RequestGate(config.concurrency, now);
  const policy = ladderPolicy(config);
  const finish = opts.finishRecord ? { finishRecord: opts.finishRecord } : {};

  if (config.backend === 'extractive') {
    const control = new RunControl(now, 0, 'the extractive backend');
    const { createExtractiveBackend } = await import('./extractive-backend.js');
    return new Generator({ config, policy, backend: createExtractiveBackend(), control, gate: null, cache: null, now, ...finish });
  }

  const control = new RunControl(now, config.giveUpAfterMs, `Ollama at ${config.host}`);
  // Loaded here, not at the top: a model-free backend must not pay for the ollama package.
  const { createOllamaBackend } = await import('./ollama-backend.js');
  let client: ModelClient | null = null;
  let modelDigest: string | null = null;
  if (!config.dryRun) {
    client = opts.client ?? (await import('../llm/ollama-client.js')).createOllamaClient({ host: config.host });
    try {
      modelDigest = (await client.preflight(config.model)).digest;
    } catch (err) {
      // The client's messages are the user-facing ones: unreachable host, model not pulled.
      throw new FatalError(err instanceof Error ? err.message : String(err));
    }
  }
  const backend = createOllamaBackend(config, { client, gate, control, modelDigest });
  // Opened after the preflight: the key needs the model's digest, and a run that cannot reach
  // its server should not create a cache file.
  const cache = config.dryRun || config.cache.path === null ? null : new ViewCache(await openStore(config.cache.path, opts.openStore), backend, policy, config.cache.refresh);
  return new Generator({ config, policy, backend, control, gate: config.dryRun ? null : gate, cache, now, ...finish });
}

export function ladderPolicy(config: GenerateConfig): LadderPolicy {
  return { maxTries: config.maxTries, truncateChars: config.truncateChars, maxChars: config.maxChars, maxOutputTokens: config.modelOptions.num_predict };
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
