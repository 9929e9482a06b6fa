import { describe, expect, it } from 'vitest';
import { CR_CONTEXT, EMPTY_SEED } from '../support/cr-chunk.js';
import { jobOf, type AttemptInput, type Backend, type BackendReply, type Job } from '../../src/generation/backend.js';
import { runLadder, type LadderPolicy } from '../../src/generation/ladder.js';
import { ModelError } from '../../src/llm/model-client.js';
import { GroundingText } from '../../src/views/grounding.js';
import { VIEW_KINDS } from '../../src/views/kinds/index.js';
import type { ViewType } from '../../src/contracts/vocabulary.js';

const CONTEXT = CR_CONTEXT;
const SEED = EMPTY_SEED;
const TEXT = 'Pump P-101A tripped on high vibration of 6.2 mils. The alert limit is 5.0 mils. Operators started the standby pump. '.repeat(3);
const POLICY: LadderPolicy = { maxTries: 3, truncateChars: 60, maxChars: undefined, maxOutputTokens: 2048 };

const GOOD: Record<ViewType, Record<string, unknown>> = {
  retrieval_summary: {
    chunk_id: 'made-up',
    doc_type: 'SOP',
    view_type: 'retrieval_summary',
    scope: 'Trip of pump P-101A on high vibration and the operator response.',
    entities: { systems: [], equipment_ids: ['P-101A'], components: ['pump'] },
    symptoms_outcomes: ['tripped on high vibration'],
    mechanisms: [],
    diagnostics: [],
    corrective_actions: ['started the standby pump'],
    numbers_limits: ['6.2 mils', '5.0 mils'],
    keywords_synonyms: ['pump trip', 'vibration', 'P-101A'],
    unknowns: [],
    citations: { doc_id: 'x', section_path: 'y', page_start: null, page_end: null },
  },
  rca_frame: {
    chunk_id: 'chunk:cr1:sec2',
    doc_type: 'CR',
    view_type: 'rca_frame',
    observed: ['Pump P-101A tripped on high vibration of 6.2 mils.'],
    hypotheses: [],
    tests_to_confirm: [],
    candidate_actions: ['Operators started the standby pump.'],
    constraints: [],
    citations: {},
  },
};
const json = (v: unknown) => JSON.stringify(v);
const good = (view: ViewType) => json(GOOD[view]);
const shortScope = json({ ...GOOD.retrieval_summary, scope: 'Pump.' });
const shortScopeFewKeywords = json({ ...GOOD.retrieval_summary, scope: 'Pump.', keywords_synonyms: ['pump'] });
const missingScope = json({ ...GOOD.retrieval_summary, scope: undefined });
const ungrounded = json({ ...GOOD.retrieval_summary, numbers_limits: ['7.5 mils'] });

type Scripted = string | { content: string; doneReason: string; thinkingChars?: number } | ModelError;

class ScriptedBackend implements Backend {
  readonly info = { backend: 'ollama' as const, model: 'm', model_digest: 'd', options: { temperature: 0, seed: 42, num_predict: 2048, num_ctx: 8192 } };
  readonly inputs: AttemptInput[] = [];
  constructor(
    private readonly replies: Scripted[],
    readonly retries = true,
  ) {}
  async attempt(_job: Job, input: AttemptInput): Promise<BackendReply> {
    this.inputs.push(input);
    const next = this.replies[this.inputs.length - 1] ?? 'no more replies';
    if (next instanceof ModelError) throw next;
    const reply = typeof next === 'string' ? { content: next, doneReason: 'stop' } : next;
    return {
      ...reply,
      promptTokens: 100,
      outputTokens: 10,
      transportRetries: 1,
      textCut: input.maxChars === undefined ? null : { text_chars: TEXT.length, kept_chars: input.maxChars, cut_at: 'sentence' },
    };
  }
  render() {
    return {};
  }
}

