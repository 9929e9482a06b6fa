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
// × node loop (CPU): the loop's CPU seconds over the variant's (user + system, /usr/bin/time), the
// steadier figure on a shared machine; with threads it is the cost, not the speed.
console.log(`| corpus | variant | MB/s min / median / max | × node loop (wall) | × node loop (CPU) | ${jq ? '× jq (wall) | ' : ''}CPU s per 100 MB | peak RSS MB (max) |`);
console.log(`|---|---|---|---|---|${jq ? '---|' : ''}---|---|`);
for (const profile of values.corpus.split(',')) {
  const input = await corpus(Number(values.mb), 42, profile);
  const mb = statSync(input).size / 2 ** 20;
  const results = new Map(variants.map(([name]) => [name, { secs: [], cpu: [], peak: [] }]));
  for (let run = 0; run < Number(values.runs); run++) {
    // Interleave the variants so drift in machine load hits all of them alike.
    for (const [name, cmd, args] of variants) {
      const r = await measure(cmd, args, input);
      results.get(name).secs.push(r.seconds);
      results.get(name).cpu.push(r.cpuSeconds);
      results.get(name).peak.push(r.peakMB);
    }
  }
  const ratio = (name, base, key = 'secs') => stats(results.get(name)[key].map((s, i) => results.get(base)[key][i] / s)).median;
  for (const [name] of variants) {
    const { secs, cpu, peak } = results.get(name);
    const s = stats(secs);
    const jqCol = jq ? `${fmt(ratio(name, 'jq -c .'), 2)} | ` : '';
    const loop = 'node parse+stringify';
    console.log(`| ${profile} (${fmt(mb, 0)} MB) | ${name} | ${fmt(mb / s.max)} / ${fmt(mb / s.median)} / ${fmt(mb / s.min)} | ${fmt(ratio(name, loop), 2)} | ${fmt(ratio(name, loop, 'cpu'), 2)} | ${jqCol}${fmt((100 * stats(cpu).median) / mb, 2)} | ${fmt(Math.max(...peak), 0)} |`);
  }
}
