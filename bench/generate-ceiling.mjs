#!/usr/bin/env node
// The ceiling of rca-generate: the fake Ollama server with no latency and more slots than requests
// in flight, so the client is all that limits the rate. At each --concurrency: requests/s over runs
// (min / median / max), the CPU seconds (user + sys) rca-generate spends per request, and the CPU
// the fake server spends per request. Baseline in the same run: a trivial loop client (this script
// with --client: fetch, read the reply to its end, next) posting the very same requests — taken
// from rca's --dry-run, byte for byte — at the same concurrency. Child CPU comes from
// /usr/bin/time; the server runs in a process of its own (bench/fake-server.mjs), which reports
// its own CPU, so it never shares a thread with the client it serves.
// Usage: node bench/generate-ceiling.mjs [--records 500] [--runs 3] [--concurrency 8,32,128] [--compare ROOT]
// Needs a build (npm run build).
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, machine, OUT, ROOT, stats } from './measure.mjs';
import { compileFakeModel, requireBuilt, spawnFakeOllama, taggedInput } from './fake-model.mjs';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '500' },
    runs: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '8,32,128' },
    // Internal: run as the trivial loop client.
    client: { type: 'string' },
    host: { type: 'string' },
    // Extra node flags for the measured processes (e.g. --cpu-prof --cpu-prof-dir=DIR).
    'node-flags': { type: 'string', default: '' },
    // Another checkout (built) whose rca-generate is measured beside this one, interleaved.
    compare: { type: 'string' },
  },
});

