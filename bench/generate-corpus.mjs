#!/usr/bin/env node
// Deterministic corpus generator: realistic chunk records of SOP/CR/WO/ECA documents.
// Usage: node bench/generate-corpus.mjs --mb 100 [--seed 42] [--profile mdparser|text-heavy] > corpus.jsonl
// The same seed, size and profile always give the same bytes.
// Profiles: `mdparser` (default) — DACKAR mdParser chunks, ~2.8 KB, the text ~30 % of the bytes;
// `text-heavy` — lean chunk records (ids, section path, pages, text), ~1.1 KB, the text ~74 % of
// the bytes, where a stage's cost per text byte shows instead of the cost of the other fields.
import { parseArgs } from 'node:util';
import { seededRandom } from './rng.mjs';

const { values } = parseArgs({
  options: { mb: { type: 'string', default: '10' }, seed: { type: 'string', default: '42' }, records: { type: 'string' }, profile: { type: 'string', default: 'mdparser' } },
});
const PROFILES = ['mdparser', 'text-heavy'];
if (!PROFILES.includes(values.profile)) {
  console.error(`generate-corpus: --profile must be one of ${PROFILES.join(', ')}`);
  process.exit(2);
}
const textHeavy = values.profile === 'text-heavy';
const targetBytes = Number(values.mb) * 1024 * 1024;
const maxRecords = values.records ? Number(values.records) : Infinity;

