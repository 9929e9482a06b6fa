#!/usr/bin/env node
// Does ndjson earn a place? Reads the same JSON Lines corpus with the runner's own LineSplitter +
// JSON.parse (the baseline), ndjson's parse stream, and stream-chain's JSONL parser (stream-json's),
// each with and without re-serialising every record, and the same records as one JSON document
// through the document source (stream-json's tokenizer + Assembler). Each variant runs in its own
// process, so its peak RSS is its own. On a shared machine wall-clock rates swing with the load;
// MB per CPU-second (user + system of the reading process) is the steadier figure.
// Usage: npm run build && node bench/ndjson-vs-splitter.mjs [--mb 100] [--runs 3]
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { OUT, ROOT, corpus, fmt, machine, stats } from './measure.mjs';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '100' }, runs: { type: 'string', default: '3' }, variant: { type: 'string' }, file: { type: 'string' } } });

const VARIANTS = {
  'runner splitter + JSON.parse': (file) => viaSplitter(file, false),
  'runner splitter + parse + stringify': (file) => viaSplitter(file, true),
  'ndjson parse': (file) => viaNdjson(file, false),
  'ndjson parse + stringify': (file) => viaNdjson(file, true),
  'stream-chain JSONL parser': (file) => viaStreamChain(file, false),
  'stream-chain JSONL parser + stringify': (file) => viaStreamChain(file, true),
  'document source (stream-json), same records': (file) => viaDocument(`${file}.document.json`),
};

if (values.variant) {
  const start = process.hrtime.bigint();
  const records = await VARIANTS[values.variant](values.file);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage();
  process.stdout.write(JSON.stringify({ records, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, maxRssMB: process.resourceUsage().maxRSS / 1024 }) + '\n');
  process.exit(0);
}

async function viaSplitter(file, stringify) {
  const { LineSplitter } = await import(join(ROOT, 'dist/runtime/line-splitter.js'));
  const splitter = new LineSplitter(16 * 1024 * 1024);
  const events = [];
  let n = 0;
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    splitter.push(chunk, events);
    for (const e of events) {
      const rec = JSON.parse(e.text);
      if (stringify) bytes += JSON.stringify(rec).length;
      n++;
    }
    events.length = 0;
  }
  splitter.end(events);
  return n + events.length + (bytes < 0 ? 1 : 0);
}

async function viaNdjson(file, stringify) {
  const { default: ndjson } = await import('ndjson');
  let n = 0;
  let bytes = 0;
  await new Promise((resolve, reject) => {
    createReadStream(file)
      .pipe(ndjson.parse())
      .on('data', (rec) => {
        if (stringify) bytes += JSON.stringify(rec).length;
        n++;
      })
      .on('end', resolve)
      .on('error', reject);
  });
  return n + (bytes < 0 ? 1 : 0);
}

async function viaStreamChain(file, stringify) {
  const { default: parserStream } = await import('stream-chain/jsonl/parserStream.js');
  let n = 0;
  let bytes = 0;
  for await (const { value } of createReadStream(file).pipe(parserStream())) {
    if (stringify) bytes += JSON.stringify(value).length;
    n++;
  }
  return n + (bytes < 0 ? 1 : 0);
}

async function viaDocument(file) {
  const { createSource } = await import(join(ROOT, 'dist/runtime/sources/index.js'));
  const source = createSource({ name: file, format: 'auto', recordsAt: undefined, maxRecordBytes: 16 * 1024 * 1024 });
  const events = [];
  let n = 0;
  for await (const chunk of createReadStream(file)) {
    source.push(chunk, events);
    for (const e of events) if (e.kind === 'record') n++;
    events.length = 0;
  }
  source.end(events);
  return n;
}

/** The corpus's records as one pretty-printed document {metadata, chunks: [...]}, written once. */
async function asDocument(file) {
  const doc = `${file}.document.json`;
  if (existsSync(doc) && statSync(doc).size > 0) return;
  const out = createWriteStream(doc);
  const write = (s) => (out.write(s) ? null : new Promise((r) => out.once('drain', r)));
  await write('{\n  "metadata": {"title": "bench"},\n  "chunks": [\n');
  let first = true;
  for await (const line of createInterface({ input: createReadStream(file) })) {
    if (!line) continue;
    await write((first ? '    ' : ',\n    ') + JSON.stringify(JSON.parse(line)));
    first = false;
  }
  await write('\n  ]\n}\n');
  await new Promise((r) => out.end(r));
}

const mb = Number(values.mb);
const runs = Number(values.runs);
const file = await corpus(mb);
await asDocument(file);
const size = statSync(file).size / 1e6;
console.log(`# ${machine()}; corpus ${fmt(size)} MB (${file.replace(ROOT + '/', '')}), ${runs} runs each, interleaved`);
const results = Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, { rates: [], cpuRates: [], rss: [], records: 0 }]));
for (let run = 0; run < runs; run++) {
  for (const variant of Object.keys(VARIANTS)) {
    const child = spawnSync(process.execPath, [join(ROOT, 'bench/ndjson-vs-splitter.mjs'), '--variant', variant, '--file', file], { encoding: 'utf8', cwd: ROOT });
    if (child.status !== 0) throw new Error(`${variant}: ${child.stderr}`);
    const r = JSON.parse(child.stdout);
    results[variant].rates.push(size / r.seconds);
    results[variant].cpuRates.push(size / r.cpuSeconds);
    results[variant].rss.push(r.maxRssMB);
    results[variant].records = r.records;
  }
}
const base = stats(results['runner splitter + JSON.parse'].cpuRates).median;
const baseStringify = stats(results['runner splitter + parse + stringify'].cpuRates).median;
console.log('| variant | records | MB per CPU-s min / median / max | × runner splitter (same work, CPU) | wall MB/s median | peak RSS MB (max) |');
console.log('|---|---|---|---|---|---|');
for (const [variant, r] of Object.entries(results)) {
  const c = stats(r.cpuRates);
  const ref = variant.includes('stringify') ? baseStringify : base;
  console.log(`| ${variant} | ${r.records} | ${fmt(c.min)} / ${fmt(c.median)} / ${fmt(c.max)} | ${fmt(c.median / ref, 2)} | ${fmt(stats(r.rates).median)} | ${fmt(Math.max(...r.rss), 0)} |`);
}
