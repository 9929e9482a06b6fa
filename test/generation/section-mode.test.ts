// --view section_summary against the fake Ollama server: a model that reads the section prompt and
// writes a faithful summary of what it was shown, so that the tests can check what each prompt held.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import countSections from '../../src/transforms/count-sections.js';
import { buildSectionPrompt } from '../../src/views/section-prompt.js';
import type { SectionInput } from '../../src/views/section-view.js';
import { FAKE_CHARS_PER_TOKEN, startFakeOllama, type FakeOllama, type FakeReply, type FakeRequest } from '../support/fake-ollama.js';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.js';
import { runInProcess } from '../support/run-in-process.js';
import { closeServers, run, runWith, stableStderr, tempCache } from './support/harness.js';
import { parseLines, taggedLines } from './support/inputs.js';

interface SectionPrompt {
  sectionId: string;
  text: string;
  children: { title: string; summary: string }[];
  /** The count of the line standing in for children left out (CHILD_SUMMARIES bounded), else 0. */
  omitted: number;
  skeleton: Record<string, unknown>;
  feedback: string | null;
}

const OUTPUT_HEADER = '\n\nOUTPUT JSON (exact keys/types):\n';
const CHILDREN_HEADER = '\n\nCHILD_SUMMARIES (one line per subsection: its title, then its summary):\n';

function parseSectionPrompt(body: any): SectionPrompt {
  const prompt = String(body?.messages?.[0]?.content ?? '');
  const outputAt = prompt.indexOf(OUTPUT_HEADER);
  const childrenAt = prompt.indexOf(CHILDREN_HEADER);
  const textAt = prompt.indexOf('\nSECTION_TEXT:\n') + '\nSECTION_TEXT:\n'.length;
  // The compact prompt has its skeleton before CONTEXT and the text and children last.
  const contextAt = prompt.indexOf('\n\nCONTEXT:\n');
  const compact = outputAt < contextAt;
  const end = compact ? prompt.length : outputAt;
  const lines = childrenAt < 0 ? [] : prompt.slice(childrenAt + CHILDREN_HEADER.length, end).split('\n');
  const start = prompt.indexOf('You are an information extraction engine');
  return {
    sectionId: /^section_id: (.*)$/m.exec(prompt)?.[1] ?? '?',
    text: prompt.slice(textAt, childrenAt < 0 ? end : childrenAt),
    children: lines.filter((l) => l.startsWith('- ')).map((l) => /^- (.*?): (.*)$/.exec(l)!).map((m) => ({ title: m[1]!, summary: m[2]! })),
    omitted: Number(/^\(… (\d+) more child sections? not shown\)$/m.exec(lines.join('\n'))?.[1] ?? 0),
    skeleton: JSON.parse(compact ? prompt.slice(outputAt + OUTPUT_HEADER.length, contextAt) : prompt.slice(outputAt + OUTPUT_HEADER.length)),
    feedback: start > 0 ? prompt.slice(0, start).trim() : null,
  };
}

const WORD_RE = /[A-Za-z][A-Za-z-]{3,}/g;

/** What a careful model writes: the leading words of what it was shown, and words of it as concepts. */
function faithfulSummary(p: SectionPrompt): Record<string, unknown> {
  const own = p.text.startsWith('(none:') ? '' : p.text;
  const shown = [own, ...p.children.map((c) => c.summary)].join(' ').replace(/\s+/g, ' ').trim();
  const concepts = [...new Set((shown.match(WORD_RE) ?? []).map((w) => w.toLowerCase()))].slice(0, 6);
  return { ...p.skeleton, summary: shown.split(' ').slice(0, 150).join(' '), concepts };
}

interface SectionModel {
  respond(req: FakeRequest): FakeReply;
  seen: SectionPrompt[];
}

