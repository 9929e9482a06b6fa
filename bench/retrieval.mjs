#!/usr/bin/env node
// The retrieval step, measured in one run, each figure beside its baseline:
// 1. rca index over N summarised chunk records of the bench corpus and their section records:
//    seconds and bytes per 10k records, peak RSS, against the plain Node JSONL loop
//    (bench/identity.mjs) over the same files;
// 2. search latency on that index, per query, in process: hierarchical against flat BM25;
// 3. rca-embed throughput (texts per second) against the same server driven alone with the same
//    batches and concurrency: the fake Ollama (a process of its own) and, when it is built,
//    llama-server --embedding --pooling mean with the tiny model.
// Usage: node bench/retrieval.mjs [--records 10000] [--runs 3] [--embed-records 2000] [--llama-records 100] [--parts index,search,embed]
//   (llama-server embeds a few texts a second with the tiny model on 2 cores: it gets fewer)
// Needs a build (npm run build); llama-server from scripts/build-llama-server.sh, when present.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, machine, measure, OUT, ROOT, stats } from './measure.mjs';
import { compileFakeModel, requireBuilt, spawnFakeOllama } from './fake-model.mjs';
import { loadEngine } from './engine.mjs';

const { values } = parseArgs({ options: { records: { type: 'string', default: '10000' }, runs: { type: 'string', default: '3' }, 'embed-records': { type: 'string', default: '2000' }, 'llama-records': { type: 'string', default: '100' }, parts: { type: 'string', default: 'index,search,embed' } } });
const PARTS = new Set(values.parts.split(','));
const N = Number(values.records);
const RUNS = Number(values.runs);
const EMBED_N = Number(values['embed-records']);
const BATCH = 16;
const CONCURRENCY = 2;
requireBuilt('embed');
mkdirSync(OUT, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'rca-retrieval-bench-'));
const bin = (name) => join(ROOT, 'bin', name);
const sh = (script) => {
  const r = spawnSync('bash', ['-o', 'pipefail', '-c', script], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${script}: ${r.stderr.slice(0, 400)}`);
};

// The inputs: N chunks of the deterministic corpus, tagged, summarised (extractive, --combined),
// and their sections summarised; made once per N under bench/out.
const chunks = join(OUT, `retrieval-${N}.summarized.jsonl`);
const sections = join(OUT, `retrieval-${N}.sections.jsonl`);
if (!existsSync(sections)) {
  const raw = join(work, 'chunks.jsonl');
  sh(`node bench/generate-corpus.mjs --records ${N} --mb 100000 > ${raw}`);
  sh(`${bin('rca-tag')} ${raw} > ${work}/tagged.jsonl && ${bin('rca-summarize')} --backend extractive --flags-ok --combined ${work}/tagged.jsonl > ${chunks}.part`);
  sh(`${bin('rca-count-sections')} ${work}/tagged.jsonl | ${bin('rca-summarize')} --view section_summary --bottom-up --backend extractive --flags-ok > ${sections}.part`);
  sh(`mv ${chunks}.part ${chunks} && mv ${sections}.part ${sections}`);
}
const lines = (file) => readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').length;
const records = lines(chunks) + lines(sections);
const both = join(work, 'both.jsonl');
sh(`cat ${chunks} ${sections} > ${both}`);
console.log(`machine: ${machine()}`);
console.log(`input: ${lines(chunks)} chunk records and ${lines(sections)} section records (${(statSync(both).size / 2 ** 20).toFixed(1)} MB), bench corpus seed 42`);

// 1. Index build, interleaved with the baseline.
const db = join(work, 'index.sqlite');
const index = [];
const identity = [];
for (let run = 0; run < (PARTS.has('index') ? RUNS : 1); run++) {
  identity.push(await measure(process.execPath, [join(ROOT, 'bench/identity.mjs')], both));
  rmSync(db, { force: true });
  index.push(await measure(bin('rca'), ['index', '--db', db], both));
}
const per10k = (x) => (x * 10_000) / records;
const ix = stats(index.map((r) => r.seconds));
const id = stats(identity.map((r) => r.seconds));
const bytes = statSync(db).size;
console.log(`\nrca index (${RUNS} runs, median): ${fmt(per10k(ix.median), 2)} s per 10k records (${fmt(ix.median, 2)} s for ${records}); identity loop ${fmt(per10k(id.median), 2)} s per 10k: ${fmt(ix.median / id.median, 1)}x its time`);
console.log(`  index file ${(bytes / 2 ** 20).toFixed(1)} MB = ${(per10k(bytes) / 2 ** 20).toFixed(1)} MB per 10k records (input ${(per10k(statSync(both).size) / 2 ** 20).toFixed(1)} MB per 10k); peak RSS ${fmt(Math.max(...index.map((r) => r.peakMB)))} MB (identity ${fmt(Math.max(...identity.map((r) => r.peakMB)))} MB)`);

// 2. Search latency, in process over the built index: the sample questions, each mode.
if (PARTS.has('search')) {
const { IndexStore } = await import(join(ROOT, 'dist/retrieval/index-store.js'));
const { search } = await import(join(ROOT, 'dist/retrieval/search.js'));
const questions = readFileSync(join(ROOT, 'test/fixtures/retrieval/sample.questions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).question);
const store = IndexStore.open(db, { create: false });
const latency = {};
for (const [mode, text] of [['flat', 'text'], ['flat', 'text+views'], ['hierarchical', 'text']]) {
  const options = { mode, text, k: 10, sections: 5, filters: {}, explain: true };
  for (const q of questions.slice(0, 5)) search(store, q, options);
  const ms = [];
  for (let round = 0; round < 4; round++) {
    for (const q of questions) {
      const t = process.hrtime.bigint();
      search(store, q, options);
      ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  ms.sort((a, b) => a - b);
  latency[`${mode}/${text}`] = { median: ms[Math.floor(ms.length / 2)], p95: ms[Math.floor(ms.length * 0.95)] };
}
store.close();
const base = latency['flat/text'];
console.log(`\nsearch latency over that index (${questions.length * 4} queries each, with the matched words of each hit):`);
for (const [name, l] of Object.entries(latency)) console.log(`  ${name.padEnd(18)} median ${fmt(l.median, 2)} ms, p95 ${fmt(l.p95, 2)} ms (${fmt(l.median / base.median, 2)}x flat/text)`);
}

// 3. Embedding throughput: rca-embed, and the server alone with the same batches.
const embedInput = join(work, 'embed.jsonl');
let texts = [];
function useFirst(n) {
  writeFileSync(embedInput, readFileSync(chunks, 'utf8').split('\n').filter((l) => l !== '').slice(0, n).join('\n') + '\n');
  texts = readFileSync(embedInput, 'utf8').trim().split('\n').map((l) => JSON.parse(l).text);
}
useFirst(EMBED_N);

async function alone(url, body, parse) {
  const start = process.hrtime.bigint();
  let next = 0;
  const worker = async () => {
    while (next < texts.length) {
      const batch = texts.slice(next, next + BATCH);
      next += BATCH;
      const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body(batch)) });
      if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
      if (parse(await response.json()).length !== batch.length) throw new Error('short reply');
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return texts.length / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function throughput(label, rcaArgs, aloneRun) {
  const rca = [];
  const direct = [];
  for (let run = 0; run < RUNS; run++) {
    direct.push(await aloneRun());
    const r = await measure(bin('rca-embed'), [...rcaArgs, '--text', 'text', '--no-cache', '--batch', String(BATCH), '--concurrency', String(CONCURRENCY)], embedInput);
    rca.push(texts.length / r.seconds);
  }
  const a = stats(rca).median;
  const d = stats(direct).median;
  console.log(`  ${label}: rca-embed ${fmt(a, 0)} texts/s, the server alone ${fmt(d, 0)} texts/s: ${fmt(a / d, 2)}x (${RUNS} runs, medians; ${texts.length} texts, batch ${BATCH}, ${CONCURRENCY} in flight)`);
}

if (PARTS.has('embed')) {
console.log('\nembedding throughput:');
compileFakeModel();
const fake = await spawnFakeOllama({ models: [{ name: 'nomic-embed-text:latest', digest: 'e'.repeat(64), capabilities: ['embedding'], dims: 768, contextLength: 8192 }], slots: CONCURRENCY });
await throughput('fake Ollama (/api/embed, 768 dims, no latency)', ['--host', fake.url, '--model', 'nomic-embed-text', '--max-input-tokens', '8192'], () =>
  alone(`${fake.url}/api/embed`, (batch) => ({ model: 'nomic-embed-text', input: batch, truncate: false }), (r) => r.embeddings),
);
await fake.close();

const engine = await loadEngine().catch(() => null);
let llama = null;
try {
  llama = engine?.locateLlamaServer() ?? null;
} catch {
  llama = null;
}
if (llama === null) console.log('  llama-server: not built here (scripts/build-llama-server.sh), not measured');
else {
  // -ub 2048: every text of the corpus fits the physical batch, so both sides send the same requests.
  useFirst(Number(values['llama-records']));
  const server = await engine.startLlamaServer({ bin: llama, logFile: join(work, 'server.log'), slots: CONCURRENCY, ctx: 8192, extraArgs: ['--embedding', '--pooling', 'mean', '-ub', '2048', '-b', '2048'] });
  try {
    await throughput('llama-server --embedding (tiny model, 8 dims)', ['--backend', 'openai', '--base-url', `${server.url}/v1`, '--model', engine.MODEL_ALIAS, '--max-input-tokens', '2048'], () =>
      alone(`${server.url}/v1/embeddings`, (batch) => ({ model: engine.MODEL_ALIAS, input: batch }), (r) => r.data),
    );
  } finally {
    await server.stop();
  }
}
}
rmSync(work, { recursive: true, force: true });
