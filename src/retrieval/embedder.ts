// Embeds texts through a model server, for rca-embed and for the questions of hybrid search:
// texts are gathered into batches (--batch; a part batch leaves only when no request is in flight,
// at the end of a turn of the event loop or when the last request comes back, so the runner's
// window never waits on it; leaving earlier halved the batches and the throughput), sent through
// generate's request gate (bounded, oldest record first, narrowed on 503) with its transport
// retries and give-up clock, and kept in the response cache by model, digest, options and text.
// An input the server refuses as too long (Ollama's 400 with truncate: false, llama-server's
// "too large to process", vLLM's maximum context length) is never cut: its batch is sent again
// one input at a time, and the input at fault comes back as PROMPT_TOO_LONG to the caller, which
// splits it or refuses it.
import { cacheKey } from '../cache/cache-key.js';
import type { ResponseCache } from '../cache/response-cache.js';
import { RequestGate } from '../generation/request-gate.js';
import { RunControl, type Clock } from '../generation/run-control.js';
import { HostPool } from '../llm/host-pool.js';
import { ModelError, type ModelClient, type ModelInfo } from '../llm/model-client.js';
import { waitForServer, withTransportRetries } from '../llm/transport-retry.js';
import { FatalError } from '../runtime/exit-codes.js';
import type { ServerConfig } from './embed-config.js';

export interface EmbedderSettings {
  model: string;
  dimensions: number | null;
  numCtx: number | null;
  batch: number;
}

export interface Connected {
  client: ModelClient;
  info: ModelInfo;
  notices: string[];
}

export interface EmbedStats {
  requests: number;
  inputs: number;
  cached: number;
  stored: number;
  transportRetries: number;
  promptTokens: number;
  tooLong: number;
}

interface Waiting {
  text: string;
  key: string | null;
  seq: number;
  resolve(vector: number[]): void;
  reject(error: ModelError): void;
}

const PREFLIGHT_MAX_DELAY_MS = 2_000;

/** The client of a run's server(s), checked: the model is served (and its digest, when known). */
export async function connect(config: ServerConfig, model: string, now: Clock, client?: ModelClient): Promise<Connected> {
  const fatal = (err: unknown): never => {
    throw new FatalError(err instanceof Error ? err.message : String(err));
  };
  if (config.backend === 'openai') {
    const { createOpenAiClient } = await import('../llm/openai-client.js');
    const c = client ?? createOpenAiClient({ baseUrl: config.host, apiKey: config.apiKey?.reveal() ?? null });
    const { value: info, waited } = await waitForServer(() => c.preflight(model, undefined, 'embedding'), {
      giveUpAfterMs: config.giveUpAfterMs,
      baseDelayMs: Math.max(config.retryDelayMs, 1),
      maxDelayMs: PREFLIGHT_MAX_DELAY_MS,
      now,
    }).catch(fatal);
    const notices = waited === null ? [] : [`waited ${(waited.ms / 1000).toFixed(1)} s for the server at ${config.host} to start (last: ${waited.last.message})`];
    return { client: c, info, notices };
  }
  const { createOllamaClient } = await import('../llm/ollama-client.js');
  if (client !== undefined || config.hosts.length === 1) {
    const c = client ?? createOllamaClient({ host: config.hosts[0]!.url });
    const info = await c.preflight(model, undefined, 'embedding').catch(fatal);
    return { client: c, info, notices: capabilityNotice(model, info) };
  }
  const messages: string[] = [];
  const pool = new HostPool(config.hosts.map((s) => ({ url: s.url, slots: s.slots, client: createOllamaClient({ host: s.url }) })), { now });
  const checked = await pool.checkHosts(model, undefined, 'embedding').catch(fatal);
  for (const s of checked.skipped) messages.push(`host ${s.url} left out: ${s.error.message}`);
  const first = checked.usable[0]!.info;
  return { client: pool, info: { ...first, digest: checked.info.digest }, notices: [...messages, ...capabilityNotice(model, first)] };
}

// Ollama embeds with any model; one that does not say it embeds gives vectors of little meaning.
function capabilityNotice(model: string, info: ModelInfo): string[] {
  const caps = info.capabilities;
  return caps !== undefined && !caps.includes('embedding') ? [`model ${model} does not list the embedding capability (it lists: ${caps.join(', ') || 'none'}): its vectors may mean little for search`] : [];
}

export class Embedder {
  readonly stats: EmbedStats = { requests: 0, inputs: 0, cached: 0, stored: 0, transportRetries: 0, promptTokens: 0, tooLong: 0 };
  readonly control: RunControl;
  private readonly gate: RequestGate;
  private queue: Waiting[] = [];
  private scheduled = false;
  private inFlight = 0;
  private cacheFailure: string | null = null;

  constructor(
    private readonly config: ServerConfig,
    private readonly settings: EmbedderSettings,
    private readonly connected: Connected,
    private readonly cache: ResponseCache | null,
    now: Clock,
  ) {
    this.control = new RunControl(now, config.giveUpAfterMs, config.backend === 'openai' ? `the server at ${config.host}` : `Ollama at ${config.host}`);
    const slots = connected.client instanceof HostPool ? connected.client.capacity : config.hosts.reduce((n, h) => n + h.slots, 0) || config.concurrency;
    this.gate = new RequestGate(Math.max(1, slots), now);
  }

