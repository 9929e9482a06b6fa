// The core of the real-text score (realtext.score.mjs): tags the chunks of test/fixtures/realtext/
// with rca-tag's defaults, in document order, builds both extractive views of each, and compares
// them with the hand labels, the dev and the test half apart. Pure apart from reading the data.
//
// What is measured (LABELLING.md says what the labels hold):
// - entities: every seed list, matched as extraction-core.mjs matches (relaxed: equal, or one
//   containing the other as whole words; exact beside), precision over predictions, recall over labels;
// - references: doc_refs recall, split by the label's form into regulatory references (10 CFR,
//   Technical Specifications, codes) and document numbers; clock times: the temporal_refs labels
//   that are clock times;
// - negation: labelled ruled-out mentions found in ner_seed.negated (any kind), and false negations
//   (a mention the labels keep asserted in that chunk, found in ner_seed.negated) over all asserted
//   mentions labelled;
// - doc type, subtype and authority per document (right when every chunk of it is right);
// - section role per chunk (exact, and over the chunks whose label is not `unknown`);
// - extractive items that read badly (see badReading);
// - near-copy contradictions: an extractive item that copies the text, with one word turned to its
//   opposite (see NEAR_COPY_SWAPS), validated as rca-validate does: caught when the view gains a flag.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compare, normalise, ratio } from './extraction-core.mjs';
import { readRealtextSet, SEED_FIELDS } from './realtext-set.mjs';

export const HALVES = ['dev', 'test'];

/** doc_kind → the doc_subtype rca is expected to give (LABELLING.md's kinds). */
export const SUBTYPE_OF_KIND = { EN: 'EN', LER: 'LER', PART21: 'PART21', IR: 'IR', IN: 'IN', GL: 'GL', BULLETIN: 'BULLETIN',
  CIRCULAR: 'CIRCULAR', NUREG: 'NUREG', EOP: 'EOP', PROC: 'PROC', RCE: 'RCE', WO: 'WO' };