const rand = seededRandom(values.seed);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const SYSTEMS = ['auxiliary feedwater', 'residual heat removal', 'component cooling water', 'service water', 'main steam', 'condensate', 'chemical and volume control', 'emergency diesel generator', 'containment spray', 'reactor coolant system'];
const ACRO = ['AFW', 'RHR', 'CCW', 'SW', 'MS', 'CD', 'CVCS', 'EDG', 'CS', 'RCS'];
const COMPONENTS = ['pump', 'motor operated valve', 'check valve', 'heat exchanger', 'mechanical seal', 'inboard bearing', 'outboard bearing', 'coupling', 'strainer', 'relief valve', 'breaker', 'impeller', 'packing', 'shaft'];
const MECHS = ['cavitation', 'erosion', 'corrosion', 'fatigue', 'misalignment', 'imbalance', 'fouling', 'wear', 'air in-leakage', 'looseness'];
const TAGP = ['P', 'MOV', 'FT', 'PT', 'TT', 'VB', 'HV', 'CV', 'LT'];
const UNITS = [['psig', 50, 1500], ['gpm', 10, 900], ['°F', 60, 450], ['mils', 1, 12], ['rpm', 900, 3600], ['%', 1, 100], ['in/s', 0, 2], ['A', 5, 400], ['kV', 4, 13], ['ppb', 1, 200]];
const HEDGES = ['may have', 'possibly', 'appears to', 'is suspected to', 'likely'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const SECTIONS = {
  SOP: ['1. Purpose', '2. Scope', '3. References', '4. Precautions and Limitations', '5. Prerequisites', '6. Procedure', '6.1 Pump Start', '6.2 Flow Verification', '7. Acceptance Criteria', '8. Records'],
  CR: ['1. Condition Description', '2. Immediate Actions', '3. Operability', '4. Apparent Cause', '5. Evidence / Data', '6. Planned Corrective Actions'],
  WO: ['Work Order Header', 'Task Description', 'As-Found Condition', 'Work Performed', 'As-Left Condition', 'Post-Maintenance Test', 'Parts and Tools', 'Closeout Notes'],
  ECA: ['Event Summary', 'Sequence of Events', 'Evidence', 'Analysis', 'Causal Factors', 'Corrective and Preventive Actions', 'Lessons Learned'],
};

const tag = () => `${pick(TAGP)}-${int(100, 2999)}${pick(['', 'A', 'B'])}`;
const meas = () => { const [u, lo, hi] = pick(UNITS); const v = (lo + rand() * (hi - lo)).toFixed(u === 'mils' || u === 'in/s' ? 1 : 0); return `${v} ${u}`.replace(' %', '%'); };
const date = () => rand() < 0.5 ? `2026-${String(int(1, 12)).padStart(2, '0')}-${String(int(1, 28)).padStart(2, '0')}` : `${pick(MONTHS)} ${int(1, 28)}, 2026`;
const ref = () => pick([`CR-2026-${String(int(1, 99999)).padStart(5, '0')}`, `WO-${int(10000000, 99999999)}`, `SOP-${pick(ACRO)}-${int(1, 999)}`, `ECA-2026-${String(int(1, 999)).padStart(4, '0')}`, `OP-${int(1000, 9999)}`]);

function keywordsOf(text) {
  const words = text.toLowerCase().match(/[a-z][a-z-]{3,}/g) ?? [];
  return [...new Set(words)].slice(0, 30);
}

function sentence(i) {
  const sys = rand() < 0.5 ? pick(SYSTEMS) : pick(ACRO);
  switch (i % 7) {
    case 0: return `During the surveillance test the ${sys} ${pick(COMPONENTS)} ${tag()} showed vibration of ${meas()} against a limit of ${meas()}.`;
    case 1: return `Operators observed ${pick(MECHS)} on the ${pick(COMPONENTS)} and recorded discharge pressure of ${meas()} on ${date()}.`;
    case 2: return `The ${pick(COMPONENTS)} ${pick(HEDGES)} degraded due to ${pick(MECHS)}; see ${ref()} for the as-found data.`;
    case 3: return `Verify flow is at least ${meas()} within 2 minutes after starting ${tag()}, then record the reading in the log.`;
    case 4: return `CAUTION: Do not exceed ${meas()} on ${tag()} prior to completing Step ${int(1, 12)}.${int(1, 9)}.`;
    case 5: return `Maintenance replaced the ${pick(COMPONENTS)} and realigned the coupling to ${meas()} per ${ref()}.`;
    default: return `| ${tag()} | ${meas()} | ${pick(['Stable', 'Rising', 'Within normal range', 'Above alarm setpoint'])} |`;
  }
}

// A lean chunk: what a chunker that keeps only ids, the section and pages writes beside the text.
function textHeavyRecord(docId, title, section, order) {
  const n = int(7, 11);
  const text = Array.from({ length: n }, (_, i) => sentence(i + int(0, 6))).join(' ');
  const page = int(1, 40);
  return {
    type: 'TextChunk',
    chunk_id: `chunk:${docId}:s${order}`,
    doc_id: docId,
    section_title: section,
    section_path: `${title} > ${section}`,
    heading_level: 2,
    text,
    page_start: page,
    page_end: page + int(0, 1),
    order_index: order,
  };
}

const out = process.stdout;
// `| head` is a normal way to stop us.
out.on('error', (err) => { if (err.code === 'EPIPE') process.exit(0); throw err; });
let bytes = 0;
let records = 0;
let doc = 0;
let buffer = '';
/** Writes one record, in batches of about 1 MiB, waiting for the pipe to drain. */
async function emit(rec) {
  const line = JSON.stringify(rec) + '\n';
  buffer += line;
  bytes += Buffer.byteLength(line);
  records++;
  if (buffer.length > 1 << 20) { if (!out.write(buffer)) await new Promise((r) => out.once('drain', r)); buffer = ''; }
}
while (bytes < targetBytes && records < maxRecords) {
  doc++;
  const type = pick(['SOP', 'CR', 'WO', 'ECA']);
  const docId = `${type.toLowerCase()}-${String(doc).padStart(6, '0')}`;
  const title = `${type === 'SOP' ? 'SOP-' + pick(ACRO) + '-' + int(1, 99) : type + '-2026-' + String(doc).padStart(5, '0')} ${pick(SYSTEMS)} ${pick(['Operation', 'Vibration Event', 'Pump Overhaul', 'Valve Failure'])}`;
  let order = 0;
  for (const section of SECTIONS[type]) {
    const parts = int(1, 2);
    for (let p = 0; p < parts; p++) {
      if (textHeavy) {
        await emit(textHeavyRecord(docId, title, section, order++));
        if (bytes >= targetBytes || records >= maxRecords) break;
        continue;
      }
      const n = int(6, 12);
      const text = Array.from({ length: n }, (_, i) => sentence(i + int(0, 6))).join(' ');
      // The shape of DACKAR mdParser chunks: the text, its raw markdown, and upstream enrichments.
      const rec = {
        type: 'TextChunk',
        granularity: 'section',
        chunk_id: `chunk:${docId}:s${order}`,
        doc_id: docId,
        doc_key: docId,
        section_title: `**${section}**`,
        section_path: `**${title}** > **${section}**`,
        section_role: 'body',
        heading_level: 2,
        text,
        raw_text: text.replace(/\. /g, '.\n\n'),
        keywords: keywordsOf(text),
        mentions_component_ids: [...new Set(text.match(/\b[A-Z]{1,3}-\d{3,4}[AB]?\b/g) ?? [])],
        document_refs: [...new Set(text.match(/\b(?:CR|WO|SOP|ECA|OP)-[A-Z0-9-]+\d\b/g) ?? [])],
        page_start: rand() < 0.3 ? null : int(1, 40),
        page_end: null,
        order_index: order++,
        provenance: { source_doc_id: docId, extraction_method: 'nlp+regex (raw-first)', parser: 'mdParser', version: '0.4.2' },
        classification: { doc_type_guess: type, confidence: Number(rand().toFixed(2)) },
        index_in_vector_store: false,
        index_in_graph: false,
        source_path: `corpus/${type}/${docId}.pdf`,
        doc_name: `${title}.pdf`,
        content_hash: (rand.state >>> 0).toString(16).padStart(8, '0'),
      };
      if (rec.page_start !== null) rec.page_end = rec.page_start + int(0, 1);
      await emit(rec);
      if (bytes >= targetBytes || records >= maxRecords) break;
    }
    if (bytes >= targetBytes || records >= maxRecords) break;
  }
}
out.write(buffer);