  get slots(): number {
    return this.gate.currentLimit;
  }

  /** The cache's trouble, said once (the run goes on without it). */
  takeCacheWarning(): string | null {
    const w = this.cacheFailure;
    this.cacheFailure = null;
    return w;
  }

  /** One text's vector; `seq` (the record's input position) orders the requests. Rejects with a ModelError. */
  embed(text: string, seq: number): Promise<number[]> {
    const key = this.keyOf(text);
    const hit = key === null ? null : this.lookup(key);
    if (hit !== null) {
      this.stats.cached++;
      return Promise.resolve(hit);
    }
    return new Promise<number[]>((resolve, reject) => {
      this.queue.push({ text, key, seq, resolve, reject });
      this.flush(false);
      this.schedule();
    });
  }

  // A part batch waits while a request is in flight: the texts that come meanwhile fill it.
  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.inFlight === 0) this.flush(true);
    });
  }

  interrupt(): void {
    this.control.interrupt();
  }

  /** Sends the full batches waiting, and with `part` the last part batch too. */
  private flush(part: boolean): void {
    while (this.queue.length >= this.settings.batch || (part && this.queue.length > 0)) {
      void this.send(this.queue.splice(0, this.settings.batch));
    }
  }

  private async send(batch: Waiting[]): Promise<void> {
    this.inFlight++;
    let reply;
    try {
      reply = await this.request(batch);
    } catch (err) {
      this.settled();
      const error = err instanceof ModelError ? err : new ModelError('BAD_RESPONSE', String(err), { retryable: false });
      // One input too long fails the whole batch (Ollama runs them in one errgroup): find it.
      if (error.code === 'PROMPT_TOO_LONG' && batch.length > 1) {
        for (const one of batch) void this.send([one]);
        return;
      }
      if (error.code === 'PROMPT_TOO_LONG') this.stats.tooLong++;
      for (const w of batch) w.reject(error);
      return;
    }
    this.settled();
    batch.forEach((w, i) => {
      const vector = reply[i]!;
      if (w.key !== null) this.store(w.key, vector);
      w.resolve(vector);
    });
  }

  private settled(): void {
    this.inFlight--;
    this.schedule();
  }

  private async request(batch: Waiting[]): Promise<number[][]> {
    const { client } = this.connected;
    const { control, gate } = this;
    const signal = control.signal;
    const seq = Math.min(...batch.map((w) => w.seq));
    const once = async () => {
      try {
        const reply = await gate.run(() => client.embed!({ model: this.settings.model, input: batch.map((w) => w.text), dimensions: this.settings.dimensions, numCtx: this.settings.numCtx, keepAlive: this.config.keepAlive, timeoutMs: this.config.timeoutMs }, signal), seq, signal);
        control.serverAnswered();
        return reply;
      } catch (err) {
        control.requestFailed(err);
        throw err;
      }
    };
    const { value, retries } = await withTransportRetries(once, { maxRetries: this.config.maxTransportRetries, baseDelayMs: this.config.retryDelayMs, maxDelayMs: this.config.maxRetryDelayMs, signal });
    this.stats.requests++;
    this.stats.inputs += batch.length;
    this.stats.transportRetries += retries;
    this.stats.promptTokens += value.promptTokens ?? 0;
    return value.vectors;
  }

  private keyOf(text: string): string | null {
    if (this.cache === null) return null;
    const served = this.config.backend === 'openai' ? (this.config.cache.modelId === undefined ? { base_url: this.config.host } : { model_id: this.config.cache.modelId }) : {};
    return cacheKey({
      backend: this.config.backend,
      model: this.settings.model,
      modelDigest: this.connected.info.digest,
      // `embed` keeps these keys apart from any chat reply's; truncate false is what makes a vector whole.
      options: { embed: true, truncate: false, dimensions: this.settings.dimensions, num_ctx: this.settings.numCtx, ...served },
      schema: null,
      prompt: text,
    });
  }

  private lookup(key: string): number[] | null {
    if (this.config.cache.refresh) return null;
    try {
      const hit = this.cache!.get(key);
      if (hit === null || hit.doneReason !== 'embedding') return null;
      const vector = JSON.parse(hit.content) as unknown;
      return Array.isArray(vector) && vector.length > 0 && vector.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (vector as number[]) : null;
    } catch (err) {
      this.cacheFailure ??= `response cache: ${err instanceof Error ? err.message : String(err)}`;
      return null;
    }
  }

  private store(key: string, vector: number[]): void {
    try {
      this.cache!.put(key, { content: JSON.stringify(vector), doneReason: 'embedding', promptTokens: null, outputTokens: null }, { backend: `${this.config.backend}/embed`, model: this.settings.model });
      this.stats.stored++;
    } catch (err) {
      this.cacheFailure ??= `response cache: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
}

/** Opens the response cache of a run, or null without one. */
export async function openCache(config: ServerConfig): Promise<ResponseCache | null> {
  if (config.cache.path === null) return null;
  try {
    const { openResponseCache } = await import('../cache/response-cache.js');
    return openResponseCache(config.cache.path);
  } catch (err) {
    throw new FatalError(`cannot use the response cache: ${err instanceof Error ? err.message : String(err)} (--cache PATH names another file; --no-cache runs without one)`);
  }
}
