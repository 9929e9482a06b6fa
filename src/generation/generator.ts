// The processor behind rca-generate and rca-summarize: per record, read it with its record kind,
// skip views already done, take what the response cache holds, run each remaining view's ladder
// concurrently (the gate bounds requests across records), and write the results in band. A
// record kind's run decides what a record's jobs wait for (--bottom-up: a section's children's
// summaries) and what it hands on. Input order is kept by the runner; what this class adds is the
// rule for a run that stops early: after Ctrl-C or a give-up, the output is exactly the records
// before the first unfinished one, so the run resumes from that input line.
import { keepUpstream } from '../tagging/added-fields.js';
import { isPlainObject, type JsonObject } from '../contracts/json.js';
import type { HostStats } from '../llm/host-pool.js';
import { RawJson, type FlaggedView, type OffThreadRunner, type Outcome, type Processor, type RecordMeta } from '../runtime/stage.js';
import { kernelUrl, OffThreadStopped } from '../runtime/off-thread.js';
import type { ExtractiveKernelSetup } from './extractive-kernel.js';
import type { GroundingText } from '../views/grounding.js';
import type { ViewKind } from '../views/kinds/kind.js';
import type { RecordRun } from '../views/records/record-kind.js';
import type { AnyRecordKind } from '../views/records/records.js';
import { jobOf, type Backend, type BackendReply, type Job } from './backend.js';
import { pairLane, splitPairReply } from './pair.js';
import { BACKEND_TRAITS, type GenerateConfig } from './config.js';
import { attemptInput, builtResult, runLadder, type LadderPolicy, type ViewResult } from './ladder.js';
import type { RequestGate } from './request-gate.js';
import type { Clock, RunControl } from './run-control.js';
import { dryRunSummary, GenerationStats, hostLines, hostsJson, progressText, summaryLines } from './stats.js';
import type { ViewCache } from './view-cache.js';

/** A pool of hosts as the generator reports it: its counts, and the messages its events left. */
const REQUESTS = ['requests'];

/** extractive-kernel.ts, named here so that a run with a model does not load it. */
const EXTRACTIVE_KERNEL = { module: kernelUrl(import.meta.url, './extractive-kernel.js'), name: 'extractiveViews' };

export interface HostCounts {
  stats(): HostStats[];
  /** One line each, taken (emptied) as they are written to stderr. */
  messages: string[];
}

export interface GeneratorDeps {
  config: GenerateConfig;
  /** The views to write, all of one record kind (`records`). */
  kinds: readonly ViewKind[];
  records: AnyRecordKind;
  run: RecordRun<unknown, unknown>;
  policy: LadderPolicy;
  backend: Backend;
  control: RunControl;
  /** Null without a cache (--no-cache, a dry run, a backend whose replies are not kept). */
  cache: ViewCache | null;
  /** Null when no request is ever sent (dry run). */
  gate: RequestGate | null;
  now: Clock;
  /** Requests the servers take at once (the gate's size). */
  slots: number;
  /** Records in progress at once. */
  window: number;
  /** Null unless requests are spread over several hosts. */
  hosts: HostCounts | null;
  /** What the set-up has to say (a server waited for, a context warning): out with the first record, or in the summary. */
  notices?: string[];
  /** Applied to every record written (summarize flattens here); without it, a finished record passes through as its input bytes. */
  finishRecord?: (record: JsonObject) => JsonObject;
  /** The extractive backend: the run's worker thread, which makes a large record's views (extractive-kernel.ts). */
  offThread?: { runner: OffThreadRunner; setup: ExtractiveKernelSetup };
}

interface Prepared {
  outcome: Outcome;
  /** The work was cut short by the run stopping: the record must not be written. */
  unfinished: boolean;
}

interface Finished {
  prepared: Prepared;
  /** The view the record hands on (--bottom-up: a child's summary for its parent); null when none. */
  handOn: JsonObject | null;
}

export class ViewGenerator implements Processor {
  readonly window: number;
  private readonly counters = new GenerationStats();
  private readonly startedAt: number;
  private seq = 0;
  private pending = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private firstUnwritten: RecordMeta | null = null;
  private fatalReported = false;

  constructor(private readonly deps: GeneratorDeps) {
    this.window = deps.window;
    this.startedAt = deps.now();
  }

