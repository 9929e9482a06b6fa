#!/usr/bin/env node
// How much of each prompt the real engine serves from its prompt cache: rca-generate
// (--backend openai) against the engine tier's llama-server (tiny model, -np 2), through a
// loopback proxy that passes every byte through and reads, from each streamed completion, the
// server's own `timings`: cache_n (prompt tokens reused from the slot's cache) and prompt_n (prompt
// tokens evaluated). Reused share = cache_n / (cache_n + prompt_n), per view and overall; beside
// it, the share of each prompt's characters that it has in common (as a prefix) with the latest
// earlier prompt of the same view — what a cache could reuse at best with one slot per view.
// Every run gets a fresh server, so no run starts with the prompts of the one before in cache.
// --compare ROOT runs the build in ROOT (another checkout, built) too, interleaved, on its own
// fresh servers: the before and after of a change to the order requests are sent in.
// Usage: node bench/engine-prefix-reuse.mjs [--records 6] [--concurrency 2] [--runs 1] [--compare ROOT]
// Needs a build (npm run build) and llama-server (scripts/build-llama-server.sh builds it once).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, machine, ROOT } from './measure.mjs';
import { requireBuilt } from './fake-model.mjs';
import { loadEngine, runGenerate, startTimingsProxy, taggedFixtures } from './engine.mjs';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '6' },
    concurrency: { type: 'string', default: '2' },
    runs: { type: 'string', default: '1' },
    compare: { type: 'string' },
  },
});
const SLOTS = 2;

requireBuilt('generate');
const { buildInfo, locateLlamaServer, MODEL_ALIAS, startLlamaServer } = await loadEngine();
const work = mkdtempSync(join(tmpdir(), 'rca-prefix-bench-'));
const tagged = join(work, 'tagged.jsonl');
const records = taggedFixtures(tagged, Number(values.records));
const bin = locateLlamaServer();

const commonPrefix = (a, b) => {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
};

const args = (url) => ['--backend', 'openai', '--base-url', url, '--model', MODEL_ALIAS, '--max-tries', '1', '--concurrency', values.concurrency, '--no-cache', '--flags-ok'];

// Which view each prompt is for: the first attempts rca sends are its dry run's requests, byte for
// byte (the same for both builds: the prompts do not change, only their order).
const viewOf = new Map();
await runGenerate([...args('http://127.0.0.1:9'), '--dry-run'], tagged, join(work, 'dry.jsonl'));
for (const line of readFileSync(join(work, 'dry.jsonl'), 'utf8').trim().split('\n')) {
  for (const [view, r] of Object.entries(JSON.parse(line).requests ?? {})) viewOf.set(r.prompt, view);
}

/** One run of the build in `root` against a fresh llama-server; the completions in the order they ended. */
async function runOnce(root) {
  const server = await startLlamaServer({ bin, logFile: join(work, 'server.log'), slots: SLOTS, ctx: 8192 });
  // The proxy: request and reply forwarded unchanged; completions noted in the order they end.
  const proxy = await startTimingsProxy(server.url);
  try {
    await runGenerate(args(proxy.url), tagged, '/dev/null', root);
  } finally {
    proxy.close();
    await server.stop();
  }
  const completions = proxy.completions.map(({ body, timings }) => note(body, timings));
  const missing = completions.filter((c) => c.timings?.cache_n === undefined || c.timings?.prompt_n === undefined).length;
  if (missing > 0) throw new Error(`${missing} of ${completions.length} completions carried no timings.cache_n / prompt_n`);
  return completions;
}

function note(body, timings) {
  const prompt = body.messages.map((m) => m.content).join('\n');
  return { view: viewOf.get(prompt) ?? '(not in the dry run)', prompt, timings };
}

/** Per view and overall: completions, tokens, cached tokens, shared prefix characters. */
function tally(completions) {
  const last = new Map();
  const byView = new Map();
  const all = { n: 0, cache: 0, evaluated: 0, sharedChars: 0, chars: 0 };
  for (const c of completions) {
    const before = last.get(c.view);
    c.shared = before === undefined ? 0 : commonPrefix(before, c.prompt);
    last.set(c.view, c.prompt);
    const v = byView.get(c.view) ?? { n: 0, cache: 0, evaluated: 0, sharedChars: 0, chars: 0 };
    for (const t of [v, all]) {
      t.n += 1;
      t.cache += c.timings.cache_n;
      t.evaluated += c.timings.prompt_n;
      t.sharedChars += c.shared;
      t.chars += c.prompt.length;
    }
    byView.set(c.view, v);
  }
  return new Map([...byView, ['all', all]]);
}

const variants = [{ label: 'this build', root: ROOT, runs: [] }, ...(values.compare ? [{ label: values.compare, root: values.compare, runs: [] }] : [])];
for (let run = 0; run < Number(values.runs); run++) {
  for (const v of variants) v.runs.push(await runOnce(v.root));
}

const { buildSeconds, version } = buildInfo(bin);
console.log(`machine: ${machine()}; llama-server ${version} (built in ${buildSeconds} s), tiny model, -np ${SLOTS}, -c 8192, a fresh server per run; rca-generate --backend openai --concurrency ${values.concurrency} --max-tries 1 --no-cache; ${records} records, ${variants[0].runs[0].length} completions per run; runs: ${values.runs}`);
console.log('| build | view | completions | prompt tokens (cache_n + prompt_n) | served from cache (cache_n), per run | reused share, per run | prompt chars shared with the previous prompt of the view |');
console.log('|---|---|---|---|---|---|---|');
const share = (t) => (100 * t.cache) / (t.cache + t.evaluated);
for (const v of variants) {
  const tallies = v.runs.map(tally);
  for (const [view, first] of tallies[0]) {
    const per = tallies.map((t) => t.get(view));
    console.log(`| ${v.label} | ${view} | ${first.n} | ${first.cache + first.evaluated} | ${per.map((t) => t.cache).join(' / ')} | ${per.map((t) => `${fmt(share(t))} %`).join(' / ')} | ${fmt((100 * first.sharedChars) / first.chars)} % |`);
  }
}
console.log('per completion, in the order they ended (view: cache_n / cache_n + prompt_n (shared prefix chars / prompt chars)):');
for (const v of variants) {
  v.runs.forEach((completions, i) => console.log(`${v.label}, run ${i + 1}: ${completions.map((c) => `${c.view}: ${c.timings.cache_n}/${c.timings.cache_n + c.timings.prompt_n} (${c.shared}/${c.prompt.length} chars)`).join('; ')}`));
}
