import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChunkContext, NerSeed } from '../../src/contracts/chunk.js';
import { NER_SEED_KEYS } from '../../src/contracts/vocabulary.js';
import {
  classifyUnit,
  isReference,
  type FrameField,
  cutAtWord,
  extractiveView,
  isImperative,
  MAX_ITEM_CHARS,
  MAX_ITEMS,
  splitUnits,
  UNKNOWN_NOTES,
  type TextUnit,
  type UnitClasses,
} from '../../src/views/extractive.js';
import { buildGazetteer } from '../../src/tagging/gazetteer.js';
import { buildKeywordLists } from '../../src/tagging/keyword-lists.js';
import { parseLexiconCsv } from '../../src/tagging/lexicon.js';
import { Tagger } from '../../src/transforms/tag.js';
import { validateView } from '../../src/views/validate-view.js';
import { negationCues } from '../../src/views/claims.js';
import { normaliseTokens } from '../../src/views/evidence-text.js';
import { emptyView } from '../../src/views/view-skeleton.js';
import { VIEW_TYPES, type ViewType } from '../../src/contracts/vocabulary.js';
import { ROOT } from '../support/golden.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

// The tagger exactly as `rca-tag` builds it with its defaults (built-in lexicon, shipped keyword lists).
const tagger = new Tagger({
  docTypeMode: 'auto',
  authority: null,
  gazetteer: buildGazetteer(parseLexiconCsv(read('data/lexicon/rca-default.csv'), 'rca-default.csv')),
  keywords: buildKeywordLists({
    temporalQualifiers: read('data/keywords/temporal_qualifiers.csv'),
    temporalRelations: read('data/keywords/temporal_relations.csv'),
    locations: read('data/keywords/locations.csv'),
    conjectures: read('data/keywords/conjectures.csv'),
  }),
});

const CORPORA = [
  'test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl',
  'test/fixtures/written/eca_2026_0007.jsonl',
  'test/fixtures/written/sop_afw_012.jsonl',
  'test/fixtures/written/wo_2026_04567.jsonl',
  'test/fixtures/dackar/test_case_3/processed_records.jsonl',
];

interface Tagged {
  corpus: string;
  context: ChunkContext;
  nerSeed: NerSeed;
  text: string;
}

const records: Tagged[] = CORPORA.flatMap((corpus) =>
  read(corpus)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      const added = tagger.tag(record);
      const text = typeof record.text === 'string' ? record.text : typeof record.raw_text === 'string' ? record.raw_text : '';
      return { corpus, context: added.context, nerSeed: added.ner_seed, text };
    }),
);
const byId = (chunkId: string) => records.find((r) => r.context.chunk_id === chunkId)!;
const cases = records.flatMap((r) => VIEW_TYPES.map((view) => [r.context.chunk_id, view, r] as const));

// Seed lists the keywords are drawn from: when these hold fewer than 3 distinct terms the chunk
// is too poor for 3 keywords, and few_keywords is the honest outcome.
const KEYWORD_SOURCES = ['systems', 'equipment_ids', 'components', 'mechanisms', 'outcomes', 'fm_ids', 'alarm_ids', 'properties', 'tools', 'doc_refs', 'maintenance_actions', 'surveillance_actions'] as const;
const distinctSeedTerms = (seed: NerSeed) => new Set(KEYWORD_SOURCES.flatMap((k) => seed[k]).map((t) => t.toLowerCase())).size;

// The records whose seed is too poor for 3 keywords, and what the seed does hold.
const TOO_POOR_FOR_KEYWORDS: ReadonlyArray<readonly [string, string]> = [
  ['chunk:ad61d26ecf6e:sec4', 'one mechanism (coupling misalignment) and one property (suction pressure margin)'],
  ['chunk:sop-afw-012:sec9', 'one surveillance term (surveillance): the chunk is about keeping records'],
  ['wo-2026-04567-06', 'two doc refs (CR-2026-00418, PM-20417): a closeout note'],
  ['wo-2026-04567-03', 'one property (alignment) and one component (oil); "no oil leakage observed" rules leakage out'],
];
const QUALITY_FLAGS = new Set(['few_keywords', 'scope_too_short', 'boilerplate', 'empty_frame']);

function listsOf(view: Record<string, unknown>): Array<[string, string[]]> {
  const out: Array<[string, string[]]> = [];
  for (const [key, value] of Object.entries(view)) {
    if (Array.isArray(value)) out.push([key, value as string[]]);
    else if (key === 'entities') for (const [k, v] of Object.entries(value as Record<string, string[]>)) out.push([`entities.${k}`, v]);
  }
  return out;
}
const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

