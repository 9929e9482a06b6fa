#!/usr/bin/env node
// Where a second tagging thread starts to pay: rca-tag --jobs 1 against --jobs 2 on growing
// inputs (the first MB of each corpus profile), interleaved run by run; the median of the per-run
// ratios is reported, with the CPU each spends (user + system) and the load average, since on a
// shared machine the wall ratio says only what the CPUs were free to give. --jobs auto starts its
// threads only for an input of AUTO_MIN_INPUT_BYTES or more (src/tagging/tag-pool.ts): it should sit where the wall
// ratio passes 1 on idle cores.
// Usage: node bench/tag-jobs-crossover.mjs [--mb 1,2,4,8,16,32] [--runs 3] [--corpus mdparser,text-heavy]
import { parseArgs } from 'node:util';
import { openSync, readSync, closeSync, writeFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { corpus, fmt, machine, measure, OUT, PROFILES, ROOT, stats } from './measure.mjs';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '1,2,4,8,16,32' },
    runs: { type: 'string', default: '3' },
    corpus: { type: 'string', default: PROFILES.join(',') },
  },
});
const sizes = values.mb.split(',').map(Number);
const node = process.execPath;
const tag = join(ROOT, 'bin/rca-tag');
console.log(`machine: ${machine()}; runs: ${values.runs}; load average at start ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`command: node bench/tag-jobs-crossover.mjs --mb ${values.mb} --runs ${values.runs} --corpus ${values.corpus}`);
console.log('| corpus | MB | --jobs 1 s (median) | --jobs 2 s (median) | wall × (2 over 1) | CPU × (2 over 1) | load (1 min) |');
console.log('|---|---|---|---|---|---|---|');
for (const profile of values.corpus.split(',')) {
  const full = await corpus(Math.max(...sizes), 42, profile);
  for (const mb of sizes) {
    const input = join(OUT, `crossover-${profile}-${mb}mb.jsonl`);
    writeFileSync(input, firstLines(full, mb * 2 ** 20));
    const one = { secs: [], cpu: [] };
    const two = { secs: [], cpu: [] };
    const loads = [];
    for (let run = 0; run < Number(values.runs); run++) {
      for (const [into, jobs] of [[one, '1'], [two, '2']]) {
        const r = await measure(node, [tag, '--jobs', jobs], input);
        into.secs.push(r.seconds);
        into.cpu.push(r.cpuSeconds);
      }
      loads.push(loadavg()[0]);
    }
    const ratio = (key) => stats(one[key].map((s, i) => s / two[key][i])).median;
    const size = statSync(input).size / 2 ** 20;
    console.log(`| ${profile} | ${fmt(size, 1)} | ${fmt(stats(one.secs).median, 2)} | ${fmt(stats(two.secs).median, 2)} | ${fmt(ratio('secs'), 2)} | ${fmt(1 / ratio('cpu'), 2)} | ${fmt(stats(loads).median, 1)} |`);
  }
}

/** The whole lines within the first `bytes` bytes of a file. */
function firstLines(file, bytes) {
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(bytes);
  const n = readSync(fd, buf, 0, bytes, 0);
  closeSync(fd);
  return buf.subarray(0, buf.lastIndexOf(0x0a, n - 1) + 1);
}
