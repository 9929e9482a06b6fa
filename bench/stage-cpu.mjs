#!/usr/bin/env node
// The stages after tag beside the plain Node parse+stringify loop (bench/identity.mjs) on the same
// input, by CPU time (user + sys of the process, from /usr/bin/time) as well as by wall time: on a
// shared machine the CPU a run takes moves far less with the load than its wall time. Each run
// measures the stage and the loop back to back; the ratio is taken within a run, the median over
// the runs. summarize is also put beside rca-tag on the raw corpus (the issue's "≥ 0.5× tag").
// Inputs are made as bench/streaming-stages.mjs makes them (and shared with it): tagged = rca-tag
// of the corpus, summarized = rca-summarize --backend extractive --no-flatten of that.
// --compare DIR: also each stage of another built checkout (e.g. the commit before a change) on the
// same input, interleaved: this build's CPU over that one's, per run, the median.
// Usage: node bench/stage-cpu.mjs [--mb 20] [--runs 5] [--corpus mdparser,text-heavy] [--stages validate,prompt,flatten,summarize,tag,generate] [--compare DIR]
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
    compare: { type: 'string' },
  },
});
const mb = Number(values.mb);
const runs = Number(values.runs);
const node = process.execPath;
const bin = (name, root = ROOT) => join(root, 'bin', name);
const other = values.compare ? resolve(values.compare) : null;
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
  validate: { input: 'summarized', args: (root) => [bin('rca-validate', root), '--flags-ok'] },
  prompt: { input: 'tagged', args: (root) => [bin('rca-prompt', root)] },
  flatten: { input: 'summarized', args: (root) => [bin('rca-flatten', root)] },
  summarize: { input: 'tagged', args: (root) => [bin('rca-summarize', root), '--backend', 'extractive', '--no-cache'] },
  generate: { input: 'tagged', args: (root) => [bin('rca-generate', root), '--backend', 'extractive', '--no-cache'] },
  tag: { input: 'raw', args: (root) => [bin('rca-tag', root), '--jobs', '1'] },
};

console.log(`machine: ${machine()}; ${mb} MB of corpus per profile; runs: ${runs}; load average at start: ${(await import('node:os')).loadavg()[0].toFixed(1)}`);
console.log(`command: node bench/stage-cpu.mjs --mb ${mb} --runs ${runs} --corpus ${values.corpus} --stages ${values.stages}${other ? ` --compare ${values.compare}` : ''}`);
console.log(`| corpus | stage | input MB | × node loop, CPU: min / median / max | × node loop, wall (median) | summarize ÷ tag, records/CPU-s (median) |${other ? ' CPU ÷ the other build (median) |' : ''}`);
console.log(`|---|---|---|---|---|---|${other ? '---|' : ''}`);
for (const profile of values.corpus.split(',')) {
  const raw = await corpus(mb, 42, profile);
  const key = `${profile}-${mb}mb`;
  const tagged = await derive(raw, `tagged-${key}`, 'rca-tag', []);
  const inputs = { raw, tagged, summarized: /validate|flatten/.test(values.stages) ? await derive(tagged, `summarized-${key}`, 'rca-summarize', ['--backend', 'extractive', '--no-cache', '--no-flatten']) : null };
  for (const name of values.stages.split(',')) {
    const spec = STAGES[name];
    if (!spec) throw new Error(`unknown stage ${name} (${Object.keys(STAGES).join(', ')})`);
    const input = inputs[spec.input];
    const cpu = [];
    const wall = [];
    const perTag = [];
    const vsOther = [];
    for (let i = 0; i < runs; i++) {
      const s = run(spec.args(ROOT), input);
      if (other) vsOther.push(s.cpu / run(spec.args(other), input).cpu);
      const l = run([IDENTITY], input);
      cpu.push(l.cpu / s.cpu);
      wall.push(l.wall / s.wall);
      // Same records: summarize's records per CPU-second over tag's on the raw corpus.
      if (name === 'summarize') perTag.push(run([bin('rca-tag')], raw).cpu / s.cpu);
    }
    const c = stats(cpu);
    console.log(`| ${profile} | ${name} | ${fmt(statSync(input).size / 2 ** 20, 0)} | ${fmt(c.min, 2)} / ${fmt(c.median, 2)} / ${fmt(c.max, 2)} | ${fmt(stats(wall).median, 2)} | ${perTag.length ? fmt(stats(perTag).median, 2) : ''} |${other ? ` ${fmt(stats(vsOther).median, 3)} |` : ''}`);
  }
}
