// A seeded fault plan for soaking generate/summarize against the fake Ollama server. Whether a
// request is faulty, and how, depends only on (seed, "<chunk_id> <view>", n) where n counts that
// view's requests: the same plan gives every view the same faults at any concurrency or arrival
// order, so a failure reproduces, and each view's outcome can be worked out before the run.
import type { FakeFault, FakeReply, FakeRequest } from './fake-ollama.js';
import { parsePrompt, replyFor } from '../generation/support/scripted-model.js';

export const FAULT_KINDS = ['busy503', 'error500', 'reset', 'slow', 'garbage', 'truncated'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What the client makes of each fault, as the ladder records it (garbage, and a stream ended without `done`, are reply faults, not transport faults). */
export const FAULT_CODES: Record<FaultKind, string> = {
  busy503: 'SERVER_BUSY',
  error500: 'HTTP_5XX',
  reset: 'CONNECTION_RESET',
  slow: 'TIMEOUT',
  garbage: 'REPLY_NOT_JSON',
  truncated: 'REPLY_INCOMPLETE',
};

/** How the fake server names each transport fault in its own stats.faults (a kind may come in two variants). */
export const SERVER_FAULT_NAMES: Partial<Record<FaultKind, readonly string[]>> = {
  busy503: ['busy503'],
  error500: ['error500'],
  reset: ['reset'],
  slow: ['slowHeaders', 'slowBody'],
  truncated: ['http200'],
};

export interface FaultPlan {
  seed: number;
  /** Probability that one request is faulty. */
  rate: number;
  kinds: readonly FaultKind[];
  /** Scripted requests of a view (null: a good reply) before the random plan takes over. */
  forced: Readonly<Record<string, readonly (FaultKind | null)[]>>;
  /** How long a `slow` reply holds its headers back: longer than the client's --timeout. */
  slowMs: number;
}

export interface LadderLimits {
  maxTransportRetries: number;
  maxTries: number;
}

export function faultAt(plan: FaultPlan, key: string, n: number): FaultKind | null {
  const forced = plan.forced[key];
  if (forced !== undefined && n < forced.length) return forced[n] ?? null;
  const random = mulberry32(fnv1a(`${plan.seed}|${key}|${n}`));
  if (random() >= plan.rate) return null;
  return plan.kinds[Math.floor(random() * plan.kinds.length)] ?? null;
}

export interface ViewOutcome {
  status: 'ok' | 'failed';
  /** Ladder attempts (as generation.<view>.attempts records them). */
  attempts: number;
  transportRetries: number;
  /** Requests the server gets for this view. */
  requests: number;
  /** Null, or the error code the failed view carries. */
  code: string | null;
  faults: Partial<Record<FaultKind, number>>;
}

/**
 * The outcome the client must reach for one view, by the rules of the retry ladder with
 * --give-up-after 0: a transport fault is retried up to maxTransportRetries times within an
 * attempt, then fails the view; a garbage or truncated reply costs an attempt, up to maxTries.
 */
export function expectedView(plan: FaultPlan, key: string, limits: LadderLimits): ViewOutcome {
  const faults: Partial<Record<FaultKind, number>> = {};
  let n = 0;
  let transportRetries = 0;
  let lastReplyFault: FaultKind = 'garbage';
  for (let attempt = 1; attempt <= limits.maxTries; attempt++) {
    for (let retries = 0; ; retries++) {
      const fault = faultAt(plan, key, n++);
      if (fault !== null) faults[fault] = (faults[fault] ?? 0) + 1;
      if (fault === null) return { status: 'ok', attempts: attempt, transportRetries, requests: n, code: null, faults };
      if (fault === 'garbage' || fault === 'truncated') {
        lastReplyFault = fault;
        break;
      }
      if (retries === limits.maxTransportRetries) {
        return { status: 'failed', attempts: attempt, transportRetries, requests: n, code: FAULT_CODES[fault], faults };
      }
      transportRetries++;
    }
  }
  return { status: 'failed', attempts: limits.maxTries, transportRetries, requests: n, code: FAULT_CODES[lastReplyFault], faults };
}

export interface ServedTally {
  requests: number;
  byKind: Record<FaultKind, number>;
  /** Requests per "<chunk_id> <view>". */
  perView: Map<string, number>;
}

/** The fake server's model: a good view from the chunk's own text, or the plan's fault for this request. */
export function plannedModel(plan: FaultPlan): { respond: (req: FakeRequest) => FakeReply; served: ServedTally } {
  const served: ServedTally = { requests: 0, byKind: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>, perView: new Map() };
  return {
    served,
    respond(req) {
      const prompt = parsePrompt(req.body, req.requestId);
      const key = `${prompt.chunkId} ${prompt.view}`;
      const n = served.perView.get(key) ?? 0;
      served.perView.set(key, n + 1);
      served.requests++;
      const fault = faultAt(plan, key, n);
      if (fault !== null) served.byKind[fault]++;
      // Two variants of some kinds, by the request's parity: before the reply starts, or in the middle of it.
      const early = n % 2 === 0;
      switch (fault) {
        case null:
          return replyFor('good', prompt);
        case 'garbage':
          return replyFor('not-json', prompt);
        case 'slow':
          return replyFor({ fault: early ? 'slowHeaders' : 'slowBody', delayMs: plan.slowMs }, prompt);
        case 'reset':
          return early ? replyFor('reset', prompt) : replyFor({ fault: 'reset' }, prompt);
        case 'truncated':
          return { fault: truncatedStream(prompt.view) };
        default:
          return replyFor(fault, prompt);
      }
    },
  };
}

/** A 200 whose NDJSON stream stops after one piece, without the final `done` object. */
function truncatedStream(view: string): FakeFault {
  const piece = { model: 'mistral:latest', created_at: '2025-01-01T00:00:00.000000000Z', message: { role: 'assistant', content: `{"view_type":"${view}",` }, done: false };
  return { status: 200, body: `${JSON.stringify(piece)}\n`, headers: { 'Content-Type': 'application/x-ndjson' } };
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A small seeded generator (uniform in [0, 1)). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
