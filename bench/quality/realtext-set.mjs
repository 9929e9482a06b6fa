// The real-text set's integrity (test/fixtures/realtext/): every chunk has a label and the other way
// round; every label has the 18 seed lists; every labelled item occurs in its chunk's text
// (case-insensitive, whitespace collapsed); every non_prose entry is a whole line of the text; the
// split is per document; kinds, doc types and roles are of LABELLING.md's vocabulary. Pure apart
// from reading the files; test/quality/realtext-set.test.ts asserts it, `node` on this file prints it.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SEED_FIELDS = ['systems', 'equipment_ids', 'components', 'mechanisms', 'outcomes', 'surveillance_actions',
  'maintenance_actions', 'properties', 'tools', 'fm_ids', 'doc_refs', 'alarm_ids', 'measurements', 'temporal_refs',
  'temporal_relations', 'temporal_qualifiers', 'locations', 'conjectures'];
/** LABELLING.md: each document kind and the doc type it belongs to. */
export const KIND_DOC_TYPE = { EN: 'CR', LER: 'CR', PART21: 'CR', IR: 'OTHER', IN: 'OTHER', GL: 'OTHER', BULLETIN: 'OTHER',
  CIRCULAR: 'OTHER', NUREG: 'OTHER', EOP: 'SOP', PROC: 'SOP', RCE: 'ECA', WO: 'WO' };
/** LABELLING.md: the section roles a label may use, per doc type. */
export const LABEL_ROLES = {
  SOP: ['purpose', 'scope', 'references', 'definitions', 'preconditions', 'constraints', 'steps', 'acceptance', 'records', 'attachments'],
  CR: ['header', 'description', 'immediate_actions', 'impact', 'cause_statement', 'corrective_actions', 'evidence', 'reportability', 'previous_events'],
  OTHER: ['header', 'summary', 'purpose', 'description', 'discussion', 'inspection_scope', 'finding', 'assessment', 'enforcement',
    'corrective_actions', 'requested_actions', 'references', 'contacts'],
  ECA: ['event_summary', 'timeline', 'evidence_items', 'rationale', 'causal_factors', 'actions', 'lessons'],
  WO: ['header', 'task', 'steps', 'as_found', 'work_performed', 'as_left', 'verification', 'parts_tools', 'closeout'],
};
const CHUNK_FIELDS = ['chunk_id', 'doc_id', 'doc_name', 'source_path', 'section_path', 'text'];

const norm = (s) => s.replace(/\s+/g, ' ').trim().toLowerCase();

function readJsonl(file) {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l, i) => {
    try {
      return JSON.parse(l);
    } catch (e) {
      throw new Error(`${file}:${i + 1}: ${e.message}`);
    }
  });
}

/** Every part of the set: { part, chunks, labels } in file-name order. */
export function readRealtextSet(dir) {
  return readdirSync(dir).filter((f) => f.endsWith('.chunks.jsonl')).sort().map((f) => {
    const part = f.slice(0, -'.chunks.jsonl'.length);
    return { part, chunks: readJsonl(join(dir, f)), labels: readJsonl(join(dir, `${part}.labels.jsonl`)) };
  });
}