async function ladder(view: ViewType, replies: Scripted[], policy: Partial<LadderPolicy> = {}, retries = true) {
  const backend = new ScriptedBackend(replies, retries);
  const job = jobOf(VIEW_KINDS[view], { context: CONTEXT, nerSeed: SEED, text: TEXT }, 0);
  const result = await runLadder(job, new GroundingText(TEXT), backend, { ...POLICY, ...policy }, new AbortController().signal);
  return { result, backend };
}

describe('reply faults from the server go through the ladder', () => {
  const tooLong = () => new ModelError('PROMPT_TOO_LONG', 'the prompt does not fit the context (400): request (9000 tokens) exceeds the available context size (8192 tokens)', { status: 400 });
  const incomplete = () => new ModelError('REPLY_INCOMPLETE', 'Ollama at h ended the reply before it was done (a repetition abort?)');

  it('PROMPT_TOO_LONG: the next attempt cuts the text at once and says nothing to a model that saw nothing', async () => {
    const { result, backend } = await ladder('rca_frame', [tooLong(), good('rca_frame')]);
    expect(result.status).toBe('ok');
    expect(backend.inputs[1]).toEqual({ attempt: 2, feedback: null, maxChars: 60 });
    expect(result.generation.text_cut).toEqual({ text_chars: TEXT.length, kept_chars: 60, cut_at: 'sentence' });
  });

  it('PROMPT_TOO_LONG on every attempt fails the view with that code', async () => {
    const { result, backend } = await ladder('rca_frame', [tooLong(), tooLong(), tooLong()]);
    expect(backend.inputs.map((i) => i.maxChars)).toEqual([undefined, 60, 60]);
    expect(result.status).toBe('failed');
    expect(result.generation.error).toMatchObject({ code: 'PROMPT_TOO_LONG', attempts: 3 });
  });

  it('REPLY_INCOMPLETE (a repetition abort): feedback, then the cut text — not the same request again', async () => {
    const { result, backend } = await ladder('rca_frame', [incomplete(), incomplete(), good('rca_frame')]);
    expect(result.status).toBe('ok');
    expect(backend.inputs[1]!.feedback).toContain('do not repeat words or items');
    expect(backend.inputs[2]!.maxChars).toBe(60);
  });

  it('a reply of thinking only has its own code, not REPLY_NOT_JSON', async () => {
    const thought = { content: '', doneReason: 'stop', thinkingChars: 1234 };
    const { result, backend } = await ladder('rca_frame', [thought, thought, thought]);
    expect(result.generation.error).toMatchObject({ code: 'REPLY_ONLY_THINKING', attempts: 3 });
    expect(result.generation.error!.message).toContain('1234 characters of thinking and no answer');
    expect(backend.inputs[1]!.feedback).toContain('answer with the JSON object only');
  });

  it('a reply whose prompt and output tokens fill num_ctx is flagged prompt_cut_by_server, and the next attempts cut the text', async () => {
    // The scripted backend counts 100 prompt + 10 output tokens per reply.
    const { result, backend } = await ladder('rca_frame', [good('rca_frame'), good('rca_frame'), good('rca_frame')], { numCtx: 110 });
    expect(result.status).toBe('flagged');
    expect(result.flags).toEqual(['prompt_cut_by_server']);
    expect(backend.inputs.map((i) => [i.feedback, i.maxChars])).toEqual([[null, undefined], [null, 60], [null, 60]]);
    const roomy = await ladder('rca_frame', [good('rca_frame')], { numCtx: 111 });
    expect(roomy.result.status).toBe('ok');
  });

  it('thinking that used up the output tokens says so in REPLY_CUT', async () => {
    const { result } = await ladder('rca_frame', Array(3).fill({ content: '', doneReason: 'length', thinkingChars: 900 }));
    expect(result.generation.error).toMatchObject({ code: 'REPLY_CUT' });
    expect(result.generation.error!.message).toContain('spent them on 900 characters of thinking');
  });
});

