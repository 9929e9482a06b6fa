// Several model servers behind one ModelClient: each request goes to the least-loaded healthy
// host with a free slot, a host that fails is rested for a back-off period and then probed with
// one real request, and a request that meets a failing host moves on to another. The generate
// stage keeps its own order, retries and error records; the pool only decides where a request runs.
import type { Env } from '../runtime/stage.js';
import {
  ModelError,
  type EmbedReply,
  type EmbedRequest,
  type GenerateReply,
  type GenerateRequest,
  type ModelClient,
  type ModelErrorCode,
  type ModelInfo,
  type ModelUse,
  withoutTrailingSlashes,
} from './model-client.js';

export interface HostSpec {
  url: string;
  slots: number;
}

/** Where Ollama listens when nothing says otherwise. */
export const DEFAULT_HOST = 'http://localhost:11434';
const DEFAULT_OLLAMA_PORT = '11434';
const MAX_SLOTS = 4096;
const SLOTS_RE = /^slots=(\d+)$/i;
const HOST_RE = /^host=(.*)$/i;
const SCHEME_RE = /^[a-z][a-z0-9+.-]*:\/\//i;
const SHORT_DIGEST_CHARS = 12;

/** A host list that cannot be read; the message names where the list came from (--host, OLLAMA_HOSTS, ...). */
export class HostListError extends Error {
  override name = 'HostListError';
}

// Where the hosts come from: --host values (each may itself be a comma list), else OLLAMA_HOSTS,
// else the single-host variables the one-host path reads, else the default. A list is split on
// commas; `slots=N` belongs to the host before it, so `host=URL,slots=N` reads the same inside a
// list and alone. A host without slots gets `defaultSlots` (--concurrency).
export function parseHostSpecs(values: readonly string[], env: Env, defaultSlots: number): HostSpec[] {
  const source = values.some((v) => v.trim() !== '')
    ? { name: '--host', items: values }
    : (firstSet(['OLLAMA_HOSTS', 'OLLAMA_HOST', 'OLLAMA_BASE_URL'], env) ?? { name: 'default', items: [DEFAULT_HOST] });
  const specs: { url: string; slots: number | null }[] = [];
  for (const item of source.items) {
    for (const token of item.split(',').map((t) => t.trim())) {
      if (token === '') continue;
      const slots = SLOTS_RE.exec(token);
      if (slots !== null) {
        const last = specs.at(-1);
        if (last === undefined) throw new HostListError(`${source.name}: '${token}' must follow a host`);
        if (last.slots !== null) throw new HostListError(`${source.name}: ${last.url} is given slots twice`);
        last.slots = slotCount(slots[1] ?? '', source.name);
        continue;
      }
      const url = normaliseHostUrl(HOST_RE.exec(token)?.[1]?.trim() ?? token, source.name);
      if (specs.some((s) => s.url === url)) throw new HostListError(`${source.name}: host ${url} is given twice`);
      specs.push({ url, slots: null });
    }
  }
  if (specs.length === 0) throw new HostListError(`${source.name}: no host given`);
  return specs.map((s) => ({ url: s.url, slots: s.slots ?? defaultSlots }));
}

function firstSet(names: readonly string[], env: Env): { name: string; items: string[] } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return { name, items: [value] };
  }
  return undefined;
}

function slotCount(raw: string, source: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_SLOTS) throw new HostListError(`${source}: slots must be a whole number from 1 to ${MAX_SLOTS}, got '${raw}'`);
  return n;
}

