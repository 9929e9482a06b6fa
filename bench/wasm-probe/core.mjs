// The probe's JS side: loads ner-probe.wasm, fills its code-unit class table, lays out the trie of
// a gazetteer and keyword lists as the JS matcher builds it, and gives a TokenBuffer and a matcher
// that run in WebAssembly (drop-in for NerSeeder's own). Shared by bench/wasm-probe.mjs and the
// preload that puts the probe into bin/rca-tag.
import { readFileSync } from 'node:fs';

/** `TokenBuffer`: the class from dist/tagging/phrase-matcher.js (the wasm buffer extends it). */
export function wasmNer(TokenBuffer, gazetteer, keywords) {
  let tokensRef = null;
  const nodes = [null];
  const x = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(new URL('./ner-probe.wasm', import.meta.url))), {
    env: { abort() { throw new Error('abort'); }, acceptExact: (node, list, first) => (accepted(nodes[node], list, tokensRef, first) === null ? 0 : 1) },
  }).exports;
  {
    const cls = new Uint8Array(x.memory.buffer);
    const WC = /^[\p{L}\p{N}\p{M}_]$/u, SC = /^\s$/u;
    for (let c = 0; c < 0x10000; c++) { const ch = String.fromCharCode(c); cls[c] = c === 0x2d || c === 0x2010 || c === 0x2011 ? 3 : WC.test(ch) ? 1 : SC.test(ch) ? 2 : 4; }
  }
  // --- the trie, built as buildPhraseLists builds it
  const lists = [gazetteer.phraseList, ...keywords.phraseLists];
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

  return { WasmTokens, wasmScan, lists, nodes: N, edges: edges.length, exports: x };
}
