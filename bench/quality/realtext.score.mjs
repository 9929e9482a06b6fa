// Quality on real operating-experience text (test/fixtures/realtext/, labelled by hand): the dev
// half (rules may be tuned on it) beside the test half (the measure; never tuned on). Run by
// `npm run quality` (bench/quality/run.mjs). `--details` lists the dev half's misses, wrong items,
// bad extractive items and missed near-copies; `--details=test` lists the test half's, for auditing
// the labels only — reading them to tune a rule makes the test half a second dev half.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { ratio } from './extraction-core.mjs';
import { headline, scoreRealtext } from './realtext-core.mjs';
import { SEED_FIELDS } from './realtext-set.mjs';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const detailsArg = process.argv.find((a) => a === '--details' || a.startsWith('--details='));
const detailsOf = detailsArg === undefined ? null : detailsArg === '--details' ? 'dev' : detailsArg.slice('--details='.length);

const halves = await scoreRealtext({ root: ROOT });
const h = { dev: headline(halves.dev), test: headline(halves.test) };
const f3 = (x) => x.toFixed(3);
const pct = (n, d) => (d === 0 ? '—' : `${((100 * n) / d).toFixed(1)} %`);
const frac = (n, d) => `${n}/${d} (${pct(n, d)})`;

console.log(`\n## Real operating-experience text: ${h.dev.chunks + h.test.chunks} chunks of ${h.dev.documents + h.test.documents} documents`);
console.log(`\ndev: ${h.dev.chunks} chunks of ${h.dev.documents} documents; test: ${h.test.chunks} chunks of ${h.test.documents} documents. The test half is the measure; the dev half is a progress marker (rules are tuned on it).\n`);
const rows = [
  ['entities, precision (exact or partial)', (x) => f3(x.entities.precision), '≥ 0.95'],
  ['entities, recall (exact or partial)', (x) => f3(x.entities.recall), '≥ 0.85'],
  ['entities, precision / recall (exact only)', (x) => `${f3(x.entitiesExact.precision)} / ${f3(x.entitiesExact.recall)}`, ''],
  ['document and regulatory references, recall', (x) => frac(x.references.found, x.references.labelled), '≥ 85 %'],
  ['— regulatory (10 CFR, Technical Specifications, codes)', (x) => frac(x.regulatory.found, x.regulatory.labelled), ''],
  ['— document numbers (plant, NRC, procedure)', (x) => frac(x.document.found, x.document.labelled), ''],
  ['clock times, recall', (x) => frac(x.clock.found, x.clock.labelled), ''],
  ['equipment ids, precision / recall', (x) => `${f3(ratio(x.equipment.correct, x.equipment.predicted))} / ${f3(ratio(x.equipment.found, x.equipment.labelled))}`, ''],
  ['negated mentions found in ner_seed.negated', (x) => frac(x.negatedFound.found, x.negatedFound.labelled), '≥ 80 %'],
  ['false negations, of asserted mentions', (x) => frac(x.falseNegations.count, x.falseNegations.asserted), '≤ 1 %'],
  ['doc type, of documents', (x) => frac(x.docType.correct, x.docType.total), '≥ 90 %'],
  ['doc subtype, of documents', (x) => frac(x.docSubtype.correct, x.docSubtype.total), ''],
  ['authority level, of documents', (x) => frac(x.authority.correct, x.authority.total), ''],
  ['section role exact, of chunks', (x) => frac(x.roleExact.correct, x.roleExact.total), ''],
  ['section role known and right, of chunks with a labelled role', (x) => frac(x.roleKnown.correct, x.roleKnown.total), '≥ 80 %'],
  ['extractive items that read badly', (x) => frac(x.badItems.bad, x.badItems.total), '≤ 3 %'],
  ['near-copy contradictions caught', (x) => frac(x.nearCopy.caught, x.nearCopy.injected), '≥ 95 %'],
  ['faithful extractive items flagged', (x) => frac(x.faithfulFlagged.flagged, x.faithfulFlagged.items), '≤ 2 %'],
];
console.log('| measure | dev | test | target (test) |');
console.log('|---|---|---|---|');
for (const [name, get, target] of rows) console.log(`| ${name} | ${get(h.dev)} | ${get(h.test)} | ${target} |`);

console.log('\nPer seed list (relaxed match), precision / recall and labelled count:\n');
console.log('| field | dev | test |');
console.log('|---|---|---|');
for (const field of SEED_FIELDS) {
  const cell = (half) => {
    const c = halves[half].fields[field];
    if (c.labelled === 0 && c.predicted === 0) return '—';
    return `${f3(ratio(c.correct, c.predicted))} / ${f3(ratio(c.found, c.labelled))} (${c.labelled})`;
  };
  console.log(`| ${field} | ${cell('dev')} | ${cell('test')} |`);
}

console.log('\nExtractive items that read badly, by reason:\n');
const reasons = [...new Set([...Object.keys(halves.dev.items.byReason), ...Object.keys(halves.test.items.byReason)])].sort();
console.log('| reason | dev | test |');
console.log('|---|---|---|');
for (const r of reasons) console.log(`| ${r} | ${halves.dev.items.byReason[r] ?? 0} | ${halves.test.items.byReason[r] ?? 0} |`);

console.log('\nNear-copy contradictions by kind, caught / injected:\n');
const kinds = [...new Set([...Object.keys(halves.dev.nearCopy.byKind), ...Object.keys(halves.test.nearCopy.byKind)])];
console.log('| kind | dev | test |');
console.log('|---|---|---|');
for (const k of kinds) {
  const cell = (half) => {
    const c = halves[half].nearCopy.byKind[k] ?? { caught: 0, injected: 0 };
    return frac(c.caught, c.injected);
  };
  console.log(`| ${k} | ${cell('dev')} | ${cell('test')} |`);
}

if (detailsOf !== null) {
  const half = halves[detailsOf];
  if (half === undefined) throw new Error(`--details=${detailsOf}: the halves are dev and test`);
  console.log(`\n### Details of the ${detailsOf} half\n`);
  for (const [doc_id, d] of half.docs) if (!d.typeOk || !d.subtypeOk || !d.authorityOk) console.log(`  doc ${doc_id} (${d.kind}): got ${[...d.got].join(', ')}`);
  for (const line of half.role.wrong) console.log(`  role ${line}`);
  for (const line of half.negation.missed) console.log(`  negation missed ${line}`);
  for (const line of half.negation.falseNegations) console.log(`  false negation ${line}`);
  for (const line of half.items.examples) console.log(`  bad item ${line}`);
  for (const line of half.nearCopy.missed) console.log(`  near-copy missed ${line}`);
  for (const line of half.nearCopy.faithfulFlags) console.log(`  faithful flagged ${line}`);
  for (const c of half.perChunk) {
    if (Object.keys(c.wrong).length + Object.keys(c.missed).length === 0) continue;
    console.log(`  ${c.chunk_id}\n    wrong: ${JSON.stringify(c.wrong)}\n    missed: ${JSON.stringify(c.missed)}`);
  }
}
