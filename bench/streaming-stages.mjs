#!/usr/bin/env node
// Throughput and peak memory of every streaming stage beside a plain Node parse+stringify loop
// (bench/identity.mjs) and `jq -c .` (where installed) over the same input, on each corpus profile,
// measured in one run with the runs interleaved (ratios are what to compare: machines are noisy).
// Usage: node bench/streaming-stages.mjs [--mb 100] [--runs 3] [--stages tag,prompt,...]
//          [--corpus mdparser,text-heavy] [--tag-args "--jobs 2"]
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { corpus, fmt, hasJq, machine, measure, OUT, PROFILES, ROOT, stats } from './measure.mjs';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '100' },
    runs: { type: 'string', default: '3' },
    stages: { type: 'string' },
    corpus: { type: 'string', default: PROFILES.join(',') },
    'tag-args': { type: 'string', default: '' },
  },
});
const mb = Number(values.mb);
const node = process.execPath;
const bin = (name) => join(ROOT, 'bin', name);
const jq = hasJq();
const tagArgs = values['tag-args'].split(/\s+/).filter(Boolean);

/** Runs `bin args < input > output` once, to make the input of a later stage. */
async function derive(input, name, binName, args) {
  const file = join(OUT, `${name}.jsonl`);
  if (existsSync(file) && statSync(file).size > 0 && statSync(file).mtimeMs > statSync(input).mtimeMs) return file;
  await new Promise((resolve, reject) => {
    const child = spawn(node, [bin(binName), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.on('error', () => {}); // a stage that refuses its options closes stdin early
    createReadStream(input).pipe(child.stdin);
    const sink = createWriteStream(`${file}.part`);
    child.stdout.pipe(sink);
    const closed = new Promise((r) => sink.on('close', r));
    child.on('exit', (code) => {
      if (code !== 0 && code !== 1) return reject(new Error(`${binName} exited ${code}`));
      closed.then(() => (renameSync(`${file}.part`, file), resolve()));
    });
  });
  return file;
}

/** The stages and their inputs on one corpus profile (later stages read earlier stages' output). */
async function stagesOf(profile, wanted) {
  const raw = await corpus(mb, 42, profile);
  const key = `${profile}-${mb}mb`;
  // Derived inputs are made only when a wanted stage reads them.
  const tagged = () => derive(raw, `tagged-${key}`, 'rca-tag', []);
  const summarized = async () => derive(await tagged(), `summarized-${key}`, 'rca-summarize', ['--backend', 'extractive', '--no-cache', '--no-flatten']);
  const stages = {
    tag: { input: () => raw, args: [bin('rca-tag'), ...tagArgs] },
    'tag (reference lexicon)': { input: () => raw, args: [bin('rca-tag'), '--lexicon', join(ROOT, 'test/fixtures/dackar/tag_keywords_lists.derived.csv'), ...tagArgs] },
    'count-sections': { input: () => raw, args: [bin('rca-count-sections'), '--sorted'] },
    prompt: { input: tagged, args: [bin('rca-prompt')] },
    validate: { input: summarized, args: [bin('rca-validate'), '--flags-ok'] },
    flatten: { input: summarized, args: [bin('rca-flatten')] },
    'summarize (extractive)': { input: tagged, args: [bin('rca-summarize'), '--backend', 'extractive', '--no-cache'] },
  };
  const names = wanted ?? Object.keys(stages);
  for (const name of names) if (!stages[name]) throw new Error(`unknown stage ${name} (${Object.keys(stages).join(', ')})`);
  return names.map((name) => ({ name, ...stages[name] }));
}

const profiles = values.corpus.split(',');
const command = `node bench/streaming-stages.mjs --mb ${mb} --runs ${values.runs}${values.stages ? ` --stages "${values.stages}"` : ''} --corpus ${values.corpus}${tagArgs.length ? ` --tag-args "${tagArgs.join(' ')}"` : ''}`;
console.log(`machine: ${machine()}; input ${mb} MB of corpus per profile; runs: ${values.runs}${jq ? '' : '; jq not installed: no jq column'}`);
console.log(`command: ${command}`);
console.log(`| corpus | stage | input | MB/s min / median / max | × node loop (median of per-run ratios) | ${jq ? '× jq | ' : ''}peak RSS MB (stage / node loop) |`);
console.log(`|---|---|---|---|---|${jq ? '---|' : ''}---|`);
for (const profile of profiles) {
  for (const spec of await stagesOf(profile, values.stages?.split(','))) {
    const name = spec.name;
    const input = await spec.input();
    const size = statSync(input).size / 2 ** 20;
    const res = { stage: [], loopRatio: [], jqRatio: [], peak: [], loopPeak: [] };
    for (let i = 0; i < Number(values.runs); i++) {
      // Each run measures the stage and its baselines back to back: the ratio is taken within a run.
      const s = await measure(node, spec.args, input);
      const l = await measure(node, [join(ROOT, 'bench/identity.mjs')], input);
      res.stage.push(size / s.seconds);
      res.loopRatio.push(l.seconds / s.seconds);
      res.peak.push(s.peakMB);
      res.loopPeak.push(l.peakMB);
      if (jq) res.jqRatio.push((await measure('jq', ['-c', '.'], input)).seconds / s.seconds);
    }
    const st = stats(res.stage);
    const jqCol = jq ? `${fmt(stats(res.jqRatio).median, 2)} | ` : '';
    console.log(`| ${profile} | ${name} | ${fmt(size, 0)} MB | ${fmt(st.min)} / ${fmt(st.median)} / ${fmt(st.max)} | ${fmt(stats(res.loopRatio).median, 2)} | ${jqCol}${fmt(Math.max(...res.peak), 0)} / ${fmt(Math.max(...res.loopPeak), 0)} |`);
  }
}
