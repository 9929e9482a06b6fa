#!/usr/bin/env node
// Probe of a compiled NER core (bench/wasm-probe/ner-probe.as, AssemblyScript; rebuild and check
// with bench/wasm-probe/build.sh): the tokenizer, then the tokenizer and the phrase-list scan, in
// WebAssembly inside the real NerSeeder and Tagger, against the JS path, on text-heavy records.
// The text goes in as UTF-16 code units (toLowerCase, then Buffer#ucs2Write into linear memory),
// tokens and matches come out as typed-array views; every seed is compared with the JS path's.
// --stage: instead, bin/rca-tag --jobs 1 as is, with the probe (preload.mjs) and without its NER
// (no-ner.mjs), beside the node loop, interleaved, on the 40 MB corpora (CPU ratios, medians).
// Usage: node bench/wasm-probe.mjs [--input corpus.jsonl] [--rounds 3] [--stage [--mb 40]]
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpus, fmt, measure, PROFILES, ROOT, stats } from './measure.mjs';
import { wasmNer } from './wasm-probe/core.mjs';

const { values } = parseArgs({
  options: { input: { type: 'string' }, rounds: { type: 'string', default: '3' }, stage: { type: 'boolean' }, mb: { type: 'string', default: '40' } },
});
if (values.stage) {
  const node = process.execPath;
  const tag = join(ROOT, 'bin/rca-tag');
  const variants = [
    ['node loop', [join(ROOT, 'bench/identity.mjs')]],
    ['rca-tag --jobs 1', [tag, '--jobs', '1']],
    ['rca-tag, wasm tokenizer + scan', ['--import', join(ROOT, 'bench/wasm-probe/preload.mjs'), tag, '--jobs', '1']],
    ['rca-tag, no NER', ['--import', join(ROOT, 'bench/wasm-probe/no-ner.mjs'), tag, '--jobs', '1']],
  ];
  console.log(`command: node bench/wasm-probe.mjs --stage --mb ${values.mb} --rounds ${values.rounds}`);
  console.log('| corpus | variant | CPU s per 100 MB (median) | × node loop (CPU, median of per-round ratios) |');
  console.log('|---|---|---|---|');
  for (const profile of PROFILES) {
    const file = await corpus(Number(values.mb), 42, profile);
    const cpu = new Map(variants.map(([name]) => [name, []]));
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const [name, args] of variants) cpu.get(name).push((await measure(node, args, file)).cpuSeconds);
    }
    const loop = cpu.get('node loop');
    for (const [name] of variants) {
      const own = cpu.get(name);
      const ratio = stats(own.map((c, i) => loop[i] / c)).median;
      console.log(`| ${profile} | ${name} | ${fmt((100 * stats(own).median) / Number(values.mb), 2)} | ${fmt(ratio, 2)} |`);
    }
  }
  process.exit(0);
}
const input = values.input ?? (await corpus(10, 42, 'text-heavy'));
const dist = join(ROOT, 'dist');
const { TokenBuffer } = await import(`${dist}/tagging/phrase-matcher.js`);
const { buildGazetteer } = await import(`${dist}/tagging/gazetteer.js`);
const { buildKeywordLists } = await import(`${dist}/tagging/keyword-lists.js`);
const { parseLexiconCsv } = await import(`${dist}/tagging/lexicon.js`);
const { NerSeeder } = await import(`${dist}/tagging/tag-record.js`);
const { nerSeedJson } = await import(`${dist}/tagging/seed-json.js`);
const { Tagger } = await import(`${dist}/transforms/tag.js`);
const rd = (r) => readFileSync(`${ROOT}/data/${r}`, 'utf8');
const gaz = buildGazetteer(parseLexiconCsv(rd('lexicon/rca-default.csv'), 'builtin'));
const kw = buildKeywordLists({ temporalQualifiers: rd('keywords/temporal_qualifiers.csv'), temporalRelations: rd('keywords/temporal_relations.csv'), locations: rd('keywords/locations.csv'), conjectures: rd('keywords/conjectures.csv') });
const lines = readFileSync(input, 'utf8').split('\n').filter(Boolean);
const records = lines.map((l) => JSON.parse(l));
const texts = records.map((r) => r.text ?? '');
const corpusMB = lines.reduce((s, l) => s + Buffer.byteLength(l) + 1, 0) / 2 ** 20;

const t0 = performance.now();
const { WasmTokens, wasmScan, lists, nodes, edges, exports: x } = wasmNer(TokenBuffer, gaz, kw);
console.log(`init: wasm + class table + trie (${nodes} nodes, ${edges} edges): ${(performance.now() - t0).toFixed(1)} ms`);

