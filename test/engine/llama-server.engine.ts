// The real CLI against a real engine: llama.cpp's llama-server (what Ollama runs for GGUF models)
// serving a tiny random-weight model that writes gibberish. Everything the fakes stand in for is
// checked here once for real: the formats convert with both of llama.cpp's grammar converters,
// replies stream and parse, token counts are the server's, the bounded grammar ends every reply
// as complete JSON that then goes through the whole ladder (flagged, fed back, cut, recorded),
// finish_reason "length" takes the cut path, rca keeps every slot busy, Ctrl-C stops cleanly, a
// cached re-run sends nothing, and a server that is started after rca is waited for.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkerFor } from '../../src/contracts/checkers.js';
import { formatOf } from '../../src/generation/requests.js';
import { replyAsView } from '../../src/views/view-skeleton.js';
import { sectionReplyAsView } from '../../src/views/section-view.js';
import { runBin, type CliResult } from './support/cli.js';
import { buildInfo, freePort, MODEL_ALIAS, ROOT, startLlamaServer, type LlamaServer } from './support/llama-server.js';

const VIEWS = ['retrieval_summary', 'rca_frame'] as const;
const FORMATS = [...VIEWS, 'section_summary'] as const;
const bin = process.env.RCA_LLAMA_SERVER!;
const dir = mkdtempSync(join(tmpdir(), 'rca-engine-'));
let server: LlamaServer;
let tagged: string;
/** What the closing note needs from this run, written to $RCA_ENGINE_SUMMARY when set. */
const summary: Record<string, unknown> = { build: buildInfo(bin) };

function tag(files: string[], out: string, limit = Infinity): string {
  const lines = files.flatMap((f) => execFileSync(process.execPath, [join(ROOT, 'bin/rca-tag'), resolve(ROOT, f)], { encoding: 'utf8' }).trim().split('\n'));
  writeFileSync(out, lines.slice(0, limit).join('\n') + '\n');
  return out;
}

function openAiArgs(url: string, ...more: string[]): string[] {
  return ['--backend', 'openai', '--base-url', url, '--model', MODEL_ALIAS, ...more];
}

/** Counts of a run's views: kept clean, kept with flags, failed. */
function tally(records: Record<string, any>[], views: readonly string[]) {
  const out = { complete: 0, flagged: 0, failed: 0, promptTokens: 0, cachedTokens: 0, outputTokens: 0, attempts: 0 };
  for (const rec of records) {
    for (const view of views) {
      const g = rec.generation[view];
      // rca-generate writes `flags`, rca-summarize (which also flattens) `view_flags`.
      const flags = (rec.view_flags ?? rec.flags)[view] as string[];
      if (g.error !== null) out.failed++;
      else if (flags.length > 0) out.flagged++;
      else out.complete++;
      out.promptTokens += g.tokens.prompt ?? 0;
      out.cachedTokens += g.tokens.cached ?? 0;
      out.outputTokens += g.tokens.output ?? 0;
      out.attempts += g.attempts;
    }
  }
  return out;
}

beforeAll(async () => {
  server = await startLlamaServer({ bin, logFile: join(dir, 'server.log'), slots: 2, ctx: 8192 });
  tagged = tag(['test/fixtures/written/sop_afw_012.jsonl', 'test/fixtures/written/eca_2026_0007.jsonl'], join(dir, 'tagged.jsonl'));
});

afterAll(async () => {
  await server?.stop();
  const file = process.env.RCA_ENGINE_SUMMARY;
  if (file !== undefined && file !== '') writeFileSync(file, JSON.stringify(summary, null, 2) + '\n');
});

