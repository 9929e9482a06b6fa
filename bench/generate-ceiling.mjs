#!/usr/bin/env node
// The ceiling of rca-generate: the fake Ollama server with no latency and more slots than requests
// in flight, so the client is all that limits the rate. At each --concurrency: requests/s over runs
// (min / median / max), the CPU seconds (user + sys) rca-generate spends per request, and the CPU
// the fake server spends per request. Baseline in the same run: a trivial loop client (this script
// with --client: fetch, read the reply to its end, next) posting the very same requests — taken
// from rca's --dry-run, byte for byte — at the same concurrency. Child CPU comes from
// /usr/bin/time; the server runs in this process, so its CPU is this process's cpuUsage delta.
// Usage: node bench/generate-ceiling.mjs [--records 500] [--runs 3] [--concurrency 8,32,128]
// Needs a build (npm run build).
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, machine, OUT, ROOT, stats } from './measure.mjs';
import { loadFakeModel, requireBuilt, taggedInput } from './fake-model.mjs';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '500' },
    runs: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '8,32,128' },
    // Internal: run as the trivial loop client.
    client: { type: 'string' },
    host: { type: 'string' },
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
const levels = values.concurrency.split(',').map(Number);
const TARGET = 1000; // 10 × a single vLLM server (~100 requests/s for these prompts)

requireBuilt('generate');
const { startFakeOllama, scriptedModel } = await loadFakeModel();
const input = taggedInput(records);
mkdirSync(OUT, { recursive: true });

// The bodies rca sends on each view's first attempt (as the Ollama client builds them).
const dry = execFileSync(process.execPath, [join(ROOT, 'bin/rca-generate'), '--dry-run', '--flags-ok', '--no-cache'], { input: readFileSync(input), maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'ignore'] });
const bodies = dry.toString('utf8').trim().split('\n').flatMap((l) => Object.values(JSON.parse(l).requests ?? {})).map((r) =>
  JSON.stringify({ model: r.model, messages: [{ role: 'user', content: r.prompt }], format: r.format, options: r.options, keep_alive: r.keep_alive, think: r.think, truncate: false, stream: true }),
);
const bodiesFile = join(OUT, `ceiling-bodies-${records}.jsonl`);
writeFileSync(bodiesFile, bodies.join('\n') + '\n');

/** Runs `args` under /usr/bin/time beside a fresh fake server; returns wall, child CPU, server CPU, requests. */
function runOnce(args, stdinFile, serverUrlArg) {
  return new Promise(async (resolve, reject) => {
    const model = scriptedModel();
    const server = await startFakeOllama({ latencyMs: 0, slots: 100_000, maxQueue: 100_000, respond: model.respond });
    const timeFile = join(OUT, 'ceiling-time.txt');
    const inFd = openSync(stdinFile, 'r');
    const outFd = openSync('/dev/null', 'w');
    const cpu0 = process.cpuUsage();
    const start = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, process.execPath, ...args, ...serverUrlArg(server.url)], { stdio: [inFd, outFd, 'pipe'], cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', async (code) => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const cpu = process.cpuUsage(cpu0);
      closeSync(inFd);
      closeSync(outFd);
      const requests = server.stats.generations;
      await server.close();
      if (code !== 0) return reject(new Error(`${args[0]} exited ${code}: ${stderr.slice(0, 400)}`));
      const [user, sys] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
      resolve({ seconds, requests, childCpu: user + sys, serverCpu: (cpu.user + cpu.system) / 1e6 });
    });
  });
}

const rca = (c) => runOnce([join(ROOT, 'bin/rca-generate'), '--concurrency', String(c), '--flags-ok', '--no-cache'], input, (url) => ['--host', url]);
const loop = (c) => runOnce([join(ROOT, 'bench/generate-ceiling.mjs'), '--client', bodiesFile, '--concurrency', String(c)], '/dev/null', (url) => ['--host', url]);