if (values.client !== undefined) {
  // The baseline client: each worker posts the next body and reads the streamed reply to its end.
  const bodies = readFileSync(values.client, 'utf8').split('\n').filter((l) => l !== '');
  const concurrency = Number(values.concurrency);
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < bodies.length; i = next++) {
      const response = await fetch(`${values.host}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodies[i] });
      await response.text();
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
    }
  }));
  process.exit(0);
}

const records = Number(values.records);
const nodeFlags = values['node-flags'].split(' ').filter((f) => f !== '');
const levels = values.concurrency.split(',').map(Number);
const TARGET = 1000; // 10 × a single vLLM server (~100 requests/s for these prompts)

requireBuilt('generate');
compileFakeModel();
const input = taggedInput(records);
mkdirSync(OUT, { recursive: true });

// The bodies rca sends on each view's first attempt (as the Ollama client builds them).
const dry = execFileSync(process.execPath, [join(ROOT, 'bin/rca-generate'), '--dry-run', '--flags-ok', '--no-cache'], { input: readFileSync(input), maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'ignore'] });
const bodies = dry.toString('utf8').trim().split('\n').flatMap((l) => Object.values(JSON.parse(l).requests ?? {})).map((r) =>
  JSON.stringify({ model: r.model, messages: [{ role: 'user', content: r.prompt }], format: r.format, options: r.options, keep_alive: r.keep_alive, think: r.think, truncate: false, stream: true }),
);
const bodiesFile = join(OUT, `ceiling-bodies-${records}.jsonl`);
writeFileSync(bodiesFile, bodies.join('\n') + '\n');

// One fake server (a process of its own) for every run.
const server = await spawnFakeOllama({ latencyMs: 0, slots: 100_000, maxQueue: 100_000 });

/** Runs `args` under /usr/bin/time against the fake server; returns wall, child CPU, server CPU, requests. */
async function runOnce(args, stdinFile, serverUrlArg) {
  await server.begin();
  const timeFile = join(OUT, 'ceiling-time.txt');
  const inFd = openSync(stdinFile, 'r');
  const outFd = openSync('/dev/null', 'w');
  const start = process.hrtime.bigint();
  const child = spawn('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, process.execPath, ...nodeFlags, ...args, ...serverUrlArg(server.url)], { stdio: [inFd, outFd, 'pipe'], cwd: ROOT });
  closeSync(inFd);
  closeSync(outFd);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const { generations, cpuSeconds } = await server.end();
  if (code !== 0) throw new Error(`${args[0]} exited ${code}: ${stderr.slice(0, 400)}`);
  const [user, sys] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
  return { seconds, requests: generations, childCpu: user + sys, serverCpu: cpuSeconds };
}

// The variants, each an rca-generate build or the loop client; --compare ROOT adds the build in
// ROOT (another checkout, built), measured interleaved with this one on the same server.
const generateAt = (root, label) => ({
  label,
  run: (c) => runOnce([join(root, 'bin/rca-generate'), '--concurrency', String(c), '--flags-ok', '--no-cache'], input, (url) => ['--host', url]),
  idle: () => runOnce([join(root, 'bin/rca-generate'), '--flags-ok', '--no-cache'], empty, (url) => ['--host', url]),
});
const loop = {
  label: 'loop client',
  run: (c) => runOnce([join(ROOT, 'bench/generate-ceiling.mjs'), '--client', bodiesFile, '--concurrency', String(c)], '/dev/null', (url) => ['--host', url]),
  idle: () => runOnce([join(ROOT, 'bench/generate-ceiling.mjs'), '--client', emptyBodies, '--concurrency', '1'], '/dev/null', (url) => ['--host', url]),
};
const variants = [generateAt(ROOT, 'rca-generate'), ...(values.compare ? [generateAt(values.compare, `rca-generate (${values.compare})`)] : []), loop];

// Start-up and exit of each process without a request (empty input), taken off its CPU and wall time.
const empty = join(OUT, 'ceiling-empty.jsonl');
writeFileSync(empty, '');
const emptyBodies = join(OUT, 'ceiling-empty-bodies.jsonl');
writeFileSync(emptyBodies, '');
// A warm-up pass of the loop client, not counted: the server's code is compiled before the first run.
await loop.run(levels[0]);
for (const v of variants) {
  const idle = [];
  for (let run = 0; run < Number(values.runs); run++) idle.push(await v.idle());
  v.idleCpu = stats(idle.map((r) => r.childCpu)).median;
  v.idleWall = stats(idle.map((r) => r.seconds)).median;
  v.results = new Map(levels.map((c) => [c, []]));
}
for (let run = 0; run < Number(values.runs); run++) {
  // Interleaved, so load from elsewhere on the machine falls on every variant alike.
  for (const c of levels) for (const v of variants) v.results.get(c).push(await v.run(c));
}

await server.close();

const ms = (x) => fmt(x * 1000, 2);
const median = (xs) => stats(xs).median;
// Steady state: start-up (the empty-input run) taken off both the wall time and the CPU.
const rate = (r, v) => r.requests / Math.max(1e-3, r.seconds - v.idleWall);
const cpuPer = (r, v) => Math.max(0, r.childCpu - v.idleCpu) / r.requests;
const requests = median(variants[0].results.get(levels[0]).map((r) => r.requests));
console.log(`input: ${records} tagged records, ${bodies.length} first attempts (2 views, --no-cache), ${requests} requests per rca run with the ladder's retries; fake Ollama in its own process: 0 ms latency, unbounded slots; machine: ${machine()}; runs: ${values.runs}`);
console.log(`start-up and exit with empty input (taken off below): ${variants.map((v) => `${v.label} ${fmt(v.idleWall, 3)} s wall, ${fmt(v.idleCpu, 3)} s CPU`).join('; ')}`);
console.log('| --concurrency | variant | requests/s min / median / max | × loop client (median) | CPU ms per request (median) | × loop client CPU | fake server CPU ms per request (median) | median / 1,000 requests/s |');
console.log('|---|---|---|---|---|---|---|---|');
for (const c of levels) {
  const loopRate = median(loop.results.get(c).map((r) => rate(r, loop)));
  const loopCpu = median(loop.results.get(c).map((r) => cpuPer(r, loop)));
  for (const v of variants) {
    const rs = v.results.get(c);
    const s = stats(rs.map((r) => rate(r, v)));
    const cpu = median(rs.map((r) => cpuPer(r, v)));
    console.log(`| ${c} | ${v.label} | ${fmt(s.min)} / ${fmt(s.median)} / ${fmt(s.max)} | ${fmt(s.median / loopRate, 2)} | ${ms(cpu)} | ${fmt(cpu / loopCpu, 2)} × | ${ms(median(rs.map((r) => r.serverCpu / r.requests)))} | ${fmt(s.median / TARGET, 2)} × |`);
  }
}
for (const v of variants) {
  const all = median(levels.flatMap((c) => v.results.get(c).map((r) => cpuPer(r, v))));
  // Node's helper threads (GC, libuv) run beside the main one, so one process can use more than a core.
  console.log(`${v.label}: CPU per request, median over all runs ${ms(all)} ms: ${TARGET} requests/s take ${fmt(all * TARGET, 2)} cores`);
}