describe('extractiveView over the sample corpora, after tagging', () => {
  it('reads every record of the corpora', () => {
    expect(records).toHaveLength(9 + 7 + 9 + 7 + 15);
  });

  it.each(cases)('%s %s: no contract or grounding flag, provenance already trusted', (_id, view, record) => {
    const out = extractiveView(view, record);
    // negation_mismatch: a term lifted out of a negated clause, which the baseline still does
    // (the test below holds each such flag to a negated clause of the chunk).
    const { flags: all, fixed } = validateView(view, structuredClone(out) as Record<string, unknown>, record.context, record.text);
    const flags = all.filter((f) => !f.startsWith('negation_mismatch:'));
    expect(fixed).toEqual([]);
    expect(flags.filter((f) => !QUALITY_FLAGS.has(f))).toEqual([]);
    const tooPoor = TOO_POOR_FOR_KEYWORDS.some(([id]) => id === record.context.chunk_id);
    expect(flags).toEqual(view === 'retrieval_summary' && tooPoor ? ['few_keywords'] : []);
  });

  it('every negation_mismatch the checks raise on the baseline names a term the chunk states in a negated clause', () => {
    // A cue of the one negation vocabulary (tagging/negation-cues.ts) in the clause before the term.
    const negated = { test: (before: string) => negationCues(normaliseTokens(before.split(';').at(-1)!)).length > 0 };
    for (const [, view, record] of cases) {
      const { flags } = validateView(view, structuredClone(extractiveView(view, record)) as Record<string, unknown>, record.context, record.text);
      for (const flag of flags.filter((f) => f.startsWith('negation_mismatch:'))) {
        const term = flag.slice('negation_mismatch:'.length).toLowerCase();
        const text = record.text.toLowerCase();
        const at = [...text.matchAll(new RegExp(`(?<![\\w-])${term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`, 'g'))].map((m) => m.index!);
        expect(at.length, `${record.context.chunk_id}: ${term}`).toBeGreaterThan(0);
        // Its first occurrence, where the item was found.
        expect(negated.test(text.slice(Math.max(0, text.lastIndexOf('.', at[0]!) + 1), at[0]!)), `${record.context.chunk_id}: ${term}`).toBe(true);
      }
    }
  });

  it.each(TOO_POOR_FOR_KEYWORDS)('%s is too poor for 3 keywords: %s', (chunkId) => {
    const record = byId(chunkId);
    expect(distinctSeedTerms(record.nerSeed)).toBeLessThan(3);
    const view = extractiveView('retrieval_summary', record);
    expect(view.keywords_synonyms.length).toBe(distinctSeedTerms(record.nerSeed));
  });

  it('every other record has at least 3 keywords', () => {
    const poor = new Set(TOO_POOR_FOR_KEYWORDS.map(([id]) => id));
    for (const record of records.filter((r) => !poor.has(r.context.chunk_id))) {
      expect(extractiveView('retrieval_summary', record).keywords_synonyms.length, record.context.chunk_id).toBeGreaterThanOrEqual(3);
    }
  });

  it.each(cases)('%s %s: items are trimmed substrings of the text, lists capped, unknowns fixed notes', (_id, view, record) => {
    const out = extractiveView(view, record) as Record<string, unknown>;
    for (const [key, list] of listsOf(out)) {
      expect(list.length, key).toBeLessThanOrEqual(MAX_ITEMS);
      const seen = new Set<string>();
      for (const item of list) {
        expect(seen.has(item.toLowerCase()), `${key} repeats ${item}`).toBe(false);
        seen.add(item.toLowerCase());
        if (key === 'unknowns') {
          expect(Object.values(UNKNOWN_NOTES)).toContain(item);
          continue;
        }
        expect(item).toBe(item.trim());
        expect(item.length).toBeLessThanOrEqual(MAX_ITEM_CHARS);
        // A value and its unit in two table cells are one item, read as cells ("6.2 mils").
        const asCells = key === 'numbers_limits' && record.text.split('|').map((c) => c.trim()).join(' ').includes(item);
        expect(record.text.includes(item) || asCells, `${key}: ${item}`).toBe(true);
      }
    }
    if (view === 'retrieval_summary') {
      const scope = out.scope as string;
      expect(scope.length).toBeGreaterThanOrEqual(15);
      expect(scope.length).toBeLessThanOrEqual(300);
      expect(collapse(record.text).includes(scope)).toBe(true);
    }
  });

  it.each(cases)('%s %s: the contract skeleton (keys, order, trusted fields), deterministic', (_id, view, record) => {
    const out = extractiveView(view, record) as Record<string, unknown>;
    const skeleton = emptyView(view, record.context) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(Object.keys(skeleton));
    for (const key of ['entities', 'citations']) if (key in skeleton) expect(Object.keys(out[key] as object)).toEqual(Object.keys(skeleton[key] as object));
    for (const key of ['chunk_id', 'doc_type', 'view_type', 'citations']) expect(out[key]).toEqual(skeleton[key]);
    expect(extractiveView(view, structuredClone(record))).toEqual(out);
    expect(JSON.stringify(extractiveView(view, record))).toBe(JSON.stringify(out));
  });

  it.each(cases.filter(([, view]) => view === 'rca_frame'))('%s: every statement is in one frame list at most', (_id, _view, record) => {
    const frame = extractiveView('rca_frame', record);
    const all = [frame.observed, frame.hypotheses, frame.tests_to_confirm, frame.candidate_actions, frame.constraints].flat();
    expect(all.length).toBe(new Set(all).size);
  });

  it.each(cases.filter(([, view]) => view === 'retrieval_summary'))('%s: no statement is both a diagnostic and a corrective action', (_id, _view, record) => {
    const summary = extractiveView('retrieval_summary', record);
    expect(summary.diagnostics.filter((d) => summary.corrective_actions.includes(d))).toEqual([]);
  });

  // What a reader of the baseline can rely on, on records where the answer is plain.
  it.each<[string, ViewType, string, string | null, string | null]>([
    ['eca-2026-0007:3', 'rca_frame', 'hypotheses', 'The air in-leakage is likely caused by fatigue cracking of the expansion joint weld.', null],
    ['eca-2026-0007:3', 'rca_frame', 'observed', 'Failure mode FM_AIR_INLEAK applies; FM_TUBE_FOULING is ruled out.', 'The air in-leakage is likely caused by fatigue cracking of the expansion joint weld.'],
    ['eca-2026-0007:4', 'rca_frame', 'hypotheses', 'Root cause: inadequate inspection scope for the expansion joint under PM-30112.', null],
    // One unit, one field: a stated cause is a hypothesis, not also a constraint for its setpoint.
    ['eca-2026-0007:4', 'rca_frame', 'hypotheses', 'Contributing cause: the vacuum trend alarm setpoint of 2.5 inHg was set above the early-warning band.', null],
    ['eca-2026-0007:4', 'rca_frame', 'constraints', null, 'Contributing cause: the vacuum trend alarm setpoint of 2.5 inHg was set above the early-warning band.'],
    ['eca-2026-0007:5', 'rca_frame', 'candidate_actions', 'Lower the trend alarm to 2.2 inHg.', null],
    // An action already taken is observed, not a candidate.
    ['eca-2026-0007:1', 'rca_frame', 'observed', '0310: operators started the standby vacuum pump.', null],
    ['eca-2026-0007:1', 'rca_frame', 'candidate_actions', null, '0310: operators started the standby vacuum pump.'],
    ['chunk:sop-afw-012:sec4', 'rca_frame', 'constraints', 'CAUTION: Do not operate the pump with discharge valve MOV-204A closed for more than 2 minutes.', null],
    ['chunk:sop-afw-012:sec4', 'rca_frame', 'constraints', 'Motor bearing temperature shall not exceed 185 °F.', null],
    ['chunk:sop-afw-012:sec4', 'rca_frame', 'observed', null, 'Motor bearing temperature shall not exceed 185 °F.'],
    ['chunk:sop-afw-012:sec2', 'rca_frame', 'constraints', 'This procedure does not apply to the turbine-driven pump AFW-P-103.', 'Applicable to AFW pumps P-101A and P-101B in Modes 1, 2 and 3.'],
    ['chunk:sop-afw-012:sec6', 'rca_frame', 'candidate_actions', '6.1.1 Start P-101A from the control room.', null],
    ['chunk:sop-afw-012:sec6', 'rca_frame', 'tests_to_confirm', '6.1.2 Within 2 minutes, verify discharge pressure PT-1102 is between 1150 and 1200 psig.', '6.1.1 Start P-101A from the control room.'],
    ['chunk:sop-afw-012:sec7', 'rca_frame', 'candidate_actions', '6.2.2 If vibration exceeds 0.325 in/s, notify the system engineer and initiate a condition report.', '6.2.1 Measure vibration at the inboard bearing and outboard bearing with the vibration analyzer.'],
    ['chunk:sop-afw-012:sec7', 'rca_frame', 'tests_to_confirm', '6.2.1 Measure vibration at the inboard bearing and outboard bearing with the vibration analyzer.', '6.2.2 If vibration exceeds 0.325 in/s, notify the system engineer and initiate a condition report.'],
    ['chunk:sop-afw-012:sec8', 'rca_frame', 'constraints', 'Flow at FT-1102 is at least 450 gpm.', null],
    ['wo-2026-04567-02', 'rca_frame', 'observed', 'Realigned the coupling to within 2 mils using the laser alignment tool.', null],
    ['wo-2026-04567-02', 'rca_frame', 'candidate_actions', null, 'Realigned the coupling to within 2 mils using the laser alignment tool.'],
    ['wo-2026-04567-02', 'retrieval_summary', 'corrective_actions', 'Realigned the coupling to within 2 mils using the laser alignment tool.', null],
    ['wo-2026-04567-02', 'rca_frame', 'tests_to_confirm', null, 'Torqued the hold-down bolts to 250 ft-lbs with a calibrated torque wrench.'],
    ['wo-2026-04567-02', 'rca_frame', 'constraints', null, 'Torqued the hold-down bolts to 250 ft-lbs with a calibrated torque wrench.'],
    ['wo-2026-04567-04', 'rca_frame', 'tests_to_confirm', 'Acceptance criteria met.', null],
    ['table:ad61d26ecf6e:2', 'rca_frame', 'observed', 'VB-101A peak | 6.2 | mils | Alarm setpoint 5.0 mils', null],
    ['chunk:ad61d26ecf6e:sec1', 'rca_frame', 'candidate_actions', null, 'CR ID | CR-2026-00123 | Date Initiated | 2026-02-06'],
    ['chunk:ad61d26ecf6e:sec1', 'rca_frame', 'observed', 'Location | Turbine Building Elev. 468\' | Initiator | Operator (Example)', 'Field | Value | Field | Value'],
    ['chunk:ad61d26ecf6e:sec4', 'rca_frame', 'hypotheses', 'Potential contributors include reduced suction pressure margin and coupling misalignment.', null],
    ['chunk:ad61d26ecf6e:sec4', 'rca_frame', 'candidate_actions', null, 'Potential contributors include reduced suction pressure margin and coupling misalignment.'],
    ['chunk:ad61d26ecf6e:sec5', 'rca_frame', 'candidate_actions', 'CA-2 | Review suction pressure trend and confirm valve lineup / restrictions. | Operations | 2026-02-08', null],
    ['chunk:ad61d26ecf6e:sec3', 'retrieval_summary', 'corrective_actions', 'Operator stopped P-101A within 2 minutes of alarm.', null],
    ['chunk:ad61d26ecf6e:sec2', 'retrieval_summary', 'numbers_limits', '6.2 mils', null],
    ['chunk:ad61d26ecf6e:sec2', 'retrieval_summary', 'entities.equipment_ids', 'VB-101A', null],
    // What was seen during a surveillance is an observation, not a check to run.
    ['chunk:ad61d26ecf6e:sec2', 'retrieval_summary', 'diagnostics', null, 'During routine surveillance, AFW Pump P-101A exhibited elevated vibration after start.'],
    ['chunk:ad61d26ecf6e:sec2', 'rca_frame', 'observed', 'During routine surveillance, AFW Pump P-101A exhibited elevated vibration after start.', null],
    ['chunk:ad61d26ecf6e:sec3', 'rca_frame', 'observed', 'Train A declared inoperable pending evaluation.', null],
    ['chunk:ad61d26ecf6e:sec3', 'rca_frame', 'candidate_actions', null, 'Operator stopped P-101A within 2 minutes of alarm.'],
    // A reference line is no action and no scope.
    ['chunk:ad61d26ecf6e:sec5', 'rca_frame', 'candidate_actions', null, 'Related evaluation: ECA-2026-0007 (ifinitiated).'],
    ['chunk:ad61d26ecf6e:sec5', 'retrieval_summary', 'corrective_actions', null, 'Related evaluation: ECA-2026-0007 (ifinitiated).'],
    ['CR-2024-04799::initial_assessment', 'rca_frame', 'hypotheses', 'CW temperature alone may be insufficient to explain the magnitude of observed backpressure rise.', null],
    ['CR-2024-04799::initial_assessment', 'rca_frame', 'tests_to_confirm', 'Recommend condenser performance test per SOP-U2-CND-001 to discriminate cause.', null],
    ['WO-2024-12001::findings', 'rca_frame', 'hypotheses', 'Air in-leakage caused by degraded expansion joint seal due to thermal cycling.', null],
    ['SOP-U2-CHE-041::do_acceptance_criteria', 'rca_frame', 'constraints', 'Do not attribute elevated DO to condensate chemistry variations.', null],
  ])('%s %s: %s holds %j, not %j', (chunkId, view, field, present, absent) => {
    const out = extractiveView(view, byId(chunkId)) as Record<string, any>;
    const list = (field.startsWith('entities.') ? out.entities[field.slice(9)] : out[field]) as string[];
    if (present !== null) expect(list).toContain(present);
    if (absent !== null) expect(list).not.toContain(absent);
  });

  it.each<[string, string]>([
    ['chunk:ad61d26ecf6e:sec1', 'AFW Train B remained available. No safety injection or reactor trip occurred.'],
    ['table:ad61d26ecf6e:2', 'VB-101A peak | 6.2 | mils | Alarm setpoint 5.0 mils'],
    ['wo-2026-04567-00', 'Replace the outboard motor bearing on RHR pump RHR-P-2B. Priority 2.'],
    ['eca-2026-0007:2', 'Helium leak testing identified air in-leakage at the expansion joint weld on the turbine exhaust duct.'],
  ])('%s: scope is the leading prose (the first row when there is none)', (chunkId, scope) => {
    expect(extractiveView('retrieval_summary', byId(chunkId)).scope).toBe(scope);
  });
});