/** `fail`: section ids answered with a 400 (not retried: the view fails); `delay`: ms per section id. */
function sectionModel(opts: { fail?: Set<string>; delay?: (id: string) => number; firstBad?: Set<string> } = {}): SectionModel {
  const seen: SectionPrompt[] = [];
  return {
    seen,
    respond(req) {
      const p = parseSectionPrompt(req.body);
      const again = seen.some((s) => s.sectionId === p.sectionId);
      seen.push(p);
      if (opts.fail?.has(p.sectionId)) return { fault: 'error400' };
      // A first reply whose concept is not in the text: the ladder retries with feedback.
      if (opts.firstBad?.has(p.sectionId) && !again) {
        const good = faithfulSummary(p);
        return { content: JSON.stringify({ ...good, concepts: ['flux capacitor', ...(good.concepts as string[]).slice(1)] }) };
      }
      const content = JSON.stringify(faithfulSummary(p));
      const delayMs = opts.delay?.(p.sectionId) ?? 0;
      return delayMs > 0 ? { fault: 'slowHeaders', content, delayMs } : { content };
    },
  };
}

const servers: FakeOllama[] = [];
const openAiServers: FakeOpenAi[] = [];
async function serveSections(model: SectionModel, slots = 4): Promise<FakeOllama> {
  const server = await startFakeOllama({ respond: model.respond, slots });
  servers.push(server);
  return server;
}

const SENTENCES = [
  'Operators started the auxiliary feedwater pump for the quarterly test.',
  'Discharge pressure reached 1175 psig and flow held at 465 gpm.',
  'Vibration on the outboard bearing rose above the alert limit.',
  'Maintenance realigned the coupling and replaced the bearing.',
  'The post-maintenance test met every acceptance criterion.',
];

/** Chunks of `docs` documents, each with chapters × sections, and intro text on odd chapters. */
function chunkLines(docs: number, chapters: number, sections: number): string {
  const out: string[] = [];
  let n = 0;
  for (let d = 0; d < docs; d++) {
    for (let c = 1; c <= chapters; c++) {
      const chapter = `Doc ${d} > Chapter ${c}`;
      if (c % 2 === 1) out.push(JSON.stringify({ doc_id: `doc-${d}`, chunk_id: `c${n++}`, section_path: chapter, text: `Chapter ${c} covers the pump. ${SENTENCES[c % 5]}` }));
      for (let s = 1; s <= sections; s++) {
        const text = `${SENTENCES[(c + s) % 5]} ${SENTENCES[(c + s + 1) % 5]} Section ${c}.${s} ends here.`;
        out.push(JSON.stringify({ doc_id: `doc-${d}`, chunk_id: `c${n++}`, section_path: `${chapter} > Section ${c}.${s}`, text }));
      }
    }
  }
  return out.join('\n') + '\n';
}

async function sectionLines(docs = 2, chapters = 3, sections = 3): Promise<string> {
  const r = await runInProcess(countSections, [chunkLines(docs, chapters, sections)]);
  if (r.code !== 0) throw new Error(r.stderr);
  return r.stdout;
}