/** { errors: string[], chunks, documents: Map<doc_id, {kind, split, chunks}> } */
export function checkRealtextSet(dir) {
  const errors = [];
  const documents = new Map();
  const seen = new Set();
  let chunkCount = 0;
  for (const { part, chunks, labels } of readRealtextSet(dir)) {
    const byId = new Map(labels.map((l) => [l.chunk_id, l]));
    if (labels.length !== chunks.length) errors.push(`${part}: ${chunks.length} chunks, ${labels.length} labels`);
    for (const c of chunks) {
      chunkCount++;
      const where = `${part}:${c.chunk_id}`;
      if (seen.has(c.chunk_id)) errors.push(`${where}: duplicate chunk_id`);
      seen.add(c.chunk_id);
      for (const k of ['chunk_id', 'doc_id', 'doc_name', 'source_path', 'text']) {
        if (typeof c[k] !== 'string' || c[k] === '') errors.push(`${where}: no ${k}`);
      }
      const extra = Object.keys(c).filter((k) => !CHUNK_FIELDS.includes(k));
      if (extra.length) errors.push(`${where}: unexpected fields ${extra}`);
      const l = byId.get(c.chunk_id);
      if (!l) {
        errors.push(`${where}: no label`);
        continue;
      }
      if (KIND_DOC_TYPE[l.doc_kind] === undefined) errors.push(`${where}: doc_kind ${l.doc_kind}`);
      else if (KIND_DOC_TYPE[l.doc_kind] !== l.doc_type) errors.push(`${where}: doc_type ${l.doc_type} for ${l.doc_kind}`);
      if (!['dev', 'test'].includes(l.split)) errors.push(`${where}: split ${l.split}`);
      if (!['mandatory', 'guidance', 'informational', 'unknown'].includes(l.authority_level)) errors.push(`${where}: authority ${l.authority_level}`);
      if (l.section_role !== 'unknown' && !(LABEL_ROLES[l.doc_type] ?? []).includes(l.section_role)) errors.push(`${where}: role ${l.section_role} for ${l.doc_type}`);
      const d = documents.get(c.doc_id) ?? { kind: l.doc_kind, split: l.split, chunks: 0 };
      if (d.kind !== l.doc_kind || d.split !== l.split) errors.push(`${where}: document ${c.doc_id} has mixed kind or split`);
      d.chunks++;
      documents.set(c.doc_id, d);
      const text = norm(c.text);
      for (const k of SEED_FIELDS) {
        if (!Array.isArray(l.seed?.[k])) {
          errors.push(`${where}: seed.${k} missing`);
          continue;
        }
        for (const item of l.seed[k]) if (typeof item !== 'string' || !text.includes(norm(item))) errors.push(`${where}: seed.${k} "${item}" not in text`);
      }
      for (const list of ['negated', 'asserted_near_negation']) {
        if (!Array.isArray(l[list])) {
          errors.push(`${where}: ${list} missing`);
          continue;
        }
        for (const m of l[list]) {
          if (!SEED_FIELDS.includes(m.kind)) errors.push(`${where}: ${list} kind ${m.kind}`);
          if (typeof m.text !== 'string' || !text.includes(norm(m.text))) errors.push(`${where}: ${list} "${m.text}" not in text`);
        }
      }
      for (const m of l.negated ?? []) {
        if ((l.seed?.[m.kind] ?? []).some((s) => norm(s) === norm(m.text))) errors.push(`${where}: "${m.text}" both negated and in seed.${m.kind}`);
      }
      for (const m of l.asserted_near_negation ?? []) {
        if (!(l.seed?.[m.kind] ?? []).some((s) => norm(s) === norm(m.text))) errors.push(`${where}: asserted "${m.text}" not in seed.${m.kind}`);
      }
      const lines = new Set(c.text.split('\n'));
      if (!Array.isArray(l.non_prose)) errors.push(`${where}: non_prose missing`);
      else for (const line of l.non_prose) if (!lines.has(line)) errors.push(`${where}: non_prose entry is not a line of the text: ${JSON.stringify(line).slice(0, 80)}`);
    }
    for (const l of labels) if (!chunks.some((c) => c.chunk_id === l.chunk_id)) errors.push(`${part}: label without a chunk: ${l.chunk_id}`);
  }
  return { errors, chunks: chunkCount, documents };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'test', 'fixtures', 'realtext');
  const { errors, chunks, documents } = checkRealtextSet(dir);
  const tally = {};
  for (const d of documents.values()) {
    const t = (tally[d.kind] ??= { dev: [0, 0], test: [0, 0] });
    t[d.split][0]++;
    t[d.split][1] += d.chunks;
  }
  console.log(`${chunks} chunks, ${documents.size} documents, ${Object.keys(tally).length} kinds`);
  for (const [k, t] of Object.entries(tally)) console.log(`  ${k}: dev ${t.dev[0]} documents / ${t.dev[1]} chunks, test ${t.test[0]} / ${t.test[1]}`);
  for (const e of errors) console.log(`ERROR ${e}`);
  process.exitCode = errors.length ? 1 : 0;
}