  process(record: JsonObject, meta: RecordMeta): Outcome | Promise<Outcome> {
    const { config, kinds, records, run } = this.deps;
    const read = records.read(record);
    if (!read.ok) return { reject: { code: read.code, message: read.message } };
    // Taken in input order whatever becomes of the record: what it waits for is no longer held.
    const input = run.input(read.value);
    const todo = config.overwrite ? [...kinds] : kinds.filter((kind) => !records.isDone(kind, record[kind.name]));
    this.counters.viewsSkipped += kinds.length - todo.length;
    let work: Finished | Promise<Finished>;
    if (todo.length === 0) {
      this.counters.passedThrough++;
      work = { prepared: this.passThrough(record, meta), handOn: this.handedOn(record) };
    } else {
      const seq = this.seq++;
      work = input instanceof Promise ? input.then((ready) => this.start(record, meta, ready, todo, seq)) : this.start(record, meta, input, todo, seq);
    }
    if (work instanceof Promise) {
      const handOn = work.then((w) => w.handOn);
      // A run that hands nothing on leaves it unread; a failure still reaches the runner through inOrder.
      handOn.catch(() => undefined);
      run.handOn(read.value, handOn);
    } else run.handOn(read.value, work.handOn);
    return this.inOrder(work instanceof Promise ? work.then((w) => w.prepared) : work.prepared, meta);
  }

  private start(record: JsonObject, meta: RecordMeta, input: unknown, todo: readonly ViewKind[], seq: number): Finished | Promise<Finished> {
    const { config, control, records, run } = this.deps;
    if (run.empty(input)) return { prepared: this.passThrough(record, meta), handOn: null };
    const jobs = todo.map((kind) => jobOf(kind, input, seq));
    if (config.dryRun) return { prepared: { outcome: this.render(record, jobs), unfinished: false }, handOn: null };
    if (run.startsOnlyWhileRunning && control.stopped) return { prepared: { outcome: {}, unfinished: true }, handOn: null };
    const { backend, cache, policy, offThread } = this.deps;
    // A large record's views are built and checked on the worker thread, which an interrupt stops:
    // the record is then unfinished, as one whose requests were cut short.
    if (offThread !== undefined && backend.build !== undefined && cache === null && offThread.runner.takes(meta.raw)) {
      const views = jobs.map((job) => job.kind.name);
      return offThread.runner.run<ViewResult[]>(EXTRACTIVE_KERNEL, offThread.setup, { input, views, seq }).then(
        (results) => ({ prepared: this.assemble(record, jobs, input, results), handOn: results.length === 1 ? results[0]!.view : null }),
        (err: unknown) => {
          if (err instanceof OffThreadStopped) return { prepared: { outcome: {}, unfinished: true }, handOn: null };
          throw err;
        },
      );
    }
    const grounding = records.grounding(input);
    // A backend that builds its views (extractive) and keeps no replies: the record is done now,
    // with no promise per view or record.
    if (backend.build !== undefined && cache === null) {
      const results = jobs.map((job) => builtResult(job, grounding, backend, policy));
      return { prepared: this.assemble(record, jobs, input, results), handOn: results.length === 1 ? results[0]!.view : null };
    }
    return this.views(jobs, grounding).then((results) => ({
      prepared: this.assemble(record, jobs, input, results),
      handOn: results.length === 1 ? results[0]!.view : null,
    }));
  }

  // The view a record that passes through hands on: its own, when it is the run's one view.
  private handedOn(record: JsonObject): JsonObject | null {
    const { kinds } = this.deps;
    const value = kinds.length === 1 ? record[kinds[0]!.name] : null;
    return isPlainObject(value) ? value : null;
  }

  /** The jobs asked together (--views-per-request), or null: each view on its own. */
  private pairOf(jobs: readonly Job[]): readonly Job[] | null {
    const { backend, config } = this.deps;
    if (config.viewsPerRequest < 2 || jobs.length < 2 || backend.pairAttempt === undefined || jobs[0]!.records.pairPrompt === undefined) return null;
    return jobs.slice(0, config.viewsPerRequest);
  }

