#!/usr/bin/env node
// Peak memory of rca-count-sections as the input grows: sorted input must not need more memory
// for 10× more chunks. Two corpora, each at 1× and --factor ×:
//   many-docs  bench/generate-corpus.mjs (many small documents, two levels)
//   one-doc    one document whose section tree (depth 4) grows with the chunk count
// compared with the plain parse-and-print loop, with a sorted run whose V8 old space is capped,
// and with the default (any order), which keeps the chunks until the end of input: in memory up to
// --spill-mb, then in a temporary SQLite file; its peak is bounded by that and the largest document.
// Usage: npm run build && node bench/count-sections-memory.mjs [--mb 10] [--factor 10] [--chunks 20000]
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { OUT, ROOT, corpus, fmt, machine, measure } from './measure.mjs';

const { values } = parseArgs({
  options: { mb: { type: 'string', default: '10' }, factor: { type: 'string', default: '10' }, chunks: { type: 'string', default: '20000' }, retained: { type: 'string' }, unsorted: { type: 'boolean', default: false } },
});
if (values.retained) {
  await retained(values.retained, values.unsorted);
  process.exit(0);
}
const mb = Number(values.mb);
const factor = Number(values.factor);
const chunks = Number(values.chunks);
const BIN = join(ROOT, 'bin/rca-count-sections');

/** One sorted document: roots > chapters > sections > steps, four chunks per step, some on chapters. */
async function oneDocumentCorpus(total) {
  mkdirSync(OUT, { recursive: true });
  const file = join(OUT, `count-sections-one-doc-${total}.jsonl`);
  if (existsSync(file) && statSync(file).size > 0) return file;
  const out = createWriteStream(file);
  const sentence = 'Verify discharge pressure on P-101A is at least 1150 psig and record vibration readings in the surveillance log. ';
  const text = sentence.repeat(6);
  let n = 0;
  const write = async (path) => {
    const line = JSON.stringify({ chunk_id: `chunk:big:${n}`, doc_id: 'big-doc', section_path: path, text, orderIndex: n, page_start: 1 + (n >> 3), page_end: 1 + (n >> 3) }) + '\n';
    n++;
    if (!out.write(line)) await new Promise((resolve) => out.once('drain', resolve));
  };
  for (let root = 1; n < total; root++) {
    for (let chapter = 1; chapter <= 8 && n < total; chapter++) {
      const chapterPath = `**Part ${root}** > ${chapter}. Chapter ${root}.${chapter}`;
      await write(chapterPath);
      for (let section = 1; section <= 6 && n < total; section++) {
        for (let step = 1; step <= 5 && n < total; step++) {
          for (let k = 0; k < 4 && n < total; k++) await write(`${chapterPath} > ${chapter}.${section} Section > Step ${chapter}.${section}.${step}`);
        }
      }
    }
  }
  await new Promise((resolve) => out.end(resolve));
  return file;
}

/**
 * In a child run with --expose-gc: feeds the file to the stage's processor, collecting garbage
 * every 5,000 chunks, and prints the largest heap still in use (what the stage keeps, without
 * Node's stream buffers or garbage not yet collected).
 */
async function retained(file, unsorted) {
  const { SectionCounter } = await import('../dist/transforms/count-sections.js');
  const counter = new SectionCounter({ sorted: !unsorted, maxTextChars: 20_000 });
  const base = (globalThis.gc(), process.memoryUsage().heapUsed);
  let max = 0;
  let n = 0;
  const sample = () => {
    globalThis.gc();
    max = Math.max(max, process.memoryUsage().heapUsed - base);
  };
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (!line) continue;
    counter.process(JSON.parse(line));
    if (++n % 5000 === 0) sample();
  }
  sample();
  const end = counter.finish();
  for (const _ of end.stream ?? []) n++;
  counter.close();
  process.stdout.write(`${(max / 2 ** 20).toFixed(2)}\n`);
}

function retainedMb(file, unsorted) {
  const r = spawnSync(process.execPath, ['--expose-gc', join(ROOT, 'bench/count-sections-memory.mjs'), '--retained', file, ...(unsorted ? ['--unsorted'] : [])], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return r.status === 0 ? r.stdout.trim() : 'failed';
}

function countLines(file) {
  return new Promise((resolve, reject) => {
    const child = spawn('wc', ['-l', file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.on('exit', (code) => (code === 0 ? resolve(Number(text.trim().split(/\s+/)[0])) : reject(new Error('wc failed'))));
  });
}

// The plain parse-and-print loop on the same file: how much RSS Node's streaming alone takes.
const IDENTITY = join(ROOT, 'bench/identity.mjs');
// A small old space: if the sorted run still completes, what it keeps does not grow with the input.
const HEAP_CAP_MB = 16;
// With the young generation small too, RSS shows what the run needs rather than how far V8 lets
// its heap grow between collections.
const SEMI_SPACE_MB = 1;

async function peak(args, file) {
  try {
    return fmt((await measure(process.execPath, args, file)).peakMB);
  } catch {
    return 'out of memory';
  }
}

const rows = [];
async function row(label, file) {
  const sorted = await measure(process.execPath, [BIN, '--sorted'], file);
  rows.push([
    label,
    String(await countLines(file)),
    fmt(statSync(file).size / 2 ** 20),
    fmt(sorted.seconds, 2),
    fmt(sorted.peakMB),
    await peak([`--max-old-space-size=${HEAP_CAP_MB}`, BIN, '--sorted'], file),
    await peak([`--max-semi-space-size=${SEMI_SPACE_MB}`, `--max-old-space-size=${HEAP_CAP_MB}`, BIN, '--sorted'], file),
    await peak([IDENTITY], file),
    retainedMb(file, false),
    await peak([BIN], file),
    retainedMb(file, true),
  ]);
}

await row('many-docs 1×', await corpus(mb));
await row(`many-docs ${factor}×`, await corpus(mb * factor));
await row('one-doc 1×', await oneDocumentCorpus(chunks));
await row(`one-doc ${factor}×`, await oneDocumentCorpus(chunks * factor));

const header = ['corpus', 'chunks', 'MB in', 'sorted s', 'sorted peak RSS MB', `sorted, old space ${HEAP_CAP_MB} MB`, `sorted, old ${HEAP_CAP_MB} + semi-space ${SEMI_SPACE_MB} MB`, 'identity loop MB', 'sorted retained heap MB', 'any order MB', 'any order retained heap MB'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(`rca-count-sections peak memory — ${machine()}`);
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const r of rows) console.log(line(r));