beforeAll(() => {
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(async () => {
  await Promise.all([...servers.splice(0), ...openAiServers.splice(0)].map((s) => s.close()));
  await closeServers();
});
afterAll(() => {
  vi.restoreAllMocks();
});

describe('--view section_summary --bottom-up against the fake server', () => {
  it.each([1, 4])("a parent's prompt holds its children's summaries; every record once, in order (--concurrency %i)", async (concurrency) => {
    const model = sectionModel({ delay: (id) => (id.charCodeAt(id.length - 1) * 7) % 40 });
    const server = await serveSections(model, 4);
    const input = await sectionLines();
    const r = await run('summarize', server, input, ['--view', 'section_summary', '--bottom-up', '--concurrency', String(concurrency)]);
    expect(stableStderr(r.stderr)).toMatch(/^rca-summarize: 26 records: views 26 ok, 0 flagged, 0 failed; 26 attempts, 0 transport retries; tokens [\d,]+ in \/ [\d,]+ out\nrca-summarize: grounding: 316 items: exact [\d.]+%, normalised [\d.]+%, partial [\d.]+%, none 0\.0%\n$/);
    expect(r.code).toBe(0);
    const records = parseLines(input);
    const out = parseLines(r.stdout);
    // Nothing lost, nothing added, input order.
    expect(out.map((o) => o.section_id)).toEqual(records.map((o) => o.section_id));
    const byId = new Map(out.map((o) => [o.section_id as string, o]));
    for (const rec of out) {
      expect(rec.section_summary).toMatchObject({ section_id: rec.section_id, doc_id: rec.doc_id, view_type: 'section_summary', chunk_count: rec.total_count });
      expect(rec.view_flags).toEqual({ section_summary: [] });
      expect(rec.flags).toEqual([]); // count-sections' own list, untouched
      expect(rec.generation.section_summary).toMatchObject({ backend: 'ollama', attempts: 1, error: null, children_missing: 0 });
      expect(rec.embedding_text.section_summary).toBe(`SECTION: ${rec.section_path}\nSUMMARY: ${rec.section_summary.summary}\nCONCEPTS: ${rec.section_summary.concepts.join(', ')}`);
      // The prompt of this section showed exactly its children's summaries, in input order.
      const prompt = model.seen.find((p) => p.sectionId === rec.section_id)!;
      const children = out.filter((o) => o.parent_id === rec.section_id);
      expect(children).toHaveLength(rec.child_count);
      expect(prompt.children).toEqual(children.map((c) => ({ title: c.title, summary: c.section_summary.summary })));
      if (rec.parent_id !== null) expect(byId.get(rec.parent_id)?.section_summary).toBeTruthy();
    }
    // A chapter without text of its own is summarised from its sections.
    const chapter2 = out.find((o) => o.section_path === 'Doc 0 > Chapter 2')!;
    expect(chapter2.text).toBe('');
    expect(chapter2.section_summary.summary).toContain('Section 2.1 ends here.');
    expect(model.seen).toHaveLength(26);
  });

  it('a failed child is left out of its parent\'s prompt and counted in children_missing', async () => {
    const input = await sectionLines(1, 2, 3);
    const failing = parseLines(input).find((o) => o.section_path === 'Doc 0 > Chapter 1 > Section 1.2')!;
    const model = sectionModel({ fail: new Set([failing.section_id]) });
    const server = await serveSections(model);
    const r = await run('summarize', server, input, ['--view', 'section_summary', '--bottom-up']);
    expect(r.code).toBe(1);
    const out = parseLines(r.stdout);
    const failed = out.find((o) => o.section_id === failing.section_id)!;
    expect(failed.section_summary).toBeNull();
    expect(failed.generation.section_summary.error).toMatchObject({ code: 'HTTP_400' });
    expect(failed.view_flags).toEqual({});
    expect(failed.embedding_text.section_summary).toBe('');
    const chapter = out.find((o) => o.section_path === 'Doc 0 > Chapter 1')!;
    expect(chapter.generation.section_summary.children_missing).toBe(1);
    expect(model.seen.find((p) => p.sectionId === chapter.section_id)!.children.map((c) => c.title)).toEqual(['Section 1.1', 'Section 1.3']);
    expect(stableStderr(r.stderr)).toContain("rca-summarize: 1 child is missing from their parents' prompts (failed, rejected or not in the input)");
    expect(stableStderr(r.stderr)).toContain(`section_summary: failed after 1 attempt: HTTP_400`);
  });

  it('a reply with an ungrounded concept is retried with feedback naming SECTION_TEXT', async () => {
    const input = await sectionLines(1, 1, 1);
    const leaf = parseLines(input)[0]!;
    const model = sectionModel({ firstBad: new Set([leaf.section_id]) });
    const server = await serveSections(model);
    const r = await run('generate', server, input, ['--view', 'section_summary']);
    expect(r.code).toBe(0);
    const retry = model.seen.filter((p) => p.sectionId === leaf.section_id)[1]!;
    expect(retry.feedback).toBe(
      'Your previous reply failed these checks: the concept "flux capacitor" does not occur in SECTION_TEXT; copy each concept exactly as written there. Reply with the whole corrected JSON object, shaped exactly like OUTPUT JSON, and nothing else.',
    );
    expect(parseLines(r.stdout)[0]!.generation.section_summary.attempts).toBe(2);
  });

  it('without --bottom-up, prompts hold no child summaries and headings without text pass through', async () => {
    const model = sectionModel();
    const server = await serveSections(model);
    const input = await sectionLines(1, 2, 2);
    const r = await run('generate', server, input, ['--view', 'section_summary']);
    expect(r.code).toBe(0);
    const out = parseLines(r.stdout);
    const chapter2 = out.find((o) => o.section_path === 'Doc 0 > Chapter 2')!;
    expect(chapter2.section_summary).toBeUndefined();
    expect(model.seen.every((p) => p.children.length === 0)).toBe(true);
    expect(out.filter((o) => o.section_summary).every((o) => !('children_missing' in o.generation.section_summary))).toBe(true);
    expect(stableStderr(r.stderr)).toContain(
      'rca-generate: 2 sections have no text of their own and no child summary: passed through without a section_summary (--bottom-up summarises them from their subsections)',
    );
  });

  it('a second run is answered by the cache, parents keyed by their children; its output fed back passes through', async () => {
    const model = sectionModel();
    const server = await serveSections(model);
    const input = await sectionLines(1, 2, 2);
    const cache = tempCache();
    const args = ['--view', 'section_summary', '--bottom-up', '--cache', cache];
    const first = await run('summarize', server, input, args);
    const second = await run('summarize', server, input, args);
    expect(first.code).toBe(0);
    expect(model.seen).toHaveLength(7);
    expect(second.stdout.replaceAll('"cached":true', '"cached":false')).toBe(first.stdout);
    expect(stableStderr(second.stderr)).toContain('views 7 ok, 0 flagged, 0 failed (7 from the cache)');
    const resumed = await run('summarize', server, first.stdout, args);
    expect(resumed.stdout).toBe(first.stdout);
    expect(stableStderr(resumed.stderr)).toContain('7 records (7 already done, passed through)');
    expect(model.seen).toHaveLength(7);

    // A section whose text changed is asked again, and so is every ancestor (their prompts hold its
    // new summary, so their keys changed); the other sections come from the cache.
    const edited = parseLines(input).map((rec) => (rec.section_path === 'Doc 0 > Chapter 1 > Section 1.1' ? { ...rec, text: `${rec.text} The seal leaked.` } : rec));
    const third = await run('summarize', server, edited.map((rec) => JSON.stringify(rec)).join('\n') + '\n', args);
    expect(third.code).toBe(0);
    expect(model.seen.slice(7).map((p) => edited.find((rec) => rec.section_id === p.sectionId)!.section_path)).toEqual(['Doc 0 > Chapter 1 > Section 1.1', 'Doc 0 > Chapter 1', 'Doc 0']);
    expect(stableStderr(third.stderr)).toContain('views 7 ok, 0 flagged, 0 failed (4 from the cache)');
  });

  it('a parent with too many children for --num-ctx gets the first that fit and a count line, recorded and said', async () => {
    // One chapter of 80 sections: its children's summaries alone are over the server's 2048
    // tokens, so cutting the chapter's own text could never make the prompt fit (PROMPT_TOO_LONG on
    // every attempt); bounding CHILD_SUMMARIES does.
    const model = sectionModel();
    const server = await serveSections(model);
    const input = await sectionLines(1, 1, 80);
    const args = ['--view', 'section_summary', '--bottom-up', '--num-ctx', '2048', '--max-output-tokens', '300', '--cache', tempCache()];
    const r = await run('summarize', server, input, args);
    expect(r.code).toBe(0);
    const out = parseLines(r.stdout);
    const chapter = out.find((o) => o.section_path === 'Doc 0 > Chapter 1')!;
    const children = out.filter((o) => o.parent_id === chapter.section_id);
    expect(children).toHaveLength(80);
    const shown = children.map((c) => ({ title: c.title, summary: c.section_summary.summary }));
    const unbounded = buildSectionPrompt({ ...chapter, text: '' } as SectionInput, shown).prompt;
    expect(unbounded.length / FAKE_CHARS_PER_TOKEN).toBeGreaterThan(2048);

    const g = chapter.generation.section_summary;
    expect(g).toMatchObject({ attempts: 1, error: null, children_missing: 0 });
    expect(chapter.section_summary.summary.length).toBeGreaterThan(0);
    const prompt = model.seen.find((p) => p.sectionId === chapter.section_id)!;
    const kept = g.children_cut.kept_children;
    expect(g.children_cut).toMatchObject({ children: 80 });
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(80);
    expect(g.children_cut.kept_chars).toBeLessThan(g.children_cut.child_chars);
    // The first children, in order, then the count of the rest.
    expect(prompt.children).toEqual(shown.slice(0, kept));
    expect(prompt.omitted).toBe(80 - kept);
    expect(server.stats.faults.contextExceeded ?? 0).toBe(0);
    expect(stableStderr(r.stderr)).toMatch(
      new RegExp(`rca-summarize: stdin:\\d+: section_summary: prompt of about \\d+ tokens does not fit --num-ctx minus --max-output-tokens \\(1748\\): child summaries cut to \\d+ characters: ${kept} of 80 shown, ${80 - kept} left out \\(children_cut\\)\n`),
    );
    // Sections whose children fit have no children_cut. The prompt is byte-identical from run to
    // run, so the second run is answered by the cache, and the replayed record says the same cut.
    expect(out.filter((o) => o.section_summary && o.section_id !== chapter.section_id).every((o) => !('children_cut' in o.generation.section_summary))).toBe(true);
    const asked = model.seen.length;
    const again = await run('summarize', server, input, args);
    expect(model.seen).toHaveLength(asked);
    expect(again.stdout.replaceAll('"cached":true', '"cached":false')).toBe(r.stdout);
  });

  it('an OpenAI-compatible server that answers "exceeds the context": the cut-text attempt bounds the children to --truncate-chars', async () => {
    // No pre-send estimate here (the server fixed its context); the 400 is PROMPT_TOO_LONG, and
    // the next attempt cuts the text and the children alike.
    const model = sectionModel();
    const limitChars = 8000;
    const server = await startFakeOpenAi({
      respond: (req) => {
        const prompt = String(req.body?.messages?.[0]?.content ?? '');
        if (prompt.length <= limitChars) return model.respond(req);
        const message = `request (${Math.ceil(prompt.length / FAKE_CHARS_PER_TOKEN)} tokens) exceeds the available context size (2000 tokens), try increasing it`;
        return { fault: { status: 400, body: JSON.stringify({ error: { code: 400, message, type: 'exceed_context_size_error' } }) } };
      },
    });
    openAiServers.push(server);
    const input = await sectionLines(1, 1, 80);
    const r = await runWith('summarize', input, ['--backend', 'openai', '--base-url', `${server.url}/v1`, '--view', 'section_summary', '--bottom-up', '--truncate-chars', '3000']);
    expect(r.code).toBe(0);
    const chapter = parseLines(r.stdout).find((o) => o.section_path === 'Doc 0 > Chapter 1')!;
    const g = chapter.generation.section_summary;
    expect(g).toMatchObject({ attempts: 2, error: null, children_cut: { children: 80 } });
    expect(g.children_cut.kept_chars).toBeLessThanOrEqual(3000);
    const prompt = model.seen.find((p) => p.sectionId === chapter.section_id)!;
    expect(prompt.children).toHaveLength(g.children_cut.kept_children);
    expect(prompt.omitted).toBe(80 - g.children_cut.kept_children);
    expect(stableStderr(r.stderr)).toContain(`section_summary: child summaries cut to 3000 characters (--truncate-chars, the cut-text attempt): ${g.children_cut.kept_children} of 80 shown`);
  });

  it('--dry-run writes the section request: the section_summary schema as format, the section prompt', async () => {
    const input = await sectionLines(1, 1, 1);
    const r = await run('generate', 'http://127.0.0.1:9', input, ['--view', 'section_summary', '--dry-run']);
    expect(r.code).toBe(0);
    const [leaf] = parseLines(r.stdout);
    // The compact format holds the content fields only: rca stamps section_id, view_type and the rest.
    expect(Object.keys(leaf!.requests.section_summary.format.properties)).toEqual(['summary', 'concepts']);
    expect(leaf!.requests.section_summary.prompt).toContain(`CONTEXT:\nsection_id: ${leaf!.section_id}\n`);
  });
});

describe('--bottom-up on input not in count-sections order', () => {
  it('parents that come first get no child summaries, and the run says why', async () => {
    const input = parseLines(await sectionLines(1, 1, 2)).reverse();
    const r = await run('generate', 'http://127.0.0.1:9', input.map((rec) => JSON.stringify(rec)).join('\n') + '\n', ['--view', 'section_summary', '--bottom-up', '--backend', 'extractive', '--flags-ok']);
    expect(r.code).toBe(0);
    const out = parseLines(r.stdout);
    // The document root (no text of its own) now has nothing to be summarised from.
    expect(out[0]).toMatchObject({ section_path: 'Doc 0', text: '' });
    expect(out[0]!.section_summary).toBeUndefined();
    const summarised = out.slice(1);
    expect(summarised.map((o) => o.generation.section_summary.children_missing)).toEqual(summarised.map((o) => o.child_count));
    expect(r.stderr).toContain("rca-generate: 2 children are missing from their parents' prompts (failed, rejected or not in the input)");
    expect(r.stderr).toContain("rca-generate: 3 sections found no parent after them: --bottom-up needs rca-count-sections' order (children before their parent, one document at a time)");
  });
});

describe('--view section_summary: what it refuses', () => {
  it('tagged chunks are rejected with NOT_A_SECTION; a broken section with BAD_SECTION', async () => {
    const chunks = (await taggedLines(1)).trim();
    const broken = JSON.stringify({ kind: 'section', section_id: 's', doc_id: 'd' });
    const r = await run('summarize', 'http://127.0.0.1:9', `${chunks}\n${broken}\n`, ['--view', 'section_summary', '--backend', 'extractive']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('rca-summarize: stdin:1: NOT_A_SECTION: record is not a section (it looks like a chunk): --view section_summary reads rca-count-sections output');
    expect(r.stderr).toContain('rca-summarize: stdin:2: BAD_SECTION: $.section_path: missing');
  });

  it.each<[string[], string]>([
    [['--bottom-up'], '--bottom-up works with --view section_summary'],
    [['--view', 'section_summary', '--views', 'rca_frame'], '--views names chunk views and --view section_summary summarises sections: give one or the other'],
    [['--view', 'rca_frame'], "--view must be one of section_summary; got 'rca_frame'"],
    [['--view', 'section_summary', '--combined'], '--combined joins the chunk views; a section has one view, its embedding text is already whole'],
  ])('%j is a usage error', async (args, message) => {
    const r = await run('summarize', 'http://127.0.0.1:9', '', ['--backend', 'extractive', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`rca-summarize: ${message}`);
  });
});
