#!/usr/bin/env node
// Probe of a compiled NER core (bench/wasm-probe/ner-probe.as, AssemblyScript; rebuild and check
// with bench/wasm-probe/build.sh): the tokenizer, then the tokenizer and the phrase-list scan, in
// WebAssembly inside the real NerSeeder and Tagger, against the JS path, on text-heavy records.
// The text goes in as UTF-16 code units (toLowerCase, then Buffer#ucs2Write into linear memory),
// tokens and matches come out as typed-array views; every seed is compared with the JS path's.
// Usage: node bench/wasm-probe.mjs [--input corpus.jsonl] [--rounds 3]
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpus, ROOT } from './measure.mjs';

const { values } = parseArgs({ options: { input: { type: 'string' }, rounds: { type: 'string', default: '3' } } });
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

let t0 = performance.now();
let tokensRef = null;
const nodes = [null];
const x = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(join(ROOT, 'bench/wasm-probe/ner-probe.wasm'))), {
  env: { abort() { throw new Error('abort'); }, acceptExact: (node, list, first) => (accepted(nodes[node], list, tokensRef, first) === null ? 0 : 1) },
}).exports;
{
  const cls = new Uint8Array(x.memory.buffer);
  const WC = /^[\p{L}\p{N}\p{M}_]$/u, SC = /^\s$/u;
  for (let c = 0; c < 0x10000; c++) { const ch = String.fromCharCode(c); cls[c] = c === 0x2d || c === 0x2010 || c === 0x2011 ? 3 : WC.test(ch) ? 1 : SC.test(ch) ? 2 : 4; }
}
// --- the trie, built as buildPhraseLists builds it
const lists = [gaz.phraseList, ...kw.phraseLists];
const L = lists.length;
const root = new Map();
const buf = new TokenBuffer();
const anyFirst = new Int32Array(2048), firstLists = new Uint8Array(65536);
const sameToken = (lower, s, e, tok) => { if (e - s !== tok.length) return false; for (let k = 0; k < tok.length; k++) if (lower.charCodeAt(s + k) !== tok.charCodeAt(k)) return false; return true; };
const findChild = (ch, h, lower, s, e) => { let n = ch.get(h) ?? null; while (n !== null && !sameToken(lower, s, e, n.token)) n = n.sibling; return n; };
lists.forEach(({ specs, onDuplicate = 'merge' }, list) => {
  const bit = 1 << list;
  for (const spec of specs) {
    const t = buf.load(spec.phrase); if (t.count === 0) continue;
    let children = root, node = null;
    const fh = t.hashes[0] & 0xffff; anyFirst[fh >>> 5] |= 1 << (fh & 31); firstLists[fh] |= bit;
    for (let k = 0; k < t.count; k++) {
      const s = t.starts[k], e = t.ends[k], h = t.hashes[k];
      let child = findChild(children, h, t.lower, s, e);
      if (child === null) { child = { id: -1, token: t.lower.slice(s, e), sibling: children.get(h) ?? null, children: null, lists: 0, payloads: new Array(L).fill(null), exact: new Array(L).fill(null) }; children.set(h, child); }
      node = child;
      if (k < t.count - 1) children = node.children ??= new Map();
    }
    if (node === null) continue;
    if (onDuplicate === 'keep-first' && (node.lists & bit) !== 0) continue;
    node.lists |= bit;
    if (spec.caseSensitive === true) {
      const words = []; for (let k = 0; k < t.count; k++) words.push(t.text.slice(t.starts[k], t.ends[k]));
      const ex = (node.exact[list] ??= []);
      if (!ex.some((e) => e.payload === spec.payload && e.words.join(' ') === words.join(' '))) ex.push({ words, payload: spec.payload });
    } else { const p = (node.payloads[list] ??= []); if (!p.includes(spec.payload)) p.push(spec.payload); }
  }
});
function accepted(node, list, tokens, first) {
  const payloads = node.payloads[list] ?? null, exact = node.exact[list] ?? null;
  if (exact === null) return payloads;
  let extra = null;
  for (const entry of exact) {
    let same = true;
    for (let k = 0; k < entry.words.length && same; k++) same = sameToken(tokens.text, tokens.starts[first + k] ?? 0, tokens.ends[first + k] ?? 0, entry.words[k] ?? '');
    if (!same) continue;
    extra ??= payloads === null ? [] : [...payloads];
    if (!extra.includes(entry.payload)) extra.push(entry.payload);
  }
  return extra ?? payloads;
}
const edges = [];
let nodeCount = 1;
const collect = (parent, children) => {
  for (const [h, node] of children) { for (let n = node; n !== null; n = n.sibling) { n.id = nodeCount++; nodes[n.id] = n; } edges.push([parent, h, node]); }
  for (const node of children.values()) for (let n = node; n !== null; n = n.sibling) if (n.children !== null) collect(n.id, n.children);
};
collect(0, root);
let edgeSize = 16; while (edgeSize < edges.length * 2) edgeSize *= 2;
const pool = nodes.slice(1).map((n) => n.token).join('');
// layout from 65536
let at = 65536;
const place = (bytes) => { const p = at; at = (at + bytes + 15) & ~15; return p; };
const pAny = place(8192), pFirst = place(65536), pEP = place(edgeSize * 4), pEH = place(edgeSize * 4), pEN = place(edgeSize * 4);
const N = nodeCount;
const pSib = place(N * 4), pLists = place(N), pAcc = place(N), pEx = place(N), pKids = place(N), pTS = place(N * 4), pTL = place(N * 4), pPool = place(pool.length * 2);
x.grow(at + 65536);
{
  const mb = x.memory.buffer;
  new Int32Array(mb, pAny, 2048).set(anyFirst); new Uint8Array(mb, pFirst, 65536).set(firstLists);
  const EP = new Int32Array(mb, pEP, edgeSize).fill(-1), EH = new Int32Array(mb, pEH, edgeSize), EN = new Int32Array(mb, pEN, edgeSize).fill(-1);
  const mask = edgeSize - 1;
  for (const [parent, h, node] of edges) { let s = (Math.imul(parent, 0x9e3779b1) ^ h) & mask; while (EP[s] !== -1) s = (s + 1) & mask; EP[s] = parent; EH[s] = h; EN[s] = node.id; }
  const SIB = new Int32Array(mb, pSib, N), LI = new Uint8Array(mb, pLists, N), AC = new Uint8Array(mb, pAcc, N), EX = new Uint8Array(mb, pEx, N), KI = new Uint8Array(mb, pKids, N), TS = new Int32Array(mb, pTS, N), TL = new Int32Array(mb, pTL, N);
  let off = 0;
  for (let id = 1; id < N; id++) { const n = nodes[id]; SIB[id] = n.sibling === null ? -1 : n.sibling.id; LI[id] = n.lists; KI[id] = n.children !== null ? 1 : 0; TS[id] = off; TL[id] = n.token.length; off += n.token.length;
    for (let l = 0; l < L; l++) { if (n.payloads[l] !== null) AC[id] |= 1 << l; if (n.exact[l] !== null) EX[id] |= 1 << l; } }
  Buffer.from(mb).ucs2Write(pool, pPool);
  x.setTrie(pAny, pFirst, mask, pEP, pEH, pEN, pSib, pLists, pAcc, pEx, pKids, pTS, pTL, pPool, L, at);
}
console.log(`init: wasm + class table + trie (${N} nodes, ${edges.length} edges): ${(performance.now() - t0).toFixed(1)} ms`);

