#!/usr/bin/env node
// A generated library_rag document (bench/generate-library-doc.mjs) through the whole RAG path,
// one stage after another with files between them, each stage's peak RSS sampled (VmHWM):
//   rca-tag DOC > tagged.jsonl
//   rca-count-sections --toc DOC < tagged.jsonl > sections.jsonl
//   rca-summarize --view section_summary --bottom-up --backend extractive < sections.jsonl > summaries.jsonl
//   rca export --document DOC summaries.jsonl tagged.jsonl > export.jsonl
// plus the baselines in the same run: rca-tag over the same chunks as JSON Lines (the generator's
// --jsonl), and the node loop (bench/identity.mjs) over tagged.jsonl. Then
// every exported object is checked against its JSON Schema and each Summary's chunksCount against
// the Chunk objects under its sectionPath.
// Usage: npm run build && node bench/library-doc-pipeline.mjs --mb 100 [--keep]
import { spawn } from 'node:child_process';
import { closeSync, createReadStream, createWriteStream, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { OUT, ROOT, fmt, machine, vmHwmKb } from './measure.mjs';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '100' }, seed: { type: 'string', default: '7' }, keep: { type: 'boolean', default: false } } });
const mb = Number(values.mb);
mkdirSync(OUT, { recursive: true });
const doc = join(OUT, `peirce_${mb}mb_seed${values.seed}_chunks.json`);
const tmp = (name) => join(OUT, `library-${mb}mb-${name}`);

/** Runs `cmd args [< input] > output`; returns {seconds, peakMB, stderr}. */
function run(cmd, args, input, output) {
  return new Promise((resolve, reject) => {
    const inFd = input ? openSync(input, 'r') : 'ignore';
    const outFd = openSync(output, 'w');
    const start = process.hrtime.bigint();
    const child = spawn(cmd, args, { stdio: [inFd, outFd, 'pipe'], cwd: ROOT });
    let peak = 0;
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setInterval(() => (peak = Math.max(peak, vmHwmKb(child.pid))), 20);
    child.on('exit', (code) => {
      clearInterval(timer);
      if (typeof inFd === 'number') closeSync(inFd);
      closeSync(outFd);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      if (code !== 0 && code !== 1) return reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr.slice(0, 500)}`));
      resolve({ seconds, peakMB: peak / 1024, code, stderr });
    });
  });
}

if (!existsSync(doc) || statSync(doc).size === 0) {
  const t = process.hrtime.bigint();
  await run(process.execPath, [join(ROOT, 'bench/generate-library-doc.mjs'), '--mb', String(mb), '--seed', values.seed], null, doc);
  console.error(`generated ${doc} in ${fmt(Number(process.hrtime.bigint() - t) / 1e9)} s`);
}
const lines = doc.replace(/\.json$/, '.jsonl');
if (!existsSync(lines) || statSync(lines).size === 0) {
  const docId = doc.split('/').pop().replace(/_chunks\.json$/, '');
  await run(process.execPath, [join(ROOT, 'bench/generate-library-doc.mjs'), '--mb', String(mb), '--seed', values.seed, '--jsonl', '--doc-id', docId], null, lines);
}
const docMB = statSync(doc).size / 1e6;
const bin = (name) => join(ROOT, 'bin', name);
const steps = [
  ['rca-tag DOC', bin('rca-tag'), [doc], null, tmp('tagged.jsonl')],
  ['rca-tag, the same chunks as JSON Lines (baseline)', bin('rca-tag'), [lines], null, '/dev/null'],
  ['node loop over tagged.jsonl (baseline)', process.execPath, [join(ROOT, 'bench/identity.mjs')], tmp('tagged.jsonl'), '/dev/null'],
  ['rca-count-sections --toc DOC', bin('rca-count-sections'), ['--toc', doc], tmp('tagged.jsonl'), tmp('sections.jsonl')],
  ['rca-summarize --view section_summary --bottom-up --backend extractive', bin('rca-summarize'), ['--view', 'section_summary', '--bottom-up', '--backend', 'extractive'], tmp('sections.jsonl'), tmp('summaries.jsonl')],
  ['rca export --document DOC summaries.jsonl tagged.jsonl', bin('rca'), ['export', '--document', doc, tmp('summaries.jsonl'), tmp('tagged.jsonl')], null, tmp('export.jsonl')],
];
console.log(`# ${machine()}; document ${fmt(docMB)} MB (${doc.replace(ROOT + '/', '')})`);
console.log('| step | input MB | seconds | MB/s | peak RSS MB | exit |');
console.log('|---|---|---|---|---|---|');
const notes = [];
for (const [label, cmd, args, input, output] of steps) {
  const files = args.filter((a) => a.endsWith('.jsonl') || a === doc);
  const inMB = (input ? statSync(input).size : (label.startsWith('rca export') ? files.slice(-2) : files.slice(-1)).reduce((s, f) => s + statSync(f).size, 0)) / 1e6;
  const r = await run(cmd, args, input, output);
  console.log(`| ${label} | ${fmt(inMB)} | ${fmt(r.seconds)} | ${fmt(inMB / r.seconds)} | ${fmt(r.peakMB, 0)} | ${r.code} |`);
  notes.push(...r.stderr.split('\n').filter((l) => /document:|toc:|Summary objects|records:|chunks,/.test(l)).map((l) => `${label}: ${l}`));
}
for (const n of notes) console.log(`- ${n.slice(0, 400)}`);

// The export against its schemas, and chunksCount against the Chunk objects under each path.
const { JSON_SCHEMAS } = await import(join(ROOT, 'dist/contracts/json-schemas.generated.js'));
const { compileChecker } = await import(join(ROOT, 'dist/contracts/json-schema-check.js'));
const check = { Summary: compileChecker(JSON_SCHEMAS.weaviate_summary), Chunk: compileChecker(JSON_SCHEMAS.weaviate_chunk) };
const perPath = new Map();
const summaries = [];
let bad = 0;
let objects = 0;
for await (const line of createInterface({ input: createReadStream(tmp('export.jsonl')) })) {
  const o = JSON.parse(line);
  objects++;
  if (check[o.class](o) !== null) bad++;
  if (o.class === 'Summary') summaries.push([o.properties.sectionPath, o.properties.chunksCount]);
  else {
    // Every ancestor path of the chunk, by whole segments.
    const segments = o.properties.sectionPath.split(' > ');
    for (let i = 1; i <= segments.length; i++) {
      const path = segments.slice(0, i).join(' > ');
      perPath.set(path, (perPath.get(path) ?? 0) + 1);
    }
  }
}
let wrong = 0;
for (const [path, count] of summaries) if ((perPath.get(path) ?? 0) !== count) wrong++;
console.log(`- export: ${objects} objects, ${bad} failing their schema; ${summaries.length} Summary objects, ${wrong} whose chunksCount differs from the Chunk objects under their sectionPath`);
if (!values.keep) for (const name of ['tagged.jsonl', 'sections.jsonl', 'summaries.jsonl', 'export.jsonl']) rmSync(tmp(name), { force: true });