const EMPTY_SEED = Object.fromEntries(NER_SEED_KEYS.map((k) => [k, []])) as unknown as NerSeed;
const CTX: ChunkContext = {
  doc_id: 'D1',
  doc_type: 'WO',
  chunk_id: 'D1:0',
  section_path: 'Work Order > Work Performed',
  page_start: null,
  page_end: null,
  authority_level: 'informational',
  section_role: 'unknown',
};
const seed = (fields: Partial<NerSeed>): NerSeed => ({ ...EMPTY_SEED, ...fields });

describe('extractiveView: keywords a search would use', () => {
  it('takes no term across a line the reader did not join, nor a bare number with blanks in it', () => {
    const text = 'Accession No.:\n          IEC 99-01\nLER NUMBER 2019 - 004 - 00\nThe AFW pump tripped; LER 2019-004-00 reports it.';
    const out = extractiveView('retrieval_summary', { context: CTX, nerSeed: seed({ doc_refs: ['Accession No.:\n          IEC 99-01', 'IEC 99-01', '2019 - 004 - 00', 'LER 2019-004-00'] }), text });
    expect(out.keywords_synonyms).toEqual(['IEC 99-01', 'LER 2019-004-00']);
  });
});

describe('extractiveView: never invents', () => {
  it('an empty chunk gives empty lists, fixed notes and honest quality flags', () => {
    const summary = extractiveView('retrieval_summary', { context: CTX, nerSeed: EMPTY_SEED, text: '' });
    expect(summary.scope).toBe('');
    expect(summary.unknowns).toEqual(Object.values(UNKNOWN_NOTES));
    expect(validateView('retrieval_summary', structuredClone(summary), CTX, '').flags).toEqual(['scope_too_short', 'few_keywords']);
    const frame = extractiveView('rca_frame', { context: CTX, nerSeed: EMPTY_SEED, text: '  \n ' });
    expect(validateView('rca_frame', structuredClone(frame), CTX, '').flags).toEqual(['empty_frame']);
  });

  it.each<[string, Partial<NerSeed>, string, string[]]>([
    ['seed terms absent from the text are dropped', { components: ['impeller', 'bearing'] }, 'entities.components', ['bearing']],
    ['an equipment id must occur whole ("P-101" is not in "P-101A")', { equipment_ids: ['P-101', 'P-101A'] }, 'entities.equipment_ids', ['P-101A']],
    ['a term takes the spelling of the text', { systems: ['afw'] }, 'entities.systems', ['AFW']],
    ['measurements whose number is not in the text are dropped', { measurements: [{ value: '6.3', unit: 'mils', text: '6.3 mils' }, { value: '6.2', unit: 'mils', text: '6.2 mils' }] }, 'numbers_limits', ['6.2 mils']],
    ['duplicates differing in case are listed once', { outcomes: ['trip', 'Trip', 'TRIP'] }, 'symptoms_outcomes', ['trip']],
  ])('%s', (_name, fields, field, expected) => {
    const text = 'AFW pump P-101A bearing vibration reached 6.2 mils before the trip.';
    const out = extractiveView('retrieval_summary', { context: CTX, nerSeed: seed(fields), text }) as Record<string, any>;
    expect(field.startsWith('entities.') ? out.entities[field.slice(9)] : out[field]).toEqual(expected);
  });

  it('keywords take generic action terms only to reach 3, and never more', () => {
    const text = 'Inspected and tested the seal of pump P-7 after the leak.';
    const poor = extractiveView('retrieval_summary', { context: CTX, nerSeed: seed({ equipment_ids: ['P-7'], surveillance_actions: ['Inspected', 'tested'] }), text });
    expect(poor.keywords_synonyms).toEqual(['P-7', 'Inspected', 'tested']);
    const rich = extractiveView('retrieval_summary', { context: CTX, nerSeed: seed({ equipment_ids: ['P-7'], components: ['seal', 'pump'], outcomes: ['leak'], surveillance_actions: ['tested'] }), text });
    expect(rich.keywords_synonyms).toEqual(['P-7', 'seal', 'pump', 'leak']);
  });

  it('lists are capped and long sentences cut at a word boundary with an ellipsis', () => {
    const long = `Replace ${'the worn outboard bearing '.repeat(20)}now.`;
    const text = [long, ...Array.from({ length: 12 }, (_, i) => `Replace bearing ${i + 1}.`)].join(' ');
    const frame = extractiveView('rca_frame', { context: CTX, nerSeed: EMPTY_SEED, text });
    expect(frame.candidate_actions).toHaveLength(MAX_ITEMS);
    const first = frame.candidate_actions[0]!;
    expect(first.length).toBeLessThanOrEqual(MAX_ITEM_CHARS);
    expect(first.endsWith('…')).toBe(true);
    const kept = first.slice(0, -1);
    expect(text.startsWith(kept)).toBe(true);
    expect(text[kept.length]).toBe(' ');
    expect(frame.candidate_actions.at(-1)).toBe('Replace bearing 7.');
  });

  it('the section role routes plain statements (a precondition, a performed step, an acceptance check)', () => {
    const text = 'Tank level above 60 percent. Pump running.';
    const frame = (role: string) => extractiveView('rca_frame', { context: { ...CTX, section_role: role }, nerSeed: EMPTY_SEED, text });
    expect(frame('preconditions').constraints).toEqual(['Tank level above 60 percent.', 'Pump running.']);
    expect(frame('work_performed').candidate_actions).toEqual(['Tank level above 60 percent.', 'Pump running.']);
    expect(frame('acceptance').tests_to_confirm).toEqual(['Tank level above 60 percent.', 'Pump running.']);
    expect(frame('unknown')).toMatchObject({ observed: ['Tank level above 60 percent.', 'Pump running.'], constraints: [], candidate_actions: [], tests_to_confirm: [] });
  });

  // Its time against input size is measured by bench/pathological-inputs.mjs, not asserted here.
  it('handles a 400 KB chunk of tables, abbreviations and long lines within its item caps', () => {
    const text = [
      '| A | B | |---|---| ' + '| x | y | '.repeat(5000),
      'e.g. '.repeat(20_000) + 'End.',
      'a'.repeat(100_000) + '. B',
      'Replace the bearing. '.repeat(5000),
    ].join('\n');
    for (const view of VIEW_TYPES) {
      const made = extractiveView(view, { context: CTX, nerSeed: EMPTY_SEED, text }) as unknown as Record<string, unknown>;
      for (const value of Object.values(made)) if (Array.isArray(value)) expect(value.length).toBeLessThanOrEqual(MAX_ITEMS);
    }
  });
});

