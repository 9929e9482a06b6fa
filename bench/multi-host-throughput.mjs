#!/usr/bin/env node
// rca-generate spread over several fake Ollama hosts (each with its own latency per request and
// number of parallel slots, like OLLAMA_NUM_PARALLEL), beside the ideal: the sum of the hosts'
// rates, slots / latency requests per second, two requests per record. For reference, the same
// input against one fake host with as many slots as all of them together (the single-host path).
// And the floor the fake servers allow: the same requests (prompts built beforehand) sent by the
// host pool and the Ollama client alone, in a child process, with no rca-generate around them.
// Two rates per run:
//   end to end      input read to exit, process start-up and preflight included
//   request phase   first request at a server to exit: the rate the hosts are kept busy at
// Usage: node bench/multi-host-throughput.mjs [--records 500] [--latency 50] [--slots 2,2,4] [--runs 3]
// Needs a build (npm run build). The fake server and its scripted model are compiled from test/
// into bench/out/fake/ with tsc, as bench/generate-throughput.mjs does.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, machine, ROOT, stats } from './measure.mjs';
import { loadFakeModel, requireBuilt, taggedInput } from './fake-model.mjs';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '500' },
    latency: { type: 'string', default: '50' },
    slots: { type: 'string', default: '2,2,4' },
    runs: { type: 'string', default: '3' },
    // Internal: run as the pool-only client against these hosts (JSON [{url, slots}]).
    'pool-only': { type: 'string' },
    input: { type: 'string' },
  },
});
if (values['pool-only'] !== undefined) {
  await poolOnly(JSON.parse(values['pool-only']), values.input);
  process.exit(0);
}
const records = Number(values.records);
const latencyMs = Number(values.latency);
const slots = values.slots.split(',').map(Number);
const runs = Number(values.runs);
const VIEWS = 2;

requireBuilt('generate');
const { startFakeOllama, scriptedModel } = await loadFakeModel();
const input = taggedInput(records);

/** Fake hosts with these slot counts sharing one scripted model; firstRequestAt() is when the first request came. */
async function startHosts(hostSlots) {
  const model = scriptedModel();
  let first = null;
  const respond = (req) => {
    first ??= process.hrtime.bigint();
    return model.respond(req);
  };
  const servers = await Promise.all(hostSlots.map((n) => startFakeOllama({ latencyMs, slots: n, respond })));
  return { servers, firstRequestAt: () => first };
}

/** One rca-generate run against fake hosts with these slot counts; --host host=URL,slots=N for each. */
function runOnce(hostSlots) {
  return new Promise(async (resolve, reject) => {
    const { servers, firstRequestAt } = await startHosts(hostSlots);
    const hostArgs = servers.flatMap((s, i) => ['--host', `host=${s.url},slots=${hostSlots[i]}`]);
    const inFd = openSync(input, 'r');
    const outFd = openSync('/dev/null', 'w');
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [join(ROOT, 'bin/rca-generate'), ...hostArgs, '--flags-ok', '--no-cache'], { stdio: [inFd, outFd, 'pipe'], cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', async (code) => {
      const end = process.hrtime.bigint();
      closeSync(inFd);
      closeSync(outFd);
      const perHost = servers.map((s) => s.stats.generations);
      const maxInFlight = servers.map((s) => s.stats.maxInFlight);
      await Promise.all(servers.map((s) => s.close()));
      if (code !== 0) return reject(new Error(`rca-generate exited ${code}: ${stderr}`));
      resolve({
        seconds: Number(end - start) / 1e9,
        requestSeconds: Number(end - (firstRequestAt() ?? start)) / 1e9,
        perHost,
        maxInFlight,
      });
    });
  });
}

