// Extraction quality on the labelled real chunks (test/fixtures/quality/): precision and recall per
// seed field and overall for rca-tag, the same for the extractive retrieval_summary's lists,
// negation accuracy, doc-type and role accuracy. Run by `npm run quality` (bench/quality/run.mjs).
// With --details, every wrong and missed item per chunk.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { overall, ratio, scoreExtraction } from './extraction-core.mjs';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const details = process.argv.includes('--details');
const r = await scoreExtraction({ root: ROOT });
const f2 = (x) => x.toFixed(3);

const table = (title, fields, exact) => {
  console.log(`\n${title}\n`);
  console.log('| field | labelled | predicted | precision | recall |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, c] of Object.entries(fields)) {
    if (c.labelled === 0 && c.predicted === 0) continue;
    console.log(`| ${name} | ${c.labelled} | ${c.predicted} | ${f2(ratio(c.correct, c.predicted))} | ${f2(ratio(c.found, c.labelled))} |`);
  }
  const o = overall(fields);
  const e = overall(exact);
  console.log(`| **overall** | ${o.labelled} | ${o.predicted} | **${f2(o.precision)}** | **${f2(o.recall)}** |`);
  console.log(`| overall, exact match | ${e.labelled} | ${e.predicted} | ${f2(e.precision)} | ${f2(e.recall)} |`);
};

console.log(`## Extraction: ${r.chunks} labelled chunks`);
table('rca-tag ner_seed (built-in lexicon and keyword lists)', r.tag.fields, r.tag.exact);
table('extractive retrieval_summary (rca-generate --backend extractive)', r.view.fields, r.view.exact);
const n = r.negation;
console.log('\n| check | result |');
console.log('|---|---|');
console.log(`| negated mentions found as negated (ner_seed.negated) | ${n.found}/${n.labelled} (${f2(ratio(n.found, n.labelled))}) |`);
console.log(`| negated mentions in a positive seed list | ${n.leaked.length} |`);
console.log(`| negated mentions in the extractive symptoms, mechanisms or keywords | ${n.viewLeaked.length} |`);
console.log(`| mentions marked negated that the labels keep positive | ${n.falseNegations.length} |`);
console.log(`| doc type exact | ${r.docType.correct}/${r.docType.total} |`);
console.log(`| section role exact (and inherited flag) | ${r.role.correct}/${r.role.total} |`);
for (const line of [...n.leaked, ...n.viewLeaked, ...r.docType.wrong, ...r.role.wrong]) console.log(`  ! ${line}`);
if (details) {
  for (const line of n.falseNegations) console.log(`  false negation: ${line}`);
  for (const c of r.tag.perChunk) {
    if (Object.keys(c.wrong).length + Object.keys(c.missed).length === 0) continue;
    console.log(`  ${c.chunk_id}\n    wrong: ${JSON.stringify(c.wrong)}\n    missed: ${JSON.stringify(c.missed)}`);
  }
}