const texts = (units: TextUnit[]) => units.map((u) => u.text);

describe('splitUnits: sentences', () => {
  it.each<[string, string, string[]]>([
    ['two sentences', 'Pump tripped. Operator reset it.', ['Pump tripped.', 'Operator reset it.']],
    ['step numbers open sentences', '6.1.1 Start P-101A. 6.1.2 Verify flow.', ['6.1.1 Start P-101A.', '6.1.2 Verify flow.']],
    ['question and exclamation marks', 'Is it hot? Yes! Stop now.', ['Is it hot?', 'Yes!', 'Stop now.']],
    ['a closing quote stays with its sentence', 'The tag read "OOS." Then it fell.', ['The tag read "OOS."', 'Then it fell.']],
    ['every line is a unit', 'Title line\nSecond line. Third one.', ['Title line', 'Second line.', 'Third one.']],
    ['bullets lose their marker', '- Open valve V-1\n* Close valve V-2\n• Vent', ['Open valve V-1', 'Close valve V-2', 'Vent']],
    ['numbered list items', '1. Open the valve. 2. Start the pump.', ['1. Open the valve.', '2. Start the pump.']],
    ['an ellipsis before a capital', 'It rose... Then it fell.', ['It rose...', 'Then it fell.']],
    ['CRLF line ends', 'First line.\r\nSecond line.\r\n', ['First line.', 'Second line.']],
  ])('splits: %s', (_name, text, expected) => {
    expect(texts(splitUnits(text))).toEqual(expected);
  });

  it.each<[string, string]>([
    ['Elev. before a number', "Located at Turbine Building Elev. 468' near the pump."],
    ['e.g.', 'Use a gauge, e.g. PI-1102, for the reading.'],
    ['i.e. before a capital', 'The standby train, i.e. Train B, stayed available.'],
    ['No. before a number', 'Replace bearing No. 2 on the motor.'],
    ['decimals', 'Vibration peaked at 6.2 mils and fell to 5.0 mils.'],
    ['step numbers inside a sentence', 'Perform step 6.1.2 before step 6.1.3 starts.'],
    ['a period before a lowercase word', 'Stopped at approx. ten minutes past the hour.'],
    ['a dotted acronym', 'Reported to the U.S. NRC within the hour.'],
    ['Fig. before a number', 'See Fig. 3 for the layout.'],
    ['a period not followed by a space', 'Checked www.example.com and file v1.2.3 today.'],
  ])('does not split: %s', (_name, text) => {
    expect(texts(splitUnits(text))).toEqual([text]);
  });
});