describe('the formats rca sends', () => {
  const converter = join(dirname(bin), 'json_schema_to_grammar.py');

  it.each(FORMATS)('%s converts with llama.cpp\'s Python converter, bounds and all', (view) => {
    const file = join(dir, `${view}.format.json`);
    // Exactly what is sent: rca schema --format prints the object the requests carry.
    writeFileSync(file, execFileSync(process.execPath, [join(ROOT, 'bin/rca'), 'schema', '--format', view], { encoding: 'utf8' }));
    const grammar = execFileSync('python3', [converter, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(grammar).toMatch(/^root ::= "\{" space /m);
    const format = formatOf(view) as any;
    // The model is asked for no trusted field: the grammar has no rule for one.
    expect(grammar).not.toMatch(/^(?:chunk-id|section-id|view-type|citations)[a-z-]* ::=/m);
    const first = Object.keys(format.properties)[0]!;
    expect(grammar).toMatch(new RegExp(`^root ::= "\\{" space ${first.replace(/_/g, '-')}-kv`, 'm'));
    if (view === 'retrieval_summary') {
      expect(grammar).toContain(`char{${format.properties.scope.minLength},${format.properties.scope.maxLength}}`);
      const keywords = format.properties.keywords_synonyms;
      expect(grammar).toMatch(new RegExp(`keywords-synonyms ::= "\\[" space keywords-synonyms-item \\("," space keywords-synonyms-item\\)\\{${keywords.minItems - 1},${keywords.maxItems - 1}\\} space "\\]"`));
    }
  });

  it.each(FORMATS)('%s is accepted by the server (its C++ converter) and the reply is complete JSON within the contract', async (view) => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL_ALIAS,
        messages: [{ role: 'user', content: `Write the ${view} JSON.` }],
        response_format: { type: 'json_schema', json_schema: { name: 'reply', schema: formatOf(view), strict: true } },
        temperature: 0,
        seed: 42,
        max_tokens: 2048,
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    // Unbounded, the tiny model loops in its first string until max_tokens; bounded, it must close.
    expect(body.choices[0].finish_reason).toBe('stop');
    // Its content fields, the trusted ones put in their places as rca does, make a view within the contract.
    const reply = JSON.parse(body.choices[0].message.content);
    const whole = view === 'section_summary' ? sectionReplyAsView(reply, SECTION) : replyAsView(reply, view, CONTEXT);
    expect(checkerFor(view)(whole)).toBeNull();
  });
});

const CONTEXT = { doc_id: 'D', doc_type: 'CR', chunk_id: 'C', section_path: 'A > B', page_start: null, page_end: null, authority_level: 'informational', section_role: 'description' } as const;
const SECTION = { section_id: 's', doc_id: 'D', section_path: 'A', title: 'A', level: 1, parent_id: null, child_count: 0, total_count: 1, page_start: null, page_end: null, text: 'x' };

describe('rca-generate against llama-server', () => {
  let first: CliResult;
  let busiest = 0;

  beforeAll(async () => {
    const input = tag(['test/fixtures/written/sop_afw_012.jsonl'], join(dir, 'two.jsonl'), 2);
    // Concurrency = the server's slots (-np 2): both must be generating at once.
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const states = await server.slotStates().catch(() => []);
        busiest = Math.max(busiest, states.filter((s) => s.is_processing).length);
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    first = await runBin('rca-generate', openAiArgs(server.url, '--concurrency', '2', '--no-cache', '--stats', join(dir, 'stats.json')), { input });
    polling = false;
    await poll;
  });

  it('streams every reply, parses it, and records the server\'s token counts', () => {
    expect(first.records).toHaveLength(2);
    for (const rec of first.records) {
      for (const view of VIEWS) {
        const g = rec.generation[view];
        expect(g).toMatchObject({ backend: 'openai', model: MODEL_ALIAS, cached: false });
        // Real counts: a prompt of about 1,200 tokens, and a reply of some.
        expect(g.tokens.prompt / g.attempts).toBeGreaterThan(300);
        expect(g.tokens.output).toBeGreaterThan(0);
        // llama-server says how many came from its prompt cache (usage.prompt_tokens_details).
        expect(g.tokens.cached).toBeGreaterThanOrEqual(0);
        expect(g.tokens.cached).toBeLessThan(g.tokens.prompt);
      }
    }
    const stats = JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8'));
    const t = tally(first.records, VIEWS);
    expect(stats.tokens).toEqual({ prompt: t.promptTokens, cached: t.cachedTokens, output: t.outputTokens });
    summary.run = { records: first.records.length, ...t, seconds: first.seconds, exit: first.code };
  });

  it('bounded grammar: no reply is cut; gibberish is complete JSON that meets the validator, flagged, fed back and recorded', () => {
    for (const rec of first.records) {
      for (const view of VIEWS) {
        const g = rec.generation[view];
        expect(g.error, `${rec.chunk_id} ${view}`).toBeNull();
        expect(g.done_reason).toBe('stop');
        expect(checkerFor(view)(rec[view])).toBeNull();
        if (rec.flags[view].length > 0) {
          // Out of tries: the prompt, then with feedback, then with the text cut; the best kept.
          expect(g.attempts).toBe(3);
        }
      }
    }
    const t = tally(first.records, VIEWS);
    expect(t.failed).toBe(0);
    // The tiny model repeats its list items: retrieval_summary is flagged (duplicates, few keywords).
    expect(t.flagged).toBeGreaterThan(0);
    // Views kept with flags are warnings: the run exits 0 (--fail-on-flags would make it 1).
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/views \d+ ok, \d+ flagged, 0 failed/);
  });

  it('concurrency equal to the slots keeps every slot busy', () => {
    expect(busiest).toBe(server.slots);
  });
});