// The same hosts, driven by the pool alone: the child builds every request first, then sends them
// all through one HostPool (its own slots keep at most `slots` in flight per host).
async function poolOnly(hosts, inputFile) {
  const { readFileSync } = await import('node:fs');
  const { HostPool } = await import(join(ROOT, 'dist/llm/host-pool.js'));
  const { createOllamaClient } = await import(join(ROOT, 'dist/llm/ollama-client.js'));
  const { buildPrompt } = await import(join(ROOT, 'dist/views/prompt-text.js'));
  const { formatOf } = await import(join(ROOT, 'dist/generation/requests.js'));
  const requests = readFileSync(inputFile, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .flatMap((line) => {
      const r = JSON.parse(line);
      return ['retrieval_summary', 'rca_frame'].map((view) => ({
        model: 'mistral:latest',
        prompt: buildPrompt(r.context, r.ner_seed, r.text ?? r.raw_text, view).prompt,
        format: formatOf(view),
        options: { temperature: 0, seed: 42, num_predict: 2048, num_ctx: 8192 },
        keepAlive: '30m',
        timeoutMs: 120_000,
      }));
    });
  const pool = new HostPool(hosts.map((h) => ({ url: h.url, slots: h.slots, client: createOllamaClient({ host: h.url }) })));
  await pool.preflight('mistral:latest');
  await Promise.all(requests.map((request) => pool.generate(request)));
}

function runPoolOnly(hostSlots) {
  return new Promise(async (resolve, reject) => {
    const { servers, firstRequestAt } = await startHosts(hostSlots);
    const hosts = servers.map((s, i) => ({ url: s.url, slots: hostSlots[i] }));
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [join(ROOT, 'bench/multi-host-throughput.mjs'), '--pool-only', JSON.stringify(hosts), '--input', input], { stdio: ['ignore', 'ignore', 'pipe'], cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', async (code) => {
      const end = process.hrtime.bigint();
      const perHost = servers.map((s) => s.stats.generations);
      const maxInFlight = servers.map((s) => s.stats.maxInFlight);
      await Promise.all(servers.map((s) => s.close()));
      if (code !== 0) return reject(new Error(`pool-only client exited ${code}: ${stderr}`));
      resolve({ seconds: Number(end - start) / 1e9, requestSeconds: Number(end - (firstRequestAt() ?? start)) / 1e9, perHost, maxInFlight });
    });
  });
}

const total = slots.reduce((a, b) => a + b, 0);
const setups = [
  { name: `rca-generate, ${slots.length} hosts, ${slots.join(' + ')} slots`, run: () => runOnce(slots) },
  { name: `rca-generate, 1 host, ${total} slots (reference)`, run: () => runOnce([total]) },
  { name: `host pool + client alone, ${slots.join(' + ')} slots (the fakes' floor)`, run: () => runPoolOnly(slots) },
];
const results = new Map(setups.map((s) => [s.name, []]));
// Interleaved, so a change in the machine's load weighs on all alike.
for (let run = 0; run < runs; run++) {
  for (const setup of setups) results.get(setup.name).push(await setup.run());
}

const idealRequests = total / (latencyMs / 1000);
const idealRecords = idealRequests / VIEWS;
console.log(`input: ${records} tagged records (${VIEWS} views each); fake hosts: ${latencyMs} ms per request; machine: ${machine()}; runs: ${runs}`);
console.log(`command: node bench/multi-host-throughput.mjs --records ${records} --latency ${latencyMs} --slots ${slots.join(',')} --runs ${runs}`);
console.log(`ideal: ${fmt(idealRequests)} requests/s = ${fmt(idealRecords)} records/s (sum of slots / latency)`);
console.log('| setup | end to end: records/s (median) | of ideal | request phase: records/s min / median / max | of ideal (median) | requests per host (first run) | max in flight per host |');
console.log('|---|---|---|---|---|---|---|');
for (const setup of setups) {
  const rs = results.get(setup.name);
  const wall = stats(rs.map((r) => r.seconds));
  const phase = stats(rs.map((r) => r.requestSeconds));
  const endToEnd = records / wall.median;
  const phaseRate = records / phase.median;
  console.log(
    `| ${setup.name} | ${fmt(endToEnd)} | ${fmt(endToEnd / idealRecords, 2)} | ${fmt(records / phase.max)} / ${fmt(phaseRate)} / ${fmt(records / phase.min)} | ${fmt(phaseRate / idealRecords, 2)} | ${rs[0].perHost.join(' / ')} | ${rs[0].maxInFlight.join(' / ')} |`,
  );
}