describe('splitUnits: tables', () => {
  it.each<[string, string, Array<[TextUnit['kind'], string]>]>([
    [
      'a markdown table, one row per line',
      '| Source | Value |\n|---|---|\n| VB-101A | 6.2 mils |\n| FT-1102 | 465 gpm |',
      [['header', 'Source | Value'], ['row', 'VB-101A | 6.2 mils'], ['row', 'FT-1102 | 465 gpm']],
    ],
    [
      'a table flattened onto one line (PDF converters)',
      '| A | B | |---|---| | a1 | b1 | | a2 | b2 |',
      [['header', 'A | B'], ['row', 'a1 | b1'], ['row', 'a2 | b2']],
    ],
    [
      'flattened rows with an empty cell, and a sentence inside a cell',
      '| ID | Action | Owner | |-----|-----|-----| | CA-1 | Fix it. Now | | | CA-2 | Check | Ops |',
      [['header', 'ID | Action | Owner'], ['row', 'CA-1 | Fix it. Now'], ['row', 'CA-2 | Check | Ops']],
    ],
    [
      'a row whose first cell is empty, on its own line',
      '| A | B |\n|---|---|\n| | b1 |',
      [['header', 'A | B'], ['row', 'b1']],
    ],
    [
      '"Columns:" and "Row N:" lines',
      'Columns: Source | Value | Units\nRow 1: VB-101A peak | 6.2 | mils',
      [['header', 'Columns: Source | Value | Units'], ['row', 'VB-101A peak | 6.2 | mils']],
    ],
    [
      'prose after a table is split into sentences again',
      '| A | B |\n|---|---|\n| 1 | 2 |\n\nAll fine. Done.',
      [['header', 'A | B'], ['row', '1 | 2'], ['sentence', 'All fine.'], ['sentence', 'Done.']],
    ],
    ['a table without a delimiter row: each line is a row', '| x | y |\n| z | w |', [['row', 'x | y'], ['row', 'z | w']]],
    ['a lone "-" cell is a value, not a delimiter', '| A | - |', [['row', 'A | -']]],
  ])('%s', (_name, text, expected) => {
    const units = splitUnits(text);
    expect(units.map((u) => [u.kind, u.text])).toEqual(expected);
    for (const u of units) expect(text.slice(u.start, u.start + u.text.length)).toBe(u.text);
  });

  it('every unit of every corpus record is the text at its offset', () => {
    for (const record of records) {
      for (const u of splitUnits(record.text)) expect(record.text.slice(u.start, u.start + u.text.length)).toBe(u.text);
    }
  });
});

