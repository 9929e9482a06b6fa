// Run counters of generate and summarize, and how they read on stderr (summary, progress, the
// messages of a pool of hosts) and in the --stats JSON. Timing is passed in, never read here.
import type { HostPoolEvent, HostStats } from '../llm/host-pool.js';
import { GroundingTally } from '../views/evidence.js';
import { costText, tokenCost, type Price, type TokenCost } from './price.js';
import type { ViewResult } from './ladder.js';

export class GenerationStats {
  records = 0;
  passedThrough = 0;
  dropped = 0;
  viewsOk = 0;
  viewsFlagged = 0;
  viewsFailed = 0;
  viewsSkipped = 0;
  /** Views replayed from the response cache (counted in viewsOk too). */
  viewsCached = 0;
  attempts = 0;
  transportRetries = 0;
  promptTokens = 0;
  /** Prompt tokens served from the engine's cache, of the views whose server said (cachedKnown of them). */
  cachedTokens = 0;
  cachedKnown = 0;
  outputTokens = 0;
  requestsRendered = 0;
  readonly failuresByCode = new Map<string, number>();
  /** How the items of the views written matched their source text (cached ones too). */
  readonly grounding = new GroundingTally();

  countView(result: ViewResult): void {
    if (result.evidence !== null) this.grounding.add(result.evidence);
    // Attempts and tokens measure this run's work: a replayed view cost none.
    if (result.generation.cached) {
      this.viewsCached++;
      // A flagged outcome replays as flagged: the re-run's counts are the first run's.
      if (result.status === 'flagged') this.viewsFlagged++;
      else this.viewsOk++;
      return;
    }
    this.attempts += result.generation.attempts;
    this.transportRetries += result.transportRetries;
    const { tokens } = result.generation;
    this.promptTokens += tokens.prompt ?? 0;
    if (tokens.cached !== null) {
      this.cachedTokens += tokens.cached;
      this.cachedKnown++;
    }
    this.outputTokens += tokens.output ?? 0;
    if (result.status === 'ok') this.viewsOk++;
    else if (result.status === 'flagged') this.viewsFlagged++;
    else {
      this.viewsFailed++;
      const code = result.generation.error?.code ?? 'UNKNOWN';
      this.failuresByCode.set(code, (this.failuresByCode.get(code) ?? 0) + 1);
    }
  }

  /** The run's tokens: `cached` null when no server said how many came from its cache (Ollama). */
  tokensJson(): { prompt: number; cached: number | null; output: number } {
    return { prompt: this.promptTokens, cached: this.cachedKnown > 0 ? this.cachedTokens : null, output: this.outputTokens };
  }

  /** What the tokens cost at --price (per million): computed prompt, cached prompt and output tokens. */
  cost(price: Price): TokenCost & { price_per_million: Price } {
    return { ...tokenCost(this.tokensJson(), price), price_per_million: price };
  }

  toJson(extra: Record<string, unknown>, price: Price | null = null): Record<string, unknown> {
    return {
      ...extra,
      records: this.records,
      records_passed_through: this.passedThrough,
      records_not_written: this.dropped,
      views: {
        ok: this.viewsOk,
        flagged: this.viewsFlagged,
        failed: this.viewsFailed,
        already_present: this.viewsSkipped,
        cached: this.viewsCached,
        failed_by_code: Object.fromEntries([...this.failuresByCode].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      },
      attempts: this.attempts,
      transport_retries: this.transportRetries,
      tokens: this.tokensJson(),
      ...(price === null ? {} : { cost: this.cost(price) }),
      requests_rendered: this.requestsRendered,
      grounding: this.grounding.toJson(),
    };
  }
}

// en-US grouping by hand: Intl.NumberFormat costs ~8 ms of ICU start-up per process, more than
// the rest of a short extractive run. One pass, a comma before every third digit from the end of
// each digit run (a lookahead over the rest of the run at every digit would be quadratic).
export function grouped(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (!isDigit(text.charCodeAt(i))) {
      out += text[i];
      i++;
      continue;
    }
    let end = i;
    while (end < text.length && isDigit(text.charCodeAt(end))) end++;
    // Inside the run there is no word boundary; at its start only after a word character.
    for (let p = i; p < end; p++) {
      if ((end - p) % 3 === 0 && (p > i || (p > 0 && isWordCode(text.charCodeAt(p - 1))))) out += ',';
      out += text[p];
    }
    i = end;
  }
  return out;
}
const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
const isWordCode = (code: number): boolean => isDigit(code) || code === 0x5f || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
const number = { format: (n: number): string => (Number.isInteger(n) ? grouped(String(n)) : String(n)) };
const fixed1 = {
  format(n: number): string {
    const [whole = '', fraction = ''] = n.toFixed(1).split('.');
    return `${grouped(whole)}.${fraction}`;
  },
};

