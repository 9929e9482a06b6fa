#!/usr/bin/env node
// rca-generate against a real llama-server (the tiny model of test/fixtures/models, -np 2) at
// concurrency = slots, beside the server's own throughput on the very same requests in the same
// run: the first-attempt requests rca would send (taken from its --dry-run, byte for byte) posted
// straight to /v1/chat/completions, streamed, two at a time. The tiny model's logits are near ties
// (random weights), so batching can change its greedy choices and the reply lengths: throughput is
// compared as output tokens per second, the passes interleaved, the median ratio reported.
// Usage: node bench/engine-throughput.mjs [--records 4] [--runs 3]
// Needs a build (npm run build) and llama-server (scripts/build-llama-server.sh builds it once).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, machine } from './measure.mjs';
import { requireBuilt } from './fake-model.mjs';
import { loadEngine, runGenerate, taggedFixtures } from './engine.mjs';

const { values } = parseArgs({ options: { records: { type: 'string', default: '4' }, runs: { type: 'string', default: '3' } } });
const records = Number(values.records);
const runs = Number(values.runs);
const SLOTS = 2;

requireBuilt('generate');
const { buildInfo, locateLlamaServer, MODEL_ALIAS, startLlamaServer } = await loadEngine();

const work = mkdtempSync(join(tmpdir(), 'rca-engine-bench-'));
const tagged = join(work, 'tagged.jsonl');
taggedFixtures(tagged, records);

const bin = locateLlamaServer();
const server = await startLlamaServer({ bin, logFile: join(work, 'server.log'), slots: SLOTS, ctx: 8192 });
const common = ['--backend', 'openai', '--base-url', server.url, '--model', MODEL_ALIAS, '--max-tries', '1', '--concurrency', String(SLOTS), '--no-cache', '--flags-ok'];


// The requests rca sends on each view's first attempt, as its dry run renders them.
await runGenerate([...common, '--dry-run'], tagged, join(work, 'dry.jsonl'));
const requests = readFileSync(join(work, 'dry.jsonl'), 'utf8').trim().split('\n').flatMap((l) => Object.values(JSON.parse(l).requests));

async function one(request) {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      model: request.model,
      messages: [{ role: 'user', content: request.prompt }],
      response_format: request.response_format,
      ...request.options,
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  const text = await response.text();
  const usage = text.split('\n').filter((l) => l.startsWith('data: {') && l.includes('"usage"')).map((l) => JSON.parse(l.slice(6)).usage).at(-1);
  return usage?.completion_tokens ?? 0;
}

// The server alone: the same requests, SLOTS at a time, nothing else in the way.
async function alone() {
  const queue = [...requests];
  let tokens = 0;
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: SLOTS }, async () => {
    for (let r = queue.shift(); r !== undefined; r = queue.shift()) {
      const n = await one(r);
      tokens += n;
    }
  }));
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, tokens };
}

try {
  // Warm-up: both passes then find the same prompt cache in the slots.
  const warm = await alone();
  const rows = [];
  for (let i = 0; i < runs; i++) {
    const a = await alone();
    const statsFile = join(work, `stats-${i}.json`);
    const seconds = await runGenerate([...common, '--stats', statsFile], tagged, join(work, `out-${i}.jsonl`));
    const output = JSON.parse(readFileSync(statsFile, 'utf8')).tokens.output;
    rows.push({ alone: a, rca: { seconds, tokens: output } });
  }
  const median = (xs) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const ratios = rows.map((r) => r.rca.tokens / r.rca.seconds / (r.alone.tokens / r.alone.seconds));
  const { buildSeconds, version } = buildInfo(bin);
  console.log(`machine: ${machine()}; llama-server ${version} (built in ${buildSeconds} s), tiny model, -np ${SLOTS}, --concurrency ${SLOTS}`);
  console.log(`${records} records, ${requests.length} requests per pass (first attempts, --max-tries 1); warm-up ${fmt(warm.seconds)} s`);
  for (const [i, r] of rows.entries()) {
    console.log(`run ${i + 1}: server alone ${fmt(r.alone.seconds)} s (${r.alone.tokens} tokens, ${fmt(r.alone.tokens / r.alone.seconds)} tok/s); rca-generate ${fmt(r.rca.seconds)} s (${r.rca.tokens} tokens, ${fmt(r.rca.tokens / r.rca.seconds)} tok/s); ratio ${fmt(ratios[i], 2)}`);
  }
  console.log(`output tokens/s through rca-generate / server alone (median of ${runs}): ${fmt(median([...ratios]), 2)}`);
} finally {
  await server.stop();
}
