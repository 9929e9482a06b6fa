// The processor behind rca-generate and rca-summarize: per record, read the tagged chunk, skip
// views already done, take what the response cache holds, run each remaining view's ladder
// concurrently (the gate bounds requests across records), and write the results in band. Input
// order is kept by the runner; what this class adds is the rule for a run that stops early: after
// Ctrl-C or a give-up, the output is exactly the records before the first unfinished one, so the
// run resumes from that input line.
import type { HostStats } from '../llm/host-pool.js';
import { RawJson, type JsonObject, type Outcome, type Processor, type RecordMeta } from '../runtime/stage.js';
import { GroundingText } from '../views/grounding.js';
import type { ViewType } from '../contracts/vocabulary.js';
import type { Backend, Job, ViewJob } from './backend.js';
import type { GenerateConfig } from './config.js';
import { runLadder, type LadderPolicy, type ViewResult } from './ladder.js';
import { readTaggedChunk, viewsToGenerate, withRequests, withResults } from './record.js';
import type { Clock, RunControl } from './run-control.js';
import type { RequestGate } from './request-gate.js';
import { dryRunSummary, GenerationStats, hostLines, hostsJson, progressText, summaryLines } from './stats.js';
import type { ViewCache } from './view-cache.js';

/** A pool of hosts as the generator reports it: its counts, and the messages its events left. */
export interface HostCounts {
  stats(): HostStats[];
  /** One line each, taken (emptied) as they are written to stderr. */
  messages: string[];
}

export interface GeneratorDeps {
  config: GenerateConfig;
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
}

export interface Prepared {
  outcome: Outcome;
  /** The work was cut short by the run stopping: the record must not be written. */
  unfinished: boolean;
}

export class Generator implements Processor {
  readonly window: number;
  protected readonly counters = new GenerationStats();
  private readonly startedAt: number;
  private seq = 0;
  private pending = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private firstUnwritten: RecordMeta | null = null;
  private fatalReported = false;

  // Protected, as are counters, view, tally and inOrder: section-mode.ts drives section records with them.
  constructor(protected readonly deps: GeneratorDeps) {
    this.window = deps.window;
    this.startedAt = deps.now();
  }

  process(record: JsonObject, meta: RecordMeta): Outcome | Promise<Outcome> {
    const { config } = this.deps;
    const read = readTaggedChunk(record);
    if (!read.ok) return { reject: { code: read.code, message: read.message } };
    const todo = viewsToGenerate(record, config.views, config.overwrite);
    this.counters.viewsSkipped += config.views.length - todo.length;
    if (todo.length === 0) {
      this.counters.passedThrough++;
      const out = this.deps.finishRecord ? this.deps.finishRecord(record) : new RawJson(meta.raw);
      return this.inOrder({ outcome: { records: [out] }, unfinished: false }, meta);
    }
    const seq = this.seq++;
    const jobs = todo.map((view): ViewJob => ({ view, ...read.chunk, seq }));
    if (config.dryRun) return this.inOrder({ outcome: this.render(record, jobs), unfinished: false }, meta);

    const grounding = GroundingText.of(read.chunk.text);
    const work = Promise.all(jobs.map((job) => this.view(job, grounding))).then((results) => this.assemble(record, jobs, results));
    return this.inOrder(work, meta);
  }

  protected async view(job: Job, grounding: GroundingText): Promise<ViewResult> {
    const { backend, cache, control, policy } = this.deps;
    const key = cache?.keyOf(job) ?? null;
    if (cache === null || key === null) return runLadder(job, grounding, backend, policy, control.signal);
    const hit = cache.lookup(key, job, grounding);
    if (hit !== null) return hit;
    const result = await runLadder(job, grounding, backend, policy, control.signal);
    cache.keep(key, result);
    return result;
  }

