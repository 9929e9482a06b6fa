// A deterministic "model" for the fake servers (Ollama, and its OpenAI face): it reads the prompt
// it is sent and answers with a view built from the chunk's own text and NER seed, so replies pass
// validation the way a good model's would. A script turns chosen requests of a (chunk, view) into faults or bad replies;
// requests are counted per (chunk, view), so a script means the same thing at any concurrency.
import type { FakeFault, FakeReply, FakeRequest } from '../../support/fake-ollama.js';

export type Step =
  | 'good'
  | 'not-json'
  | 'array'
  | 'short-scope'
  | 'missing-key'
  | 'length'
  | 'busy503'
  | 'error500'
  | 'error400'
  | 'model404'
  | 'reset'
  | 'midStreamError'
  // A thinking model that reasons and writes no answer (what it sends when the server lets it think).
  | 'only-thinking'
  | { delayMs: number }
  | { fault: FakeFault; delayMs?: number };

/** Keyed by "<chunk_id> <view>" (or "* <view>", "*"): the steps of its 1st, 2nd, ... request; later requests are good. */
export type Script = Record<string, readonly Step[]>;

export interface ParsedPrompt {
  chunkId: string;
  view: string;
  text: string;
  seed: Record<string, any>;
  skeleton: Record<string, any>;
  feedback: string | null;
  /** A request for several views at once (--views-per-request): each view's prompt as this view's would read. */
  pair?: ParsedPrompt[];
}

const CONTEXT_HEADER = '\nCONTEXT:\n';
const TEXT_HEADER = '\nCHUNK_TEXT:\n';
const OUTPUT_HEADER = '\n\nOUTPUT JSON (exact keys/types):\n';
// dackar: a heading line, then the seed's line; compact: `NER_SEED: {…}` on one line.
const SEED_HEADER_RE = /\nNER_SEED(?: \([^\n]*\):\n|: )([^\n]*)\n/;
const CONTRACT_START = 'You are an information extraction engine';
const PAIRED_VIEWS = new Set(['retrieval_summary', 'rca_frame']);
const TASK_VIEW_RE = /^TASK: Write an? (\w+) JSON/m;

// Reads Ollama's /api/chat body and an OpenAI chat completion alike: the prompt is the one user
// message, and the view's schema is `format` or `response_format.json_schema.schema`. Both prompt
// styles: dackar (CONTEXT, seed, text, then the whole view's skeleton last) and compact (the
// content skeleton after the TASK, then CONTEXT, seed and text last).
/** The input id a request's X-Request-Id names (`<input id> <view>`); undefined without one. */
export function requestedId(requestId: string | undefined): string | undefined {
  const named = requestId === undefined ? -1 : requestId.lastIndexOf(' ');
  return named > 0 ? requestId!.slice(0, named) : undefined;
}

// The chunk is the one the request's X-Request-Id names, or, without one, the dackar prompt's
// chunk_id line.
export function parsePrompt(body: any, requestId?: string): ParsedPrompt {
  const prompt: string = String(body?.messages?.[0]?.content ?? body?.prompt ?? '');
  const format = body?.format ?? body?.response_format?.json_schema?.schema;
  const contextAt = prompt.indexOf(CONTEXT_HEADER);
  const chunkId = requestedId(requestId) ?? /^chunk_id: (.*)$/m.exec(prompt.slice(contextAt))?.[1] ?? '?';
  const textAt = prompt.indexOf(TEXT_HEADER) + TEXT_HEADER.length;
  const outputAt = prompt.indexOf(OUTPUT_HEADER);
  const start = prompt.indexOf(CONTRACT_START);
  const compact = outputAt < contextAt;
  // compact: the skeleton ends at the first blank line after it (the INPUT guide follows).
  const skeleton = JSON.parse(compact ? prompt.slice(outputAt + OUTPUT_HEADER.length, prompt.indexOf('\n\n', outputAt + OUTPUT_HEADER.length)) : prompt.slice(outputAt + OUTPUT_HEADER.length));
  const parsed: ParsedPrompt = {
    chunkId,
    view: String(format?.properties?.view_type?.const ?? TASK_VIEW_RE.exec(prompt)?.[1] ?? '?'),
    text: compact ? prompt.slice(textAt) : prompt.slice(textAt, outputAt),
    seed: JSON.parse(SEED_HEADER_RE.exec(prompt)?.[1] ?? '{}'),
    skeleton,
    feedback: start > 0 ? prompt.slice(0, start).trim() : null,
  };
  // A pair request's format has a view's name for every property.
  const views = Object.keys(format?.properties ?? {});
  if (views.length > 1 && views.every((v) => PAIRED_VIEWS.has(v) && v in skeleton)) {
    parsed.view = views.join('+');
    parsed.pair = views.map((view) => ({ ...parsed, view, skeleton: skeleton[view] }));
  }
  return parsed;
}

const SENTENCE_RE = /[^.!?\n]*[A-Za-z][^.!?\n]*[.!?]?/;
const WORD_RE = /[A-Za-z]{4,}/g;

type SeedList = (key: string) => string[];