/**
 * `wallMs` null: no wall time line. `model` false: no attempts, retries or tokens (a model-free
 * backend has none). `hosts`: lines of their own before the wall time (see hostLines).
 */
export function summaryLines(stats: GenerationStats, wallMs: number | null, model = true, hosts: readonly string[] = [], price: Price | null = null): string[] {
  const views =
    `${plural(stats.records, 'record')}${stats.passedThrough > 0 ? ` (${number.format(stats.passedThrough)} already done, passed through)` : ''}: ` +
    `views ${number.format(stats.viewsOk)} ok, ${number.format(stats.viewsFlagged)} flagged, ${number.format(stats.viewsFailed)} failed` +
    `${stats.viewsCached > 0 ? ` (${number.format(stats.viewsCached)} from the cache)` : ''}`;
  const work =
    `; ${plural(stats.attempts, 'attempt')}, ${plural(stats.transportRetries, 'transport retry', 'transport retries')}; ` +
    `tokens ${number.format(stats.promptTokens)} in${stats.cachedKnown > 0 ? ` (${number.format(stats.cachedTokens)} from the engine's cache)` : ''} / ${number.format(stats.outputTokens)} out` +
    (price === null ? '' : `; cost ${costText(stats.cost(price).total)}`);
  const lines = [model ? views + work : views];
  if (stats.failuresByCode.size > 0) {
    const codes = [...stats.failuresByCode].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    lines.push(`failed views by cause: ${codes.map(([code, n]) => `${code} ${number.format(n)}`).join(', ')}`);
  }
  const grounding = stats.grounding.line();
  if (grounding !== null) lines.push(grounding);
  lines.push(...hosts);
  // On a line of its own: the one part of the summary that differs from run to run.
  if (wallMs !== null) {
    const seconds = wallMs / 1000;
    const rate = seconds > 0 ? stats.records / seconds : 0;
    lines.push(`wall time ${fixed1.format(seconds)} s, ${fixed1.format(rate)} records/s`);
  }
  return lines;
}

/** One summary line per host of a pool: its slots, requests, failures and tokens, and its state when not serving. */
export function hostLines(hosts: readonly HostStats[]): string[] {
  return hosts.map((h) => {
    const state = h.state === 'skipped' ? ' (left out)' : h.state === 'up' ? '' : ` (${h.state} at the end)`;
    return (
      `host ${h.url}${state}: ${plural(h.slots, 'slot')}, ${plural(h.requests, 'request')}, ${number.format(h.failures)} failed; ` +
      `tokens ${number.format(h.prompt_tokens)} in / ${number.format(h.output_tokens)} out`
    );
  });
}

/** The per-host counts of --stats (no clock readings: the runner's timing is the run's). */
export function hostsJson(hosts: readonly HostStats[]): Record<string, unknown>[] {
  return hosts.map((h) => ({
    url: h.url,
    slots: h.slots,
    state: h.state,
    requests: h.requests,
    failures: h.failures,
    tokens: { prompt: h.prompt_tokens, output: h.output_tokens },
  }));
}

/** What a pool of hosts says when a host leaves, rests or comes back: one line on stderr. */
export function hostEventMessage(event: HostPoolEvent): string {
  switch (event.kind) {
    case 'skipped':
      return `host ${event.url} left out of the run: ${event.message}`;
    case 'down':
      return `host ${event.url} rested for ${fixed1.format(event.forMs / 1000)} s after ${event.code}: ${event.message}; its requests go to the other hosts`;
    case 'up':
      return `host ${event.url} is back`;
  }
}

export function dryRunSummary(stats: GenerationStats): string[] {
  return [`dry run: ${plural(stats.requestsRendered, 'request')} rendered for ${plural(stats.records, 'record')}; no model was called`];
}

export function progressText(stats: GenerationStats, inFlight: number): string {
  const cached = stats.viewsCached > 0 ? ` (${number.format(stats.viewsCached)} cached)` : '';
  const failed = stats.viewsFailed > 0 ? `, ${number.format(stats.viewsFailed)} failed` : '';
  const flagged = stats.viewsFlagged > 0 ? `, ${number.format(stats.viewsFlagged)} flagged` : '';
  return `views ${number.format(stats.viewsOk)} ok${cached}${flagged}${failed}; ${number.format(inFlight)} in flight; ${plural(stats.transportRetries, 'retry', 'retries')}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${number.format(n)} ${n === 1 ? one : many}`;
}
