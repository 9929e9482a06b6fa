#!/usr/bin/env node
// Tag throughput beside a plain Node parse+stringify loop (bench/identity.mjs) and `jq -c .`
// (where installed), measured in one run on each corpus profile, with each lexicon at each
// --jobs. Ratios are taken within a run (the variants of a run go back to back) and the median of
// the per-run ratios is reported: the machine is shared, so absolute rates drift between runs.
// Usage: node bench/tag-throughput.mjs [--mb 100] [--runs 3] [--jobs 1,auto]
//          [--corpus mdparser,text-heavy] [--lexicon built-in,reference]
import { parseArgs } from 'node:util';
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { corpus, fmt, hasJq, machine, measure, PROFILES, ROOT, stats } from './measure.mjs';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '100' },
    runs: { type: 'string', default: '3' },
    jobs: { type: 'string', default: '1,auto' },
    corpus: { type: 'string', default: PROFILES.join(',') },
    lexicon: { type: 'string', default: 'built-in,reference' },
  },
});
const node = process.execPath;
const tag = join(ROOT, 'bin/rca-tag');
const reference = join(ROOT, 'test/fixtures/dackar/tag_keywords_lists.derived.csv');
const jq = hasJq();
const LEXICONS = { 'built-in': ['built-in lexicon', []], reference: ['2,833-term reference lexicon', ['--lexicon', reference]] };
const variants = [
  ['node parse+stringify', node, [join(ROOT, 'bench/identity.mjs')]],
  ...(jq ? [['jq -c .', 'jq', ['-c', '.']]] : []),
];
for (const lex of values.lexicon.split(',')) {
  const [label, args] = LEXICONS[lex] ?? (() => { throw new Error(`unknown --lexicon ${lex} (built-in, reference)`); })();
  for (const j of values.jobs.split(',')) variants.push([`rca-tag (${label}, --jobs ${j})`, node, [tag, ...args, '--jobs', j]]);
}
const { autoJobs } = await import('../dist/tagging/tag-pool.js');
console.log(`machine: ${machine()}; runs: ${values.runs}; --jobs auto = ${autoJobs(availableParallelism())} thread(s) here${jq ? '' : '; jq not installed: no jq column'}`);
console.log(`command: node bench/tag-throughput.mjs --mb ${values.mb} --runs ${values.runs} --jobs ${values.jobs} --corpus ${values.corpus} --lexicon ${values.lexicon}`);
console.log(`| corpus | variant | MB/s min / median / max | × node loop | ${jq ? '× jq | ' : ''}peak RSS MB (max) |`);
console.log(`|---|---|---|---|${jq ? '---|' : ''}---|`);
for (const profile of values.corpus.split(',')) {
  const input = await corpus(Number(values.mb), 42, profile);
  const mb = statSync(input).size / 2 ** 20;
  const results = new Map(variants.map(([name]) => [name, { secs: [], peak: [] }]));
  for (let run = 0; run < Number(values.runs); run++) {
    // Interleave the variants so drift in machine load hits all of them alike.
    for (const [name, cmd, args] of variants) {
      const r = await measure(cmd, args, input);
      results.get(name).secs.push(r.seconds);
      results.get(name).peak.push(r.peakMB);
    }
  }
  const ratio = (name, base) => stats(results.get(name).secs.map((s, i) => results.get(base).secs[i] / s)).median;
  for (const [name] of variants) {
    const { secs, peak } = results.get(name);
    const s = stats(secs);
    const jqCol = jq ? `${fmt(ratio(name, 'jq -c .'), 2)} | ` : '';
    console.log(`| ${profile} (${fmt(mb, 0)} MB) | ${name} | ${fmt(mb / s.max)} / ${fmt(mb / s.median)} / ${fmt(mb / s.min)} | ${fmt(ratio(name, 'node parse+stringify'), 2)} | ${jqCol}${fmt(Math.max(...peak), 0)} |`);
  }
}