describe('rca-summarize --view section_summary against llama-server', () => {
  it('writes every section summary bottom-up, each reply complete under the bounded grammar', async () => {
    const sections = join(dir, 'sections.jsonl');
    const chunks = tag(['test/fixtures/written/sop_afw_012.jsonl'], join(dir, 'sections-in.jsonl'), 2);
    writeFileSync(sections, execFileSync(process.execPath, [join(ROOT, 'bin/rca-count-sections'), chunks], { encoding: 'utf8' }));
    const r = await runBin('rca-summarize', openAiArgs(server.url, '--view', 'section_summary', '--bottom-up', '--concurrency', '2', '--no-cache'), { input: sections });
    expect(r.records.length).toBeGreaterThan(1);
    for (const rec of r.records) {
      const g = rec.generation.section_summary;
      expect(g.error, rec.section_id).toBeNull();
      expect(g.done_reason).toBe('stop');
      expect(g.tokens.prompt).toBeGreaterThan(100);
      expect(checkerFor('section_summary')(rec.section_summary)).toBeNull();
      expect(rec.embedding_text.section_summary).toContain('SUMMARY: ');
    }
    summary.sections = { ...tally(r.records, ['section_summary']), records: r.records.length, seconds: r.seconds };
  });
});

describe('the ladder and the run on a real engine', () => {
  it('finish_reason "length" takes the cut path', async () => {
    const input = tag(['test/fixtures/written/sop_afw_012.jsonl'], join(dir, 'one.jsonl'), 1);
    const r = await runBin('rca-generate', openAiArgs(server.url, '--views', 'rca_frame', '--max-output-tokens', '8', '--max-tries', '2', '--no-cache'), { input });
    expect(r.code).toBe(1);
    const g = r.records[0]!.generation.rca_frame;
    expect(g).toMatchObject({ attempts: 2, done_reason: 'length', tokens: { output: 16 }, error: { code: 'REPLY_CUT', attempts: 2 } });
    expect(r.stderr).toContain('REPLY_CUT: reply cut at the output token limit (--max-output-tokens 8)');
  });

  it('a prompt longer than the slot\'s context: 400 exceed_context_size_error is PROMPT_TOO_LONG, and the cut-text attempt fits', async () => {
    const record = JSON.parse(readFileSync(tag(['test/fixtures/written/sop_afw_012.jsonl'], join(dir, 'long-src.jsonl'), 1), 'utf8'));
    // Each slot has 4096 tokens (-c 8192 -np 2); about 20,000 characters of text do not fit.
    record.text = `${record.text}\n`.repeat(Math.ceil(20_000 / (record.text.length + 1)));
    const input = join(dir, 'long.jsonl');
    writeFileSync(input, JSON.stringify(record) + '\n');
    const r = await runBin('rca-generate', openAiArgs(server.url, '--views', 'rca_frame', '--no-cache', '--truncate-chars', '2000'), { input });
    const g = r.records[0]!.generation.rca_frame;
    expect(g.error).toBeNull();
    // Attempt 1 is refused (PROMPT_TOO_LONG); the cut-text attempts after it reach the model, whose
    // gibberish is then flagged by the evidence checks and asked again up to --max-tries.
    expect(g.attempts).toBeGreaterThanOrEqual(2);
    expect(r.records[0]!.rca_frame).not.toBeNull();
    expect(g.text_cut).toMatchObject({ text_chars: record.text.length });
    expect(g.text_cut.kept_chars).toBeLessThanOrEqual(2000);
    expect(g.tokens.prompt).toBeLessThan(4096);
  });

  it('a cached re-run sends nothing', async () => {
    const cache = join(dir, 'cache.sqlite');
    const args = openAiArgs(server.url, '--views', 'rca_frame', '--cache', cache, '--concurrency', '2', '--flags-ok');
    const input = tag(['test/fixtures/written/eca_2026_0007.jsonl'], join(dir, 'eca.jsonl'), 2);
    const once = await runBin('rca-generate', args, { input });
    // The tiny model's rca_frame is within the contract but gibberish: the evidence checks flag it
    // (unsupported items), and the flagged outcome of the whole ladder is what the cache keeps.
    expect(once.records.every((r) => r.flags.rca_frame.some((f: string) => f.startsWith('unsupported_item:')))).toBe(true);
    const before = (await server.slotStates()).map((s) => s.id_task);
    const again = await runBin('rca-generate', args, { input });
    expect(again.code).toBe(0);
    expect(again.records.map((r) => r.generation.rca_frame.cached)).toEqual([true, true]);
    expect(again.records.map((r) => r.rca_frame)).toEqual(once.records.map((r) => r.rca_frame));
    // No slot ran a task since: the server saw no request.
    expect((await server.slotStates()).map((s) => s.id_task)).toEqual(before);
  });

  it('Ctrl-C mid-run: exit 130, the records done so far in order, and the server stops generating', async () => {
    const r = await runBin('rca-generate', openAiArgs(server.url, '--concurrency', '2', '--no-cache'), {
      input: tagged,
      // After the first record is out, with requests in flight.
      interruptWhen: ({ stdout }) => stdout.includes('\n'),
    });
    expect(r.code).toBe(130);
    expect(r.records.length).toBeGreaterThan(0);
    expect(r.records.length).toBeLessThan(readFileSync(tagged, 'utf8').trim().split('\n').length);
    const ids = readFileSync(tagged, 'utf8').trim().split('\n').map((l) => JSON.parse(l).chunk_id);
    expect(r.records.map((rec) => rec.chunk_id)).toEqual(ids.slice(0, r.records.length));
    // The cancelled requests were closed, and llama-server drops a request whose client went away.
    const deadline = Date.now() + 10_000;
    let busy = Infinity;
    while (Date.now() < deadline && busy > 0) {
      busy = (await server.slotStates()).filter((s) => s.is_processing).length;
      if (busy > 0) await new Promise((res) => setTimeout(res, 100));
    }
    expect(busy).toBe(0);
  });
});