  private async views(jobs: readonly Job[], grounding: GroundingText): Promise<ViewResult[]> {
    const pair = this.pairOf(jobs);
    if (pair === null) return Promise.all(jobs.map((job) => this.view(job, grounding)));
    const { backend, cache, control, policy } = this.deps;
    // The cache first, each view under its part of the pair: only the views it has not are asked.
    const keys = jobs.map((job) => cache?.keyOf(job, pair.includes(job) ? pair : undefined) ?? null);
    const hits = jobs.map((job, i) => (cache === null || keys[i] === null ? null : cache.lookup(keys[i]!, job, grounding)));
    const asked = pair.filter((job) => hits[jobs.indexOf(job)] === null);
    let firsts: Map<Job, () => Promise<BackendReply>> | null = null;
    if (asked.length > 1) {
      let shared: Promise<BackendReply[]> | null = null;
      const split = (): Promise<BackendReply[]> =>
        (shared ??= backend.pairAttempt!(asked, attemptInput(asked[0]!, policy, 1, null), control.signal).then((reply) => splitPairReply(reply, asked.map((j) => j.kind.name))));
      firsts = new Map(asked.map((job, i) => [job, () => split().then((parts) => parts[i]!)]));
    }
    return Promise.all(
      jobs.map(async (job, i) => {
        const hit = hits[i];
        if (hit !== null && hit !== undefined) return hit;
        const result = await runLadder(job, grounding, backend, policy, control.signal, firsts?.get(job));
        if (cache !== null && keys[i] !== null) cache.keep(keys[i]!, result);
        return result;
      }),
    );
  }

  private async view(job: Job, grounding: GroundingText): Promise<ViewResult> {
    const { backend, cache, control, policy } = this.deps;
    const key = cache?.keyOf(job) ?? null;
    if (cache === null || key === null) return runLadder(job, grounding, backend, policy, control.signal);
    const hit = cache.lookup(key, job, grounding);
    if (hit !== null) return hit;
    const result = await runLadder(job, grounding, backend, policy, control.signal);
    cache.keep(key, result);
    return result;
  }

  private render(input: JsonObject, jobs: readonly Job[]): Outcome {
    // An upstream `requests` of another shape is kept under its upstream_ name (added-fields.ts).
    const record = keepUpstream(input, REQUESTS);
    const rendered: JsonObject = isPlainObject(record.requests) ? { ...record.requests } : {};
    const pair = this.pairOf(jobs);
    const { backend, policy } = this.deps;
    // A pair is one request, shown under its views' names joined by +.
    if (pair !== null) rendered[pairLane(pair)] = backend.renderPair!(pair, attemptInput(pair[0]!, policy, 1, null));
    for (const job of jobs) if (pair === null || !pair.includes(job)) rendered[job.kind.name] = backend.render(job, attemptInput(job, policy, 1, null));
    this.counters.requestsRendered += pair === null ? jobs.length : jobs.length - pair.length + 1;
    return { records: [{ ...record, requests: rendered }] };
  }

  private assemble(record: JsonObject, jobs: readonly Job[], input: unknown, results: ViewResult[]): Prepared {
    // Once the run has stopped, a failed view may be a casualty of the stop, not a real answer.
    if (this.deps.control.stopped && results.some((r) => r.status === 'failed')) return { outcome: {}, unfinished: true };
    const warnings: string[] = [];
    const flagged: FlaggedView[] = [];
    let failed = false;
    jobs.forEach((job, i) => {
      if (this.tally(job.kind.name, results[i]!, warnings, flagged)) failed = true;
    });
    const cacheWarning = this.deps.cache?.takeWarning();
    if (cacheWarning) warnings.push(cacheWarning);
    const extra = this.deps.run.written(input);
    let out = this.deps.records.place(record, jobs.map((job, i) => [job.kind, results[i]!] as const), extra);
    if (this.deps.finishRecord) out = this.deps.finishRecord(out);
    return { outcome: { records: [out], failed, warnings, ...(flagged.length > 0 ? { flagged } : {}) }, unfinished: false };
  }

  private passThrough(record: JsonObject, meta: RecordMeta): Prepared {
    const out = this.deps.finishRecord ? this.deps.finishRecord(record) : new RawJson(meta.raw);
    return { outcome: { records: [out] }, unfinished: false };
  }

  /** Counts a view's result and adds its warning or its flags; true when the view failed. */
  private tally(view: string, result: ViewResult, warnings: string[], flagged: FlaggedView[]): boolean {
    this.counters.countView(result);
    for (const notice of result.notices ?? []) warnings.push(`${view}: ${notice}`);
    if (result.status === 'failed') {
      const error = result.generation.error!;
      warnings.push(`${view}: failed after ${error.attempts} ${error.attempts === 1 ? 'attempt' : 'attempts'}: ${error.code}: ${error.message}`);
      return true;
    }
    // Kept with its flags: the runner reports it and decides what it does to the exit status.
    if (result.status === 'flagged') flagged.push({ view, flags: result.flags });
    return false;
  }

