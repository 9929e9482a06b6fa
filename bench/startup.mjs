#!/usr/bin/env node
// Start-up time of every bin (empty input) beside a bare `node -e 0`, measured in one run.
// Usage: node bench/startup.mjs [--runs 20]
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, machine, ROOT, stats } from './measure.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' } } });
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
