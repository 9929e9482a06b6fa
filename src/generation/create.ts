// Wires a Generator for a run: the clock, the request gate, the run control, the backend and the
// preflight. The one place in generation that reaches the network before the first record.
import { FatalError } from '../runtime/exit-codes.js';
import type { JsonObject } from '../runtime/stage.js';
import type { ModelClient } from '../llm/model-client.js';
import type { GenerateConfig } from './config.js';
import { Generator } from './generator.js';
import { RequestGate, RunControl, type Clock } from './scheduler.js';

export interface CreateOptions {
  finishRecord?: (record: JsonObject) => JsonObject;
  /** Tests inject a client; by default the Ollama client for config.host. */
  client?: ModelClient;
  now?: Clock;
}

export async function createGenerator(config: GenerateConfig, opts: CreateOptions = {}): Promise<Generator> {
  const now = opts.now ?? (() => performance.now());
  const gate = new RequestGate(config.concurrency, now);
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
  return new Generator({ config, backend, control, gate: config.dryRun ? null : gate, now, ...(opts.finishRecord ? { finishRecord: opts.finishRecord } : {}) });
}
