#!/usr/bin/env node
// What the response cache saves: rca-summarize over tagged records against the fake Ollama server
// (a fixed latency per request, a fixed number of parallel slots), three ways, each on a fresh
// cache per round:
//   first run    empty cache: every view is asked for
//   re-run       the same command again: every view comes from the cache
//   resume       a run stopped with Ctrl-C about half way, then the same command again
//   flagged      (--flagged N) a first run whose model flags N views on every try (kept under
//                --flags-ok after --max-tries attempts each), then its re-run
// Reported: requests the server got, wall time (median of --runs rounds), and whether the output
// equals the first run's byte for byte once the "cached" markers are set back to false.
// Usage: node bench/cached-rerun.mjs [--records 200] [--latency 50] [--slots 4] [--concurrency 4] [--runs 3] [--flagged N]
// Needs a build (npm run build). The fake server and its scripted model are compiled from test/
// into bench/out/fake/ with tsc, as bench/generate-throughput.mjs does.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, machine, ROOT, stats } from './measure.mjs';
import { loadFakeModel, requireBuilt, taggedInput } from './fake-model.mjs';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '200' },
    latency: { type: 'string', default: '50' },
    slots: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '4' },
    runs: { type: 'string', default: '3' },
    flagged: { type: 'string', default: '0' },
  },
});
const records = Number(values.records);
const latencyMs = Number(values.latency);
const slots = Number(values.slots);
const concurrency = Number(values.concurrency);
const VIEWS = 2;

requireBuilt('summarize');
const { startFakeOllama, scriptedModel } = await loadFakeModel();
const input = taggedInput(records);
const inputText = readFileSync(input);

/** One rca-summarize run on a fresh fake server; `stopAfter` requests: Ctrl-C once the server has had that many. */
const flaggedViews = Number(values.flagged);
const flagScript = Object.fromEntries(
  inputText
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .slice(0, flaggedViews)
    .map((line) => [`${JSON.parse(line).chunk_id} retrieval_summary`, Array(3).fill('short-scope')]),
);

function summarize(cache, stopAfter = Infinity, script = {}) {
  return new Promise(async (resolve, reject) => {
    const model = scriptedModel(script);
    const server = await startFakeOllama({ latencyMs, slots, respond: model.respond });
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [join(ROOT, 'bin/rca-summarize'), '--host', server.url, '--concurrency', String(concurrency), '--flags-ok', '--cache', cache], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out = [];
    let stderr = '';
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {});
    child.stdin.end(inputText);
    let stopped = false;
    const timer = setInterval(() => {
      if (!stopped && server.stats.generations >= stopAfter) {
        stopped = true;
        child.kill('SIGINT');
      }
    }, 2);
    child.on('close', async (code) => {
      clearInterval(timer);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const requests = server.stats.generations;
      await server.close();
      const expected = stopped ? 130 : 0;
      if (code !== expected) return reject(new Error(`rca-summarize exited ${code} (expected ${expected}): ${stderr}`));
      resolve({ seconds, requests, stdout: Buffer.concat(out).toString('utf8') });
    });
  });
}

const unmarked = (text) => text.replaceAll('"cached":true', '"cached":false');
const rows = { first: [], rerun: [], stopped: [], resumed: [], flaggedFirst: [], flaggedRerun: [] };
let identical = { rerun: true, resumed: true, flagged: true };
let firstOutput = null;
for (let round = 0; round < Number(values.runs); round++) {
  const dir = mkdtempSync(join(tmpdir(), 'rca-bench-cache-'));
  try {
    const first = await summarize(join(dir, 'a.sqlite'));
    firstOutput ??= first.stdout;
    if (first.stdout !== firstOutput) throw new Error('two first runs wrote different records');
    const rerun = await summarize(join(dir, 'a.sqlite'));
    const stopped = await summarize(join(dir, 'b.sqlite'), (records * VIEWS) / 2);
    const resumed = await summarize(join(dir, 'b.sqlite'));
    identical.rerun &&= unmarked(rerun.stdout) === first.stdout;
    identical.resumed &&= unmarked(resumed.stdout) === first.stdout;
    rows.first.push(first);
    rows.rerun.push(rerun);
    rows.stopped.push(stopped);
    rows.resumed.push(resumed);
    if (flaggedViews > 0) {
      // The re-run's model flags the same views again: only a request not sent avoids it.
      const flaggedFirst = await summarize(join(dir, 'c.sqlite'), Infinity, flagScript);
      const flaggedRerun = await summarize(join(dir, 'c.sqlite'), Infinity, flagScript);
      identical.flagged &&= unmarked(flaggedRerun.stdout) === flaggedFirst.stdout;
      rows.flaggedFirst.push(flaggedFirst);
      rows.flaggedRerun.push(flaggedRerun);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (rs) => stats(rs.map((r) => r.seconds)).median;
const requests = (rs) => [...new Set(rs.map((r) => r.requests))].join(' / ');
const same = (ok) => (ok ? 'identical apart from `cached`' : 'DIFFERENT');
const firstSeconds = median(rows.first);
console.log(
  `input: ${records} tagged records (${VIEWS} views each); fake server: ${latencyMs} ms per request, ${slots} slots; rca-summarize --concurrency ${concurrency}; machine: ${machine()}; runs: ${values.runs}`,
);
console.log(`command: node bench/cached-rerun.mjs --records ${records} --latency ${latencyMs} --slots ${slots} --concurrency ${concurrency} --runs ${values.runs}${flaggedViews > 0 ? ` --flagged ${flaggedViews}` : ''}`);
console.log('| run | requests sent | wall time s (median) | vs. first run | records |');
console.log('|---|---|---|---|---|');
console.log(`| first run, empty cache | ${requests(rows.first)} | ${fmt(firstSeconds, 2)} | 100 % | written |`);
console.log(`| re-run, same input and cache | ${requests(rows.rerun)} | ${fmt(median(rows.rerun), 2)} | ${fmt((100 * median(rows.rerun)) / firstSeconds, 0)} % | ${same(identical.rerun)} |`);
console.log(`| run stopped with Ctrl-C half way | ${requests(rows.stopped)} | ${fmt(median(rows.stopped), 2)} | ${fmt((100 * median(rows.stopped)) / firstSeconds, 0)} % | the records before the stop |`);
console.log(`| its re-run (resume) | ${requests(rows.resumed)} | ${fmt(median(rows.resumed), 2)} | ${fmt((100 * median(rows.resumed)) / firstSeconds, 0)} % | ${same(identical.resumed)} |`);
if (flaggedViews > 0) {
  const flaggedSeconds = median(rows.flaggedFirst);
  console.log(`| first run, ${flaggedViews} views flagged on every try | ${requests(rows.flaggedFirst)} | ${fmt(flaggedSeconds, 2)} | 100 % | written |`);
  console.log(`| its re-run | ${requests(rows.flaggedRerun)} | ${fmt(median(rows.flaggedRerun), 2)} | ${fmt((100 * median(rows.flaggedRerun)) / flaggedSeconds, 0)} % | ${same(identical.flagged)} |`);
}
