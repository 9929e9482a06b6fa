// The core of the extraction quality score: tags the labelled chunks of test/fixtures/quality/ with
// the built-in lexicon and keyword lists (what rca-tag does by default), builds the extractive
// retrieval_summary of each, and compares both with the labels. Pure apart from reading the data
// files; `npm run quality` prints it, and test/tagging/quality-set.test.ts asserts its invariants.
//
// Matching is by mention, case-insensitive, whitespace and table pipes collapsed: a predicted item
// counts as correct when it equals a labelled item of the same field or one contains the other as
// whole words ("expansion joint" for a labelled "expansion joint weld"); the exact-match figures are
// reported beside the relaxed ones. Precision is over predicted items, recall over labelled items.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const SEED_FIELDS = [
  'systems', 'equipment_ids', 'components', 'mechanisms', 'outcomes', 'surveillance_actions', 'maintenance_actions', 'properties', 'tools',
  'fm_ids', 'doc_refs', 'alarm_ids', 'measurements', 'temporal_refs', 'temporal_relations', 'temporal_qualifiers', 'locations', 'conjectures',
];
// Extractive retrieval_summary lists and the seed field whose labels they are scored against.
export const VIEW_FIELDS = [
  ['entities.systems', 'systems'],
  ['entities.equipment_ids', 'equipment_ids'],
  ['entities.components', 'components'],
  ['symptoms_outcomes', 'outcomes'],
  ['mechanisms', 'mechanisms'],
  ['numbers_limits', 'measurements'],
];

export function normalise(item) {
  const text = typeof item === 'string' ? item : item.text;
  return text.replace(/[|]/g, ' ').replace(/\s+/g, ' ').trim().toLowerCase();
}

function matches(a, b, relaxed) {
  if (a === b) return true;
  if (!relaxed) return false;
  const words = (s) => ` ${s.replace(/[^\p{L}\p{N}.*/-]+/gu, ' ').trim()} `;
  return words(a).includes(words(b)) || words(b).includes(words(a));
}

/** Counts for one list: predicted items that match a label, labels matched by a prediction. */
export function compare(predicted, labelled, relaxed = true) {
  const p = [...new Set(predicted.map(normalise))];
  const g = [...new Set(labelled.map(normalise))];
  return {
    predicted: p.length,
    labelled: g.length,
    correct: p.filter((x) => g.some((y) => matches(x, y, relaxed))).length,
    found: g.filter((y) => p.some((x) => matches(x, y, relaxed))).length,
    wrong: p.filter((x) => !g.some((y) => matches(x, y, relaxed))),
    missed: g.filter((y) => !p.some((x) => matches(x, y, relaxed))),
  };
}

function add(into, key, c) {
  const t = (into[key] ??= { predicted: 0, labelled: 0, correct: 0, found: 0 });
  t.predicted += c.predicted;
  t.labelled += c.labelled;
  t.correct += c.correct;
  t.found += c.found;
}

export const ratio = (n, d) => (d === 0 ? 1 : n / d);

function get(view, path) {
  return path.split('.').reduce((o, k) => o?.[k], view);
}