  private render(record: JsonObject, jobs: ViewJob[]): Outcome {
    const requests = new Map<ViewType, JsonObject>();
    for (const job of jobs) requests.set(job.view, this.deps.backend.render(job, { attempt: 1, feedback: null, maxChars: this.deps.config.maxChars }));
    this.counters.requestsRendered += requests.size;
    return { records: [withRequests(record, requests)] };
  }

  private assemble(record: JsonObject, jobs: ViewJob[], results: ViewResult[]): Prepared {
    // Once the run has stopped, a failed view may be a casualty of the stop, not a real answer.
    if (this.deps.control.stopped && results.some((r) => r.status === 'failed')) return { outcome: {}, unfinished: true };
    const byView = new Map<ViewType, ViewResult>();
    const warnings: string[] = [];
    let failed = false;
    jobs.forEach((job, i) => {
      const result = results[i]!;
      byView.set(job.view, result);
      if (this.tally(job.view, result, warnings)) failed = true;
    });
    const cacheWarning = this.deps.cache?.takeWarning();
    if (cacheWarning) warnings.push(cacheWarning);
    let out = withResults(record, byView);
    if (this.deps.finishRecord) out = this.deps.finishRecord(out);
    return { outcome: { records: [out], failed, warnings }, unfinished: false };
  }

  /** Counts a view's result and adds its warning; true when it makes the record count as failed. */
  protected tally(view: string, result: ViewResult, warnings: string[]): boolean {
    this.counters.countView(result);
    for (const notice of result.notices ?? []) warnings.push(`${view}: ${notice}`);
    if (result.status === 'failed') {
      const error = result.generation.error!;
      warnings.push(`${view}: failed after ${error.attempts} ${error.attempts === 1 ? 'attempt' : 'attempts'}: ${error.code}: ${error.message}`);
      return true;
    }
    if (result.status === 'flagged' && !this.deps.config.flagsOk) {
      warnings.push(`${view}: ${result.flags.join(', ')}`);
      return true;
    }
    return false;
  }

  // Decides each record's fate in input order: a record is written only if every record before it
  // was, so an early stop leaves a prefix of the input on stdout and nothing half-done.
  protected inOrder(work: Prepared | Promise<Prepared>, meta: RecordMeta): Outcome | Promise<Outcome> {
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
    if (this.deps.config.dryRun) return dryRunSummary(this.counters);
    // The extractive backend runs at streaming speed like the other stages (no wall time line;
    // --stats FILE has it), which also keeps its summary byte-stable.
    const model = this.deps.config.backend !== 'extractive';
    const hosts = this.deps.hosts;
    // Messages the last records did not carry come first, then the counts.
    const lines = [
      ...(this.deps.notices?.splice(0) ?? []),
      ...(hosts?.messages.splice(0) ?? []),
      ...summaryLines(this.counters, model ? this.deps.now() - this.startedAt : null, model, hosts === null ? [] : hostLines(hosts.stats())),
    ];
    if (this.firstUnwritten !== null) {
      const { source, line } = this.firstUnwritten;
      lines.push(`${this.counters.dropped} unfinished ${this.counters.dropped === 1 ? 'record was' : 'records were'} not written; the output holds every record before ${source}:${line} (resume from that line)`);
    }
    return lines;
  }

  stats(): Record<string, unknown> {
    const { backend, cache, config, gate, hosts } = this.deps;
    return this.counters.toJson({
      ...backend.info,
      host: config.host,
      ...(hosts === null ? {} : { hosts: hostsJson(hosts.stats()) }),
      concurrency: this.deps.slots,
      window: this.window,
      busy_slowdowns: gate?.slowdowns ?? 0,
      dry_run: config.dryRun,
      cache: cache === null ? null : { path: cache.path, refresh: config.cache.refresh, hits: cache.hits, stored: cache.stored, error: cache.failure },
    });
  }

  progress(): string {
    return progressText(this.counters, this.deps.gate?.inFlight ?? 0);
  }
}