const jsSeeder = () => new NerSeeder(gaz, kw);
const wasmSeeder = (withScan) => { const s = new NerSeeder(gaz, kw); s.tokens = new WasmTokens(); if (withScan) s.matcher = wasmScan; return s; };
// equality over the corpus + a few awkward texts
const extra = ['İstanbul pump-house PT-1102 ω-ring 𝒳 naïve Ǆ \u212a', 'HPCI (HPCI) pump; the AFW pump-house, no evidence of fouling in the turbine building', 'x'.repeat(70000) + ' pump '.repeat(3000)];
for (const [name, mk] of [['tokens', () => wasmSeeder(false)], ['tokens+scan', () => wasmSeeder(true)]]) {
  const a = jsSeeder(), b = mk();
  let diff = 0; for (const t of [...texts, ...extra]) if (nerSeedJson(a.seed(t)) !== nerSeedJson(b.seed(t))) diff++;
  console.log(`${name}: seeds differing from the JS path: ${diff} of ${texts.length + extra.length}`);
}
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const bench = (name, f) => { f(); const ts = []; for (let r = 0; r < 5; r++) { const c = cpu(); f(); ts.push(cpu() - c); } ts.sort((a, b) => a - b); return ts[2]; };
const rows = [];
for (let round = 0; round < Number(values.rounds); round++) {
  const r = {};
  r.js = bench('js', () => { const s = jsSeeder(); let n = 0; for (const t of texts) n += nerSeedJson(s.seed(t)).length; return n; });
  r.tok = bench('tok', () => { const s = wasmSeeder(false); let n = 0; for (const t of texts) n += nerSeedJson(s.seed(t)).length; return n; });
  r.scan = bench('scan', () => { const s = wasmSeeder(true); let n = 0; for (const t of texts) n += nerSeedJson(s.seed(t)).length; return n; });
  const tag = (w) => { const tg = new Tagger({ docTypeMode: 'auto', authority: null, gazetteer: gaz, keywords: kw }); if (w) tg.seeder = wasmSeeder(true); let n = 0; for (const l of lines) n += tg.process(JSON.parse(l), { raw: l }).records.length; return n; };
  r.tagJs = bench('tagjs', () => tag(false));
  r.tagWasm = bench('tagwasm', () => tag(true));
  rows.push(r);
  console.log(`round ${round + 1} (CPU ms, median of 5): NerSeeder.seed+nerSeedJson JS ${r.js.toFixed(0)}, wasm tokens ${r.tok.toFixed(0)} (${(r.js / r.tok).toFixed(2)}x), wasm tokens+scan ${r.scan.toFixed(0)} (${(r.js / r.scan).toFixed(2)}x); parse+Tagger.process JS ${r.tagJs.toFixed(0)}, wasm tokens+scan ${r.tagWasm.toFixed(0)} (${(r.tagJs / r.tagWasm).toFixed(2)}x); corpus ${corpusMB.toFixed(1)} MB`);
}

// The tokenizer alone: JS TokenBuffer.load against the wasm one (toLowerCase and the copy in included).
{
  const js = new TokenBuffer(), wasm = new WasmTokens();
  const tjs = bench('', () => { let n = 0; for (const t of texts) n += js.load(t).count; return n; });
  const tw = bench('', () => { let n = 0; for (const t of texts) n += wasm.load(t).count; return n; });
  const tcopy = bench('', () => { let n = 0; for (const t of texts) n += wasm.bytes.ucs2Write(t.toLowerCase(), x.inputPtr()); return n; });
  console.log(`tokenizer alone (CPU ms, median of 5): JS ${tjs.toFixed(0)}, wasm ${tw.toFixed(0)} (${(tjs / tw).toFixed(2)}x), of which toLowerCase + copy in ${tcopy.toFixed(0)}`);
}
// The scan alone: tokenizer + scan per text, less the tokenizer alone, on each path; matches go
// to a handler that only counts them.
{
  const { buildPhraseLists } = await import(`${dist}/tagging/phrase-matcher.js`);
  const jsMatcher = buildPhraseLists(lists);
  const js = new TokenBuffer(), wasm = new WasmTokens();
  let found = 0;
  const count = () => { found++; };
  const jsBoth = bench('', () => { for (const t of texts) jsMatcher.scan(js.load(t), count); return found; });
  const jsTok = bench('', () => { let n = 0; for (const t of texts) n += js.load(t).count; return n; });
  const wBoth = bench('', () => { for (const t of texts) wasmScan.scan(wasm.load(t), count); return found; });
  const wTok = bench('', () => { let n = 0; for (const t of texts) n += wasm.load(t).count; return n; });
  console.log(`tokenizer + scan (CPU ms, median of 5): JS ${jsBoth.toFixed(0)}, wasm ${wBoth.toFixed(0)} (${(jsBoth / wBoth).toFixed(2)}x); the scan alone: JS ${(jsBoth - jsTok).toFixed(0)}, wasm ${(wBoth - wTok).toFixed(0)} (${((jsBoth - jsTok) / (wBoth - wTok)).toFixed(2)}x)`);
}
