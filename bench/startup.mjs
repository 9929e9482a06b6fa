#!/usr/bin/env node
// Start-up time of every bin (empty input) beside a bare `node -e 0`, measured in one run.
// Usage: node bench/startup.mjs [--runs 20] [--modules]
// --modules: also what each one loads at start: the project's modules, npm packages, and the
// Node built-ins a bare `node -e 0` does not load (its process.moduleLoadList beyond node's own).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, machine, ROOT, stats } from './measure.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' }, modules: { type: 'boolean', default: false } } });
const runs = Number(values.runs);
const bins = readdirSync(join(ROOT, 'bin')).filter((b) => b.startsWith('rca-')).sort();
// Model stages would contact a server before the first record: they are measured with the
// extractive backend (no server) and with --dry-run (the Ollama request path, no server).
const extraArgs = {
  'rca-generate': [['--backend', 'extractive'], ['--dry-run']],
  'rca-summarize': [['--backend', 'extractive'], ['--dry-run']],
};
const variants = [
  ['node -e 0', ['-e', '0']],
  ...bins.flatMap((b) => (extraArgs[b] ?? [[]]).map((extra) => [[b, ...extra].join(' '), [join(ROOT, 'bin', b), ...extra]])),
];
const times = new Map(variants.map(([name]) => [name, []]));
for (let i = 0; i < runs; i++) {
  for (const [name, args] of variants) {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { input: '', cwd: ROOT });
    if (r.status !== 0 && r.status !== 1) throw new Error(`${name} exited ${r.status}: ${r.stderr}`);
    times.get(name).push(Number(process.hrtime.bigint() - t) / 1e6);
  }
}
const base = stats(times.get('node -e 0')).median;
console.log(`machine: ${machine()}; runs: ${runs}; empty stdin`);
console.log('| command | ms min / median / max | × bare node (median) |');
console.log('|---|---|---|');
for (const [name] of variants) {
  const s = stats(times.get(name));
  console.log(`| ${name} | ${fmt(s.min)} / ${fmt(s.median)} / ${fmt(s.max)} | ${fmt(s.median / base, 2)} |`);
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
