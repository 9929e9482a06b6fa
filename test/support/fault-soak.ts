// The fault soak of rca-generate / rca-summarize: the built bin against the fake Ollama server,
// which faults a seeded share of requests (fault-plan.ts). The run's outcome is worked out in
// advance, view by view, so the soak checks exact numbers: the records written, each view's
// attempts and error, the --stats counts, and the server's own counts of requests and faults.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VIEW_TYPES } from '../../src/contracts/vocabulary.js';
import { chunk, taggedLines } from '../generation/support/inputs.js';
import { spawnBin } from '../generation/support/spawn.js';
import { startFakeOllama, type FakeStats } from './fake-ollama.js';
import { expectedView, FAULT_KINDS, plannedModel, type FaultKind, type FaultPlan, type LadderLimits, type ServedTally, type ViewOutcome } from './fault-plan.js';
import { peakRssProbe } from './peak-rss.js';

// Every registered view is soaked.
export const SOAK_VIEWS = VIEW_TYPES;

export interface SoakOptions {
  stage: 'generate' | 'summarize';
  seed: number;
  /** Records are added until the planned requests reach this many. */
  targetRequests: number;
  rate: number;
  /** Views whose every request fails (spread evenly over the records, kinds in turn): they fail after all tries. */
  doomed: number;
  concurrency: number;
  latencyMs: number;
  limits: LadderLimits;
  /** The client's --timeout; a `slow` fault holds its reply back for longer. */
  timeoutSeconds: number;
  /** --window (default: the stage's own, 8 x concurrency). */
  window?: number;
}

export interface SoakResult {
  options: SoakOptions;
  plan: FaultPlan;
  records: number;
  input: string;
  /** Per record, per view (SOAK_VIEWS order): what the client must end with. */
  expected: ViewOutcome[][];
  code: number;
  stdout: string;
  stderr: string;
  stats: Record<string, any>;
  server: FakeStats;
  served: ServedTally;
  wallSeconds: number;
  peakRssMb: number;
}

export const viewKey = (i: number, view: string): string => `${chunk(i).chunk_id as string} ${view}`;

export function faultPlan(o: SoakOptions): FaultPlan {
  const base: FaultPlan = { seed: o.seed, rate: o.rate, kinds: FAULT_KINDS, forced: {}, slowMs: Math.round(o.timeoutSeconds * 1000) * 4 };
  const records = recordsFor(base, o);
  const forced: Record<string, (FaultKind | null)[]> = {};
  for (let d = 0; d < o.doomed; d++) {
    const i = Math.floor(((d + 0.5) * records) / o.doomed);
    const kind = FAULT_KINDS[d % FAULT_KINDS.length]!;
    // Garbage fails a view after all its tries; a transport fault after all its retries.
    const length = kind === 'garbage' ? o.limits.maxTries : o.limits.maxTransportRetries + 1;
    forced[viewKey(i, SOAK_VIEWS[d % SOAK_VIEWS.length]!)] = Array<FaultKind>(length).fill(kind);
  }
  return { ...base, forced };
}

