#!/usr/bin/env node
// The adversarial corpus: for each rule family, text built to attack it (runs of capital words,
// separators, digits, brackets, repeated cues, very long tokens), at n and 4n characters.
// 1. Rules: the family's own functions in this process (warmed up, best of --runs): linear ≈ 4.
// 2. Stages: every stage's bin on one chunk of that text, CPU time (user + sys) less the same bin's
//    on a one-word chunk (its start-up), so the ratio is the work's own.
// 3. Signals: every stage and rca command that reads records, on small records, then one large
//    record (--signal-mb MiB of the text of the family it is slowest on), then more, its stdin
//    left open; SIGTERM once the records before the large one are out; time from the signal to exit, its status and
//    how many records it wrote. The model stages run against the fake Ollama (bench/fake-model.mjs).
// 4. Rewrites: each pattern rewritten for linear time beside the one it replaced (kept here and in
//    test/patterns/rewrites.property.test.ts only), on its attack at --rewrite-n and 4× that.
// npm test checks the patterns (test/patterns/linear.test.ts); this is where the timings live.
// Usage: node bench/adversarial.mjs [--n 50000] [--runs 3] [--signal-mb 4,16] [--rewrite-n 5000]
//        [--part rules,stages,signals,rewrites] [--signal-only merge,report] (signal rows whose name starts so)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { fmt, machine, ROOT } from './measure.mjs';
import { FAMILIES, familyText } from './adversarial-text.mjs';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '50000' },
    runs: { type: 'string', default: '3' },
    'signal-mb': { type: 'string', default: '4,16' },
    part: { type: 'string', default: 'rewrites,rules,stages,signals' },
    'rewrite-n': { type: 'string', default: '5000' },
    'signal-only': { type: 'string' },
  },
});
const N = Number(values.n);
const runs = Number(values.runs);
const parts = new Set(values.part.split(','));
const load = (rel) => import(pathToFileURL(join(ROOT, 'dist', rel)).href);

function best(fn, input) {
  fn(input);
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    fn(input);
    min = Math.min(min, Number(process.hrtime.bigint() - t) / 1e6);
  }
  return min;
}

console.log(`machine: ${machine()}; n = ${N.toLocaleString('en')} characters; best of ${runs} runs`);