  // Decides each record's fate in input order: a record is written only if every record before it
  // was, so an early stop leaves a prefix of the input on stdout and nothing half-done.
  private inOrder(work: Prepared | Promise<Prepared>, meta: RecordMeta): Outcome | Promise<Outcome> {
    if (!(work instanceof Promise) && this.pending === 0) return this.decide(work, meta);
    this.pending++;
    const previous = this.tail;
    const decided = Promise.all([work, previous]).then(([prepared]) => {
      this.pending--;
      return this.decide(prepared, meta);
    });
    this.tail = decided.catch(() => undefined);
    return decided;
  }

  private decide(prepared: Prepared, meta: RecordMeta): Outcome {
    if (!prepared.unfinished && this.firstUnwritten === null) {
      if (prepared.outcome.records) this.counters.records++;
      return this.withHostMessages(prepared.outcome);
    }
    this.firstUnwritten ??= meta;
    this.counters.dropped++;
    return this.withHostMessages(this.fatalOutcome() ?? {});
  }

  // A pool's events (a host left out, rested, back) go out with the next outcome in input order,
  // so they land on stderr close to when they happened, between the records' own messages.
  private withHostMessages(outcome: Outcome): Outcome {
    const messages = [...(this.deps.notices?.splice(0) ?? []), ...(this.deps.hosts?.messages.splice(0) ?? [])];
    if (messages.length === 0) return outcome;
    return { ...outcome, warnings: [...messages, ...(outcome.warnings ?? [])] };
  }

  private fatalOutcome(): Outcome | null {
    const reason = this.deps.control.reason;
    if (reason?.kind !== 'fatal' || this.fatalReported) return null;
    this.fatalReported = true;
    return { fatal: `${reason.message}; stopped after ${this.counters.records} ${this.counters.records === 1 ? 'record' : 'records'}, all written in input order` };
  }

  finish(): Outcome {
    return this.withHostMessages(this.fatalOutcome() ?? {});
  }

  interrupt(): void {
    this.deps.control.interrupt();
  }

  // The runner's last call on a processor, whatever way the run ended: the cache closes here.
  summary(): string[] {
    this.deps.cache?.close();
    if (this.deps.config.dryRun) return [...dryRunSummary(this.counters), ...this.deps.run.summaryLines()];
    // A backend that sends no request runs at streaming speed like the other stages (no wall time
    // line; --stats FILE has it), which also keeps its summary byte-stable.
    const model = BACKEND_TRAITS[this.deps.config.backend].sendsRequests;
    const hosts = this.deps.hosts;
    // Messages the last records did not carry come first, then the counts.
    const lines = [
      ...(this.deps.notices?.splice(0) ?? []),
      ...(hosts?.messages.splice(0) ?? []),
      ...summaryLines(this.counters, model ? this.deps.now() - this.startedAt : null, model, hosts === null ? [] : hostLines(hosts.stats()), model ? this.deps.config.price : null),
    ];
    if (this.firstUnwritten !== null) {
      const { source, line } = this.firstUnwritten;
      lines.push(`${this.counters.dropped} unfinished ${this.counters.dropped === 1 ? 'record was' : 'records were'} not written; the output holds every record before ${source}:${line} (resume from that line)`);
    }
    return [...lines, ...this.deps.run.summaryLines()];
  }

  stats(): Record<string, unknown> {
    const { backend, cache, config, gate, hosts } = this.deps;
    const counts = this.counters.toJson({
      ...backend.info,
      host: config.host,
      ...(hosts === null ? {} : { hosts: hostsJson(hosts.stats()) }),
      concurrency: this.deps.slots,
      window: this.window,
      busy_slowdowns: gate?.slowdowns ?? 0,
      dry_run: config.dryRun,
      cache: cache === null ? null : { path: cache.path, refresh: config.cache.refresh, hits: cache.hits, stored: cache.stored, error: cache.failure },
    }, config.price);
    const more = this.deps.run.stats();
    return more === null ? counts : { ...counts, ...more };
  }

  progress(): string {
    return progressText(this.counters, this.deps.gate?.inFlight ?? 0);
  }
}