// Start-up and exit of each process without a request (empty input), taken off its CPU and wall time.
const empty = join(OUT, 'ceiling-empty.jsonl');
writeFileSync(empty, '');
const emptyBodies = join(OUT, 'ceiling-empty-bodies.jsonl');
writeFileSync(emptyBodies, '');
const idle = { rca: [], loop: [] };
for (let run = 0; run < Number(values.runs); run++) {
  idle.rca.push(await runOnce([join(ROOT, 'bin/rca-generate'), '--flags-ok', '--no-cache'], empty, (url) => ['--host', url]));
  idle.loop.push(await runOnce([join(ROOT, 'bench/generate-ceiling.mjs'), '--client', emptyBodies, '--concurrency', '1'], '/dev/null', (url) => ['--host', url]));
}
const idleCpu = { rca: stats(idle.rca.map((r) => r.childCpu)).median, loop: stats(idle.loop.map((r) => r.childCpu)).median };
const idleWall = { rca: stats(idle.rca.map((r) => r.seconds)).median, loop: stats(idle.loop.map((r) => r.seconds)).median };

const results = new Map(levels.map((c) => [c, { rca: [], loop: [] }]));
for (let run = 0; run < Number(values.runs); run++) {
  // Interleaved, so load from elsewhere on the machine falls on both alike.
  for (const c of levels) {
    results.get(c).rca.push(await rca(c));
    results.get(c).loop.push(await loop(c));
  }
}

const ms = (x) => fmt(x * 1000, 2);
const median = (xs) => stats(xs).median;
// Steady state: start-up (the empty-input run) taken off both the wall time and the CPU.
const rate = (r, kind) => r.requests / Math.max(1e-3, r.seconds - idleWall[kind]);
const cpuPer = (r, kind) => Math.max(0, r.childCpu - idleCpu[kind]) / r.requests;
console.log(`input: ${records} tagged records, ${bodies.length} requests per run (2 views, --no-cache); fake Ollama: 0 ms latency, unbounded slots; machine: ${machine()}; runs: ${values.runs}`);
console.log(`start-up and exit with empty input (taken off below): rca-generate ${fmt(idleWall.rca, 3)} s wall, ${fmt(idleCpu.rca, 3)} s CPU; loop client ${fmt(idleWall.loop, 3)} s wall, ${fmt(idleCpu.loop, 3)} s CPU`);
console.log('| --concurrency | rca-generate requests/s min / median / max | loop client requests/s (median) | rca / loop | rca-generate CPU ms per request | loop client CPU ms per request | rca / loop CPU | fake server CPU ms per request (under rca / under loop) | rca median / 1,000 requests/s |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const c of levels) {
  const { rca: rs, loop: ls } = results.get(c);
  const s = stats(rs.map((r) => rate(r, 'rca')));
  const loopRate = median(ls.map((r) => rate(r, 'loop')));
  const rcaCpu = median(rs.map((r) => cpuPer(r, 'rca')));
  const loopCpu = median(ls.map((r) => cpuPer(r, 'loop')));
  console.log(
    `| ${c} | ${fmt(s.min)} / ${fmt(s.median)} / ${fmt(s.max)} | ${fmt(loopRate)} | ${fmt(s.median / loopRate, 2)} | ${ms(rcaCpu)} | ${ms(loopCpu)} | ${fmt(rcaCpu / loopCpu, 1)} × | ${ms(median(rs.map((r) => r.serverCpu / r.requests)))} / ${ms(median(ls.map((r) => r.serverCpu / r.requests)))} | ${fmt(s.median / TARGET, 2)} × |`,
  );
}
const allCpu = median(levels.flatMap((c) => results.get(c).rca.map((r) => cpuPer(r, 'rca'))));
// Node's helper threads (GC, libuv) run beside the main one, so one process can use more than a core.
console.log(`rca-generate CPU per request (median over all runs): ${ms(allCpu)} ms, so ${TARGET} requests/s take ${fmt(allCpu * TARGET, 2)} cores for rca-generate alone; the loop client ${ms(median(levels.flatMap((c) => results.get(c).loop.map((r) => cpuPer(r, 'loop')))))} ms`);