// A label's form, for the report's sub-rows only (never used to predict anything).
const REGULATORY_RE = /\b(?:\d+\s*C[FP]R\b|CFR\d|C[FP]R\s*(?:Part\s*)?\d|Tech(?:nical)?\.?\s+Spec|T\.?S\.?\s*\d|LCO\b|Surveillance Requirement|SR\s+\d|ASME|IEEE|ANSI|Section\s+[IVX]+\b|Appendix\s+[A-Z]\b|GDC|General Design Criteri)/i;
const CLOCK_RE = /(?:\b\d{1,2}:\d{2}\b|\b[0-2]\d[0-5]\d\s*(?:\[\s*)?(?:[ECMPA][SD]T|hours?|hrs?\b|Z\b|local)|\bat\s+[0-2]\d[0-5]\d\b)/i;

const SENTENCE_WORDS = 4;

function tally() {
  return { predicted: 0, labelled: 0, correct: 0, found: 0 };
}

function add(into, key, c) {
  const t = (into[key] ??= tally());
  t.predicted += c.predicted;
  t.labelled += c.labelled;
  t.correct += c.correct;
  t.found += c.found;
}

function emptyHalf() {
  return {
    chunks: 0,
    fields: {},
    exact: {},
    refs: { regulatory: tally(), document: tally(), clock: tally() },
    negation: { labelled: 0, found: 0, asserted: 0, falseNegations: [], missed: [] },
    docs: new Map(),
    role: { total: 0, correct: 0, knownTotal: 0, knownCorrect: 0, wrong: [] },
    items: { total: 0, bad: 0, byReason: {}, examples: [] },
    perChunk: [],
    nearCopy: { faithful: 0, faithfulFlagged: 0, faithfulFlags: [], byKind: {}, missed: [] },
  };
}

/** Loads rca from dist/ and scores every chunk; returns { dev, test } halves. */
export async function scoreRealtext({ root, dist = join(root, 'dist'), nearCopy = true }) {
  const load = (rel) => import(pathToFileURL(join(dist, rel)).href);
  const { buildGazetteer } = await load('tagging/gazetteer.js');
  const { buildKeywordLists } = await load('tagging/keyword-lists.js');
  const { parseLexiconCsv } = await load('tagging/lexicon.js');
  const { Tagger } = await load('tagging/tagger.js');
  const { extractiveView } = await load('views/extractive.js');
  const { chunkTextOf } = await load('tagging/chunk-fields.js');
  const { validateView } = await load('views/validate-view.js');
  const { GroundingText } = await load('views/grounding.js');
  const { negatedMentions } = await load('views/claims.js');
  const { chunkViewItems, fieldRole } = await load('views/evidence.js');

  const read = (rel) => readFileSync(join(root, rel), 'utf8');
  const keywords = (name) => read(`data/keywords/${name}.csv`);
  const newTagger = () => new Tagger({
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

  const halves = { dev: emptyHalf(), test: emptyHalf() };
  for (const { chunks, labels } of readRealtextSet(join(root, 'test', 'fixtures', 'realtext'))) {
    const byId = new Map(labels.map((l) => [l.chunk_id, l]));
    // One tagger per part: the chunks of a document are in order, and doc type is decided per document.
    const tagger = newTagger();
    for (const record of chunks) {
      const label = byId.get(record.chunk_id);
      const half = halves[label.split];
      half.chunks++;
      const added = tagger.tag(record);
      const seed = added.ner_seed;
      const context = added.context;
      const text = chunkTextOf(record) ?? '';

      // Entities.
      const chunkReport = { chunk_id: record.chunk_id, wrong: {}, missed: {} };
      for (const field of SEED_FIELDS) {
        const c = compare(seed[field], label.seed[field]);
        add(half.fields, field, c);
        add(half.exact, field, compare(seed[field], label.seed[field], false));
        if (c.wrong.length) chunkReport.wrong[field] = c.wrong;
        if (c.missed.length) chunkReport.missed[field] = c.missed;
      }
      const refLabels = label.seed.doc_refs;
      add(half.refs, 'regulatory', compare(seed.doc_refs, refLabels.filter((r) => REGULATORY_RE.test(r))));
      add(half.refs, 'document', compare(seed.doc_refs, refLabels.filter((r) => !REGULATORY_RE.test(r))));
      add(half.refs, 'clock', compare(seed.temporal_refs, label.seed.temporal_refs.filter((t) => CLOCK_RE.test(t))));
      // Predictions are counted against all labels of the field above; these rows are recall only.
      for (const k of ['regulatory', 'document', 'clock']) half.refs[k].predicted = half.refs[k].correct = 0;

      // Negation.
      const negated = (seed.negated ?? []).map((m) => normalise(m.text));
      const n = half.negation;
      for (const m of label.negated) {
        n.labelled++;
        if (negated.some((x) => compare([x], [m.text]).found === 1)) n.found++;
        else n.missed.push(`${record.chunk_id}: ${m.text} (${m.kind})`);
      }
      const asserted = SEED_FIELDS.flatMap((f) => label.seed[f]);
      n.asserted += asserted.length;
      for (const x of negated) {
        const hit = asserted.find((a) => compare([x], [a]).found === 1);
        const alsoNegated = label.negated.some((m) => compare([x], [m.text]).found === 1);
        if (hit !== undefined && !alsoNegated) n.falseNegations.push(`${record.chunk_id}: ${x} (labelled asserted: ${hit})`);
      }

      // Document form: type, subtype, authority; every chunk of a document must agree.
      const doc = half.docs.get(record.doc_id) ?? { kind: label.doc_kind, typeOk: true, subtypeOk: true, authorityOk: true, got: new Set() };
      doc.typeOk &&= context.doc_type === label.doc_type;
      doc.subtypeOk &&= context.doc_subtype === SUBTYPE_OF_KIND[label.doc_kind];
      doc.authorityOk &&= context.authority_level === label.authority_level;
      doc.got.add(`${context.doc_type}/${context.doc_subtype ?? '-'}/${context.authority_level}`);
      half.docs.set(record.doc_id, doc);

      // Section role.
      const r = half.role;
      r.total++;
      const roleOk = context.section_role === label.section_role;
      if (roleOk) r.correct++;
      if (label.section_role !== 'unknown') {
        r.knownTotal++;
        if (roleOk) r.knownCorrect++;
      }
      if (!roleOk) r.wrong.push(`${record.chunk_id}: ${context.section_role}, labelled ${label.section_role}`);

      // Extractive views.
      const input = { context, nerSeed: seed, text };
      const views = { retrieval_summary: extractiveView('retrieval_summary', input), rca_frame: extractiveView('rca_frame', input) };
      const lines = layoutOf(text, label.non_prose);
      for (const [viewType, view] of Object.entries(views)) {
        for (const [field, index, value] of chunkViewItems(viewType, view)) {
          half.items.total++;
          const reason = badReading(value, text, lines);
          if (reason === null) continue;
          half.items.bad++;
          half.items.byReason[reason] = (half.items.byReason[reason] ?? 0) + 1;
          half.items.examples.push(`${record.chunk_id} ${viewType}.${field}[${index}] ${reason}: ${JSON.stringify(value).slice(0, 120)}`);
        }
      }

      // Near-copy contradictions of the extractive items.
      if (nearCopy) {
        const grounding = new GroundingText(text);
        const contextLines = [context.section_path, context.doc_id, ...(typeof record.doc_name === 'string' ? [record.doc_name] : [])];
        const check = (viewType, view) => validateView(viewType, structuredClone(view), context, grounding, { negated: negatedMentions(seed), context: contextLines });
        const nc = half.nearCopy;
        for (const [viewType, view] of Object.entries(views)) {
          const base = check(viewType, view);
          const baseFlags = new Set(base.flags);
          for (const ev of base.evidence.items) {
            if (ev.role === 'free') continue;
            nc.faithful++;
            if (ev.checks.length > 0) {
              nc.faithfulFlagged++;
              nc.faithfulFlags.push(`${record.chunk_id} ${viewType}.${ev.field}[${ev.index}]: ${ev.checks.join(', ')}`);
            }
          }
          for (const [field, index, value] of chunkViewItems(viewType, base.view)) {
            if (fieldRole(field) === 'free' || value.split(/\s+/).length < SENTENCE_WORDS) continue;
            for (const [kind, mutated] of nearCopies(value)) {
              const result = check(viewType, withItem(base.view, field, index, mutated));
              const entry = (nc.byKind[kind] ??= { injected: 0, caught: 0 });
              entry.injected++;
              if (result.flags.some((f) => !baseFlags.has(f))) entry.caught++;
              else nc.missed.push(`${record.chunk_id} ${viewType}.${field}[${index}] ${kind}: ${JSON.stringify(mutated).slice(0, 140)}`);
            }
          }
        }
      }
      half.perChunk.push(chunkReport);
    }
  }
  return halves;
}

// ---- extractive items that read badly ----

/** The chunk's lines with their offsets and whether the labels call them non-prose. */
function layoutOf(text, nonProse) {
  const marked = new Set(nonProse);
  const lines = [];
  let start = 0;
  for (const line of text.split('\n')) {
    lines.push({ start, end: start + line.length, nonProse: marked.has(line) });
    start += line.length + 1;
  }
  return lines;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
const ELLIPSIS_END = /(?:…|\.\.\.)$/;
const CHECKBOX_RE = /\[\s*[xX✓]?\s*\]|[☐☑☒]/;
const WRAP_HYPHEN_RE = /\p{Ll}- \p{Ll}/u;

/**
 * Why an item reads badly, or null: it holds a line break or a checkbox; it keeps a hard-wrap
 * hyphenation ("equip- ment" where the text has "equip-\nment"); it starts or ends inside a word
 * of the text without an ellipsis; or (an item of four words or more) most of it comes from lines
 * the labels call non-prose (form fields, headings, reference lines, page furniture).
 */
export function badReading(item, text, lines) {
  if (/[\r\n]/.test(item)) return 'line_break';
  if (CHECKBOX_RE.test(item)) return 'checkbox';
  if (WRAP_HYPHEN_RE.test(item) && hasWrapHyphen(item, text)) return 'wrap_hyphen';
  const span = locate(item.replace(ELLIPSIS_END, ''), text);
  if (span === null) return null;
  const before = text[span.start - 1];
  const after = text[span.end];
  const first = text[span.start];
  const last = text[span.end - 1];
  if (before !== undefined && WORD_CHAR.test(before) && WORD_CHAR.test(first)) return 'cut_word';
  if (!ELLIPSIS_END.test(item) && after !== undefined && WORD_CHAR.test(after) && WORD_CHAR.test(last)) return 'cut_word';
  if (item.trim().split(/\s+/).length >= SENTENCE_WORDS) {
    let inNonProse = 0;
    for (const line of lines) {
      if (!line.nonProse) continue;
      inNonProse += Math.max(0, Math.min(line.end, span.end) - Math.max(line.start, span.start));
    }
    if (inNonProse * 2 > span.end - span.start) return 'non_prose';
  }
  return null;
}

function hasWrapHyphen(item, text) {
  for (const m of item.matchAll(/(\p{L}+)- (\p{Ll}+)/gu)) {
    if (text.includes(`${m[1]}-\n${m[2]}`) || new RegExp(`${m[1]}-[ \\t]*\\r?\\n[ \\t]*${m[2]}`, 'u').test(text)) return true;
  }
  return false;
}

/**
 * Where an item stands in the text: whitespace in either counts as any run of whitespace, case is
 * ignored; an occurrence on word boundaries is preferred to one inside longer words ("trip" in
 * "the trip" rather than in "tripped"). Null when the item is not a copy of the text (rewritten,
 * joined, or normalised).
 */
function locate(item, text) {
  let inside = null;
  for (const span of occurrences(item, text)) {
    const before = text[span.start - 1];
    const after = text[span.end];
    const cutBefore = before !== undefined && WORD_CHAR.test(before) && WORD_CHAR.test(text[span.start]);
    const cutAfter = after !== undefined && WORD_CHAR.test(after) && WORD_CHAR.test(text[span.end - 1]);
    if (!cutBefore && !cutAfter) return span;
    inside ??= span;
  }
  return inside;
}

function* occurrences(item, text) {
  const words = item.trim().split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return;
  const lower = text.toLowerCase();
  const first = words[0].toLowerCase();
  for (let at = lower.indexOf(first); at !== -1; at = lower.indexOf(first, at + 1)) {
    let pos = at + first.length;
    let ok = true;
    for (const w of words.slice(1)) {
      let ws = pos;
      while (ws < lower.length && /\s/.test(lower[ws])) ws++;
      if (ws === pos || !lower.startsWith(w.toLowerCase(), ws)) {
        ok = false;
        break;
      }
      pos = ws + w.length;
    }
    if (ok) yield { start: at, end: pos };
  }
}

// ---- near-copy contradictions ----

/**
 * One word or phrase turned to its opposite, each applied once where it stands as a whole word:
 * direction, state, comparator, and polarity (an auxiliary negated or un-negated).
 */
export const NEAR_COPY_SWAPS = [
  ['direction', [['elevated', 'reduced'], ['reduced', 'elevated'], ['increased', 'decreased'], ['decreased', 'increased'],
    ['increasing', 'decreasing'], ['decreasing', 'increasing'], ['increase', 'decrease'], ['decrease', 'increase'],
    ['higher', 'lower'], ['lower', 'higher'], ['high', 'low'], ['low', 'high'], ['rising', 'falling'], ['rose', 'fell']]],
  ['state', [['opened', 'closed'], ['closed', 'opened'], ['open', 'closed'], ['started', 'stopped'], ['stopped', 'started'],
    ['energized', 'de-energized'], ['de-energized', 'energized'], ['inoperable', 'operable'], ['operable', 'inoperable'],
    ['unavailable', 'available'], ['available', 'unavailable'], ['failed', 'passed'], ['tripped', 'reset'],
    ['acceptable', 'unacceptable'], ['unacceptable', 'acceptable'], ['satisfactory', 'unsatisfactory']]],
  ['comparator', [['above', 'below'], ['below', 'above'], ['greater than', 'less than'], ['less than', 'greater than'],
    ['more than', 'less than'], ['at least', 'at most'], ['exceeded', 'remained below'], ['exceeds', 'is below'],
    ['maximum', 'minimum'], ['minimum', 'maximum'], ['within', 'outside'], ['before', 'after'], ['after', 'before']]],
  ['polarity', [['is required', 'is not required'], ['was required', 'was not required'], ['are required', 'are not required'],
    ['is ruled out', 'is not ruled out'], ['was ruled out', 'was not ruled out'], ['is between', 'is not between'],
    ['was not', 'was'], ['is not', 'is'], ['were not', 'were'], ['did not', 'did'], ['could not', 'could'],
    ['was', 'was not'], ['were', 'were not'], ['is', 'is not'], ['are', 'are not'], ['shall', 'shall not'], ['must', 'must not']]],
];

/** The near-copies of an item: at most one per kind, the first swap of the kind that applies. */
export function nearCopies(item) {
  const out = [];
  for (const [kind, swaps] of NEAR_COPY_SWAPS) {
    for (const [from, to] of swaps) {
      const re = new RegExp(`(?<![\\p{L}\\p{N}-])${from.replace(/ /g, '\\s+')}(?![\\p{L}\\p{N}-])`, 'iu');
      const m = re.exec(item);
      if (m === null) continue;
      const cased = /^\p{Lu}/u.test(m[0]) ? to[0].toUpperCase() + to.slice(1) : to;
      out.push([kind, item.slice(0, m.index) + cased + item.slice(m.index + m[0].length)]);
      break;
    }
  }
  return out;
}

function withItem(view, field, index, value) {
  const copy = structuredClone(view);
  const parts = field.split('.');
  let at = copy;
  for (const p of parts.slice(0, -1)) at = at[p];
  const last = parts.at(-1);
  if (Array.isArray(at[last])) at[last][index] = value;
  else at[last] = value;
  return copy;
}

// ---- summaries ----

export function overallOf(fields) {
  const t = tally();
  for (const c of Object.values(fields)) {
    t.predicted += c.predicted;
    t.labelled += c.labelled;
    t.correct += c.correct;
    t.found += c.found;
  }
  return { ...t, precision: ratio(t.correct, t.predicted), recall: ratio(t.found, t.labelled) };
}

/** The figures the targets name, for one half. */
export function headline(half) {
  const docs = [...half.docs.values()];
  const refs = half.refs;
  const nc = Object.values(half.nearCopy.byKind).reduce((t, k) => ({ injected: t.injected + k.injected, caught: t.caught + k.caught }), { injected: 0, caught: 0 });
  return {
    chunks: half.chunks,
    documents: docs.length,
    entities: overallOf(half.fields),
    entitiesExact: overallOf(half.exact),
    equipment: half.fields.equipment_ids,
    references: {
      found: refs.regulatory.found + refs.document.found,
      labelled: refs.regulatory.labelled + refs.document.labelled,
    },
    regulatory: refs.regulatory,
    document: refs.document,
    clock: refs.clock,
    negatedFound: { found: half.negation.found, labelled: half.negation.labelled },
    falseNegations: { count: half.negation.falseNegations.length, asserted: half.negation.asserted },
    docType: { correct: docs.filter((d) => d.typeOk).length, total: docs.length },
    docSubtype: { correct: docs.filter((d) => d.subtypeOk).length, total: docs.length },
    authority: { correct: docs.filter((d) => d.authorityOk).length, total: docs.length },
    roleExact: { correct: half.role.correct, total: half.role.total },
    roleKnown: { correct: half.role.knownCorrect, total: half.role.knownTotal },
    badItems: { bad: half.items.bad, total: half.items.total },
    nearCopy: { caught: nc.caught, injected: nc.injected },
    faithfulFlagged: { flagged: half.nearCopy.faithfulFlagged, items: half.nearCopy.faithful },
  };
}
