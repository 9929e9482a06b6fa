#!/usr/bin/env node
// The stages after tag beside the plain Node parse+stringify loop (bench/identity.mjs) on the same
// input, by CPU time (user + sys of the process, from /usr/bin/time) as well as by wall time: on a
// shared machine the CPU a run takes moves far less with the load than its wall time. Each run
// measures the stage and the loop back to back; the ratio is taken within a run, the median over
// the runs. summarize is also put beside rca-tag on the raw corpus (the issue's "≥ 0.5× tag").
// Inputs are made as bench/streaming-stages.mjs makes them (and shared with it): tagged = rca-tag
// of the corpus, summarized = rca-summarize --backend extractive --no-flatten of that.
// --vs DIR pairs each stage with the same stage of another built checkout (DIR holds its bin/ and
// dist/), on the same input, in turns (the order swapped every run): the ratio is DIR's CPU over
// this checkout's, so 1.10 says this checkout's stage takes 10 % less CPU. That is how a fast path
// is held to its stage: DIR built with the route switched to the readable implementation.
// Usage: node bench/stage-cpu.mjs [--mb 20] [--runs 5] [--corpus mdparser,text-heavy] [--stages tag,validate,prompt,prompt-dackar,flatten,summarize,generate] [--vs DIR]
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, createReadStream, createWriteStream, existsSync, openSync, renameSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { corpus, fmt, machine, OUT, PROFILES, ROOT, stats } from './measure.mjs';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '20' },
    runs: { type: 'string', default: '5' },
    corpus: { type: 'string', default: PROFILES.join(',') },
    stages: { type: 'string', default: 'validate,prompt,flatten,summarize' },
    vs: { type: 'string' },
  },
});
const mb = Number(values.mb);
const runs = Number(values.runs);
const node = process.execPath;
const bin = (name) => join(ROOT, 'bin', name);
const VS = values.vs === undefined ? null : resolve(values.vs);
const IDENTITY = join(ROOT, 'bench/identity.mjs');

async function derive(input, name, binName, args) {
  const file = join(OUT, `${name}.jsonl`);
  if (existsSync(file) && statSync(file).size > 0 && statSync(file).mtimeMs > statSync(input).mtimeMs) return file;
  await new Promise((resolve, reject) => {
    const child = spawn(node, [bin(binName), ...args], { stdio: ['pipe', 'pipe', 'ignore'] });
    createReadStream(input).pipe(child.stdin);
    const sink = createWriteStream(`${file}.part`);
    child.stdout.pipe(sink);
    const closed = new Promise((r) => sink.on('close', r));
    child.on('exit', (code) => (code === 0 || code === 1 ? closed.then(() => (renameSync(`${file}.part`, file), resolve())) : reject(new Error(`${binName} exited ${code}`))));
  });
  return file;
}

/** `node args < input > /dev/null` once: wall and CPU seconds. */
function run(args, input) {
  const inFd = openSync(input, 'r');
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', node, ...args], { stdio: [inFd, 'ignore', 'pipe'], cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  closeSync(inFd);
  if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-300)}`);
  const [user, sys] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { wall, cpu: user + sys };
}

const STAGES = {
  tag: { input: 'raw', args: [bin('rca-tag'), '--jobs', '1'] },
  validate: { input: 'summarized', args: [bin('rca-validate'), '--flags-ok'] },
  prompt: { input: 'tagged', args: [bin('rca-prompt')] },
  'prompt-dackar': { input: 'tagged', args: [bin('rca-prompt'), '--prompt-style', 'dackar'] },
  flatten: { input: 'summarized', args: [bin('rca-flatten')] },
  summarize: { input: 'tagged', args: [bin('rca-summarize'), '--backend', 'extractive', '--no-cache'] },
  generate: { input: 'tagged', args: [bin('rca-generate'), '--backend', 'extractive', '--no-cache'] },
};

console.log(`machine: ${machine()}; ${mb} MB of corpus per profile; runs: ${runs}; load average at start: ${(await import('node:os')).loadavg()[0].toFixed(1)}`);
console.log(`command: node bench/stage-cpu.mjs --mb ${mb} --runs ${runs} --corpus ${values.corpus} --stages ${values.stages}${VS ? ` --vs ${VS}` : ''}`);
if (VS) await paired();
else await againstLoop();

/** Each stage here and in VS on the same input, in turns: VS's CPU over this checkout's. */
async function paired() {
  console.log(`| corpus | stage | input MB | ${VS} ÷ this checkout, CPU: min / median / max | wall (median) |`);
  console.log('|---|---|---|---|---|');
  for (const profile of values.corpus.split(',')) {
    const inputs = await inputsOf(profile);
    for (const name of values.stages.split(',')) {
      const spec = STAGES[name];
      if (!spec) throw new Error(`unknown stage ${name} (${Object.keys(STAGES).join(', ')})`);
      const input = inputs[spec.input];
      const other = spec.args.map((a) => (a.startsWith(join(ROOT, 'bin')) ? join(VS, 'bin', a.slice(join(ROOT, 'bin').length + 1)) : a));
      const cpu = [];
      const wall = [];
      for (let i = 0; i < runs; i++) {
        let here, there;
        if (i % 2 === 0) (here = run(spec.args, input)), (there = run(other, input));
        else (there = run(other, input)), (here = run(spec.args, input));
        cpu.push(there.cpu / here.cpu);
        wall.push(there.wall / here.wall);
      }
      const c = stats(cpu);
      console.log(`| ${profile} | ${name} | ${fmt(statSync(input).size / 2 ** 20, 0)} | ${fmt(c.min, 3)} / ${fmt(c.median, 3)} / ${fmt(c.max, 3)} | ${fmt(stats(wall).median, 3)} |`);
    }
  }
}

async function inputsOf(profile) {
  const raw = await corpus(mb, 42, profile);
  const key = `${profile}-${mb}mb`;
  const tagged = await derive(raw, `tagged-${key}`, 'rca-tag', []);
  return { raw, tagged, summarized: /validate|flatten/.test(values.stages) ? await derive(tagged, `summarized-${key}`, 'rca-summarize', ['--backend', 'extractive', '--no-cache', '--no-flatten']) : null };
}

async function againstLoop() {
  console.log('| corpus | stage | input MB | × node loop, CPU: min / median / max | × node loop, wall (median) | summarize ÷ tag, records/CPU-s (median) |');
  console.log('|---|---|---|---|---|---|');
  for (const profile of values.corpus.split(',')) {
    const inputs = await inputsOf(profile);
    const raw = inputs.raw;
    for (const name of values.stages.split(',')) {
      const spec = STAGES[name];
      if (!spec) throw new Error(`unknown stage ${name} (${Object.keys(STAGES).join(', ')})`);
      const input = inputs[spec.input];
      const cpu = [];
      const wall = [];
      const perTag = [];
      for (let i = 0; i < runs; i++) {
        const s = run(spec.args, input);
        const l = run([IDENTITY], input);
        cpu.push(l.cpu / s.cpu);
        wall.push(l.wall / s.wall);
        // Same records: summarize's records per CPU-second over tag's on the raw corpus.
        if (name === 'summarize') perTag.push(run([bin('rca-tag')], raw).cpu / s.cpu);
      }
      const c = stats(cpu);
      console.log(`| ${profile} | ${name} | ${fmt(statSync(input).size / 2 ** 20, 0)} | ${fmt(c.min, 2)} / ${fmt(c.median, 2)} / ${fmt(c.max, 2)} | ${fmt(stats(wall).median, 2)} | ${perTag.length ? fmt(stats(perTag).median, 2) : ''} |`);
    }
  }
}