type FlagName = Exclude<keyof UnitClasses, 'field'>;
function classOf(cls: FlagName, text: string, kind: TextUnit['kind'] = 'sentence'): boolean {
  return classifyUnit({ text, kind })[cls];
}

const CLASSIFIER_TABLES: Record<string, { cls: FlagName; yes: string[]; no: string[] }> = {
  hedged: {
    cls: 'hedged',
    yes: [
      'The air in-leakage is likely caused by fatigue cracking.',
      'It is possible that thermal cycling contributed.',
      'Potential contributors include reduced suction pressure margin.',
      'Backpressure drift may indicate air in-leakage.',
      'A failed bearing is suspected.',
      'Initial evaluation suggests a fouled condenser.',
      'Weld damage consistent with thermal fatigue.',
    ],
    no: [
      'Operator stopped P-101A within 2 minutes.',
      'Work completed on May 4, 2026.',
      'The pump could not be started.',
      'Valves may not be opened during the test.',
      'Acceptance criteria met.',
      'The root cause was tube fouling.',
    ],
  },
  causal: {
    cls: 'causal',
    yes: [
      'Air in-leakage caused by degraded expansion joint seal.',
      'Fan motor bearing failed due to inadequate lubrication.',
      'Root cause: inadequate inspection scope.',
      'Air in-leakage resulted in degraded condenser vacuum.',
      'Tube fouling does not cause dissolved oxygen elevation.',
      'The trip occurred because the breaker opened.',
      'Contributing cause: the alarm setpoint was set too high.',
    ],
    no: [
      'Recommend a performance test to discriminate cause.',
      'Tube inspection found no fouling.',
      'Start P-101A from the control room.',
      'Chemistry notified.',
      'The resulting pressure was 92 psig.',
    ],
  },
  imperative: {
    cls: 'imperative',
    yes: [
      'Start P-101A from the control room.',
      '6.1.2 Within 2 minutes, verify discharge pressure PT-1102.',
      'If vibration exceeds 0.325 in/s, notify the system engineer.',
      'Immediate corrective action: reduce reactor power.',
      'Step 4.2 — Discriminate air in-leakage from tube fouling.',
      'a) Close the suction valve.',
      'Walk down the system before startup.',
    ],
    no: [
      'Check valve CV-12 failed to seat.',
      'Test results show no leakage.',
      'Review of the data found no drift.',
      'Operators started the standby vacuum pump.',
      'CAUTION: Do not operate the pump.',
      'Root cause: inadequate inspection scope.',
    ],
  },
  normative: {
    cls: 'normative',
    yes: [
      'CAUTION: Do not operate the pump with the valve closed.',
      'HOLD POINT: Shift supervisor approval is required before starting.',
      'Motor bearing temperature shall not exceed 185 °F.',
      'This procedure does not apply to AFW-P-103.',
      'Prerequisite: the tank level is above 60%.',
      'Perform the test only if the pump is running.',
      'The analysis assumes a constant flow.',
    ],
    no: [
      'Torqued the hold-down bolts to 250 ft-lbs.',
      'The operator shall record the reading.',
      'Flow was 465 gpm.',
      'Hold-down bolts were loose.',
      'The valve opened before the pump started.',
    ],
  },
  test: {
    cls: 'test',
    yes: [
      'Verify the tank level.',
      'Helium leak testing identified air in-leakage.',
      'Measure vibration at the inboard bearing.',
      'Eddy current testing of 10 percent of the tubes.',
      'Tube inspection found no fouling.',
      'Monitor hotwell dissolved oxygen.',
    ],
    no: [
      'Check valve CV-12 failed to seat.',
      'Torqued the bolts with a calibrated torque wrench.',
      'Lower the trend alarm to 2.2 inHg.',
      'Root cause: inadequate inspection scope.',
      'Replace the bearing.',
      'Operator stopped the pump.',
    ],
  },
  action: {
    cls: 'action',
    yes: [
      'Replace the outboard motor bearing.',
      'Removed and replaced the outboard bearing.',
      'Realigned the coupling to within 2 mils.',
      'Operators started the standby vacuum pump.',
      'The operator shall record the reading.',
      'Lower the trend alarm to 2.2 inHg.',
      'Recommend a condenser performance test.',
    ],
    no: [
      'Potential contributors include reduced suction pressure margin.',
      'Elevated vibration was observed.',
      'Near lower bound of typical range.',
      'Vibration channel VB-101A peaked at 6.2 mils.',
      'Motor bearing temperature shall not exceed 185 °F.',
      'Calibrated gauge PI-1102 is available.',
    ],
  },
  limit: {
    cls: 'limit',
    yes: [
      'Flow is at least 450 gpm.',
      'Alarm setpoint 5.0 mils.',
      'Vibration is below the alert limit of 0.325 in/s.',
      'If vibration exceeds 0.325 in/s, stop the pump.',
      'Pressure must be greater than 90 psig.',
    ],
    no: [
      'All 847 tubes within normal limits.',
      'Pump P-101A meets the acceptance criteria.',
      'Operator stopped P-101A within 2 minutes.',
      'The setpoint was reviewed.',
      'Flow was 465 gpm.',
    ],
  },
};