/** The smallest number of records whose planned requests reach the target. */
export function recordsFor(plan: FaultPlan, o: Pick<SoakOptions, 'targetRequests' | 'limits'>): number {
  let requests = 0;
  let records = 0;
  while (requests < o.targetRequests) {
    for (const view of SOAK_VIEWS) requests += expectedView(plan, viewKey(records, view), o.limits).requests;
    records++;
  }
  return records;
}

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const plan = faultPlan(o);
  const records = recordsFor({ ...plan, forced: {} }, o);
  const expected = Array.from({ length: records }, (_, i) => SOAK_VIEWS.map((view) => expectedView(plan, viewKey(i, view), o.limits)));
  const input = await taggedLines(records);
  const model = plannedModel(plan);
  // Slots to spare: a request must never wait in the server's queue long enough to time out.
  const server = await startFakeOllama({ latencyMs: o.latencyMs, slots: o.concurrency + 2, respond: model.respond });
  const dir = mkdtempSync(join(tmpdir(), 'rca-soak-'));
  const statsFile = join(dir, 'stats.json');
  const rss = peakRssProbe();
  try {
    const args = [
      '--host', server.url,
      '--concurrency', String(o.concurrency),
      '--max-transport-retries', String(o.limits.maxTransportRetries),
      '--max-tries', String(o.limits.maxTries),
      '--retry-delay', '1',
      // Never wait out an "outage": with 10 % faults a view's own bad luck must fail it, deterministically.
      '--give-up-after', '0',
      '--timeout', String(o.timeoutSeconds),
      '--cache', join(dir, 'responses.sqlite'),
      '--stats', statsFile,
      ...(o.window === undefined ? [] : ['--window', String(o.window)]),
    ];
    const started = performance.now();
    const child = spawnBin(`rca-${o.stage}`, args, { input, env: rss.env });
    const code = await child.done;
    const wallSeconds = (performance.now() - started) / 1000;
    let stats: Record<string, any> = {};
    try {
      stats = JSON.parse(readFileSync(statsFile, 'utf8')) as Record<string, any>;
    } catch {
      // Left empty: the checks report the missing numbers.
    }
    return { options: o, plan, records, input, expected, code, stdout: child.stdout(), stderr: child.stderr(), stats, server: structuredClone(server.stats), served: model.served, wallSeconds, peakRssMb: rss.peakMb() };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SoakTotals {
  records: number;
  views: number;
  ok: number;
  failed: number;
  failedByCode: Record<string, number>;
  attempts: number;
  transportRetries: number;
  requests: number;
  faults: Record<FaultKind, number>;
}

export function expectedTotals(expected: ViewOutcome[][]): SoakTotals {
  const totals: SoakTotals = {
    records: expected.length,
    views: 0,
    ok: 0,
    failed: 0,
    failedByCode: {},
    attempts: 0,
    transportRetries: 0,
    requests: 0,
    faults: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>,
  };
  for (const view of expected.flat()) {
    totals.views++;
    if (view.status === 'ok') totals.ok++;
    else {
      totals.failed++;
      totals.failedByCode[view.code!] = (totals.failedByCode[view.code!] ?? 0) + 1;
    }
    totals.attempts += view.attempts;
    totals.transportRetries += view.transportRetries;
    totals.requests += view.requests;
    for (const [kind, n] of Object.entries(view.faults)) totals.faults[kind as FaultKind] += n;
  }
  totals.failedByCode = Object.fromEntries(Object.entries(totals.failedByCode).sort(([a], [b]) => (a < b ? -1 : 1)));
  return totals;
}

export function soakSummary(r: SoakResult): string {
  const t = expectedTotals(r.expected);
  const faults = FAULT_KINDS.map((k) => `${k} ${r.served.byKind[k]}`).join(', ');
  const faultTotal = FAULT_KINDS.reduce((n, k) => n + r.served.byKind[k], 0);
  const failed = Object.entries(t.failedByCode).map(([code, n]) => `${code} ${n}`).join(', ') || 'none';
  return [
    `fault soak: rca-${r.options.stage}, seed ${r.options.seed}, fault rate ${r.options.rate}, concurrency ${r.options.concurrency}${r.options.window === undefined ? '' : `, window ${r.options.window}`}, latency ${r.options.latencyMs} ms, --max-transport-retries ${r.options.limits.maxTransportRetries}, --max-tries ${r.options.limits.maxTries}, --timeout ${r.options.timeoutSeconds} s`,
    `requests: ${r.served.requests} (server /api/chat: ${r.server.byPath['/api/chat'] ?? 0}; planned: ${t.requests})`,
    `faults: ${faultTotal} (${((100 * faultTotal) / Math.max(1, r.served.requests)).toFixed(1)} %): ${faults}`,
    `records: ${r.records} in, ${r.stdout.split('\n').filter(Boolean).length} out; views ${r.stats.views?.ok ?? '?'} ok, ${r.stats.views?.failed ?? '?'} failed (planned ${t.ok} ok, ${t.failed} failed: ${failed})`,
    `retries: ${r.stats.transport_retries ?? '?'} transport retries, ${(r.stats.attempts ?? 0) - t.views} extra ladder attempts; busy slowdowns ${r.stats.busy_slowdowns ?? '?'}`,
    `exit status ${r.code}; wall time ${r.wallSeconds.toFixed(1)} s (${(r.served.requests / r.wallSeconds).toFixed(0)} requests/s); peak RSS ${r.peakRssMb.toFixed(0)} MB`,
  ].join('\n');
}