// The sample corpus's first six chunks, and six real ones: every twentieth chunk of the real-text
// set's event reports and notices (hard-wrapped, longer, form fields), picked before tagging.
const STYLE_CORPORA = [
  { name: 'sample', lines: () => readFileSync(join(ROOT, 'examples/sample-corpus.jsonl'), 'utf8').trim().split('\n').slice(0, 6) },
  {
    name: 'real text',
    lines: () => ['events', 'notices'].flatMap((f) => readFileSync(join(ROOT, `test/fixtures/realtext/${f}.chunks.jsonl`), 'utf8').trim().split('\n').filter((_, i) => i % 20 === 0).slice(0, 3)),
  },
];

describe.each(STYLE_CORPORA)('prompt styles on the engine: what it computes per chunk ($name)', ({ name, lines }) => {
  // Both styles over the same chunks, each on a fresh server, --max-tries 1: each view is its first
  // request. bench/engine-tokens.mjs measures the whole sample corpus and 24 real chunks (BENCHMARKS.md).
  const key = name.replace(' ', '-');
  const input = () => {
    const picked = join(dir, `styles-${key}.chunks.jsonl`);
    writeFileSync(picked, lines().join('\n') + '\n');
    return tag([picked], join(dir, `styles-${key}.jsonl`));
  };
  const runStyle = async (args: string[], style: string) => {
    const fresh = await startLlamaServer({ bin, logFile: join(dir, `style-${key}-${style}.log`), slots: 2, ctx: 16384 });
    try {
      return await runBin('rca-generate', openAiArgs(fresh.url, '--concurrency', '2', '--max-tries', '1', '--no-cache', '--flags-ok', ...args), { input: input() });
    } finally {
      await fresh.stop();
    }
  };

  it('compact asks for fewer engine tokens than the seed layout, serves most of a warm prompt from the cache, and stores views within their contracts', async () => {
    const dackar = await runStyle(['--prompt-style', 'dackar'], 'dackar');
    const compact = await runStyle([], 'compact');
    const d = tally(dackar.records, VIEWS);
    const c = tally(compact.records, VIEWS);
    // Engine tokens: prompt tokens computed (not from the cache) and output tokens.
    const engine = (t: typeof d) => t.promptTokens - t.cachedTokens + t.outputTokens;
    expect(engine(c)).toBeLessThan(engine(d));
    expect(c.outputTokens).toBeLessThan(d.outputTokens);
    // After the first chunk (each slot's first request meets an empty cache), the chunk-independent
    // head comes from the cache: at least half of the prompt tokens.
    const warm = tally(compact.records.slice(1), VIEWS);
    expect(warm.cachedTokens / warm.promptTokens).toBeGreaterThanOrEqual(0.5);
    for (const r of [dackar, compact]) {
      for (const rec of r.records) for (const view of VIEWS) if (rec[view] !== null) expect(checkerFor(view)(rec[view])).toBeNull();
    }
    const styles = { dackar: d, compact: c, engineRatio: engine(c) / engine(d), warmCacheShare: warm.cachedTokens / warm.promptTokens };
    summary[name === 'sample' ? 'styles' : 'stylesRealText'] = styles;
  });
});

