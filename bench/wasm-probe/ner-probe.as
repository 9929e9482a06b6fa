// AssemblyScript (not part of the TypeScript project; bench/wasm-probe/build.sh compiles it).
// Probe of a compiled NER core: TokenBuffer.load's tokenizer and PhraseListsMatcher.scan over its
// tokens, with the trie in linear memory, as bench/wasm-probe.mjs lays it out. It measures what
// moving the pure typed-array parts of the NER into WebAssembly would buy; it is not used by rca.
//
const WORD: u8 = 1;
const SPACE: u8 = 2;
const HYPHEN: u8 = 3;
const FNV_OFFSET: u32 = 0x811c9dc5;
const FNV_PRIME: u32 = 0x01000193;
const HASH_MASK: u32 = 0x3fffffff;
const CLASSES: usize = 0;
const FILTER_MASK: u32 = 0xffff;

@external("env", "acceptExact")
declare function acceptExact(node: i32, list: i32, first: i32): i32;

// Trie tables, set by setTrie.
let anyFirst: usize = 0; // u32[2048]
let firstLists: usize = 0; // u8[65536]
let edgeMask: u32 = 0;
let edgeParents: usize = 0; // i32
let edgeHashes: usize = 0; // i32
let edgeNodes: usize = 0; // i32
let nodeSibling: usize = 0; // i32
let nodeLists: usize = 0; // u8: lists ending here
let nodeAccept: usize = 0; // u8: lists with case-insensitive payloads here
let nodeExact: usize = 0; // u8: lists with case-sensitive entries here
let nodeKids: usize = 0; // u8
let nodeTokStart: usize = 0; // i32 into tokPool
let nodeTokLen: usize = 0; // i32
let tokPool: usize = 0; // u16
let listCount: i32 = 0;
let heapStart: usize = 0;

export function setTrie(a: usize, b: usize, m: u32, c: usize, d: usize, e: usize, f: usize, g: usize, h: usize, i: usize, j: usize, k: usize, l: usize, n: usize, lists: i32, end: usize): void {
  anyFirst = a; firstLists = b; edgeMask = m; edgeParents = c; edgeHashes = d; edgeNodes = e; nodeSibling = f; nodeLists = g; nodeAccept = h; nodeExact = i; nodeKids = j; nodeTokStart = k; nodeTokLen = l; tokPool = n; listCount = lists; heapStart = (end + 15) & ~15;
}

let cap: i32 = 0;
let input: usize = 0;
let starts: usize = 0;
let ends: usize = 0;
let hashes: usize = 0;
let joined: usize = 0;
let out: usize = 0; // i32 quads (list, first, last, node), up to 8 per token
let ascii: i32 = 1;

export function inputPtr(): usize { return input; }
export function startsPtr(): usize { return starts; }
export function endsPtr(): usize { return ends; }
export function hashesPtr(): usize { return hashes; }
export function joinedPtr(): usize { return joined; }
export function outPtr(): usize { return out; }
export function asciiWords(): i32 { return ascii; }
export function grow(bytes: usize): void {
  const pages = <i32>((bytes + 65535) >> 16);
  const have = memory.size();
  if (pages > have) memory.grow(pages - have);
}

export function reserve(n: i32): i32 {
  if (n <= cap) return cap;
  let size = cap === 0 ? 1024 : cap;
  while (size < n) size <<= 1;
  // input u16, starts/ends/hashes i32, joined u8, out 16 bytes x 8 lists per token at most
  const total: usize = heapStart + <usize>size * (2 + 12 + 1 + 128) + 64;
  grow(total);
  input = heapStart;
  starts = (input + (<usize>size << 1) + 3) & ~3;
  ends = starts + (<usize>size << 2);
  hashes = ends + (<usize>size << 2);
  joined = hashes + (<usize>size << 2);
  out = (joined + <usize>size + 15) & ~15;
  cap = size;
  return cap;
}