// What a careful model writes for each view, by view: `first` is the chunk's first sentence. A view
// without an entry gets it as the one item of each list of its skeleton.
const GOOD_VIEWS: Readonly<Record<string, (p: ParsedPrompt, first: string, list: SeedList) => Record<string, unknown>>> = {
  rca_frame: (p, first, list) => ({
    ...p.skeleton,
    observed: [first],
    hypotheses: list('conjectures'),
    tests_to_confirm: list('surveillance_actions'),
    candidate_actions: list('maintenance_actions'),
    constraints: [],
  }),
  retrieval_summary: (p, first, list) => {
    const seed = p.seed;
    const keywords = [...new Set([...list('systems'), ...list('components'), ...(p.text.match(WORD_RE) ?? [])].map((k) => k.toLowerCase()))].slice(0, 5);
    return {
      ...p.skeleton,
      scope: `Chunk ${p.chunkId}: ${first}`,
      entities: { systems: list('systems'), equipment_ids: list('equipment_ids'), components: list('components') },
      symptoms_outcomes: list('outcomes'),
      mechanisms: list('mechanisms'),
      diagnostics: list('surveillance_actions'),
      corrective_actions: list('maintenance_actions'),
      // The dackar seed gives measurements as objects, the compact one as their text.
      numbers_limits: (Array.isArray(seed.measurements) ? seed.measurements : []).map((m: any) => String(typeof m === 'string' ? m : m.text)),
      keywords_synonyms: keywords,
      unknowns: [],
    };
  },
};

/** A view a careful model would write: facts copied from the chunk text and its seed. */
export function goodView(p: ParsedPrompt): Record<string, unknown> {
  // Cut at a word boundary: a careful model does not end on half a number ("2026" → "20").
  const sentence = (SENTENCE_RE.exec(p.text)?.[0] ?? p.text).replace(/\s+/g, ' ').trim();
  const first = sentence.length <= 160 ? sentence : sentence.slice(0, 160).replace(/\s+\S*$/, '');
  const seed = p.seed;
  const list: SeedList = (key) => (Array.isArray(seed[key]) ? seed[key].filter((x: unknown) => typeof x === 'string') : []);
  const good = GOOD_VIEWS[p.view];
  if (good !== undefined) return good(p, first, list);
  return Object.fromEntries(Object.entries(p.skeleton).map(([key, value]) => [key, Array.isArray(value) ? [first] : value]));
}

// A reply its view's own quality check flags (scope_too_short, empty_frame), by view.
const FLAGGED_VIEWS: Readonly<Record<string, (view: Record<string, unknown>) => Record<string, unknown>>> = {
  rca_frame: (view) => ({ ...view, observed: [], hypotheses: [], tests_to_confirm: [], candidate_actions: [], constraints: [] }),
  retrieval_summary: (view) => ({ ...view, scope: 'Pump.' }),
};

function badView(step: 'short-scope' | 'missing-key', p: ParsedPrompt): Record<string, unknown> {
  const view = goodView(p);
  if (step === 'short-scope') {
    const flagged = FLAGGED_VIEWS[p.view];
    if (flagged === undefined) throw new Error(`the scripted model has no short-scope reply for ${p.view}`);
    return flagged(view);
  }
  // The first field the model writes (observed, scope): the one after the trusted fields.
  const keys = Object.keys(p.skeleton);
  const { [keys[keys.indexOf('view_type') + 1]!]: _dropped, ...rest } = view;
  return rest;
}

export interface ScriptedModel {
  respond(req: FakeRequest): FakeReply;
  /** Every request seen, in arrival order. */
  seen: ParsedPrompt[];
  /** Requests per "<chunk_id> <view>". */
  counts: Map<string, number>;
}

export function scriptedModel(script: Script = {}): ScriptedModel {
  const seen: ParsedPrompt[] = [];
  const counts = new Map<string, number>();
  return {
    seen,
    counts,
    respond(req) {
      const p = parsePrompt(req.body, req.requestId);
      const stepOf = (q: ParsedPrompt): Step => {
        seen.push(q);
        const key = `${q.chunkId} ${q.view}`;
        const n = counts.get(key) ?? 0;
        counts.set(key, n + 1);
        const steps = script[key] ?? script[`* ${q.view}`] ?? script['*'] ?? [];
        return steps[n] ?? 'good';
      };
      if (p.pair === undefined) return replyFor(stepOf(p), p);
      // A request for several views: each view's step counts as that view's request; a fault
      // (or a cut) of any of them is the whole request's, else each part is what its step writes.
      const replies = p.pair.map((q) => replyFor(stepOf(q), q));
      const fault = replies.find((r) => 'fault' in r);
      if (fault !== undefined) return fault;
      const parts = replies.map((r) => parsedOr((r as { content: string }).content));
      return { content: JSON.stringify(Object.fromEntries(p.pair.map((q, i) => [q.view, parts[i]]))) };
    },
  };
}

function parsedOr(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

export function replyFor(step: Step, p: ParsedPrompt): FakeReply {
  const good = JSON.stringify(goodView(p));
  if (typeof step === 'object') {
    if ('fault' in step) return { fault: step.fault, content: good, ...(step.delayMs !== undefined ? { delayMs: step.delayMs } : {}) };
    return { fault: 'slowHeaders', content: good, delayMs: step.delayMs };
  }
  switch (step) {
    case 'good':
      return { content: good };
    case 'not-json':
      return { content: 'Sure! Here is the summary you asked for.' };
    case 'array':
      return { content: '[1, 2, 3]' };
    case 'short-scope':
    case 'missing-key':
      return { content: JSON.stringify(badView(step, p)) };
    case 'length':
      return { fault: 'length' };
    case 'only-thinking':
      return { content: '', thinking: 'The user wants JSON. Let me consider the chunk first, then the fields, then' };
    case 'reset':
      return { fault: 'reset' };
    default:
      return { fault: step };
  }
}
