#!/usr/bin/env node
// Throughput and peak memory of every streaming stage beside a plain Node parse+stringify loop and
// `jq -c .` over the same input, measured in one run (ratios are what to compare: machines are noisy).
// Usage: node bench/streaming-stages.mjs [--mb 100] [--runs 3] [--stages tag,prompt,...]
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { corpus, fmt, machine, measure, OUT, ROOT, stats } from './measure.mjs';

const { values } = parseArgs({
  options: { mb: { type: 'string', default: '100' }, runs: { type: 'string', default: '3' }, stages: { type: 'string' } },
});
const mb = Number(values.mb);
const node = process.execPath;
const bin = (name) => join(ROOT, 'bin', name);

if (spawnSync('jq', ['--version']).status !== 0) {
  console.error('jq is missing: install it (e.g. apt-get install -y jq) to get the jq baseline');
  process.exit(2);
}

/** Runs `bin args < input > output` once, to make the input of a later stage. */
async function derive(input, name, binName, args) {
  const file = join(OUT, `${name}-${mb}mb.jsonl`);
  if (existsSync(file) && statSync(file).size > 0 && statSync(file).mtimeMs > statSync(input).mtimeMs) return file;
  await new Promise((resolve, reject) => {
    const child = spawn(node, [bin(binName), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.on('error', () => {}); // a stage that refuses its options closes stdin early
    createReadStream(input).pipe(child.stdin);
    child.stdout.pipe(createWriteStream(file));
    child.on('exit', (code) => (code === 0 || code === 1 ? resolve() : reject(new Error(`${binName} exited ${code}`))));
  });
  return file;
}

const raw = await corpus(mb);
const tagged = await derive(raw, 'tagged', 'rca-tag', []);
const stages = {
  tag: { input: raw, args: [bin('rca-tag')] },
  'tag (reference lexicon)': { input: raw, args: [bin('rca-tag'), '--lexicon', join(ROOT, 'test/fixtures/dackar/tag_keywords_lists.derived.csv')] },
  'count-sections': { input: raw, args: [bin('rca-count-sections'), '--sorted'] },
  prompt: { input: tagged, args: [bin('rca-prompt')] },
};
if (existsSync(bin('rca-summarize'))) {
  const summarized = await derive(tagged, 'summarized', 'rca-summarize', ['--backend', 'extractive', '--no-cache', '--no-flatten']).catch(() => null);
  if (summarized) {
    stages.validate = { input: summarized, args: [bin('rca-validate'), '--flags-ok'] };
    stages.flatten = { input: summarized, args: [bin('rca-flatten')] };
    stages['summarize (extractive)'] = { input: tagged, args: [bin('rca-summarize'), '--backend', 'extractive', '--no-cache'] };
  }
}
const wanted = values.stages ? values.stages.split(',') : Object.keys(stages);

console.log(`machine: ${machine()}; input ${mb} MB per stage; runs: ${values.runs}; command: node bench/streaming-stages.mjs --mb ${mb} --runs ${values.runs}`);
console.log('| stage | input | MB/s min / median / max | × node loop | × jq | peak RSS MB (stage / node loop) |');
console.log('|---|---|---|---|---|---|');
for (const name of wanted) {
  const spec = stages[name];
  if (!spec) throw new Error(`unknown stage ${name}`);
  const size = statSync(spec.input).size / 2 ** 20;
  const res = { stage: [], loop: [], jq: [], peak: [], loopPeak: [] };
  for (let i = 0; i < Number(values.runs); i++) {
    const s = await measure(node, spec.args, spec.input);
    const l = await measure(node, [join(ROOT, 'bench/identity.mjs')], spec.input);
    const j = await measure('jq', ['-c', '.'], spec.input);
    res.stage.push(size / s.seconds);
    res.loop.push(size / l.seconds);
    res.jq.push(size / j.seconds);
    res.peak.push(s.peakMB);
    res.loopPeak.push(l.peakMB);
  }
  const st = stats(res.stage);
  const lo = stats(res.loop).median;
  const jq = stats(res.jq).median;
  console.log(`| ${name} | ${fmt(size, 0)} MB | ${fmt(st.min)} / ${fmt(st.median)} / ${fmt(st.max)} | ${fmt(st.median / lo, 2)} | ${fmt(st.median / jq, 2)} | ${fmt(Math.max(...res.peak), 0)} / ${fmt(Math.max(...res.loopPeak), 0)} |`);
}