export function tokenize(n: i32): i32 {
  let count: i32 = 0;
  let i: i32 = 0;
  let units: u32 = 0;
  while (i < n) {
    let code: u32 = load<u16>(input + (<usize>i << 1));
    let kind = load<u8>(CLASSES + code);
    if (kind === SPACE) { i++; continue; }
    const at: usize = <usize>count << 2;
    if (kind !== WORD) {
      store<i32>(starts + at, i);
      store<i32>(ends + at, i + 1);
      store<u32>(hashes + at, ((FNV_OFFSET ^ code) * FNV_PRIME) & HASH_MASK);
      store<u8>(joined + count, 0);
      count++;
      i++;
      continue;
    }
    const start = i;
    let hash: u32 = (FNV_OFFSET ^ code) * FNV_PRIME;
    units |= code;
    i++;
    while (i < n) {
      const next: u32 = load<u16>(input + (<usize>i << 1));
      kind = load<u8>(CLASSES + next);
      if (kind !== WORD) break;
      hash = (hash ^ next) * FNV_PRIME;
      units |= next;
      i++;
    }
    store<i32>(starts + at, start);
    store<i32>(ends + at, i);
    store<u32>(hashes + at, hash & HASH_MASK);
    let join: u8 = 0;
    if (kind === HYPHEN && i + 1 < n && load<u8>(CLASSES + <u32>load<u16>(input + (<usize>(i + 1) << 1))) === WORD) {
      join = 1;
      i++;
    }
    store<u8>(joined + count, join);
    count++;
  }
  ascii = units < 128 ? 1 : 0;
  return count;
}

@inline function sameToken(start: i32, end: i32, node: i32): bool {
  const len = load<i32>(nodeTokLen + (<usize>node << 2));
  if (end - start !== len) return false;
  const pool = tokPool + (<usize>load<i32>(nodeTokStart + (<usize>node << 2)) << 1);
  const text = input + (<usize>start << 1);
  for (let k = 0; k < len; k++) {
    if (load<u16>(text + (<usize>k << 1)) !== load<u16>(pool + (<usize>k << 1))) return false;
  }
  return true;
}

@inline function step(parent: i32, hash: i32, start: i32, end: i32): i32 {
  let slot: u32 = (<u32>parent * 0x9e3779b1 ^ <u32>hash) & edgeMask;
  for (;;) {
    const owner = load<i32>(edgeParents + (<usize>slot << 2));
    if (owner === -1) return -1;
    if (owner === parent && load<i32>(edgeHashes + (<usize>slot << 2)) === hash) break;
    slot = (slot + 1) & edgeMask;
  }
  let node = load<i32>(edgeNodes + (<usize>slot << 2));
  while (node !== -1 && !sameToken(start, end, node)) node = load<i32>(nodeSibling + (<usize>node << 2));
  return node;
}

const nextStart = new StaticArray<i32>(8);
const bestLast = new StaticArray<i32>(8);
const bestNode = new StaticArray<i32>(8);

/** Scans `count` tokens; writes (list, first, last, node) quads to out; returns how many. */
export function scan(count: i32): i32 {
  for (let l = 0; l < 8; l++) unchecked(nextStart[l] = 0);
  let blockedUntil: i32 = 0;
  let emitted: i32 = 0;
  for (let i: i32 = 0; i < count; i++) {
    if (i > 0 && load<u8>(joined + i - 1) === 1) continue;
    const firstHash: u32 = load<u32>(hashes + (<usize>i << 2)) & FILTER_MASK;
    if ((load<u32>(anyFirst + (<usize>(firstHash >>> 5) << 2)) & (1 << (firstHash & 31))) === 0) continue;
    let active: i32 = load<u8>(firstLists + firstHash);
    if (i < blockedUntil) for (let list = 0; list < listCount; list++) if (unchecked(nextStart[list]) > i) active &= ~(1 << list);
    if (active === 0) continue;
    let found: i32 = 0;
    let parent: i32 = 0;
    let more = true;
    for (let j = i; j < count && more; j++) {
      const at: usize = <usize>j << 2;
      const child = step(parent, load<i32>(hashes + at), load<i32>(starts + at), load<i32>(ends + at));
      if (child === -1) break;
      const ending: i32 = <i32>load<u8>(nodeLists + child) & active;
      if (ending !== 0 && load<u8>(joined + j) !== 1) {
        const plain: i32 = load<u8>(nodeAccept + child);
        const exact: i32 = load<u8>(nodeExact + child);
        for (let list = 0; list < listCount; list++) {
          const bit = 1 << list;
          if ((ending & bit) === 0) continue;
          if ((plain & bit) === 0 && ((exact & bit) === 0 || acceptExact(child, list, i) === 0)) continue;
          unchecked(bestLast[list] = j);
          unchecked(bestNode[list] = child);
          found |= bit;
        }
      }
      parent = child;
      more = load<u8>(nodeKids + child) !== 0;
    }
    for (let list = 0; found !== 0; list++, found >>>= 1) {
      if ((found & 1) === 0) continue;
      const last = unchecked(bestLast[list]);
      const o = out + (<usize>emitted << 4);
      store<i32>(o, list);
      store<i32>(o, i, 4);
      store<i32>(o, last, 8);
      store<i32>(o, unchecked(bestNode[list]), 12);
      emitted++;
      unchecked(nextStart[list] = last + 1);
      if (last + 1 > blockedUntil) blockedUntil = last + 1;
    }
  }
  return emitted;
}