class WasmTokens extends TokenBuffer {
  load(text) {
    let lower = text.toLowerCase();
    if (lower.length !== text.length) lower = text.replace(/\u0130/g, 'I').toLowerCase();
    const n = lower.length;
    const cap = x.reserve(n);
    if (this.mb !== x.memory.buffer || cap !== this.cap) {
      this.mb = x.memory.buffer; this.bytes = Buffer.from(this.mb); this.cap = cap;
      this.starts = new Int32Array(this.mb, x.startsPtr(), cap); this.ends = new Int32Array(this.mb, x.endsPtr(), cap);
      this.hashes = new Int32Array(this.mb, x.hashesPtr(), cap); this.joined = new Uint8Array(this.mb, x.joinedPtr(), cap);
      this.out = new Int32Array(this.mb, x.outPtr(), cap * 32);
    }
    this.bytes.ucs2Write(lower, x.inputPtr());
    this.count = x.tokenize(n);
    this.text = text; this.lower = lower;
    this.asciiWords = x.asciiWords() === 1 && !text.includes('\u212a') && !text.includes('\u0130');
    return this;
  }
}
const wasmScan = {
  scan(tokens, onMatch) {
    tokensRef = tokens;
    const m = x.scan(tokens.count);
    const { out, starts, ends } = tokens;
    for (let q = 0; q < m; q++) {
      const list = out[4 * q], first = out[4 * q + 1], last = out[4 * q + 2], node = out[4 * q + 3];
      onMatch(list, starts[first], ends[last], accepted(nodes[node], list, tokens, first), first, last);
    }
  },
};
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
