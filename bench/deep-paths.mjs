#!/usr/bin/env node
// Output bytes of rca-count-sections and rca-tag on pathologically deep section paths: every
// section record repeats its path, so without a depth cap a 2,000-heading path makes 2,000
// records of up to 2,000 headings each (quadratic). With --max-depth (default 32) the deeper
// headings are folded into the last kept one and the output is linear in the input. The uncapped
// run (--max-depth 1000000) writes the records the stages wrote before the cap existed.
// Usage: npm run build && node bench/deep-paths.mjs [--segments 2000] [--chunks 10]
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, openSync, closeSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { OUT, ROOT, fmt, machine } from './measure.mjs';

const { values } = parseArgs({ options: { segments: { type: 'string', default: '2000' }, chunks: { type: 'string', default: '10' } } });
const segments = Number(values.segments);
const chunks = Number(values.chunks);

mkdirSync(OUT, { recursive: true });
const file = join(OUT, `deep-paths-${segments}x${chunks}.jsonl`);
{
  // One document; each chunk's path shares all but its last heading with the others.
  const out = createWriteStream(file);
  const shared = Array.from({ length: segments - 1 }, (_, k) => `Heading ${k + 1}`);
  for (let i = 0; i < chunks; i++) {
    const path = [...shared, `Leaf ${i + 1}`].join(' > ');
    out.write(JSON.stringify({ chunk_id: `c${i + 1}`, doc_id: 'deep', section_path: path, text: `Chunk ${i + 1}: the seal of pump P-101A leaked at 1175 psig.` }) + '\n');
  }
  await new Promise((resolve) => out.end(resolve));
}

/** Bytes a bin writes for the file (stdout counted, not stored). */
function outputBytes(bin, args) {
  return new Promise((resolve, reject) => {
    const inFd = openSync(file, 'r');
    const child = spawn(process.execPath, [join(ROOT, 'bin', bin), ...args], { stdio: [inFd, 'pipe', 'ignore'] });
    let bytes = 0;
    child.stdout.on('data', (d) => (bytes += d.length));
    child.on('exit', (code) => {
      closeSync(inFd);
      code === 0 ? resolve(bytes) : reject(new Error(`${bin} exited ${code}`));
    });
  });
}

const inBytes = statSync(file).size;
const rows = [];
for (const [bin, label] of [['rca-count-sections', 'count-sections'], ['rca-tag', 'tag']]) {
  const uncapped = await outputBytes(bin, ['--max-depth', '1000000']);
  const capped = await outputBytes(bin, []);
  rows.push([label, fmt(inBytes / 1024), fmt(uncapped / 2 ** 20, 2), fmt(uncapped / inBytes, 1), fmt(capped / 2 ** 20, 2), fmt(capped / inBytes, 1)]);
}
console.log(`deep section paths: ${chunks} chunks, ${segments} headings each — ${machine()}`);
console.log('| stage | KB in | MB out, no cap | out/in, no cap | MB out, --max-depth 32 | out/in, --max-depth 32 |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
