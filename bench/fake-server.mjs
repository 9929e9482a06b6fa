#!/usr/bin/env node
// The fake Ollama server as a process of its own, so a benchmark's client and server do not share
// a thread and the server's CPU is measured apart. It prints `{"url": …}` on stdout once it
// listens. On stdin: `begin` starts a count; `end` prints `{"generations", "requests", "cpuSeconds"}`
// since the last `begin` (CPU: user + sys of this process, every thread); `close` stops it. One
// server serves every run of a benchmark, so its code is as warm in the last run as in the first.
// Usage (by bench/fake-model.mjs's spawnFakeOllama): node bench/fake-server.mjs DIST_DIR JSON_OPTIONS
import { createInterface } from 'node:readline';
import { join } from 'node:path';

const [fakeDir, optionsJson] = process.argv.slice(2);
const { startFakeOllama } = await import(join(fakeDir, 'support/fake-ollama.js'));
const { scriptedModel } = await import(join(fakeDir, 'generation/support/scripted-model.js'));
const options = JSON.parse(optionsJson ?? '{}');
const model = scriptedModel();
const server = await startFakeOllama({ ...options, respond: model.respond });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

let cpu0 = process.cpuUsage();
let base = { generations: 0, requests: 0 };
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'begin') {
    cpu0 = process.cpuUsage();
    base = { generations: server.stats.generations, requests: server.stats.requests };
    process.stdout.write('{"begun":true}\n');
  } else if (line === 'end') {
    const cpu = process.cpuUsage(cpu0);
    const { generations, requests } = server.stats;
    process.stdout.write(`${JSON.stringify({ generations: generations - base.generations, requests: requests - base.requests, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`);
  } else if (line === 'close') {
    break;
  }
}
await server.close();
process.exit(0);
