#!/usr/bin/env node
// The pattern extractors measured where the NER runs them: extractPatterns on each record's text
// with its TokenBuffer just loaded (so the text is in cache, as in NerSeeder.seed), CPU time, two
// builds loaded side by side in one process and run alternately; reports each build's median and
// the paired median of A ÷ B (> 1: B is faster). The tokenizer is in both arms and timed alone.
//   node bench/extractors-ab.mjs --a DIST --b DIST [--input corpus.jsonl] [--pairs 12]
// --ablate: instead, B is A with one part of extractPatterns left out (a copy of A's
// tagging/extractors.js edited in a temp dir), once per part: what that part costs in place.
// The ablated builds find less, so only the timing is compared.
import { parseArgs } from 'node:util';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { corpus, ROOT } from './measure.mjs';

const { values } = parseArgs({
  options: {
    a: { type: 'string', default: join(ROOT, 'dist') },
    b: { type: 'string' },
    input: { type: 'string' },
    pairs: { type: 'string', default: '12' },
    ablate: { type: 'boolean', default: false },
  },
});
const input = values.input ?? (await corpus(10, 42, 'text-heavy'));
const pairs = Number(values.pairs);
const texts = readFileSync(input, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => {
    const r = JSON.parse(line);
    return typeof r.text === 'string' ? r.text : typeof r.raw_text === 'string' ? r.raw_text : '';
  });

const load = async (dist) => ({
  ex: await import(pathToFileURL(join(dist, 'tagging/extractors.js')).href),
  pm: await import(pathToFileURL(join(dist, 'tagging/phrase-matcher.js')).href),
});
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (v) => [...v].sort((p, q) => p - q)[v.length >> 1];

function run(build) {
  const tokens = new build.pm.TokenBuffer();
  let found = 0;
  const t0 = cpu();
  for (const text of texts) {
    tokens.load(text);
    const p = build.ex.extractPatterns(text);
    found += p.measurements.length + p.equipment_ids.length + p.doc_refs.length + p.temporal_refs.length + p.alarm_ids.length;
  }
  return { ms: cpu() - t0, found };
}

function tokenizerAlone(build) {
  const tokens = new build.pm.TokenBuffer();
  const t0 = cpu();
  for (const text of texts) tokens.load(text);
  return cpu() - t0;
}

/** Runs A and B alternately (order flipped each pair); A's, B's and the paired medians. */
function compare(a, b, sameOutput) {
  for (let i = 0; i < 2; i++) (run(a), run(b));
  const ma = [];
  const mb = [];
  const ratios = [];
  const tok = [];
  for (let i = 0; i < pairs; i++) {
    const first = i % 2 === 0 ? run(a) : run(b);
    const second = i % 2 === 0 ? run(b) : run(a);
    const [ra, rb] = i % 2 === 0 ? [first, second] : [second, first];
    if (sameOutput && ra.found !== rb.found) throw new Error(`the builds found ${ra.found} and ${rb.found} items`);
    ma.push(ra.ms);
    mb.push(rb.ms);
    ratios.push(ra.ms / rb.ms);
    tok.push(tokenizerAlone(a));
  }
  return { a: median(ma), b: median(mb), ratio: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios), tokenizer: median(tok) };
}

// Each part of extractPatterns and the edit to its compiled body that leaves it out.
const COLLECTS = {
  regulatory: ['    collectRegulatory(text, doc_refs);\n', ''],
  docRefs: ['for (const ref of collect(docRefs, text))', 'for (const ref of [])'],
  alarms: ['const alarm_ids = collect(alarmIds, text);', 'const alarm_ids = [];'],
  fm: ['const fm_ids = collect(fmIds, text);', 'const fm_ids = [];'],
  equipment: ['const equipment_ids = refineEquipment(text, collect(equipmentIds, text), alarm_ids);', 'const equipment_ids = [];'],
  temporal: ['const temporal_refs = collect(temporalRefs, text);', 'const temporal_refs = [];'],
  measurements: ['const measurement_list = collect(measurements, text);', 'const measurement_list = [];'],
};
const ABLATIONS = {
  measurements: [COLLECTS.measurements],
  'equipment ids (with refineEquipment)': [COLLECTS.equipment],
  'refineEquipment alone': [[COLLECTS.equipment[0], 'const equipment_ids = collect(equipmentIds, text);']],
  'temporal refs': [COLLECTS.temporal],
  'regulatory refs': [COLLECTS.regulatory],
  'doc refs, alarm ids, fm ids': [COLLECTS.docRefs, COLLECTS.alarms, COLLECTS.fm],
  'every family (the start lists and claims remain)': Object.values(COLLECTS),
};

const a = await load(resolve(values.a));
const lines = [`input ${input} (${texts.length} records), A ${resolve(values.a)}, ${pairs} pairs, CPU ms per pass`];
if (!values.ablate) {
  if (values.b === undefined) throw new Error('--b DIST (or --ablate) is required');
  const b = await load(resolve(values.b));
  const r = compare(a, b, true);
  lines.push(`A ${r.a.toFixed(1)}, B ${r.b.toFixed(1)} (tokenizer alone ${r.tokenizer.toFixed(1)}); A ÷ B paired median ${r.ratio.toFixed(3)} (min ${r.min.toFixed(3)}, max ${r.max.toFixed(3)})`);
} else {
  lines.push('| left out | A ms | B ms | the part costs, ms | A ÷ B paired median (min–max) |', '|---|---|---|---|---|');
  for (const [name, edits] of Object.entries(ABLATIONS)) {
    const dir = mkdtempSync(join(tmpdir(), 'rca-ablate-'));
    try {
      cpSync(resolve(values.a), dir, { recursive: true });
      const file = join(dir, 'tagging/extractors.js');
      let source = readFileSync(file, 'utf8');
      for (const [from, to] of edits) {
        if (!source.includes(from)) throw new Error(`extractors.js no longer holds: ${from}`);
        source = source.replace(from, to);
      }
      writeFileSync(file, source);
      const r = compare(a, await load(dir), false);
      lines.push(`| ${name} | ${r.a.toFixed(1)} | ${r.b.toFixed(1)} | ${(r.a - r.b).toFixed(1)} | ${r.ratio.toFixed(3)} (${r.min.toFixed(3)}–${r.max.toFixed(3)}) |`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  lines.push(`(tokenizer alone, in A's time: ${tokenizerAlone(a).toFixed(1)} ms)`);
}
console.log(lines.join('\n'));