describe('retry ladder', () => {
  it.each([
    ['a good first reply', 'retrieval_summary', [good('retrieval_summary')], 'ok', 1],
    ['a good first rca_frame', 'rca_frame', [good('rca_frame')], 'ok', 1],
    ['prose, then good', 'retrieval_summary', ['Here you go!', good('retrieval_summary')], 'ok', 2],
    ['an array, then good', 'rca_frame', ['[{"observed": []}]', good('rca_frame')], 'ok', 2],
    ['a cut reply, then good', 'retrieval_summary', [{ content: good('retrieval_summary').slice(0, 200), doneReason: 'length' }, good('retrieval_summary')], 'ok', 2],
    ['a quality flag twice, then good', 'retrieval_summary', [shortScope, shortScope, good('retrieval_summary')], 'ok', 3],
    ['prose three times', 'retrieval_summary', ['no', 'still no', 'never'], 'failed', 3],
    ['a missing key three times', 'retrieval_summary', [missingScope, missingScope, missingScope], 'failed', 3],
    ['cut three times', 'rca_frame', Array(3).fill({ content: '{"observed": ["a', doneReason: 'length' }), 'failed', 3],
    ['quality flags three times', 'retrieval_summary', [shortScope, shortScope, shortScope], 'flagged', 3],
    ['an ungrounded number three times', 'retrieval_summary', [ungrounded, ungrounded, ungrounded], 'flagged', 3],
  ] as const)('%s → %s after %i attempts', async (_name, view, replies, status, attempts) => {
    const { result, backend } = await ladder(view, [...replies]);
    expect(result.status).toBe(status);
    expect(result.generation.attempts).toBe(attempts);
    expect(backend.inputs).toHaveLength(attempts);
    // A clean pass and a flagged outcome carry their reply out, for the response cache to keep;
    // a flagged one also the attempt it came from (the first of equals: all flags tie here).
    expect('content' in result).toBe(status !== 'failed');
    if (result.status === 'ok') expect(result.content).toBe(replies.at(-1));
    if (result.status === 'flagged') expect([result.content, result.keptAttempt]).toEqual([replies[0], 1]);
    // The backend here says nothing of the engine's cache: unknown, not 0.
    expect(result.generation.tokens).toEqual({ prompt: 100 * attempts, cached: null, output: 10 * attempts });
    expect(result.transportRetries).toBe(attempts);
  });

  it('stamps trusted provenance on the kept view', async () => {
    const { result } = await ladder('retrieval_summary', [good('retrieval_summary')]);
    expect(result.view).toMatchObject({
      chunk_id: CONTEXT.chunk_id,
      doc_type: 'CR',
      view_type: 'retrieval_summary',
      citations: { doc_id: 'cr1', section_path: CONTEXT.section_path, page_start: 3, page_end: 3 },
    });
    expect(result.flags).toEqual([]);
  });

  it('asks again without a key outside the contract, and drops it if it stays', async () => {
    const extra = json({ ...GOOD.retrieval_summary, confidence: 0.9 });
    const { result, backend } = await ladder('retrieval_summary', [extra, extra, extra]);
    expect(backend.inputs[1]!.feedback).toContain('remove key "confidence"');
    expect(result.status).toBe('flagged');
    expect(result.flags).toEqual(['unexpected_key_confidence']);
    expect(result.view).not.toHaveProperty('confidence');
  });

  it('attempt 1 sends the prompt, attempt 2 adds feedback naming the failure, attempt 3 also cuts the text', async () => {
    const { backend } = await ladder('retrieval_summary', ['Sure, here it is.', shortScopeFewKeywords, good('retrieval_summary')]);
    const [first, second, third] = backend.inputs;
    expect(first).toEqual({ attempt: 1, feedback: null, maxChars: undefined });
    expect(second!.feedback).toContain('no JSON object found in reply "Sure, here it is."');
    expect(second!.maxChars).toBeUndefined();
    expect(third!.feedback).toContain('scope must say what the chunk covers in at least 15 characters');
    expect(third!.feedback).toContain('keywords_synonyms needs at least 3 distinct terms');
    expect(third!.feedback).not.toContain('invalid JSON');
    expect(third!.maxChars).toBe(60);
  });

  it.each([
    [undefined, 60],
    [40, 40],
    [1000, 60],
  ])('with --max-chars %s every attempt is cut, the third to %i', async (maxChars, third) => {
    const { backend } = await ladder('rca_frame', ['x', 'y', 'z'], { maxChars });
    expect(backend.inputs.map((i) => i.maxChars)).toEqual([maxChars, maxChars, third]);
  });

  it('says the reply was cut, not that it was invalid JSON, when done_reason is length', async () => {
    const { backend, result } = await ladder('rca_frame', Array(2).fill({ content: '{"a": {"b": 1}, "c": [', doneReason: 'length' }), { maxTries: 2 });
    expect(backend.inputs[1]!.feedback).toContain('cut off at the output token limit');
    expect(result.generation.error).toEqual({ code: 'REPLY_CUT', message: 'reply cut at the output token limit (--max-output-tokens 2048)', attempts: 2 });
    expect(result.generation.done_reason).toBe('length');
  });

  it('a failed view carries the last reason: the parse error or the flags', async () => {
    const notJson = await ladder('retrieval_summary', ['a', 'b', 'c']);
    expect(notJson.result.view).toBeNull();
    expect(notJson.result.generation.error).toEqual({ code: 'REPLY_NOT_JSON', message: 'no JSON object found in reply "c"', attempts: 3 });
    const invalid = await ladder('retrieval_summary', ['a', 'b', missingScope]);
    expect(invalid.result.generation.error).toEqual({ code: 'REPLY_INVALID', message: 'missing_scope', attempts: 3 });
  });

  it('keeps the contract-valid reply with the fewest flags, the earliest on a tie', async () => {
    const { result } = await ladder('retrieval_summary', [shortScopeFewKeywords, shortScope, missingScope]);
    expect(result.status).toBe('flagged');
    expect(result.flags).toEqual(['scope_too_short']);
    expect(result.generation.error).toBeNull();
    expect(result.generation.attempts).toBe(3);
  });

  it('records the text cut of the attempt whose reply was kept', async () => {
    const { result } = await ladder('retrieval_summary', ['x', 'y', good('retrieval_summary')]);
    expect(result.generation.text_cut).toEqual({ text_chars: TEXT.length, kept_chars: 60, cut_at: 'sentence' });
  });

  it.each([
    ['HTTP_400', false],
    ['HTTP_5XX', true],
    ['UNREACHABLE', true],
    ['ABORTED', false],
  ] as const)('a transport failure (%s) ends the ladder at once, whatever the tries left', async (code, retryable) => {
    const error = new ModelError(code, `boom ${code}`, { retryable });
    error.retries = retryable ? 5 : 0;
    const { result, backend } = await ladder('rca_frame', ['prose', error]);
    expect(backend.inputs).toHaveLength(2);
    expect(result.status).toBe('failed');
    expect(result.generation.error).toEqual({ code, message: `boom ${code}`, attempts: 2 });
    expect(result.transportRetries).toBe(1 + error.retries);
  });

  it('asks a deterministic backend once: another try would give the same reply', async () => {
    const { result, backend } = await ladder('retrieval_summary', [shortScope, good('retrieval_summary')], {}, false);
    expect(backend.inputs).toHaveLength(1);
    expect(result.status).toBe('flagged');
  });

  it('records the backend identity on every outcome', async () => {
    const { result, backend } = await ladder('rca_frame', [good('rca_frame')]);
    expect(result.generation).toEqual({
      ...backend.info,
      attempts: 1,
      done_reason: 'stop',
      tokens: { prompt: 100, cached: null, output: 10 },
      text_cut: null,
      cached: false,
      error: null,
    });
  });
});