if (parts.has('rewrites')) {
  const RN = Number(values['rewrite-n']);
  const { docIdSpans } = await load('views/extractive.js');
  const { grouped } = await load('generation/stats.js');
  const { withoutTrailingSlashes } = await load('llm/model-client.js');
  const { withoutPositionalHint } = await load('runtime/options.js');
  const { ellipsisStem } = await load('sections/toc.js');
  const { clauseEndAfter, endsAtClauseStart } = await load('tagging/negation.js');
  const { unwrapMarkers } = await load('tagging/section-path.js');
  const { withoutTrailingZeros } = await load('views/evidence-text.js');
  const { quotedPhrases } = await load('views/grounding.js');
  const { strongType } = await load('tagging/doc-type.js');
  const all = (re) => (t) => [...t.matchAll(re)].length;
  const HINT = '. To specify a positional argument';
  const PLANT = String.raw`(?:[-_:][\p{L}\p{N}]+)*?[-_:](?:\p{L}*\p{N})`;
  const id = (p) => `${p}(?:[-_ ]?\\d|${PLANT})`;
  const R = '(?![\\p{L}\\p{N}])';
  const OLD_STRONG = new RegExp(`(?<![\\p{L}\\p{N}])(?:(${id('s?op')})|(${id('cr')}|condition reports?${R})|(${id('wo')}|work orders?${R})|(${id('eca')}|(?:causal evaluations?|event causal)${R})|(${id('(?:fmea|bulletin|oe|inpo|nureg|ler|ier|soer)')}|(?:fmea|failure modes? and effects|bulletin|operating experience)${R}))`, 'u');
  // [pattern, where, old, new, attack of about k characters]
  const rewrites = [
    ['DOC_ID_RE → docIdSpans', 'views/extractive.ts', (t) => t.match(/\b[A-Z]{1,8}(?:[-_ ]?[A-Z0-9]+)*[-_ ]?\d[\w.-]*/g), docIdSpans, (k) => 'A'.repeat(k) + ' x', 20],
    ['THOUSANDS_RE → grouped', 'generation/stats.ts', (t) => t.replace(/\B(?=(\d{3})+(?!\d))/g, ','), grouped, (k) => '1'.repeat(k)],
    ['TRAILING_SLASHES (×3) → withoutTrailingSlashes', 'llm/', (t) => t.replace(/\/+$/, ''), withoutTrailingSlashes, (k) => '/'.repeat(k) + 'x'],
    ['positional hint → withoutPositionalHint', 'runtime/options.ts', (t) => t.replace(/\. To specify a positional argument.*$/, ''), withoutPositionalHint, (k) => `${HINT}x`.repeat(Math.ceil(k / 35)) + '\r'],
    ['ELLIPSIS → ellipsisStem', 'sections/toc.ts', (t) => t.replace(/\s*(?:\u2026|\.{3,})$/u, ''), ellipsisStem, (k) => ' '.repeat(k) + 'x.'],
    ['ALARM_CONTEXT_RE (blank before the optional word)', 'tagging/extractors.ts', (t) => /(?:annunciators?|alarms?|annunciation|window)[ \t\u00A0]*(?:window|panel|point|no\.?|#)?[ \t\u00A0]*$/i.test(t), (t) => /(?:annunciators?|alarms?|annunciation|window)(?:[ \t\u00A0]*(?:window|panel|point|no\.?|#))?[ \t\u00A0]*$/i.test(t), (k) => 'alarm' + ' '.repeat(k) + 'x'],
    ['label trim /^_+|_+$/g → /^_|_$/g', 'tagging/lexicon.ts', (t) => t.replace(/^_+|_+$/g, ''), (t) => t.replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, ''), (k) => '_'.repeat(k) + 'a'],
    ['clause opener → endsAtClauseStart', 'tagging/negation.ts', (t) => /(?:^|[.!?;:|\u2013\u2014\n-]|\sand|\sthen)\s*$/i.test(t), endsAtClauseStart, (k) => 'x' + ' '.repeat(k) + 'x'],
    ['negation clause ends (guarded blank run)', 'tagging/negation.ts', (t) => /[.!?](?=\s|$)|[;:|\n\r]|\s[-\u2013\u2014]\s|[\u2013\u2014]|,?\s+(?:although|but|however|though|whereas|while|yet|except)(?![\p{L}\p{N}_])|,?\s+and\s+(?=(?:is|are|was|were|should|shall|must|has|have|had|will|can|may)(?![\p{L}\p{N}_]))/giu.exec(t), (t) => clauseEndAfter(t, 0), (k) => 'x' + ' '.repeat(k) + 'x'],
    ['CLAUSE_END_RE (guarded blank run)', 'views/evidence-text.ts', all(/[.!?;](?=\s|$)|\n|\|\s*\|(?=\s*[^\s|-])|,?\s+(?:although|but|however|whereas|while|though)\s+/giu), all(/[.!?;](?=\s|$)|\n|\|\s*\|(?=\s*[^\s|-])|(?:,\s+|(?<![\s,])\s+|(?<=\n)[^\S\n]+)(?:although|but|however|whereas|while|though)\s+/giu), (k) => 'x' + ' '.repeat(k) + 'x'],
    ['TRAILING_ZEROS_RE → withoutTrailingZeros', 'views/evidence-text.ts', (t) => t.replace(/^(\d+)\.(\d*?)0+$/, '$1'), withoutTrailingZeros, (k) => '1.' + '0'.repeat(k) + '1'],
    ['SENTENCE_END_RE (from a run start only)', 'views/extractive.ts', all(/[.!?]+["'\u201d\u2019)\]]*(?=\s)/g), all(/(?<![.!?])[.!?]+["'\u201d\u2019)\]]*(?=\s)/g), (k) => '!'.repeat(k) + 'x'],
    ['QUOTE_RE (curly phrase without blank trade)', 'views/grounding.ts', all(/(?<![\p{L}\p{N}])"(?=\S)([^"\n]*?\S)"(?![\p{L}\p{N}])|\u201c\s*([^\u201c\u201d\n]*?\S)\s*\u201d/gu), quotedPhrases, (k) => '\u201c' + ' '.repeat(k) + 'x'],
    ['STRONG_RE → unwrapMarkers', 'tagging/section-path.ts', (t) => t.replace(/(\*\*|__)(?=\S)((?:[^]*?\S)?)\1/g, '$2'), (t) => unwrapMarkers(t, { markers: ['**', '__'], empty: true, lines: true }), (k) => '**a '.repeat(Math.ceil(k / 4))],
    ['EMPHASIS_RE → unwrapMarkers', 'views/view-skeleton.ts', (t) => t.replace(/(\*\*|__|\*|_)(?=\S)(.+?)(?<=\S)\1/g, '$2'), (t) => unwrapMarkers(t, { markers: ['**', '__', '*', '_'], empty: false, lines: false }), (k) => '*a '.repeat(Math.ceil(k / 3))],
    ['strong doc-type regex → strongType', 'tagging/doc-type.ts', (t) => OLD_STRONG.exec(t), strongType, (k) => 'cr-'.repeat(Math.ceil(k / 3))],
  ];
  console.log(`\n### Rewritten patterns, before and after (attack of n = ${RN.toLocaleString('en')} characters and 4n)\n`);
  console.log('| pattern | file | old ms at n | old ms at 4n | old ratio | new ms at n | new ms at 4n | new ratio |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [name, where, oldFn, newFn, attack, nOverride] of rewrites) {
    const n = nOverride ?? RN;
    const small = attack(n);
    const large = attack(4 * n);
    // The exponential one is not run at 4n: 2^(4n) steps.
    const oa = best(oldFn, small);
    const ob = nOverride ? null : best(oldFn, large);
    const na = best(newFn, small);
    const nb = best(newFn, large);
    const ratio = (a, b) => (a < 0.05 ? '(under 0.05 ms)' : fmt(b / a));
    console.log(`| ${name} | ${where} | ${fmt(oa, 2)} | ${ob === null ? `not run (exponential; n = ${n})` : fmt(ob, 2)} | ${ob === null ? '—' : ratio(oa, ob)} | ${fmt(na, 3)} | ${fmt(nb, 3)} | ${ratio(na, nb)} |`);
  }
}

if (parts.has('rules')) {
  const { extractPatterns } = await load('tagging/extractors.js');
  const { negationScopes } = await load('tagging/negation.js');
  const { extractiveView } = await load('views/extractive.js');
  const { recoverJson } = await load('views/json-recovery.js');
  const { NER_SEED_KEYS } = await load('contracts/vocabulary.js');
  const { normaliseSegments, stripMarkdown } = await load('tagging/section-path.js');
  const { detectDocType } = await load('tagging/doc-type.js');
  const { quotedPhrases, GroundingText } = await load('views/grounding.js');
  const EMPTY_SEED = Object.fromEntries(NER_SEED_KEYS.map((k) => [k, []]));
  const CTX = { doc_id: 'D1', doc_type: 'SOP', chunk_id: 'D1:0', section_path: 'A > B', page_start: null, page_end: null, authority_level: 'informational', section_role: 'unknown' };
  const views = (text) => {
    for (const view of ['retrieval_summary', 'rca_frame']) extractiveView(view, { context: CTX, nerSeed: EMPTY_SEED, text });
  };
  const rows = [
    ['ids', 'extractPatterns', extractPatterns],
    ['references', 'extractPatterns', extractPatterns],
    ['references', 'detectDocType (as a doc name)', (t) => detectDocType({ docName: t.toLowerCase() })],
    ['references', 'extractive views', views],
    ['measurements', 'extractPatterns', extractPatterns],
    ['dates', 'extractPatterns', extractPatterns],
    ['negation', 'negationScopes', negationScopes],
    ['extractive', 'extractive views', views],
    ['extractive', 'quotedPhrases + grounding', (t) => { quotedPhrases(t); new GroundingText(t); }],
    ['json recovery', 'recoverJson', recoverJson],
    ['section paths', 'normaliseSegments + stripMarkdown', (t) => { normaliseSegments(t.split('\n')); stripMarkdown(t); }],
    ['long tokens', 'extractPatterns', extractPatterns],
    ['long tokens', 'extractive views', views],
  ];
  console.log('\n### Rules\n');
  console.log('| family | rule | ms at n | ms at 4n | ratio (linear ≈ 4) |');
  console.log('|---|---|---|---|---|');
  for (const [family, name, fn] of rows) {
    const a = best(fn, familyText(family, N));
    const b = best(fn, familyText(family, 4 * N));
    console.log(`| ${family} | ${name} | ${fmt(a)} | ${fmt(b)} | ${fmt(b / Math.max(a, 0.001))} |`);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'rca-adversarial-'));
const bin = (name) => join(ROOT, 'bin', name);
const chunk = (family, text) => JSON.stringify({ doc_id: 'ADV', chunk_id: 'ADV:1', text, section_path: family === 'section paths' ? text.slice(0, 4000) : 'Procedure > Steps', page_start: 1 }) + '\n';

/** Runs a bin on input; CPU seconds (user + sys) from /usr/bin/time, and its stdout. */
function cpu(args, input) {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', ...args], { input, maxBuffer: 1 << 30, cwd: ROOT });
  const times = r.stderr.toString().trim().split('\n').pop().split(' ').map(Number);
  return { seconds: times[0] + times[1], stdout: r.stdout.toString(), status: r.status };
}

/** Every stage's input from one raw chunk line: [stage, argv, input]. */
function stageInputs(raw) {
  const tagged = cpu([bin('rca-tag')], raw).stdout;
  const summarized = cpu([bin('rca-summarize'), '--backend', 'extractive', '--no-flatten'], tagged).stdout;
  const sections = cpu([bin('rca-count-sections')], tagged).stdout;
  return [
    ['tag', [bin('rca-tag')], raw],
    ['prompt', [bin('rca-prompt')], tagged],
    ['generate extractive', [bin('rca-generate'), '--backend', 'extractive'], tagged],
    ['validate', [bin('rca-validate')], summarized],
    ['flatten', [bin('rca-flatten')], summarized],
    ['count-sections', [bin('rca-count-sections')], tagged],
    ['summarize extractive', [bin('rca-summarize'), '--backend', 'extractive'], tagged],
    ['export', [bin('rca'), 'export'], sections + tagged],
  ];
}

if (parts.has('stages')) {
  console.log('\n### Stages (CPU s, less the stage on a one-word chunk)\n');
  console.log('| family | stage | s at n | s at 4n | ratio (linear ≈ 4) |');
  console.log('|---|---|---|---|---|');
  const base = new Map(stageInputs(chunk('x', 'x')).map(([stage, args, input]) => [stage, Math.min(...[0, 1, 2].map(() => cpu(args, input).seconds))]));
  for (const family of Object.keys(FAMILIES)) {
    const small = stageInputs(chunk(family, familyText(family, N)));
    const large = stageInputs(chunk(family, familyText(family, 4 * N)));
    for (let i = 0; i < small.length; i++) {
      const [stage, args, input] = small[i];
      const work = (a, inp) => Math.max(0.001, Math.min(...[0, 1].map(() => cpu(a, inp).seconds)) - base.get(stage));
      const a = work(args, input);
      const b = work(large[i][1], large[i][2]);
      console.log(`| ${family} | ${stage} | ${fmt(a, 2)} | ${fmt(b, 2)} | ${a < 0.02 ? '(under 0.02 s at n)' : fmt(b / a)} |`);
    }
  }
}

/**
 * Starts the stage on input and keeps its stdin open (so only the signal ends it); sends SIGTERM
 * as soon as the `before` records before the large one are out and it has read the large line, or `after` s after the start for
 * a stage that writes at the end, or reads files, not stdin; resolves with the time from the signal
 * to its exit. Those records are written before the large one is handed to the stage (runner.ts),
 * so the signal comes as the stage starts on it: the latency is its whole time, the worst case.
 */
function signalRun(args, input, after = 2, before = 200) {
  return new Promise((resolve) => {
    const child = spawn(args[0], args.slice(1), { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    // Counted, not kept: the parent must read a large record's output as fast as the child writes
    // it, or the child's exit waits on its stdout and the latency is the parent's.
    let newlines = 0;
    let sentAt = null;
    const send = (delay) => {
      if (sentAt !== null) return;
      sentAt = -1;
      setTimeout(() => {
        sentAt = process.hrtime.bigint();
        child.kill('SIGTERM');
      }, delay);
    };
    // Both: the records before are out, and the input is written but for what the pipe holds
    // (64 KiB, less than the records after the large one), so the stage has read the large line.
    let written = false;
    const ready = () => written && newlines >= before && send(0);
    child.stdout.on('data', (d) => {
      for (let at = d.indexOf(10); at >= 0; at = d.indexOf(10, at + 1)) newlines++;
      ready();
    });
    setTimeout(() => send(0), after * 1000);
    child.stderr.resume();
    child.on('close', (code, signal) => {
      const latency = typeof sentAt === 'bigint' ? Number(process.hrtime.bigint() - sentAt) / 1e9 : null;
      resolve({ code: code ?? `killed (${signal})`, latency, lines: newlines });
    });
    child.stdin.on('error', () => {});
    if (input !== null) child.stdin.write(input, () => ((written = true), ready()));
  });
}

// The family each stage is slowest on (CPU of the stage at 4 MiB, before the worker thread: tag
// on negation cues, prompt on the extractive attacks, the view stages on long tokens).
const SLOWEST_FAMILY = { tag: 'negation', prompt: 'extractive', views: 'long tokens' };

if (parts.has('signals')) {
  const sizes = values['signal-mb'].split(',').map(Number);
  const { compileFakeModel, spawnFakeOllama } = await import('./fake-model.mjs');
  compileFakeModel();
  const server = await spawnFakeOllama({
    latencyMs: 20,
    models: [
      { name: 'mistral:latest', digest: 'f'.repeat(64) },
      { name: 'nomic-embed-text:latest', digest: 'e'.repeat(64), capabilities: ['embedding'], dims: 768, contextLength: 8192 },
    ],
  });
  const MAX = ['--max-line-bytes', String(64 << 20)];
  const smallRaw = Array.from({ length: 200 }, (_, i) => JSON.stringify({ doc_id: 'ADV', chunk_id: `ADV:s${i}`, text: `Verify the pump P-${100 + i}A is running.`, section_path: 'Procedure > Steps' }) + '\n').join('');
  const small = stageFiles(smallRaw);
  const lines = (text) => text.split('\n').filter((l) => l !== '');
  /** 200 small records, the large one, 200 more, of one kind (raw, tagged, summarized, sections). */
  const around = (kind, big) => [...lines(small[kind]), ...lines(big[kind]), ...lines(small[kind])].join('\n') + '\n';
  for (const mb of sizes) {
    const big = Object.fromEntries(Object.entries(SLOWEST_FAMILY).map(([use, family]) => [use, stageFiles(chunk(family, familyText(family, mb * 2 ** 20)))]));
    const input = (use, kind) => around(kind, big[use]);
    const file = (use, kind, times) => {
      const path = join(dir, `signal-${mb}-${use}-${kind}.jsonl`);
      writeFileSync(path, Array.from({ length: times }, () => input(use, kind)).join(''));
      return path;
    };
    const model = ['--host', server.url, '--no-cache'];
    const copies = Math.ceil(64 / mb);
    const runs = [
      ['tag', [bin('rca-tag'), ...MAX], input('tag', 'raw')],
      ['tag --jobs 2', [bin('rca-tag'), '--jobs', '2', ...MAX], input('tag', 'raw')],
      ['prompt', [bin('rca-prompt'), ...MAX], input('prompt', 'tagged')],
      ['generate extractive', [bin('rca-generate'), '--backend', 'extractive', ...MAX], input('views', 'tagged')],
      ['generate ollama (fake server)', [bin('rca-generate'), ...model, ...MAX], input('views', 'tagged')],
      ['validate', [bin('rca-validate'), ...MAX], input('views', 'summarized')],
      ['flatten', [bin('rca-flatten'), ...MAX], input('views', 'summarized')],
      // Stages that write at the end (or nothing): the signal as soon as the large line is read.
      ['count-sections', [bin('rca-count-sections'), ...MAX], input('views', 'tagged'), 2, 0],
      ['summarize extractive', [bin('rca-summarize'), '--backend', 'extractive', ...MAX], input('views', 'tagged')],
      ['summarize ollama (fake server)', [bin('rca-summarize'), ...model, ...MAX], input('views', 'tagged')],
      ['embed --text text (fake server)', [bin('rca-embed'), '--host', server.url, '--model', 'nomic-embed-text', '--no-cache', '--text', 'text', ...MAX], input('views', 'tagged')],
      ['export', [bin('rca'), 'export', ...MAX], input('views', 'sections') + input('views', 'tagged'), 2, 0],
      ['index', [bin('rca'), 'index', '--db', join(dir, `signal-${mb}.sqlite`), ...MAX], input('views', 'tagged'), 2, 0],
      // The files hold the large record's 200 + 1 + 200 lines over and over, about 64 MiB in all,
      // so that the signal (0.6 s after the start, once the command is reading) finds it at work.
      ['merge (files)', [bin('rca'), 'merge', '--inputs', file('views', 'raw', copies), '--outputs', file('views', 'tagged', copies)], null, 0.6],
      ['report (a file)', [bin('rca'), 'report', file('views', 'summarized', copies), '--output', join(dir, 'report.html')], null, 0.6],
    ];
    console.log(`\n### Signals: SIGTERM once the 200 small records before the large one are out; one of ${mb} MiB of text, 200 more\n`);
    console.log('| stage | latency s | exit | records written | longest main-thread block s (run to the end) |');
    console.log('|---|---|---|---|---|');
    const only = values['signal-only']?.split(',');
    for (const [stage, args, stdin, after, before] of runs) {
      if (only && !only.some((name) => stage.startsWith(name))) continue;
      const r = await signalRun(args, stdin, after, before);
      const block = await longestBlock(args, stdin);
      console.log(`| ${stage} | ${r.latency === null ? 'no signal: it ended first' : fmt(r.latency, 2)} | ${r.code} | ${r.lines} | ${block === null ? 'n/a' : fmt(block, 2)} |`);
    }
  }
  await server.close();
}

/**
 * The same run to its end (stdin closed), with bench/loop-block-probe.mjs preloaded: the longest
 * the main thread went without a turn of its event loop, which bounds how long a signal waits.
 */
function longestBlock(args, input) {
  const file = join(dir, `block-${process.hrtime.bigint()}`);
  return new Promise((resolve) => {
    const probe = pathToFileURL(join(ROOT, 'bench/loop-block-probe.mjs')).href;
    const child = spawn(args[0], args.slice(1), { cwd: ROOT, stdio: ['pipe', 'ignore', 'ignore'], env: { ...process.env, NODE_OPTIONS: `--import=${probe}`, RCA_BENCH_LOOP_BLOCK_FILE: file } });
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
    child.on('close', () => {
      try {
        resolve(Number(readFileSync(file, 'utf8')));
      } catch {
        resolve(null);
      }
    });
  });
}

/** One raw chunk line's way through the stages: its raw, tagged, summarized (no flatten) and section lines. */
function stageFiles(raw) {
  const tagged = cpu([bin('rca-tag'), '--max-line-bytes', String(64 << 20)], raw).stdout;
  const summarized = cpu([bin('rca-summarize'), '--backend', 'extractive', '--no-flatten', '--max-line-bytes', String(64 << 20)], tagged).stdout;
  const sections = cpu([bin('rca-count-sections'), '--max-line-bytes', String(64 << 20)], tagged).stdout;
  return { raw, tagged, summarized, sections };
}
