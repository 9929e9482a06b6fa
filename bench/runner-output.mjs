#!/usr/bin/env node
// What the runner's output path costs, without any stage work: a stage that appends one fixed
// field to every record, returned as a string (the line with the field appended, RawJson) or as
// the line's bytes plus the member (AppendedJson), beside a byte passthrough (the line splitter's
// lines written back) and the identity loop (bench/identity.mjs), on the same corpus in one run.
// Usage: node bench/runner-output.mjs [--mb 100] [--runs 5] [--corpus text-heavy] [--dist OTHER_BUILD/dist]
//        node bench/runner-output.mjs --variant string|bytes|passthrough   (one variant, stdin → stdout)
import { parseArgs } from 'node:util';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { corpus, fmt, machine, measure, ROOT, stats } from './measure.mjs';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '100' },
    runs: { type: 'string', default: '5' },
    corpus: { type: 'string', default: 'text-heavy' },
    variant: { type: 'string' },
    dist: { type: 'string' },
  },
});

if (values.variant !== undefined) {
  // --dist: another build (e.g. of an earlier commit) to compare; `bytes` needs AppendedJson.
  const dist = values.dist ? pathToFileURL(join(values.dist, '/')).href : new URL('../dist/', import.meta.url).href;
  const { runStage } = await import(new URL('runtime/runner.js', dist).href);
  const { AppendedJson, RawJson } = await import(new URL('runtime/stage.js', dist).href);
  const member = '"added":{"ok":true}';
  // The string path's append, as the stage contract defines it (stage.ts appendMembers).
  const appendMembers = (line, members) => {
    const raw = line.trimEnd();
    const body = raw.slice(0, raw.length - 1).trimEnd();
    return `${body}${body.endsWith('{') ? '' : ','}${members}}`;
  };
  const make = {
    string: (meta) => new RawJson(appendMembers(meta.raw, member)),
    bytes: (meta) => new AppendedJson(meta.raw, member, meta.bytes),
    passthrough: (meta) => new RawJson(meta.raw),
  }[values.variant];
  const stage = {
    name: 'append', summary: '', examples: [], options: {},
    create: () => ({ process: (_record, meta) => ({ records: [make(meta)] }) }),
  };
  process.exitCode = await runStage(stage, 'append', { argv: [], stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, version: '0' });
} else {
  const input = await corpus(Number(values.mb), 42, values.corpus);
  const mb = statSync(input).size / 2 ** 20;
  const self = join(ROOT, 'bench/runner-output.mjs');
  const variants = [
    ['identity loop (readline + parse + stringify)', [join(ROOT, 'bench/identity.mjs')]],
    ['runner, lines written back as read', [self, '--variant', 'passthrough']],
    ['runner, fixed field appended, string path (RawJson)', [self, '--variant', 'string']],
    ['runner, fixed field appended, bytes path (AppendedJson)', [self, '--variant', 'bytes']],
  ];
  if (values.dist) {
    variants.push(['runner of --dist, lines written back as read', [self, '--variant', 'passthrough', '--dist', values.dist]]);
    variants.push(['runner of --dist, fixed field appended, string path', [self, '--variant', 'string', '--dist', values.dist]]);
  }
  const secs = new Map(variants.map(([name]) => [name, []]));
  const cpu = new Map(variants.map(([name]) => [name, []]));
  for (let run = 0; run < Number(values.runs); run++) {
    for (const [name, args] of variants) {
      const r = await measure(process.execPath, args, input);
      secs.get(name).push(r.seconds);
      cpu.get(name).push(r.cpuSeconds);
    }
  }
  const base = secs.get(variants[0][0]);
  const cpuBase = cpu.get(variants[0][0]);
  console.log(`machine: ${machine()}; ${values.corpus} corpus ${fmt(mb)} MB; runs: ${values.runs}`);
  console.log(`command: node bench/runner-output.mjs --mb ${values.mb} --runs ${values.runs} --corpus ${values.corpus}${values.dist ? ` --dist ${values.dist}` : ''}`);
  console.log('| variant | MB/s min / median / max | × identity loop, wall | × identity loop, CPU | CPU s per 100 MB (median) |');
  console.log('|---|---|---|---|---|');
  for (const [name] of variants) {
    const s = stats(secs.get(name));
    const ratio = stats(secs.get(name).map((t, i) => base[i] / t)).median;
    const cpuRatio = stats(cpu.get(name).map((t, i) => cpuBase[i] / t)).median;
    console.log(`| ${name} | ${fmt(mb / s.max)} / ${fmt(mb / s.median)} / ${fmt(mb / s.min)} | ${fmt(ratio, 2)} | ${fmt(cpuRatio, 2)} | ${fmt((100 * stats(cpu.get(name)).median) / mb, 2)} |`);
  }
}