describe('a server started after rca', () => {
  it('is waited for: connection refused, then 503 "Loading model", then the run', async () => {
    const port = await freePort();
    const input = tag(['test/fixtures/written/eca_2026_0007.jsonl'], join(dir, 'late.jsonl'), 1);
    const run = runBin('rca-generate', openAiArgs(`http://127.0.0.1:${port}`, '--views', 'rca_frame', '--no-cache', '--retry-delay', '100', '--give-up-after', '60'), { input });
    await new Promise((r) => setTimeout(r, 1_500));
    const late = await startLlamaServer({ bin, logFile: join(dir, 'late-server.log'), port, slots: 1, ctx: 4096, waitReady: false });
    try {
      const r = await run;
      expect(r.stderr).not.toMatch(/^rca-generate: cannot reach/m);
      // Exit 1: the gibberish view is flagged; what matters here is that it was generated.
      expect(r.code).toBeLessThanOrEqual(1);
      expect(r.records[0]!.generation.rca_frame.error).toBeNull();
      expect(r.records[0]!.rca_frame).not.toBeNull();
      expect(r.stderr).toMatch(/waited [\d.]+ s for the server at http:\/\/127\.0\.0\.1:\d+ to start \(\d+ tries; last: /);
    } finally {
      await late.stop();
    }
  });
});
