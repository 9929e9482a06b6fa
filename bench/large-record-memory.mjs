#!/usr/bin/env node
// Peak memory on one very large record: a tagged chunk whose text is the DACKAR sample's texts
// repeated to --mb MB (ASCII), and the same with typographic characters (– ° ≥ ’), which V8 holds
// as two bytes per character. The bound: peak RSS ≤ 100 MB + 4 × the record. Beside the stages,
// in the same run, the floor any stage pays: a node loop that reads the line, JSON.parse()s it and
// writes JSON.stringify() of it (baseline), and the same stage on the small sample (start-up).
// Peak RSS is VmHWM read in the process at exit (test/support/peak-rss-probe.mjs); MB = 2^20 bytes.
// Usage: npm run build && node bench/large-record-memory.mjs [--mb 15,50]
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { OUT, ROOT, fmt, machine } from './measure.mjs';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '15,50' } } });
const sizes = values.mb.split(',').map(Number);
const PROBE = pathToFileURL(join(ROOT, 'test/support/peak-rss-probe.mjs')).href;
const SAMPLE = join(ROOT, 'test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl');
const MIB = 2 ** 20;
const MAX_LINE = String(256 * MIB);

/** Runs a command with `input` on stdin, stdout to /dev/null; returns its peak RSS in MB (exit 0 or 1 accepted). */
function peakOf(args, input) {
  const file = join(mkdtempSync(join(tmpdir(), 'rca-bench-rss-')), 'peak-kb');
  return new Promise((resolve, reject) => {
    const inFd = openSync(input, 'r');
    const outFd = openSync('/dev/null', 'w');
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: [inFd, outFd, 'pipe'],
      env: { ...process.env, NODE_OPTIONS: `--import=${PROBE}`, RCA_TEST_PEAK_RSS_FILE: file },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      closeSync(inFd);
      closeSync(outFd);
      if (code !== 0 && code !== 1) return reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.slice(0, 300)}`));
      resolve(Number(readFileSync(file, 'utf8')) / 1024);
    });
  });
}

/** One tagged record of `mb` MB (10^6 bytes of text), made once under bench/out. */
function bigRecord(mb, typographic) {
  mkdirSync(OUT, { recursive: true });
  const file = join(OUT, `large-record-${mb}mb${typographic ? '-typographic' : ''}.jsonl`);
  if (existsSync(file) && statSync(file).size > 0) return file;
  const tagged = taggedRecords();
  let texts = tagged.map((r) => r.text).join('\n\n');
  if (typographic) texts = texts.replaceAll(' - ', ' – ').replaceAll(' deg', '°').replaceAll('>=', '≥').replaceAll("'", '’');
  let text = '';
  while (text.length < mb * 1e6) text += `${texts}\n\n`;
  writeFileSync(file, JSON.stringify({ ...tagged[1], text: text.slice(0, mb * 1e6) }) + '\n');
  return file;
}

/** The sample as rca-tag wrote it (made first, below): the big record takes its context and seed. */
function taggedRecords() {
  return readFileSync(join(OUT, 'large-record-sample.tagged.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

const BASELINE = `let d='';process.stdin.setEncoding('utf8').on('data',c=>d+=c).on('end',()=>{for(const l of d.split('\\n'))if(l)process.stdout.write(JSON.stringify(JSON.parse(l))+'\\n')})`;
const runs = [
  ['baseline: read, JSON.parse, JSON.stringify', () => ['-e', BASELINE]],
  ['rca-flatten', () => [join(ROOT, 'bin/rca-flatten'), '--max-line-bytes', MAX_LINE]],
  ['rca-validate', () => [join(ROOT, 'bin/rca-validate'), '--max-line-bytes', MAX_LINE, '--flags-ok']],
  ['rca-generate --backend extractive', () => [join(ROOT, 'bin/rca-generate'), '--backend', 'extractive', '--max-line-bytes', MAX_LINE]],
];

// The small tagged sample: start-up and one ordinary record per stage.
mkdirSync(OUT, { recursive: true });
const sampleTagged = join(OUT, 'large-record-sample.tagged.jsonl');
await new Promise((resolve, reject) => {
  const fd = openSync(sampleTagged, 'w');
  const child = spawn(process.execPath, [join(ROOT, 'bin/rca-tag'), SAMPLE], { stdio: ['ignore', fd, 'inherit'] });
  child.on('close', (code) => (closeSync(fd), code === 0 ? resolve() : reject(new Error(`rca-tag exited ${code}`))));
});

console.log(`machine: ${machine()}`);
console.log('| run | input | record MB | peak RSS MB | bound 100 + 4 × record | × baseline |');
console.log('|---|---|---|---|---|---|');
for (const [name, args] of runs) {
  const peak = await peakOf(args(), sampleTagged);
  console.log(`| ${name} | DACKAR sample (9 chunks) | ${fmt(statSync(sampleTagged).size / MIB, 2)} | ${fmt(peak)} | | |`);
}
for (const mb of sizes) {
  for (const typographic of [false, true]) {
    const file = bigRecord(mb, typographic);
    const recordMb = statSync(file).size / MIB;
    let baseline = NaN;
    for (const [name, args] of runs) {
      const peak = await peakOf(args(), file);
      if (Number.isNaN(baseline)) baseline = peak;
      const bound = 100 + 4 * recordMb;
      console.log(`| ${name} | ${mb} MB${typographic ? ', typographic' : ''} | ${fmt(recordMb)} | ${fmt(peak)} | ${fmt(bound)} ${peak <= bound ? 'ok' : 'OVER'} | ${fmt(peak / baseline, 2)} |`);
    }
  }
}
