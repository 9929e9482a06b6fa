#!/usr/bin/env node
// What the engine computes per chunk, by prompt style and views per request: rca-generate
// (--backend openai, --max-tries 1, so each view of each chunk is exactly its first request)
// against the engine tier's llama-server (tiny model, -np 2), through a loopback proxy that passes
// every byte and reads each completion's own `timings` (llama-server's server_slot_stats):
// prompt_n (prompt tokens computed), cache_n (served from the slot's prompt cache), predicted_n
// (output tokens), prompt_ms + predicted_ms (engine time). Every variant gets a fresh server, in
// one run: the dackar prompt style (the seed's layout), the compact one, and the compact one with
// both views in one request. Beside the engine's counts, the validator's outcomes of the views
// stored (ok / flagged / failed, flags by kind), and rca's own token accounting
// (generation.<view>.tokens) summed, which must agree with the engine's.
// The tiny model has random weights and fills the format's bounds: output counts measure the
// format, not a model's habits.
// Usage: node bench/engine-tokens.mjs [--corpus FILE[,FILE…]] [--every N] [--records N]
//        [--variants dackar,compact,pair] [--concurrency 2] [--json FILE]
// --corpus realtext is every tenth chunk of the real-text set's event and notice files (24 chunks).
// Needs a build (npm run build) and llama-server (scripts/build-llama-server.sh builds it once).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, machine, ROOT } from './measure.mjs';
import { requireBuilt } from './fake-model.mjs';
import { loadEngine, runGenerate, startTimingsProxy } from './engine.mjs';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: join(ROOT, 'examples/sample-corpus.jsonl') },
    records: { type: 'string' },
    every: { type: 'string', default: '1' },
    variants: { type: 'string', default: 'dackar,compact,pair' },
    concurrency: { type: 'string', default: '2' },
    json: { type: 'string' },
  },
});
const SLOTS = 2;
// Each slot gets ctx / SLOTS: room for a pair's prompt and both its replies (2 × 2048 tokens).
const CTX = 16384;
const VARIANTS = {
  dackar: { label: 'dackar (seed layout)', args: ['--prompt-style', 'dackar'] },
  compact: { label: 'compact', args: ['--prompt-style', 'compact'] },
  pair: { label: 'compact, both views in one request', args: ['--prompt-style', 'compact', '--views-per-request', '2'] },
};

requireBuilt('generate');
const { buildInfo, locateLlamaServer, MODEL_ALIAS, startLlamaServer } = await loadEngine();
const work = mkdtempSync(join(tmpdir(), 'rca-engine-tokens-'));
const tagged = join(work, 'tagged.jsonl');
const REALTEXT = ['events', 'notices'].map((f) => join(ROOT, `test/fixtures/realtext/${f}.chunks.jsonl`));
const realtext = values.corpus === 'realtext';
const corpora = realtext ? REALTEXT : values.corpus.split(',').map((f) => resolve(f));
const every = realtext ? 10 : Number(values.every);
// Every Nth chunk of each file (the first, the N+1st, …), then tagged together, in that order.
const picked = join(work, 'picked.jsonl');
writeFileSync(picked, corpora.flatMap((f) => readFileSync(f, 'utf8').trim().split('\n').filter((_, i) => i % every === 0)).join('\n') + '\n');
const lines = execFileSync(process.execPath, [join(ROOT, 'bin/rca-tag'), picked], { encoding: 'utf8', maxBuffer: 1 << 30 }).trim().split('\n');
const chosen = values.records === undefined ? lines : lines.slice(0, Number(values.records));
writeFileSync(tagged, chosen.join('\n') + '\n');
const chunks = chosen.length;
const bin = locateLlamaServer();

/** One variant against a fresh server: the completions' timings and the records written. */
async function runVariant(name) {
  const server = await startLlamaServer({ bin, logFile: join(work, `server-${name}.log`), slots: SLOTS, ctx: CTX });
  const proxy = await startTimingsProxy(server.url);
  const outFile = join(work, `${name}.jsonl`);
  let wall;
  try {
    const args = ['--backend', 'openai', '--base-url', proxy.url, '--model', MODEL_ALIAS, '--max-tries', '1', '--concurrency', values.concurrency, '--no-cache', '--flags-ok', ...VARIANTS[name].args];
    wall = await runGenerate(args, tagged, outFile);
  } finally {
    proxy.close();
    await server.stop();
  }
  const completions = proxy.completions.map((c) => c.timings);
  const missing = completions.filter((t) => t === undefined).length;
  if (missing > 0) throw new Error(`${missing} of ${completions.length} completions carried no timings`);
  return { completions, wall, records: readFileSync(outFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) };
}

