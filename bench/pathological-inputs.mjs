#!/usr/bin/env node
// Time against input size on the hostile inputs the unit tests feed the extractors, the
// extractive views and the JSON recovery: each input at size n and 4n, in this process (warmed
// up, best of --runs). Linear code gives a ratio near 4; quadratic near 16. This is where those
// tests' timing lives (npm test asserts what they produce, never how long they take).
// Usage: node bench/pathological-inputs.mjs [--runs 5]   (needs npm run build)
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fmt, machine, ROOT, stats } from './measure.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);
const load = (rel) => import(pathToFileURL(join(ROOT, 'dist', rel)).href);
const { extractPatterns } = await load('tagging/extractors.js');
const { extractiveView } = await load('views/extractive.js');
const { recoverJson } = await load('views/json-recovery.js');
const { NER_SEED_KEYS } = await load('contracts/vocabulary.js');

const EMPTY_SEED = Object.fromEntries(NER_SEED_KEYS.map((k) => [k, []]));
const CTX = {
  doc_id: 'D1', doc_type: 'WO', chunk_id: 'D1:0', section_path: 'Work Order > Work Performed',
  page_start: null, page_end: null, authority_level: 'informational', section_role: 'unknown',
};
const views = (text) => {
  for (const view of ['retrieval_summary', 'rca_frame']) extractiveView(view, { context: CTX, nerSeed: EMPTY_SEED, text });
};
// [name, run, input of size k (k = 1 or 4)]
const cases = [
  ['extractors: digits and spaces', extractPatterns, (k) => '1 '.repeat(100_000 * k)],
  ['extractors: hyphenated single letters', extractPatterns, (k) => 'A-'.repeat(100_000 * k)],
  ['extractors: a number and a long blank run', extractPatterns, (k) => `5${' '.repeat(200_000 * k)}x`],
  ['extractors: repeated tags', extractPatterns, (k) => 'P-101A '.repeat(30_000 * k)],
  ['extractors: comma-grouped digits', extractPatterns, (k) => '1,'.repeat(100_000 * k)],
  ['extractors: one endless failure-mode id', extractPatterns, (k) => `FM${'_A'.repeat(100_000 * k)}a`],
  ['extractors: rejected year-less dates', extractPatterns, (k) => 'may 5 '.repeat(30_000 * k)],
  ['extractors: table cells', extractPatterns, (k) => '| 1 | '.repeat(50_000 * k)],
  ['extractors: digit-hyphen chain', extractPatterns, (k) => `${'1-'.repeat(100_000 * k)}x`],
  ['extractive views: tables, abbreviations, long lines', views, (k) =>
    ['| A | B | |---|---| ' + '| x | y | '.repeat(5000 * k), 'e.g. '.repeat(20_000 * k) + 'End.', 'a'.repeat(100_000 * k) + '. B', 'Replace the bearing. '.repeat(5000 * k)].join('\n')],
  ['json recovery: stray braces', recoverJson, (k) => '{'.repeat(20_000 * k) + '{"a": 1}'],
];

function timeMs(fn, input) {
  fn(input);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    fn(input);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  // The best run: load from other jobs only ever adds time.
  return stats(times).min;
}

console.log(`machine: ${machine()}; best of ${runs} runs`);
console.log('| input | chars (n) | ms at n | ms at 4n | ratio (linear ≈ 4) |');
console.log('|---|---|---|---|---|');
for (const [name, fn, make] of cases) {
  const small = make(1);
  const large = make(4);
  const a = timeMs(fn, small);
  const b = timeMs(fn, large);
  console.log(`| ${name} | ${small.length.toLocaleString('en')} | ${fmt(a)} | ${fmt(b)} | ${fmt(b / Math.max(a, 0.001))} |`);
}