describe.each(Object.entries(CLASSIFIER_TABLES))('classifier %s', (_name, table) => {
  it('has at least 5 positive and 5 negative cases', () => {
    expect(table.yes.length).toBeGreaterThanOrEqual(5);
    expect(table.no.length).toBeGreaterThanOrEqual(5);
  });
  it.each(table.yes)('yes: %s', (text) => {
    expect(classOf(table.cls, text)).toBe(true);
  });
  it.each(table.no)('no: %s', (text) => {
    expect(classOf(table.cls, text)).toBe(false);
  });
});

describe('classifyUnit: the frame fields', () => {
  it.each<[string, Partial<UnitClasses>]>([
    ['Pump tripped at 6.2 mils.', { observed: true, hypothesis: false, action: false, constraint: false }],
    ['The trip was likely caused by a failed bearing.', { observed: false, hypothesis: true }],
    ['Replace the bearing because it is worn.', { hypothesis: false, action: true, observed: false }],
    ['Do not start the pump.', { observed: false, constraint: true }],
    ['Dissolved oxygen was 142 ppb against a limit of 10 ppb.', { observed: true, constraint: true }],
  ])('%s', (text, expected) => {
    expect(classifyUnit({ text, kind: 'sentence' })).toMatchObject(expected);
  });

  it.each<[string, boolean, boolean]>([
    ['CR ID | CR-2026-00123 | Date Initiated | 2026-02-06', false, true],
    ['CA-1 | Generate WO to inspect coupling alignment | Maintenance | 2026-02-10', true, false],
  ])('a row is judged by its prose cells: %s', (text, asRow, asSentence) => {
    expect(classOf('action', text, 'row')).toBe(asRow);
    expect(classOf('action', text, 'sentence')).toBe(asSentence);
  });

  it('isImperative reads table cells one at a time when given one', () => {
    expect(isImperative('Generate WO to inspect coupling alignment')).toBe(true);
    expect(isImperative('CA-1')).toBe(false);
  });
});