// Ollama's own reading of OLLAMA_HOST, as for the single host: the scheme defaults to http, and a
// bare host to port 11434.
function normaliseHostUrl(raw: string, source: string): string {
  const hasScheme = SCHEME_RE.test(raw);
  let url: URL;
  try {
    url = new URL(hasScheme ? raw : `http://${raw}`);
  } catch {
    throw new HostListError(`${source}: '${raw}' is not a host or URL such as ${DEFAULT_HOST}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new HostListError(`${source}: '${raw}' must be an http or https URL`);
  if (!hasScheme && url.port === '') url.port = DEFAULT_OLLAMA_PORT;
  return `${url.protocol}//${url.host}${withoutTrailingSlashes(url.pathname)}`;
}

export interface PoolMember {
  url: string;
  slots: number;
  client: ModelClient;
}

export type HostState = 'up' | 'down' | 'probing' | 'skipped';

export type HostPoolEvent =
  | { kind: 'skipped'; url: string; code: ModelErrorCode; message: string }
  | { kind: 'down'; url: string; code: ModelErrorCode; message: string; forMs: number }
  | { kind: 'up'; url: string };

export interface HostPoolOptions {
  now?: () => number;
  // A host's first rest; each failed probe doubles it, up to backoffMaxMs.
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  // Transport failures in a row that take a host out; a refused connection takes it out at once.
  failuresToRest?: number;
  onEvent?: (event: HostPoolEvent) => void;
}

export interface HostStats {
  url: string;
  slots: number;
  state: HostState;
  requests: number;
  failures: number;
  in_flight: number;
  prompt_tokens: number;
  output_tokens: number;
  down_until: number | null;
}

export interface PoolPreflight {
  info: ModelInfo;
  usable: { url: string; info: ModelInfo }[];
  skipped: { url: string; error: ModelError }[];
}

const DEFAULT_BACKOFF_BASE_MS = 1_000;
const DEFAULT_BACKOFF_MAX_MS = 60_000;
const DEFAULT_FAILURES_TO_REST = 2;

interface Host {
  readonly url: string;
  readonly slots: number;
  readonly client: ModelClient;
  state: HostState;
  inFlight: number;
  requests: number;
  failures: number;
  promptTokens: number;
  outputTokens: number;
  downUntil: number | null;
  // Rests taken since the host last served a probe: the exponent of the next rest.
  rests: number;
  failuresInARow: number;
  // Bumped whenever the host is taken out: outcomes of requests sent before that moment are
  // stale, so a burst of in-flight failures from one crash counts as one failure, not many.
  epoch: number;
}

type Choice = { kind: 'host'; host: Host } | { kind: 'wait' } | { kind: 'fail'; error: ModelError };

interface Waiter {
  tried: ReadonlySet<Host>;
  last: ModelError | null;
  settle(choice: Choice): void;
}

export class HostPool implements ModelClient {
  readonly host: string;
  private readonly hosts: Host[];
  private readonly waiters: Waiter[] = [];
  private readonly now: () => number;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly failuresToRest: number;
  private readonly onEvent: (event: HostPoolEvent) => void;

  constructor(members: readonly PoolMember[], opts: HostPoolOptions = {}) {
    if (members.length === 0) throw new TypeError('a host pool needs at least one host');
    this.hosts = members.map((m) => ({
      url: m.url,
      slots: Math.max(1, Math.floor(m.slots)),
      client: m.client,
      state: 'up',
      inFlight: 0,
      requests: 0,
      failures: 0,
      promptTokens: 0,
      outputTokens: 0,
      downUntil: null,
      rests: 0,
      failuresInARow: 0,
      epoch: 0,
    }));
    this.host = this.hosts.map((h) => h.url).join(',');
    this.now = opts.now ?? (() => performance.now());
    this.backoffBaseMs = Math.max(0, opts.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS);
    this.backoffMaxMs = Math.max(this.backoffBaseMs, opts.backoffMaxMs ?? DEFAULT_BACKOFF_MAX_MS);
    this.failuresToRest = Math.max(1, Math.floor(opts.failuresToRest ?? DEFAULT_FAILURES_TO_REST));
    this.onEvent = opts.onEvent ?? (() => {});
  }

  // Slots across the hosts still in the run, for the caller to size its window.
  get capacity(): number {
    return this.hosts.reduce((sum, h) => sum + (h.state === 'skipped' ? 0 : h.slots), 0);
  }

  stats(): HostStats[] {
    return this.hosts.map((h) => ({
      url: h.url,
      slots: h.slots,
      state: h.state,
      requests: h.requests,
      failures: h.failures,
      in_flight: h.inFlight,
      prompt_tokens: h.promptTokens,
      output_tokens: h.outputTokens,
      down_until: h.downUntil,
    }));
  }

  async preflight(model: string, signal?: AbortSignal, use?: ModelUse): Promise<ModelInfo> {
    return (await this.checkHosts(model, signal, use)).info;
  }

  // Every host at once. A host that cannot serve the model (unreachable, model missing, refused)
  // is reported and left out for the run; only a pool where none can is fatal. Hosts must agree on
  // the model's digest, or replies would depend on which host a record happened to meet.
  async checkHosts(model: string, signal?: AbortSignal, use?: ModelUse): Promise<PoolPreflight> {
    const outcomes = await Promise.allSettled(this.hosts.map((h) => h.client.preflight(model, signal, use)));
    if (signal?.aborted) throw new ModelError('ABORTED', 'preflight of the hosts was cancelled');
    const usable: { host: Host; info: ModelInfo }[] = [];
    const skipped: { host: Host; error: ModelError }[] = [];
    outcomes.forEach((outcome, i) => {
      const host = this.hosts[i]!;
      if (outcome.status === 'fulfilled') {
        usable.push({ host, info: outcome.value });
        return;
      }
      const error = outcome.reason instanceof ModelError ? outcome.reason : new ModelError('BAD_RESPONSE', String(outcome.reason), { retryable: false });
      skipped.push({ host, error });
    });
    for (const { host } of usable) if (host.state === 'skipped') host.state = 'up';
    const first = usable[0];
    if (first === undefined) {
      const reasons = skipped.map(({ host, error }) => `${host.url}: ${error.message}`).join('; ');
      const code = skipped[0]?.error.code ?? 'UNREACHABLE';
      throw new ModelError(code, `no host can serve model "${model}" — ${reasons}`, { retryable: false, status: skipped[0]?.error.status ?? null });
    }
    for (const { host, error } of skipped) {
      host.state = 'skipped';
      this.onEvent({ kind: 'skipped', url: host.url, code: error.code, message: error.message });
    }
    // A host that reports no digest cannot disagree; the known ones must all be the same.
    const byDigest = new Map<string, string[]>();
    for (const { host, info } of usable) {
      if (info.digest === null) continue;
      byDigest.set(info.digest, [...(byDigest.get(info.digest) ?? []), host.url]);
    }
    if (byDigest.size > 1) {
      const groups = [...byDigest].map(([digest, urls]) => `${digest.slice(0, SHORT_DIGEST_CHARS)} on ${urls.join(', ')}`).join('; ');
      throw new ModelError('BAD_RESPONSE', `model "${model}" differs across hosts: ${groups} — pull the same version everywhere`, { retryable: false });
    }
    const digest = byDigest.keys().next().value ?? null;
    return {
      info: { model: first.info.model, digest },
      usable: usable.map(({ host, info }) => ({ url: host.url, info })),
      skipped: skipped.map(({ host, error }) => ({ url: host.url, error })),
    };
  }

  // Each host at most once per call: a transport failure moves the request to another host, and
  // when every host has failed it the last error goes back to the caller, whose retry ladder backs
  // off before trying again. Any other outcome is the caller's as it is.
  generate(request: GenerateRequest, signal?: AbortSignal): Promise<GenerateReply> {
    return this.route((client) => client.generate(request, signal), (reply) => [reply.promptTokens, reply.outputTokens], signal);
  }

  // A batch of texts, routed like a chat request (every host's client must embed).
  embed(request: EmbedRequest, signal?: AbortSignal): Promise<EmbedReply> {
    return this.route((client) => {
      if (client.embed === undefined) throw new ModelError('BAD_RESPONSE', `the client of ${client.host} cannot embed`, { retryable: false });
      return client.embed(request, signal);
    }, (reply) => [reply.promptTokens, 0], signal);
  }

  private async route<T>(call: (client: ModelClient) => Promise<T>, tokens: (reply: T) => [number | null, number | null], signal?: AbortSignal): Promise<T> {
    const tried = new Set<Host>();
    let last: ModelError | null = null;
    for (;;) {
      const host = await this.acquire(tried, last, signal);
      tried.add(host);
      const epoch = host.epoch;
      try {
        const reply = await call(host.client);
        const [prompt, output] = tokens(reply);
        host.promptTokens += prompt ?? 0;
        host.outputTokens += output ?? 0;
        this.answered(host, epoch);
        return reply;
      } catch (err) {
        if (!(err instanceof ModelError) || err.code === 'ABORTED') {
          this.inconclusive(host, epoch);
          throw err;
        }
        if (err.code === 'HTTP_404') {
          // The model is gone from this host (removed mid-run): leave the host out, as preflight would have.
          // Not kept as `last`: a 404 handed back while other hosts serve the model would stop the run.
          this.skip(host, err);
          if (this.capacity === 0) throw err;
          continue;
        }
        if (!err.retryable) {
          // The host answered; the request itself is at fault (400, a reply too large, …).
          this.answered(host, epoch);
          throw err;
        }
        host.failures += 1;
        this.failed(host, epoch, err);
        last = err;
      } finally {
        host.inFlight -= 1;
        this.pump();
      }
    }
  }

  private acquire(tried: ReadonlySet<Host>, last: ModelError | null, signal?: AbortSignal): Promise<Host> {
    if (signal?.aborted) return Promise.reject(abortedWhileWaiting());
    const choice = this.choose(tried, last);
    if (choice.kind === 'host') return Promise.resolve(choice.host);
    if (choice.kind === 'fail') return Promise.reject(choice.error);
    return new Promise<Host>((resolve, reject) => {
      // Listen on a derived signal: many waiters under one run-wide signal would otherwise pile
      // listeners on it and trip Node's MaxListeners warning.
      const watched = signal ? AbortSignal.any([signal]) : undefined;
      const onAbort = (): void => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(abortedWhileWaiting());
      };
      const waiter: Waiter = {
        tried,
        last,
        settle: (settled) => {
          watched?.removeEventListener('abort', onAbort);
          if (settled.kind === 'host') resolve(settled.host);
          else if (settled.kind === 'fail') reject(settled.error);
        },
      };
      watched?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  // Serves waiters in arrival order; a later one may go first when an earlier one has already
  // tried the only host that is free.
  private pump(): void {
    for (let i = 0; i < this.waiters.length; ) {
      const waiter = this.waiters[i]!;
      const choice = this.choose(waiter.tried, waiter.last);
      if (choice.kind === 'wait') {
        i += 1;
        continue;
      }
      this.waiters.splice(i, 1);
      waiter.settle(choice);
    }
  }

  // The slot is taken here, synchronously, so one free slot is never handed out twice.
  private choose(tried: ReadonlySet<Host>, last: ModelError | null): Choice {
    const now = this.now();
    // A rested host gets the next request as its probe, so a recovered host rejoins at once.
    for (const host of this.hosts) {
      if (host.state === 'down' && !tried.has(host) && host.downUntil !== null && now >= host.downUntil) {
        host.state = 'probing';
        return this.take(host);
      }
    }
    let best: Host | null = null;
    for (const host of this.hosts) {
      if (host.state !== 'up' || tried.has(host) || host.inFlight >= host.slots) continue;
      if (best === null || lessLoaded(host, best)) best = host;
    }
    if (best !== null) return this.take(best);
    // Busy hosts free a slot and a probe settles soon: worth waiting for. Resting hosts are not.
    if (this.hosts.some((h) => !tried.has(h) && (h.state === 'up' || h.state === 'probing'))) return { kind: 'wait' };
    return { kind: 'fail', error: last ?? this.allResting(now) };
  }

  private take(host: Host): Choice {
    host.inFlight += 1;
    host.requests += 1;
    return { kind: 'host', host };
  }

  private allResting(now: number): ModelError {
    const resting = this.hosts.filter((h) => h.state === 'down' && h.downUntil !== null);
    if (resting.length === 0) return new ModelError('HTTP_404', 'no host is left in the pool', { retryable: false });
    const nextProbeMs = Math.max(0, Math.min(...resting.map((h) => (h.downUntil ?? now) - now)));
    return new ModelError('UNREACHABLE', `every host is resting after failures (${resting.map((h) => h.url).join(', ')}); the next is probed in ${Math.ceil(nextProbeMs)} ms`, {
      retryAfterMs: nextProbeMs,
    });
  }

  private answered(host: Host, epoch: number): void {
    if (epoch !== host.epoch) return;
    host.failuresInARow = 0;
    if (host.state === 'probing') {
      host.state = 'up';
      host.downUntil = null;
      host.rests = 0;
      this.onEvent({ kind: 'up', url: host.url });
    }
  }

  private failed(host: Host, epoch: number, err: ModelError): void {
    if (epoch !== host.epoch || host.state === 'skipped') return;
    host.failuresInARow += 1;
    if (host.state === 'probing' || err.code === 'UNREACHABLE' || host.failuresInARow >= this.failuresToRest) this.rest(host, err);
  }

  // A probe the caller cancelled proved nothing: the host is due for another at once.
  private inconclusive(host: Host, epoch: number): void {
    if (epoch === host.epoch && host.state === 'probing') {
      host.state = 'down';
      host.downUntil = this.now();
    }
  }

  private rest(host: Host, err: ModelError): void {
    const forMs = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** host.rests);
    host.rests += 1;
    host.state = 'down';
    host.downUntil = this.now() + forMs;
    host.failuresInARow = 0;
    host.epoch += 1;
    this.onEvent({ kind: 'down', url: host.url, code: err.code, message: err.message, forMs });
  }

  private skip(host: Host, err: ModelError): void {
    if (host.state === 'skipped') return;
    host.state = 'skipped';
    host.downUntil = null;
    host.epoch += 1;
    this.onEvent({ kind: 'skipped', url: host.url, code: err.code, message: err.message });
  }
}

// Lower share of slots in use first; on a tie the host with more free slots, then the earlier one.
function lessLoaded(a: Host, b: Host): boolean {
  const left = a.inFlight * b.slots;
  const right = b.inFlight * a.slots;
  if (left !== right) return left < right;
  return a.slots - a.inFlight > b.slots - b.inFlight;
}

function abortedWhileWaiting(): ModelError {
  return new ModelError('ABORTED', 'cancelled while waiting for a free host');
}
