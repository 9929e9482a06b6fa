#!/usr/bin/env node
// Peak memory of rca-summarize --view section_summary --bottom-up (extractive backend) as the
// input grows: sorted count-sections output with 10× more sections must not need more memory,
// since only the finished children of the open ancestors wait for their parent. Two corpora, each
// at 1× and --factor ×, turned into section records by rca-count-sections first (not measured):
//   many-docs  bench/generate-corpus.mjs (many small documents, two levels)
//   one-doc    one document whose section tree (parts > chapters > sections > steps) grows with
//              the chunk count; chapters hold text of their own, parts hold none
// compared with the same run without --bottom-up, with a --bottom-up run whose V8 old space is
// capped, and with the plain parse-and-print loop. `peak waiting` is the most child summaries held
// at once (from --stats).
// Usage: npm run build && node bench/section-summaries-memory.mjs [--mb 10] [--factor 10] [--chunks 20000]
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, openSync, closeSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { OUT, ROOT, corpus, fmt, machine, measure } from './measure.mjs';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '10' }, factor: { type: 'string', default: '10' }, chunks: { type: 'string', default: '20000' } } });
const mb = Number(values.mb);
const factor = Number(values.factor);
const chunks = Number(values.chunks);
const SUMMARIZE = join(ROOT, 'bin/rca-summarize');
const COUNT_SECTIONS = join(ROOT, 'bin/rca-count-sections');
const IDENTITY = join(ROOT, 'bench/identity.mjs');
// A small old space: if the run still completes, what it keeps does not grow with the input.
const HEAP_CAP_MB = 24;
const ARGS = ['--view', 'section_summary', '--backend', 'extractive', '--flags-ok'];

/** One sorted document: parts > chapters > sections > steps, four chunks per step, one per chapter. */
async function oneDocumentChunks(total) {
  mkdirSync(OUT, { recursive: true });
  const file = join(OUT, `section-summaries-one-doc-${total}.jsonl`);
  if (existsSync(file) && statSync(file).size > 0) return file;
  const out = createWriteStream(file);
  const sentences = [
    'Verify discharge pressure on P-101A is at least 1150 psig and record vibration readings in the surveillance log.',
    'If the inboard bearing temperature exceeds 185 °F, stop the pump and notify the shift supervisor.',
    'Maintenance realigned the coupling to within 2 mils using the laser alignment tool.',
    'The post-maintenance test ran for 30 minutes and met the acceptance criteria of the IST program.',
  ];
  let n = 0;
  const write = async (path) => {
    const text = `${sentences[n % 4]} ${sentences[(n + 1) % 4]} ${sentences[(n + 2) % 4]} Step record ${n}.`;
    const line = JSON.stringify({ chunk_id: `chunk:big:${n}`, doc_id: 'big-doc', section_path: path, text, orderIndex: n, page_start: 1 + (n >> 3), page_end: 1 + (n >> 3) }) + '\n';
    n++;
    if (!out.write(line)) await new Promise((resolve) => out.once('drain', resolve));
  };
  for (let part = 1; n < total; part++) {
    for (let chapter = 1; chapter <= 8 && n < total; chapter++) {
      const chapterPath = `Part ${part} > ${chapter}. Chapter ${part}.${chapter}`;
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

/** rca-count-sections output of a chunk file (made once, reused). */
async function sectionsOf(chunkFile) {
  const file = chunkFile.replace(/\.jsonl$/, '.sections.jsonl');
  if (existsSync(file) && statSync(file).size > 0) return file;
  const inFd = openSync(chunkFile, 'r');
  const outFd = openSync(file, 'w');
  await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [COUNT_SECTIONS], { stdio: [inFd, outFd, 'ignore'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`rca-count-sections exited ${code}`))));
  });
  closeSync(inFd);
  closeSync(outFd);
  return file;
}

async function peak(args, file) {
  try {
    return fmt((await measure(process.execPath, args, file)).peakMB);
  } catch {
    return 'out of memory';
  }
}

const lineCount = (file) => readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').length;

const rows = [];
async function row(label, chunkFile) {
  const file = await sectionsOf(chunkFile);
  const stats = join(OUT, 'section-summaries-stats.json');
  const bottomUp = await measure(process.execPath, [SUMMARIZE, ...ARGS, '--bottom-up', '--stats', stats], file);
  const waiting = JSON.parse(readFileSync(stats, 'utf8')).sections.peak_waiting_children;
  rmSync(stats, { force: true });
  rows.push([
    label,
    String(lineCount(file)),
    fmt(statSync(file).size / 2 ** 20),
    fmt(bottomUp.seconds, 2),
    fmt(bottomUp.peakMB),
    String(waiting),
    await peak([SUMMARIZE, ...ARGS], file),
    await peak([`--max-old-space-size=${HEAP_CAP_MB}`, SUMMARIZE, ...ARGS, '--bottom-up'], file),
    await peak([IDENTITY], file),
  ]);
}

await row('many-docs 1×', await corpus(mb));
await row(`many-docs ${factor}×`, await corpus(mb * factor));
await row('one-doc 1×', await oneDocumentChunks(chunks));
await row(`one-doc ${factor}×`, await oneDocumentChunks(chunks * factor));

const header = ['corpus', 'sections', 'MB in', '--bottom-up s', '--bottom-up peak RSS MB', 'peak waiting', 'no --bottom-up MB', `--bottom-up, old space ${HEAP_CAP_MB} MB`, 'identity loop MB'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(`rca-summarize --view section_summary --backend extractive peak memory — ${machine()}`);
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const r of rows) console.log(line(r));
