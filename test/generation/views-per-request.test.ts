// --views-per-request 2, --prompt-style and --price against the fake servers: one request for both
// views of a chunk, split and checked per view; the stored views the same as one request per view
// gives; tokens counted per view and summed per run.
import { afterEach, describe, expect, it } from 'vitest';
import { VIEW_TYPES } from '../../src/contracts/vocabulary.js';
import { splitPairReply } from '../../src/generation/pair.js';
import { chunk, parseLines, taggedLines } from './support/inputs.js';
import { closeServers, run, runWith, serve, serveOpenAi, stableStderr, tempCache } from './support/harness.js';

afterEach(closeServers);

const VIEWS = VIEW_TYPES;
const V = VIEWS.length;
// --views-per-request 2 pairs a chunk's first two views; any later view is asked alone.
const PAIR = VIEWS.slice(0, 2);
const ALONE = VIEWS.slice(2);
const isPair = (body: any) => PAIR.every((view) => view in body.format.properties);
const chats = (requests: any[]) => requests.filter((b) => Array.isArray(b.messages) && b.messages.length > 0);
/** The records without what says how they were asked for. */
const stored = (stdout: string) => parseLines(stdout).map(({ generation: _g, ...rest }) => rest);

describe('--views-per-request 2', () => {
  it('asks once per chunk and stores, byte for byte, the views and checks two requests give', async () => {
    const input = await taggedLines(4);
    const one = await serve();
    const a = await run('generate', one.server, input, []);
    const two = await serve();
    const b = await run('generate', two.server, input, ['--views-per-request', '2']);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(chats(one.server.requests)).toHaveLength(4 * V);
    expect(chats(two.server.requests)).toHaveLength(4 * (1 + ALONE.length));
    expect(stored(b.stdout)).toEqual(stored(a.stdout));
    const pair = chats(two.server.requests).find(isPair)!;
    expect(Object.keys(pair.format.properties)).toEqual([...PAIR]);
    // Room for both replies: --max-output-tokens is per view.
    expect(pair.options.num_predict).toBe(2 * 2048);
    for (const rec of parseLines(b.stdout)) {
      for (const view of PAIR) expect(rec.generation[view]).toMatchObject({ attempts: 1, shared_request: true, error: null });
    }
    expect(stableStderr(b.stderr)).toMatch(new RegExp(`^rca-generate: 4 records: views ${4 * V} ok, 0 flagged, 0 failed; ${4 * V} attempts`));
  });

  it('a view whose part fails goes on alone, with feedback; the other keeps its part', async () => {
    const input = await taggedLines(1);
    const { server, model } = await serve({ [`${chunk(0).chunk_id as string} retrieval_summary`]: ['short-scope'] });
    const r = await run('generate', server, input, ['--views-per-request', '2']);
    expect(r.code).toBe(0);
    const sent = chats(server.requests);
    expect(sent).toHaveLength(2 + ALONE.length);
    // The pair, then retrieval_summary alone (beside the views never paired).
    expect(sent.filter(isPair)).toHaveLength(1);
    expect(sent.filter((b) => !isPair(b) && Object.keys(b.format.properties)[0] === 'scope')).toHaveLength(1);
    expect(model.seen.filter((p) => p.view === 'retrieval_summary').at(-1)!.feedback).toContain('scope must say what the chunk covers');
    const [rec] = parseLines(r.stdout);
    expect(rec!.generation.retrieval_summary).toMatchObject({ attempts: 2, shared_request: true });
    expect(rec!.generation.rca_frame).toMatchObject({ attempts: 1, shared_request: true });
    expect(rec!.flags).toEqual(Object.fromEntries(VIEWS.map((view) => [view, []])));
  });

  it('a re-run takes both views from the response cache under their parts of the pair', async () => {
    const input = await taggedLines(2);
    const cache = tempCache();
    const { server } = await serve();
    await run('generate', server, input, ['--views-per-request', '2', '--cache', cache]);
    const before = chats(server.requests).length;
    const again = await run('generate', server, input, ['--views-per-request', '2', '--cache', cache]);
    expect(chats(server.requests)).toHaveLength(before);
    expect(stableStderr(again.stderr)).toContain(`(${2 * V} from the cache)`);
  });

  it('--dry-run shows the one request under both views’ names', async () => {
    const r = await run('generate', 'http://127.0.0.1:9', await taggedLines(1), ['--views-per-request', '2', '--dry-run']);
    expect(r.code).toBe(0);
    expect(Object.keys(parseLines(r.stdout)[0]!.requests)).toEqual([PAIR.join('+'), ...ALONE]);
  });

  it('is refused with --prompt-style dackar, and above the number of chunk views', async () => {
    const input = await taggedLines(1);
    expect((await run('generate', 'http://127.0.0.1:9', input, ['--views-per-request', '2', '--prompt-style', 'dackar'])).code).toBe(2);
    expect((await run('generate', 'http://127.0.0.1:9', input, ['--views-per-request', String(V + 1)])).code).toBe(2);
  });
});

