#!/usr/bin/env node
// Tag throughput beside a plain Node parse+stringify loop and `jq -c .`, measured in one run, with
// each lexicon on one thread (--jobs 1) and on the default threads (--jobs auto).
// Usage: node bench/tag-throughput.mjs [--mb 100] [--runs 3] [--jobs 1,auto]
import { parseArgs } from 'node:util';
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { corpus, fmt, machine, measure, ROOT, stats } from './measure.mjs';

const { values } = parseArgs({
  options: { mb: { type: 'string', default: '100' }, runs: { type: 'string', default: '3' }, jobs: { type: 'string', default: '1,auto' } },
});
const input = await corpus(Number(values.mb));
const mb = statSync(input).size / 2 ** 20;
const node = process.execPath;
const tag = join(ROOT, 'bin/rca-tag');
const reference = join(ROOT, 'test/fixtures/dackar/tag_keywords_lists.derived.csv');
const jobs = values.jobs.split(',');
const variants = [
  ['node parse+stringify', node, [join(ROOT, 'bench/identity.mjs')]],
  ['jq -c .', 'jq', ['-c', '.']],
  ...jobs.map((j) => [`rca-tag (built-in lexicon, --jobs ${j})`, node, [tag, '--jobs', j]]),
  ...jobs.map((j) => [`rca-tag (2,833-term reference lexicon, --jobs ${j})`, node, [tag, '--lexicon', reference, '--jobs', j]]),
];
const results = new Map(variants.map(([name]) => [name, { secs: [], peak: [] }]));
for (let run = 0; run < Number(values.runs); run++) {
  // Interleave the variants so drift in machine load hits all of them alike.
  for (const [name, cmd, args] of variants) {
    const r = await measure(cmd, args, input);
    results.get(name).secs.push(r.seconds);
    results.get(name).peak.push(r.peakMB);
  }
}
const base = stats(results.get('node parse+stringify').secs).median;
const jqBase = stats(results.get('jq -c .').secs).median;
// --jobs auto is one thread per CPU, at most 4 (src/tagging/tag-pool.ts).
const { autoJobs } = await import('../dist/tagging/tag-pool.js');
const auto = autoJobs(availableParallelism());
console.log(`input: ${fmt(mb)} MB (${input.replace(ROOT + '/', '')}); machine: ${machine()}; runs: ${values.runs}; --jobs auto = ${auto}`);
console.log(`command: node bench/tag-throughput.mjs --mb ${values.mb} --runs ${values.runs} --jobs ${values.jobs}`);
console.log('| variant | MB/s min / median / max | × node loop | × jq | peak RSS MB (max) |');
console.log('|---|---|---|---|---|');
for (const [name] of variants) {
  const { secs, peak } = results.get(name);
  const s = stats(secs);
  console.log(`| ${name} | ${fmt(mb / s.max)} / ${fmt(mb / s.median)} / ${fmt(mb / s.min)} | ${fmt(base / s.median, 2)} | ${fmt(jqBase / s.median, 2)} | ${fmt(Math.max(...peak), 0)} |`);
}