function summarise(name, { completions, wall, records }) {
  const e = { requests: completions.length, computed: 0, cached: 0, output: 0, engineMs: 0, warmShares: [] };
  completions.forEach((t, i) => {
    e.computed += t.prompt_n;
    e.cached += t.cache_n;
    e.output += t.predicted_n;
    e.engineMs += t.prompt_ms + t.predicted_ms;
    // The first request of each slot meets an empty cache; the rest meet a warm one.
    if (i >= SLOTS) e.warmShares.push(t.cache_n / (t.cache_n + t.prompt_n));
  });
  const outcomes = { ok: 0, flagged: 0, failed: 0 };
  const flags = new Map();
  const rca = { prompt: 0, cached: 0, output: 0 };
  for (const rec of records) {
    for (const view of ['retrieval_summary', 'rca_frame']) {
      const gen = rec.generation?.[view];
      if (gen === undefined) continue;
      const viewFlags = rec.flags?.[view] ?? [];
      if (rec[view] === null) outcomes.failed++;
      else if (viewFlags.length > 0) outcomes.flagged++;
      else outcomes.ok++;
      for (const f of viewFlags) flags.set(f, (flags.get(f) ?? 0) + 1);
      rca.prompt += gen.tokens.prompt ?? 0;
      rca.cached += gen.tokens.cached ?? 0;
      rca.output += gen.tokens.output ?? 0;
    }
  }
  const sorted = [...e.warmShares].sort((a, b) => a - b);
  return {
    name,
    label: VARIANTS[name].label,
    ...e,
    warmMin: sorted[0] ?? 0,
    warmMedian: sorted[Math.floor(sorted.length / 2)] ?? 0,
    wall,
    outcomes,
    flags: Object.fromEntries([...flags].sort((a, b) => b[1] - a[1])),
    rca,
  };
}

const results = [];
for (const name of values.variants.split(',')) {
  if (VARIANTS[name] === undefined) throw new Error(`unknown variant ${name} (${Object.keys(VARIANTS).join(', ')})`);
  results.push(summarise(name, await runVariant(name)));
}
const base = results.find((r) => r.name === 'dackar') ?? results[0];
const perChunk = (n) => fmt(n / chunks, 0);
const engineTokens = (r) => r.computed + r.output;

const { buildSeconds, version } = buildInfo(bin);
console.log(`machine: ${machine()}; llama-server ${version} (built in ${buildSeconds} s), tiny model, -np ${SLOTS}, -c ${CTX}, a fresh server per variant; rca-generate --backend openai --concurrency ${values.concurrency} --max-tries 1 --no-cache; ${values.corpus}${every > 1 ? ` (every ${every}th chunk)` : ''}: ${chunks} chunks`);
console.log('| variant | requests | prompt tokens computed / chunk | from cache / chunk | share from cache (all; warm median; warm min) | output tokens / chunk | engine tokens / chunk (× dackar) | engine s | wall s | views ok / flagged / failed |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  const all = r.cached / (r.cached + r.computed);
  console.log(
    `| ${r.label} | ${r.requests} | ${perChunk(r.computed)} | ${perChunk(r.cached)} | ${fmt(100 * all)} %; ${fmt(100 * r.warmMedian)} %; ${fmt(100 * r.warmMin)} % | ${perChunk(r.output)} | ${perChunk(engineTokens(r))} (${fmt(engineTokens(r) / engineTokens(base), 2)}×) | ${fmt(r.engineMs / 1000)} | ${fmt(r.wall)} | ${r.outcomes.ok} / ${r.outcomes.flagged} / ${r.outcomes.failed} |`,
  );
}
for (const r of results) {
  console.log(`${r.label}: flags ${JSON.stringify(r.flags)}; rca's generation.<view>.tokens summed: prompt ${r.rca.prompt} (engine: ${r.computed + r.cached}), cached ${r.rca.cached} (engine: ${r.cached}), output ${r.rca.output} (engine: ${r.output})`);
}
if (values.json) writeFileSync(values.json, JSON.stringify({ chunks, corpus: values.corpus, results }, null, 2) + '\n');