describe('splitting the pair reply', () => {
  it('gives each view its member, and shares the tokens out so that they add up', () => {
    const reply = { content: JSON.stringify({ retrieval_summary: { scope: 'x'.repeat(30) }, rca_frame: { observed: ['y'] } }), doneReason: 'stop', promptTokens: 101, cachedTokens: 51, outputTokens: 40, thinkingChars: 0, transportRetries: 2, textCut: null };
    const [a, b] = splitPairReply(reply, ['retrieval_summary', 'rca_frame']);
    expect(JSON.parse(a!.content)).toEqual({ scope: 'x'.repeat(30) });
    expect(JSON.parse(b!.content)).toEqual({ observed: ['y'] });
    expect(a!.promptTokens! + b!.promptTokens!).toBe(101);
    expect(a!.cachedTokens! + b!.cachedTokens!).toBe(51);
    expect(a!.outputTokens! + b!.outputTokens!).toBe(40);
    expect(a!.outputTokens!).toBeGreaterThan(b!.outputTokens!);
    expect([a!.transportRetries, b!.transportRetries]).toEqual([2, 0]);
  });

  it('a reply that is not an object of both views leaves each view the whole reply to be checked, and unknown counts unknown', () => {
    const reply = { content: 'Sure!', doneReason: 'stop', promptTokens: null, outputTokens: null, transportRetries: 0, textCut: null };
    for (const part of splitPairReply(reply, ['retrieval_summary', 'rca_frame'])) expect(part).toMatchObject({ content: 'Sure!', promptTokens: null, cachedTokens: null, outputTokens: null });
  });
});

describe('--prompt-style, tokens and --price', () => {
  it('dackar sends the seed layout and the whole view as format; the views stored keep the same contract and checks', async () => {
    const input = await taggedLines(3);
    const compact = await serve();
    const a = await run('generate', compact.server, input, []);
    const dackar = await serve();
    const b = await run('generate', dackar.server, input, ['--prompt-style', 'dackar']);
    expect([a.code, b.code]).toEqual([0, 0]);
    const shape = (stdout: string) => parseLines(stdout).map((rec) => VIEWS.map((v) => [Object.keys(rec[v]), Object.keys(rec[v].citations), rec[v].chunk_id, rec.flags[v], rec.provenance_fixed[v]]));
    expect(shape(b.stdout)).toEqual(shape(a.stdout));
    const sent = chats(dackar.server.requests)[0]!;
    expect(sent.format.properties.view_type).toBeDefined();
    expect(sent.messages[0].content).toMatch(/\nOUTPUT JSON \(exact keys\/types\):\n\{\n {2}"chunk_id"/);
    expect(chats(compact.server.requests)[0]!.format.properties.view_type).toBeUndefined();
  });

  it("counts the engine's cached prompt tokens per view and per run, and prices them", async () => {
    const input = await taggedLines(3);
    const { server } = await serveOpenAi({}, { promptCache: 'prefix' });
    const r = await runWith('generate', input, ['--backend', 'openai', '--base-url', `${server.url}/v1`, '--concurrency', '1', '--price', '1,10,0.1']);
    expect(r.code).toBe(0);
    const out = parseLines(r.stdout);
    let prompt = 0;
    let cached = 0;
    let output = 0;
    for (const rec of out) {
      for (const view of VIEWS) {
        const t = rec.generation[view].tokens;
        expect(t.cached).toBeGreaterThanOrEqual(0);
        expect(t.cached).toBeLessThan(t.prompt);
        prompt += t.prompt;
        cached += t.cached;
        output += t.output;
      }
    }
    // The heads of a view's prompts are the same: from the second request of a view on, most of the prompt is the cache's.
    expect(out[2]!.generation.rca_frame.tokens.cached / out[2]!.generation.rca_frame.tokens.prompt).toBeGreaterThan(0.5);
    const cost = ((prompt - cached) * 1 + cached * 0.1 + output * 10) / 1e6;
    const line = stableStderr(r.stderr).split('\n')[0]!;
    expect(line).toContain(`tokens ${prompt.toLocaleString('en-US')} in (${cached.toLocaleString('en-US')} from the engine's cache) / ${output.toLocaleString('en-US')} out; cost ${cost.toFixed(6)}`);
  });
});

describe('thinking models on an OpenAI-compatible server', () => {
  const THINKER = [{ name: 'qwen3:8b', digest: 'b'.repeat(64), capabilities: ['completion', 'thinking'] }];
  const args = (url: string, ...more: string[]) => ['--backend', 'openai', '--base-url', `${url}/v1`, '--model', 'qwen3:8b', '--views', 'rca_frame', '--max-tries', '1', ...more];

  it('--think off (the default) sends enable_thinking false and the model answers without reasoning', async () => {
    const { server } = await serveOpenAi({}, { models: THINKER });
    const r = await runWith('generate', await taggedLines(1), args(server.url));
    expect(r.code).toBe(0);
    expect(chats(server.requests)[0]).toMatchObject({ chat_template_kwargs: { enable_thinking: false } });
  });

  it('a reply that holds only reasoning is REPLY_ONLY_THINKING, not REPLY_NOT_JSON', async () => {
    const { server } = await serveOpenAi({ '* rca_frame': ['only-thinking'] }, { models: THINKER });
    const r = await runWith('generate', await taggedLines(1), args(server.url, '--think', 'server'));
    expect(r.code).toBe(1);
    expect(chats(server.requests)[0]).not.toHaveProperty('chat_template_kwargs');
    expect(parseLines(r.stdout)[0]!.generation.rca_frame.error).toMatchObject({ code: 'REPLY_ONLY_THINKING' });
    expect(r.stderr).toContain('characters of thinking and no answer');
  });
});