/** Everything the report prints, for rca-tag and for the extractive view. */
export async function scoreExtraction({ root, dist = join(root, 'dist') }) {
  const load = (rel) => import(pathToFileURL(join(dist, rel)).href);
  const { buildGazetteer } = await load('tagging/gazetteer.js');
  const { buildKeywordLists } = await load('tagging/keyword-lists.js');
  const { parseLexiconCsv } = await load('tagging/lexicon.js');
  const { Tagger } = await load('tagging/tagger.js');
  const { extractiveView } = await load('views/extractive.js');
  const { chunkTextOf } = await load('tagging/chunk-fields.js');

  const read = (rel) => readFileSync(join(root, rel), 'utf8');
  const keywords = (name) => read(`data/keywords/${name}.csv`);
  const tagger = new Tagger({
    docTypeMode: 'auto',
    authority: null,
    gazetteer: buildGazetteer(parseLexiconCsv(read('data/lexicon/rca-default.csv'), 'builtin')),
    keywords: buildKeywordLists({
      temporalQualifiers: keywords('temporal_qualifiers'),
      temporalRelations: keywords('temporal_relations'),
      locations: keywords('locations'),
      conjectures: keywords('conjectures'),
    }),
  });

  const lines = (rel) => read(rel).split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
  const chunks = lines('test/fixtures/quality/chunks.jsonl');
  const labels = new Map(lines('test/fixtures/quality/labels.jsonl').map((l) => [l.chunk_id, l]));

  const tag = { fields: {}, exact: {}, perChunk: [] };
  const view = { fields: {}, exact: {} };
  const negation = { labelled: 0, found: 0, leaked: [], falseNegations: [], viewLeaked: [] };
  const docType = { correct: 0, total: 0, wrong: [] };
  const role = { correct: 0, total: 0, wrong: [] };

  for (const record of chunks) {
    const label = labels.get(record.chunk_id);
    if (label === undefined) throw new Error(`no label for chunk ${record.chunk_id}`);
    const added = tagger.tag(record);
    const seed = added.ner_seed;
    const text = chunkTextOf(record) ?? '';

    docType.total++;
    if (added.context.doc_type === label.doc_type) docType.correct++;
    else docType.wrong.push(`${record.chunk_id}: ${added.context.doc_type}, labelled ${label.doc_type}`);
    role.total++;
    const inherited = added.tag_flags.includes('section_role_inherited');
    if (added.context.section_role === label.section_role && inherited === label.section_role_inherited) role.correct++;
    else role.wrong.push(`${record.chunk_id}: ${added.context.section_role}${inherited ? ' (inherited)' : ''}, labelled ${label.section_role}`);

    const chunkReport = { chunk_id: record.chunk_id, wrong: {}, missed: {} };
    for (const field of SEED_FIELDS) {
      const c = compare(seed[field], label.seed[field]);
      add(tag.fields, field, c);
      add(tag.exact, field, compare(seed[field], label.seed[field], false));
      if (c.wrong.length) chunkReport.wrong[field] = c.wrong;
      if (c.missed.length) chunkReport.missed[field] = c.missed;
    }
    tag.perChunk.push(chunkReport);

    // Negation: every labelled negated mention is in ner_seed.negated and in no positive list.
    const negated = (seed.negated ?? []).map((m) => ({ key: normalise(m.text), kind: m.kind }));
    for (const m of label.negated) {
      negation.labelled++;
      const key = normalise(m.text);
      if (negated.some((n) => n.kind === m.kind && n.key === key)) negation.found++;
      if (seed[m.kind].some((t) => normalise(t) === key)) negation.leaked.push(`${record.chunk_id}: ${m.text} in ${m.kind}`);
    }
    for (const n of negated) {
      if (!label.negated.some((m) => m.kind === n.kind && normalise(m.text) === n.key)) negation.falseNegations.push(`${record.chunk_id}: ${n.key} (${n.kind})`);
    }

    const summary = extractiveView('retrieval_summary', { context: added.context, nerSeed: seed, text });
    for (const [path, field] of VIEW_FIELDS) {
      add(view.fields, path, compare(get(summary, path), label.seed[field]));
      add(view.exact, path, compare(get(summary, path), label.seed[field], false));
    }
    for (const m of label.negated) {
      const key = normalise(m.text);
      for (const list of ['symptoms_outcomes', 'mechanisms', 'keywords_synonyms']) {
        if (summary[list].some((t) => normalise(t) === key)) negation.viewLeaked.push(`${record.chunk_id}: ${m.text} in ${list}`);
      }
    }
  }
  return { chunks: chunks.length, tag, view, negation, docType, role };
}

export function overall(fields) {
  const t = { predicted: 0, labelled: 0, correct: 0, found: 0 };
  for (const c of Object.values(fields)) {
    t.predicted += c.predicted;
    t.labelled += c.labelled;
    t.correct += c.correct;
    t.found += c.found;
  }
  return { ...t, precision: ratio(t.correct, t.predicted), recall: ratio(t.found, t.labelled) };
}