describe('cutAtWord', () => {
  it.each<[string, number, string]>([
    ['short text', 20, 'short text'],
    ['cut at the last space before the limit', 20, 'cut at the last…'],
    ['averyveryverylongword', 10, 'averyvery…'],
    ['emoji \ud83d\ude00\ud83d\ude00', 8, 'emoji…'],
    ['\ud83d\ude00\ud83d\ude00\ud83d\ude00', 3, '\ud83d\ude00…'],
    ['\ud83d\ude00\ud83d\ude00\ud83d\ude00', 4, '\ud83d\ude00…'],
  ])('%j at %i → %j', (text, max, expected) => {
    expect(cutAtWord(text, max)).toBe(expected);
  });
});

describe('isReference: a line that only names documents', () => {
  it.each([
    'Related evaluation: ECA-2026-0007 (if initiated).',
    '**Reference:** Related Work Order planned: WO-2026-04567.',
    'Related: CR-2026-00418, PM-20417.',
    'See SOP-101 Rev 3 and WO-2026-04567.',
    'References: NUREG-1801',
  ])('yes: %s', (text) => {
    expect(isReference(text)).toBe(true);
    expect(classifyUnit({ text, kind: 'sentence' }, 'corrective_actions').field).toBeNull();
  });
  it.each([
    'Issue WO-2024-12001 for helium leak test.',
    'Review and reschedule PM-U2-CND-EXPJOINT-INSP-A, currently overdue 104 days.',
    'Related evaluation found no cause.',
    'Work completed on March 4, 2026.',
    'Pump P-101A tripped.',
  ])('no: %s', (text) => {
    expect(isReference(text)).toBe(false);
  });

  it('the scope skips a leading reference line', () => {
    const context = { ...byId('chunk:sop-afw-012:sec6').context };
    const text = 'Reference: SOP-101 Rev 3. The pump is started from the control room after the suction valve is verified open.';
    const view = extractiveView('retrieval_summary', { context, nerSeed: byId('chunk:sop-afw-012:sec6').nerSeed, text });
    expect(view.scope.startsWith('The pump is started')).toBe(true);
  });
});

describe('classifyUnit: one best field', () => {
  it.each<[string, string, FrameField | null, boolean]>([
    ['Operator stopped P-101A within 2 minutes of alarm.', 'immediate_actions', 'observed', true],
    ['Removed and replaced the outboard bearing.', 'work_performed', 'observed', true],
    ['Replace the outboard bearing.', 'unknown', 'action', false],
    ['Verify suction pressure is at least 30 psig.', 'steps', 'test', false],
    ['Verify suction pressure is at least 30 psig.', 'preconditions', 'constraint', false],
    ['Recommend condenser performance test per SOP-U2-CND-001.', 'cause_statement', 'test', false],
    ['The bearing likely failed from inadequate lubrication.', 'unknown', 'hypothesis', false],
    ['Vibration channel VB-101A peaked at 6.2 mils (alarm setpoint 5.0 mils).', 'description', 'observed', false],
    ['Alarm setpoint 5.0 mils.', 'unknown', 'constraint', false],
    ['Related evaluation: ECA-2026-0007.', 'corrective_actions', null, false],
  ])('%s (%s) → %s', (text, role, field, taken) => {
    const classes = classifyUnit({ text, kind: 'sentence' }, role);
    expect(classes.field).toBe(field);
    expect(classes.taken).toBe(taken);
  });
});
