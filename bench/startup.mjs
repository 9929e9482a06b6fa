#!/usr/bin/env node
// Start-up time of every bin (empty input; the rca dispatcher's commands as listed below) beside a bare `node -e 0`, measured in one run.
// Usage: node bench/startup.mjs [--runs 20] [--modules] [--compare DIR]
// Wall time and CPU time (user + system of the process: steadier than wall on a shared machine),
// each run timed by a bash around the one process (EPOCHREALTIME, `times`), bash's own start left out.
// --compare DIR: also the bins of another built checkout (e.g. the commit before a change),
// interleaved with these in the same run, so that before and after share the machine's load.
// --modules: also what each one loads at start: the project's modules, npm packages, and the
// Node built-ins a bare `node -e 0` does not load (its process.moduleLoadList beyond node's own).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, machine, ROOT, stats } from './measure.mjs';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '20' }, modules: { type: 'boolean', default: false }, compare: { type: 'string' } },
});
const runs = Number(values.runs);
const bins = readdirSync(join(ROOT, 'bin')).filter((b) => b.startsWith('rca-')).sort();
const compare = values.compare ? resolve(values.compare) : undefined;
// Model stages would contact a server before the first record: they are measured with the
// extractive backend (no server) and with --dry-run (the Ollama request path, no server).
const extraArgs = {
  'rca-generate': [['--backend', 'extractive'], ['--dry-run']],
  'rca-summarize': [['--backend', 'extractive'], ['--dry-run']],
};
// The rca dispatcher: its help, a schema, and each command on small input (merge: two empty
// files) or its --help, and a stage through it. Rows name the empty file EMPTY.
const emptyDir = mkdtempSync(join(tmpdir(), 'rca-startup-empty-'));
const EMPTY = join(emptyDir, 'empty.chunks.jsonl');
writeFileSync(EMPTY, '');
process.on('exit', () => rmSync(emptyDir, { recursive: true, force: true }));
const rcaArgs = [
  ['--help'],
  ['schema', 'retrieval_summary'],
  ['cache', '--help'],
  ['merge', '--inputs', EMPTY, '--outputs', EMPTY],
  ['report', '--help'],
  ['export', '--help'],
  ['tag'],
];
const binVariants = (root, label) => [
  ...bins.flatMap((b) => (extraArgs[b] ?? [[]]).map((extra) => [[b, ...extra].join(' ') + label, [join(root, 'bin', b), ...extra]])),
  ...rcaArgs.map((args) => [['rca', ...args].join(' ').replaceAll(EMPTY, 'EMPTY') + label, [join(root, 'bin', 'rca'), ...args]]),
];
const variants = [['node -e 0', ['-e', '0']], ...binVariants(ROOT, '')];
const compared = compare ? binVariants(compare, ` (${compare})`) : [];
// Wall and CPU ms of one `node args`, its stdin an empty pipe (bash's own); bash writes the
// figures to fd 3.
const TIMED = 's=$EPOCHREALTIME; "$@"; st=$?; e=$EPOCHREALTIME; { echo "$st $s $e"; times; } >&3';
const seconds = (t) => Number(/(\d+)m([\d.]+)s/.exec(t)[1]) * 60 + Number(/(\d+)m([\d.]+)s/.exec(t)[2]);
function timed(name, args) {
  const r = spawnSync('bash', ['-c', TIMED, 'bash', process.execPath, ...args], { cwd: ROOT, input: '', stdio: ['pipe', 'pipe', 'pipe', 'pipe'], encoding: 'utf8' });
  const [status, start, end] = r.output[3].split('\n')[0].split(' ').map(Number);
  if (status !== 0 && status !== 1) throw new Error(`${name} exited ${status}: ${r.stderr}`);
  const [user, system] = r.output[3].split('\n')[2].split(' ').map(seconds);
  return { wall: (end - start) * 1000, cpu: (user + system) * 1000 };
}
const all = [...variants, ...compared];
const times = new Map(all.map(([name]) => [name, { wall: [], cpu: [] }]));
const loadBefore = loadavg();
for (let i = 0; i < runs; i++) {
  for (const [name, args] of all) {
    const t = timed(name, args);
    times.get(name).wall.push(t.wall);
    times.get(name).cpu.push(t.cpu);
  }
}
const base = { wall: stats(times.get('node -e 0').wall).median, cpu: stats(times.get('node -e 0').cpu).median };
const load = (l) => l.map((x) => x.toFixed(2)).join(', ');
console.log(`machine: ${machine()}; runs: ${runs}; empty stdin; load average ${load(loadBefore)} at the start, ${load(loadavg())} at the end`);
console.log('| command | wall ms min / median / max | × bare node (wall median) | CPU ms median | × bare node (CPU median) |');
console.log('|---|---|---|---|---|');
for (const [name] of all) {
  const w = stats(times.get(name).wall);
  const c = stats(times.get(name).cpu);
  console.log(`| ${name} | ${fmt(w.min)} / ${fmt(w.median)} / ${fmt(w.max)} | ${fmt(w.median / base.wall, 2)} | ${fmt(c.median)} | ${fmt(c.median / base.cpu, 2)} |`);
}

if (values.modules) {
  const dir = mkdtempSync(join(tmpdir(), 'rca-startup-'));
  const builtinsOf = (args) => {
    const probe = `process.on('exit', () => process.stderr.write('\\n@@' + JSON.stringify(process.moduleLoadList) + '\\n'))`;
    const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(probe)}`, ...args], { input: '', cwd: ROOT, encoding: 'utf8' });
    return new Set(JSON.parse(r.stderr.split('\n@@').at(-1).trim()));
  };
  const bare = builtinsOf(['-e', '0']);
  console.log('');
  console.log('| command | project modules | npm packages | Node built-ins beyond bare node |');
  console.log('|---|---|---|---|');
  for (const [name, args] of variants.slice(1)) {
    const log = join(dir, 'modules.log');
    rmSync(log, { force: true });
    spawnSync(process.execPath, ['--import', join(ROOT, 'bench/startup-hooks.mjs'), ...args], { input: '', cwd: ROOT, env: { ...process.env, RCA_BENCH_MODULE_LOG: log } });
    const urls = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
    const own = urls.filter((u) => u.includes('/dist/')).length;
    const packages = [...new Set(urls.flatMap((u) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)?.[1] ?? []))];
    const builtins = [...builtinsOf(args)].filter((m) => !bare.has(m) && m.startsWith('NativeModule ') && !m.includes('internal/modules/esm')).length;
    console.log(`| ${name} | ${own} | ${packages.join(', ') || 'none'} | ${builtins} |`);
  }
  rmSync(dir, { recursive: true, force: true });
}
