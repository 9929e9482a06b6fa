#!/usr/bin/env node
// Writes one library_rag-shaped document (<doc>_chunks.json) of about --mb MB to stdout: metadata,
// a flat TOC, hierarchy, pages, chunks_count, the chunks array (pretty-printed, camelCase fields as
// in test/fixtures/library_rag/EXAMPLE_CHUNK_JSON_FORMAT.json), then the cost fields. Seeded: the
// same bytes for the same --mb and --seed. Like the real example, the TOC and the chunks disagree
// on purpose: about 30 % of the paragraph titles are abridged ("..."), 3 % of the sections are
// missing from the TOC, and 5 % of the TOC entries have no chunks.
// --jsonl writes the same chunks as JSON Lines instead (with the doc_id and doc_id_from a reader of
// the document gives them for --doc-id), the baseline a document reader is compared with.
// Usage: node bench/generate-library-doc.mjs --mb 100 [--seed 7] [--jsonl --doc-id ID] > bench/out/peirce_100mb_chunks.json
import { parseArgs } from 'node:util';
import { seededRandom } from './rng.mjs';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '10' }, seed: { type: 'string', default: '7' }, jsonl: { type: 'boolean', default: false }, 'doc-id': { type: 'string', default: 'peirce' } } });
const targetBytes = Number(values.mb) * 1e6;
const rand = seededRandom(values.seed);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];

const WORDS = ('the of and to in is that it as be by for not this which with are or but from on can its we all what one there so an if has been will would they more them than into such must only other these any may some every which thought sign object interpretant ' +
  'reasoning logic inquiry belief doubt habit experience idea quality relation law nature mind matter chance continuity generality reality truth hypothesis deduction induction abduction ' +
  'pragmatism synechism tychism agapism phenomenology firstness secondness thirdness category proposition symbol index icon meaning conception conduct community method science').split(' ');
const CONCEPTS = ['pragmatic maxim', 'fixation of belief', 'continuity of mind', 'logic of relatives', 'theory of signs', 'method of science', 'doctrine of chances', 'evolutionary love', 'categories of being', 'growth of reason'];
const UNIT_TYPES = ['argument', 'definition', 'example', 'analysis', 'synthesis', 'objection', 'response', 'transition'];

const sentence = () => {
  const n = 8 + Math.floor(rand() * 14);
  const words = [];
  for (let i = 0; i < n; i++) words.push(pick(WORDS));
  words[0] = words[0][0].toUpperCase() + words[0].slice(1);
  return words.join(' ') + '.';
};
const paragraph = (chars) => {
  let s = '';
  while (s.length < chars) s += (s ? ' ' : '') + sentence();
  return s;
};

// The plan: sections (volume.paragraph) with their chunk counts, until the size is reached.
const AVG_CHUNK_BYTES = 2030;
const totalChunks = Math.max(1, Math.round(targetBytes / AVG_CHUNK_BYTES));
const sections = [];
let planned = 0;
for (let volume = 1, para = 1; planned < totalChunks; para++) {
  if (para > 900) {
    volume++;
    para = 1;
  }
  const count = Math.min(1 + Math.floor(rand() * 10), totalChunks - planned);
  const title = `${para}. ${paragraph(30 + Math.floor(rand() * 60)).replace(/\.$/, '')}`;
  sections.push({ ref: `CP ${volume}.${para}`, title, count, inToc: rand() >= 0.03, abridged: rand() < 0.3 });
  planned += count;
  if (rand() < 0.05) sections.push({ ref: `CP ${volume}.${para}a`, title: `${para}a. ${paragraph(40).replace(/\.$/, '')}`, count: 0, inToc: true, abridged: false });
}

let buffer = '';
const write = async (s) => {
  buffer += s;
  if (buffer.length < 1 << 20) return;
  const chunk = buffer;
  buffer = '';
  if (!process.stdout.write(chunk)) await new Promise((r) => process.stdout.once('drain', r));
};
const indent = (json, pad) => json.replace(/\n/g, `\n${pad}`);

if (values.jsonl) {
  let n = 0;
  for (const s of sections) for (let i = 0; i < s.count; i++) await write(JSON.stringify({ ...chunkOf(s, n++), doc_id: values['doc-id'], doc_id_from: 'file_name' }) + '\n');
  process.stdout.write(buffer);
  process.exit(0);
}

await write('{\n  "metadata": ' + indent(JSON.stringify({ title: 'Collected papers (generated)', author: 'Charles Sanders PEIRCE', year: 1931, language: 'en', genre: 'Philosophy' }, null, 2), '  ') + ',\n');
await write('  "toc": [');
let first = true;
for (const s of sections) {
  if (!s.inToc) continue;
  const shown = s.abridged ? `${s.title.split(' ').slice(0, 5).join(' ')}...` : s.title;
  for (const entry of [{ title: `Peirce: ${s.ref}`, level: 1 }, { title: shown, level: 2 }]) {
    await write(`${first ? '' : ','}\n    ${JSON.stringify(entry)}`);
    first = false;
  }
}
await write(`\n  ],\n  "hierarchy": {"type": "flat"},\n  "pages": ${Math.ceil(planned / 10)},\n  "chunks_count": ${planned},\n  "chunks": [`);
let order = 0;
first = true;
for (const s of sections) {
  for (let i = 0; i < s.count; i++) {
    const chunk = chunkOf(s, order);
    await write(`${first ? '' : ','}\n    ${indent(JSON.stringify(chunk, null, 2), '    ')}`);
    first = false;
    order++;
  }
}
await write('\n  ],\n  "cost_ocr": 1.644,\n  "cost_llm": 0.523,\n  "cost_total": 2.167\n}\n');
process.stdout.write(buffer);

function chunkOf(s, order) {
    return {
      chunk_id: `chunk_${String(order).padStart(7, '0')}`,
      text: paragraph(900 + Math.floor(rand() * 600)),
      section: s.title,
      section_level: 2,
      type: 'main_content',
      canonicalReference: s.ref,
      chapterTitle: `Peirce: ${s.ref}`,
      sectionPath: `Peirce: ${s.ref} > ${s.title}`,
      orderIndex: order,
      keywords: [pick(WORDS), pick(WORDS), pick(WORDS), pick(WORDS)],
      concepts: [pick(CONCEPTS), pick(CONCEPTS)],
      unitType: pick(UNIT_TYPES),
      confidence: Math.round(800 + rand() * 200) / 1000,
    };
}
