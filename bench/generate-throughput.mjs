#!/usr/bin/env node
// rca-generate throughput against the fake Ollama server (a fixed latency per request and a fixed
// number of parallel slots, like OLLAMA_NUM_PARALLEL), at several --concurrency values, beside
// the ideal: min(concurrency, slots) / latency requests per second, two requests per record.
// Usage: node bench/generate-throughput.mjs [--records 200] [--latency 50] [--slots 4] [--runs 3]
// Needs a build (npm run build). The fake server and its scripted model are TypeScript test
// helpers; they are compiled once into bench/out/fake/ with tsc, as Node 20 cannot run .ts files.
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, machine, ROOT, stats } from './measure.mjs';
import { loadFakeModel, requireBuilt, taggedInput } from './fake-model.mjs';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '200' },
    latency: { type: 'string', default: '50' },
    slots: { type: 'string', default: '4' },
    runs: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '1,2,4,8' },
    // One request in N takes F × the latency (a slow generation): what does it cost the run?
    'slow-every': { type: 'string', default: '0' },
    'slow-factor': { type: 'string', default: '10' },
  },
});
const slowEvery = Number(values['slow-every']);
const slowFactor = Number(values['slow-factor']);
const records = Number(values.records);
const latencyMs = Number(values.latency);
const slots = Number(values.slots);
const levels = values.concurrency.split(',').map(Number);
const VIEWS = 2;

requireBuilt('generate');
const { startFakeOllama, scriptedModel } = await loadFakeModel();
const input = taggedInput(records);

function runOnce(concurrency) {
  return new Promise(async (resolve, reject) => {
    const model = scriptedModel();
    const respond = slowEvery > 0
      ? (req) => {
          const reply = model.respond(req);
          // Headers held back for the extra time, then the normal reply: one slow generation.
          return req.index % slowEvery === Math.floor(slowEvery / 2) ? { fault: 'slowHeaders', content: reply.content, delayMs: (slowFactor - 1) * latencyMs } : reply;
        }
      : model.respond;
    const server = await startFakeOllama({ latencyMs, slots, respond });
    const inFd = openSync(input, 'r');
    const outFd = openSync('/dev/null', 'w');
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [join(ROOT, 'bin/rca-generate'), '--host', server.url, '--concurrency', String(concurrency), '--flags-ok', '--no-cache'], {
      stdio: [inFd, outFd, 'pipe'],
      cwd: ROOT,
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', async (code) => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      closeSync(inFd);
      closeSync(outFd);
      const requests = server.stats.generations;
      const maxInFlight = server.stats.maxInFlight;
      await server.close();
      if (code !== 0) return reject(new Error(`rca-generate exited ${code}: ${stderr}`));
      resolve({ seconds, requests, maxInFlight });
    });
  });
}

const results = new Map(levels.map((c) => [c, []]));
for (let run = 0; run < Number(values.runs); run++) {
  for (const c of levels) results.get(c).push(await runOnce(c));
}

const slowNote = slowEvery > 0 ? `; one request in ${slowEvery} takes ${slowFactor} × the latency (ideal counts that extra work spread over the slots)` : '';
console.log(`input: ${records} tagged records (${VIEWS} views each); fake server: ${latencyMs} ms per request, ${slots} slots${slowNote}; machine: ${machine()}; runs: ${values.runs}`);
console.log('| --concurrency | records/s min / median / max | requests/s (median) | ideal records/s | median / ideal | requests sent | max in flight at server |');
console.log('|---|---|---|---|---|---|---|');
for (const c of levels) {
  const rs = results.get(c);
  const s = stats(rs.map((r) => r.seconds));
  // Mean work per request grows by (factor - 1) / every when some requests are slow.
  const meanLatency = latencyMs * (1 + (slowEvery > 0 ? (slowFactor - 1) / slowEvery : 0));
  const ideal = Math.min(c, slots) / (meanLatency / 1000) / VIEWS;
  const medianRate = records / s.median;
  console.log(
    `| ${c} | ${fmt(records / s.max)} / ${fmt(medianRate)} / ${fmt(records / s.min)} | ${fmt(rs[0].requests / s.median)} | ${fmt(ideal)} | ${fmt((100 * medianRate) / ideal, 0)} % | ${rs[0].requests} | ${Math.max(...rs.map((r) => r.maxInFlight))} |`,
  );
}
