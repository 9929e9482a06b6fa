#!/usr/bin/env node
// Grounding under injected errors: how many known errors the validation checks catch, and how
// many faithful items they flag. Faithful views: the extractive baseline's, made now from the
// tagged sample documents (test/golden/summarize/*/input.jsonl: DACKAR's condition report and
// the written SOP, WO and ECA), and hand-checked model-style views of real chunks
// (bench/quality/data/model-views.jsonl). Each item gets each applicable error, one at a time.
// Run: npm run build && node bench/quality/mutation.score.mjs [--list-missed]
// Exit status 1 when a target is missed (>= 95 % caught overall, <= 2 % faithful items flagged).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { combine, KINDS, score } from './mutation-core.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TARGET_CAUGHT = 0.95;
const TARGET_FAITHFUL_FLAGGED = 0.02;
const SAMPLES = ['test/golden/summarize/extractive-dackar-sample/input.jsonl', 'test/golden/summarize/extractive-written-corpus/input.jsonl'];
// Items the extractive baseline gets wrong today: terms lifted out of a negated clause ("No
// safety injection or reactor trip occurred", "no oil leakage observed", "found no fouling").
// They are not faithful, so they are neither counted as faithful nor mutated; the checks flag
// them (negation_mismatch), which is reported on its own line.
const KNOWN_UNFAITHFUL = new Map([
  ['chunk:ad61d26ecf6e:sec1', ['reactor trip']],
  ['wo-2026-04567-03', ['leakage']],
  ['eca-2026-0007:2', ['fouling']],
]);

function parse(text) {
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}

function extractiveViews() {
  const records = [];
  for (const sample of SAMPLES) {
    const out = execFileSync(process.execPath, [join(root, 'bin/rca-generate'), '--backend', 'extractive', '--flags-ok'], { input: readFileSync(join(root, sample)), maxBuffer: 1 << 28, stdio: ['pipe', 'pipe', 'ignore'] });
    records.push(...parse(out.toString('utf8')));
  }
  return records;
}

function valueAt(view, field, index) {
  let v = view;
  for (const p of field.split('.')) v = v?.[p];
  return Array.isArray(v) ? v[index] : v;
}

const extractive = extractiveViews();
let knownCaught = 0;
let knownTotal = 0;
const exclude = (record, viewType, field, index) => {
  const known = KNOWN_UNFAITHFUL.get(record.chunk_id);
  if (known === undefined) return false;
  const value = valueAt(record[viewType], field, index);
  if (!known.includes(value)) return false;
  knownTotal++;
  if ((record.flags?.[viewType] ?? []).some((f) => f.startsWith('negation_mismatch:'))) knownCaught++;
  return true;
};
const a = score(extractive, { source: 'extractive', exclude });
const model = parse(readFileSync(join(root, 'bench/quality/data/model-views.jsonl'), 'utf8'));
const b = score(model, { source: 'model-style' });
const all = combine([a, b]);

const pct = (n, d) => (d === 0 ? '—' : `${((100 * n) / d).toFixed(1)} %`);
const lines = [];
lines.push('| error injected | extractive: caught / injected | model-style: caught / injected | caught |');
lines.push('|---|---|---|---|');
let injected = 0;
let caught = 0;
for (const kind of KINDS) {
  const k = all.byKind[kind];
  injected += k.injected;
  caught += k.caught;
  lines.push(`| ${kind} | ${a.byKind[kind].caught} / ${a.byKind[kind].injected} | ${b.byKind[kind].caught} / ${b.byKind[kind].injected} | ${pct(k.caught, k.injected)} |`);
}
lines.push(`| **all** | ${sum(a, 'caught')} / ${sum(a, 'injected')} | ${sum(b, 'caught')} / ${sum(b, 'injected')} | **${pct(caught, injected)}** |`);
lines.push('');
lines.push(`| faithful items | extractive | model-style | flagged |`);
lines.push('|---|---|---|---|');
lines.push(`| flagged / items | ${a.faithful.flagged} / ${a.faithful.items} | ${b.faithful.flagged} / ${b.faithful.items} | **${pct(all.faithful.flagged, all.faithful.items)}** |`);
lines.push('');
lines.push(`Known baseline negation reversals left out of both counts: ${knownCaught} of ${knownTotal} flagged (negation_mismatch).`);
console.log('## Grounding under injected errors\n');
console.log(lines.join('\n'));
if (process.argv.includes('--list-missed')) {
  for (const kind of KINDS) for (const m of all.byKind[kind].missed) console.log(`missed ${kind}: ${m}`);
  for (const f of all.faithful.flags) console.log(`faithful flagged: ${f}`);
}
const caughtShare = injected === 0 ? 0 : caught / injected;
const flaggedShare = all.faithful.items === 0 ? 0 : all.faithful.flagged / all.faithful.items;
const ok = caughtShare >= TARGET_CAUGHT && flaggedShare <= TARGET_FAITHFUL_FLAGGED;
console.log(`\ntargets: caught ${pct(caught, injected)} (>= ${TARGET_CAUGHT * 100} %), faithful flagged ${pct(all.faithful.flagged, all.faithful.items)} (<= ${TARGET_FAITHFUL_FLAGGED * 100} %): ${ok ? 'met' : 'MISSED'}`);
process.exitCode = ok ? 0 : 1;

function sum(s, key) {
  return KINDS.reduce((n, k) => n + s.byKind[k][key], 0);
}
