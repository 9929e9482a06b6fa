import { describe, expect, it } from 'vitest';
import type { ChunkContext } from '../../src/contracts/chunk.js';
import { checkView, validateView } from '../../src/views/validate-view.js';
import { emptyView, stampProvenance } from '../../src/views/view-skeleton.js';

const CTX: ChunkContext = {
  doc_id: 'D1',
  doc_type: 'CR',
  chunk_id: 'C1',
  section_path: '7 Procedure > 7.2 Stroke Time',
  page_start: 3,
  page_end: 4,
  authority_level: 'informational',
  section_role: 'unknown',
};
const TRUSTED_CITATIONS = { doc_id: 'D1', section_path: '7 Procedure > 7.2 Stroke Time', page_start: 3, page_end: 4 };

type Obj = Record<string, any>;
function validSummary(): Obj {
  return { ...emptyView('retrieval_summary', CTX), scope: 'a sufficiently descriptive scope statement', keywords_synonyms: ['seal', 'leak', 'stroke-time'] };
}
function validFrame(): Obj {
  return { ...emptyView('rca_frame', CTX), observed: ['seal leak found at the packing'] };
}
/** The valid view each case below edits, by the view it names. */
const VALID: Readonly<Record<'retrieval_summary' | 'rca_frame', () => Obj>> = { retrieval_summary: validSummary, rca_frame: validFrame };
// The claim checks of evidence.ts (support, units, comparators, negation, entities) have their own
// tests (evidence.test.ts); the cases here are about stamping, shape, numbers, ids and quotes.
const CLAIM_CHECK_RE = /^(unsupported_item|novel_entity|negation_mismatch|wrong_unit|contradicted_comparator|ruled_out|ungrounded_id):/;
function withoutClaimChecks(flags: string[]): string[] {
  return flags.filter((f) => !CLAIM_CHECK_RE.test(f));
}
function edit(base: () => Obj, change: (o: Obj) => void): Obj {
  const o = structuredClone(base());
  change(o);
  return o;
}

describe('stampProvenance: the model never decides chunk_id, doc_type, view_type, citations (reference)', () => {
  it('overwrites forged provenance in place', () => {
    const forged: Obj = {
      chunk_id: 'FAKE',
      doc_type: 'SOP',
      view_type: 'rca_frame',
      citations: { doc_id: 'EVIL', section_path: 'x', page_start: 999, page_end: 999 },
    };
    const same = forged;
    const fixed = stampProvenance(forged, 'retrieval_summary', CTX);
    expect(forged).toBe(same);
    expect(forged).toEqual({ chunk_id: 'C1', doc_type: 'CR', view_type: 'retrieval_summary', citations: TRUSTED_CITATIONS });
    expect(fixed).toEqual(['chunk_id', 'doc_type', 'view_type', 'citations.doc_id', 'citations.section_path', 'citations.page_start', 'citations.page_end']);
  });

  it.each<[string, Obj, string[], string[]]>([
    ['faithful provenance: nothing fixed', validSummary(), [], Object.keys(validSummary())],
    ['null pages are trusted values too', edit(validSummary, (o) => (o.citations.page_start = null)), ['citations.page_start'], Object.keys(validSummary())],
    ['missing keys are added at the end', { scope: 'x' }, ['chunk_id', 'doc_type', 'view_type', 'citations'], ['scope', 'chunk_id', 'doc_type', 'view_type', 'citations']],
    ['citations not an object', edit(validSummary, (o) => (o.citations = 'nope')), ['citations'], Object.keys(validSummary())],
    ['an extra citation key', edit(validSummary, (o) => (o.citations.url = 'u')), ['citations.url'], Object.keys(validSummary())],
  ])('%s', (_name, obj, fixed, keys) => {
    expect(stampProvenance(obj, 'retrieval_summary', CTX)).toEqual(fixed);
    expect(Object.keys(obj)).toEqual(keys);
    expect(obj.citations).toEqual(TRUSTED_CITATIONS);
  });

  it('null pages in the context are stamped as null', () => {
    const obj: Obj = {};
    stampProvenance(obj, 'rca_frame', { ...CTX, page_start: null, page_end: null });
    expect(obj.citations).toEqual({ ...TRUSTED_CITATIONS, page_start: null, page_end: null });
  });
});

describe('checkView: the reference flag cases', () => {
  it.each<[string, 'retrieval_summary' | 'rca_frame', Obj, string[]]>([
    ['retrieval_summary skeleton with scope and keywords validates', 'retrieval_summary', validSummary(), []],
    [
      'wrong types and a missing list',
      'retrieval_summary',
      edit(validSummary, (o) => {
        o.keywords_synonyms = 'not-a-list';
        o.citations.page_start = '3';
        delete o.mechanisms;
      }),
      ['missing_mechanisms', 'keywords_synonyms_not_list', 'citations_page_start_wrong_type'],
    ],
    ['citations not an object', 'retrieval_summary', edit(validSummary, (o) => (o.citations = 'nope')), ['citations_not_object']],
    [
      'rca_frame: a missing list and a bad citation',
      'rca_frame',
      edit(validFrame, (o) => {
        delete o.hypotheses;
        o.citations.page_end = '4';
      }),
      ['missing_hypotheses', 'citations_page_end_wrong_type'],
    ],
  ])('%s', (_name, view, obj, flags) => {
    expect(checkView(view, obj)).toEqual(flags);
  });

  it('an empty rca_frame skeleton has the right shape but is an empty frame', () => {
    expect(checkView('rca_frame', emptyView('rca_frame', CTX))).toEqual(['empty_frame']);
  });
});

describe('checkView: every DESIGN §3 flag name', () => {
  it.each<[string, 'retrieval_summary' | 'rca_frame', (o: Obj) => void, string[]]>([
    ['bad_view_type', 'retrieval_summary', (o) => (o.view_type = 'rca_frame'), ['bad_view_type']],
    ['view_type missing is bad_view_type', 'rca_frame', (o) => delete o.view_type, ['bad_view_type']],
    ['missing_<key>', 'retrieval_summary', (o) => delete o.unknowns, ['missing_unknowns']],
    ['missing_scope (no quality gate on a missing scope)', 'retrieval_summary', (o) => delete o.scope, ['missing_scope']],
    ['missing trusted keys', 'rca_frame', (o) => (delete o.chunk_id, delete o.doc_type, delete o.citations), ['missing_chunk_id', 'missing_doc_type', 'missing_citations']],
    ['scope_not_str', 'retrieval_summary', (o) => (o.scope = ['a list']), ['scope_not_str']],
    ['<list>_not_list', 'rca_frame', (o) => (o.constraints = 'none'), ['constraints_not_list']],
    ['entities_not_object', 'retrieval_summary', (o) => (o.entities = []), ['entities_not_object']],
    ['entities_<k>_missing_or_not_list (missing)', 'retrieval_summary', (o) => delete o.entities.systems, ['entities_systems_missing_or_not_list']],
    ['entities_<k>_missing_or_not_list (not a list)', 'retrieval_summary', (o) => (o.entities.components = 'pump'), ['entities_components_missing_or_not_list']],
    ['citations_<k>_missing', 'rca_frame', (o) => delete o.citations.doc_id, ['citations_doc_id_missing']],
    ['citations_<k>_wrong_type (string page)', 'rca_frame', (o) => (o.citations.page_start = '3'), ['citations_page_start_wrong_type']],
    ['citations_<k>_wrong_type (fractional page)', 'rca_frame', (o) => (o.citations.page_end = 4.5), ['citations_page_end_wrong_type']],
    ['citations pages may be null', 'rca_frame', (o) => (o.citations.page_start = null), []],
    ['bad_doc_type', 'rca_frame', (o) => (o.doc_type = 'MEMO'), ['bad_doc_type']],
    ['chunk_id_not_str', 'rca_frame', (o) => (o.chunk_id = 7), ['chunk_id_not_str']],
    ['scope_too_short (< 15 after trim)', 'retrieval_summary', (o) => (o.scope = '   pump leak    '), ['scope_too_short']],
    ['scope of exactly 15 passes', 'retrieval_summary', (o) => (o.scope = 'pump seal leaks'), []],
    ['few_keywords', 'retrieval_summary', (o) => (o.keywords_synonyms = ['seal', 'leak']), ['few_keywords']],
    ['few_keywords counts distinct terms', 'retrieval_summary', (o) => (o.keywords_synonyms = ['seal', 'Seal', ' SEAL ']), ['keywords_synonyms_item_duplicate', 'few_keywords']],
    ['boilerplate: as an ai', 'retrieval_summary', (o) => (o.scope = 'As an AI language model I summarise'), ['boilerplate']],
    ['boilerplate: i cannot', 'retrieval_summary', (o) => (o.scope = 'I cannot determine the scope here'), ['boilerplate']],
    ['boilerplate: not provided', 'retrieval_summary', (o) => (o.scope = 'Details are not provided in the text'), ['boilerplate']],
  ])('%s', (_name, view, change, flags) => {
    expect(checkView(view, edit(VALID[view], change))).toEqual(flags);
  });
});

describe("checkView: rca's stricter checks", () => {
  it.each<[string, 'retrieval_summary' | 'rca_frame', (o: Obj) => void, string[]]>([
    ['<list>_item_not_string', 'rca_frame', (o) => (o.hypotheses = ['wear', 3, { a: 1 }]), ['hypotheses_item_not_string']],
    ['entities list items', 'retrieval_summary', (o) => (o.entities.equipment_ids = [101]), ['entities_equipment_ids_item_not_string']],
    ['<list>_item_blank (empty, spaces, punctuation only)', 'rca_frame', (o) => (o.constraints = ['', '  ', '-----']), ['constraints_item_blank']],
    ['<list>_item_duplicate (case and spacing ignored)', 'rca_frame', (o) => (o.observed = ['Seal leak', 'seal  leak']), ['observed_item_duplicate']],
    ['<list>_item_stringified (a python list in a string)', 'rca_frame', (o) => (o.observed = ["['6.2']"]), ['observed_item_stringified']],
    ['<list>_item_stringified (a dict in a string)', 'rca_frame', (o) => (o.tests_to_confirm = ["{'action': 'check'}"]), ['tests_to_confirm_item_stringified']],
    ['a bracketed label is text, not a structure', 'rca_frame', (o) => (o.observed = ['[NOTE] seal leak', '[Step 4] open valve']), []],
    ['unexpected_key_<k>', 'rca_frame', (o) => (o.unknowns = []), ['unexpected_key_unknowns']],
    ['unexpected nested key', 'retrieval_summary', (o) => (o.entities.locations = []), ['unexpected_key_entities.locations']],
    ['empty_frame: every list empty', 'rca_frame', (o) => (o.observed = []), ['empty_frame']],
    ['empty_frame: only blank items', 'rca_frame', (o) => (o.observed = [' ']), ['observed_item_blank', 'empty_frame']],
    ['one non-empty list is enough', 'rca_frame', (o) => ((o.observed = []), (o.constraints = ['hold at step 4'])), []],
  ])('%s', (_name, view, change, flags) => {
    expect(checkView(view, edit(VALID[view], change))).toEqual(flags);
  });

  it.each([[null], [[]], ['{"a": 1}'], [42]])('%j is view_not_object', (value) => {
    expect(checkView('rca_frame', value)).toEqual(['view_not_object']);
  });
});

describe('validateView: stamp, check, drop extra keys, ground in the chunk text', () => {
  const TEXT = 'AFW pump P-101A tripped. Vibration VB-101A peaked at 6.2 mils (alarm setpoint 5.0 mils); flow 1,175 gpm. Operators "declared Train A inoperable".';

  it.each<[string, 'retrieval_summary' | 'rca_frame', (o: Obj) => void, string[]]>([
    ['grounded numbers and ids pass', 'retrieval_summary', (o) => ((o.numbers_limits = ['6.2 mils', 'alarm setpoint 5.0 mils', '1175 gpm']), (o.entities.equipment_ids = ['P-101A', 'vb-101a'])), []],
    ['a number not in the text', 'retrieval_summary', (o) => (o.numbers_limits = ['6.5 mils', '5.0 mils']), ['ungrounded_number:6.5 in "6.5 mils"']],
    ['a number is a whole token: 6 is not in 6.2', 'retrieval_summary', (o) => (o.numbers_limits = ['6 mils']), ['ungrounded_number:6 in "6 mils"']],
    ['digits of an identifier are not a value', 'retrieval_summary', (o) => (o.numbers_limits = ['101a']), ['ungrounded_number:101 in "101a"']],
    ['numbers of an identifier in the item are skipped too', 'retrieval_summary', (o) => (o.numbers_limits = ['VB-101A: 6.2 mils']), []],
    ['an id not in the text', 'retrieval_summary', (o) => (o.entities.equipment_ids = ['P-101B', 'P-101A']), ['ungrounded_equipment_id:P-101B']],
    ['an id is matched whole: P-101 is not in P-101A', 'retrieval_summary', (o) => (o.entities.equipment_ids = ['P-101', '101A']), ['ungrounded_equipment_id:P-101', 'ungrounded_equipment_id:101A']],
    ['a quoted phrase must be exact', 'rca_frame', (o) => (o.observed = ['operators "declared train A inoperable"', 'the pump "failed to start"']), ['ungrounded_quote:failed to start']],
    ['curly quotes too', 'rca_frame', (o) => (o.observed = ['pump “tripped on overspeed”']), ['ungrounded_quote:tripped on overspeed']],
    // Not quotes; but numbers are checked in every claim now, and these are not in the text.
    ['inch marks are not quotes', 'rca_frame', (o) => (o.observed = ['a 3/4" valve and a 12" line']), ['3', '4', '12'].map((n) => `ungrounded_number:${n} in "a 3/4" valve and a 12" line"`)],
    ['quotes in scope are checked', 'retrieval_summary', (o) => (o.scope = 'The report says "pump P-101A tripped" after start.'), []],
  ])('%s', (_name, view, change, flags) => {
    const obj = edit(VALID[view], change);
    expect(withoutClaimChecks(validateView(view, obj, CTX, TEXT).flags)).toEqual(flags);
  });

  it('drops keys outside the contract after flagging them, and returns the same object', () => {
    const obj = edit(validSummary, (o) => {
      o.chunk_id = 'HALLUCINATED';
      o.confidence = 0.9;
      o.entities.locations = ['room'];
    });
    const result = validateView('retrieval_summary', obj, CTX, 'seal leak');
    expect(result.view).toBe(obj);
    expect(withoutClaimChecks(result.flags)).toEqual(['unexpected_key_entities.locations', 'unexpected_key_confidence']);
    expect(result.fixed).toEqual(['chunk_id']);
    expect(Object.keys(obj)).toEqual(Object.keys(validSummary()));
    expect(Object.keys(obj.entities)).toEqual(['systems', 'equipment_ids', 'components']);
    expect(obj.chunk_id).toBe('C1');
  });

  it('a view missing its trusted keys comes back in contract order', () => {
    const obj: Obj = { observed: ['leak'], citations: {}, view_type: 'rca_frame', constraints: [], candidate_actions: [], tests_to_confirm: [], hypotheses: [] };
    const result = validateView('rca_frame', obj, CTX, 'leak');
    expect(result.flags).toEqual([]);
    expect(Object.keys(obj)).toEqual(['chunk_id', 'doc_type', 'view_type', 'observed', 'hypotheses', 'tests_to_confirm', 'candidate_actions', 'constraints', 'citations']);
    expect(result.fixed).toEqual(['chunk_id', 'doc_type', 'citations.doc_id', 'citations.section_path', 'citations.page_start', 'citations.page_end']);
  });

  it('forged provenance is fixed, not flagged', () => {
    const obj = edit(validSummary, (o) => {
      o.chunk_id = 'HALLUCINATED';
      o.citations = { doc_id: 'WRONG', section_path: 'z', page_start: 1, page_end: 1 };
    });
    const result = validateView('retrieval_summary', obj, CTX, 'chunk text');
    expect(withoutClaimChecks(result.flags)).toEqual([]);
    expect(obj.chunk_id).toBe('C1');
    expect(obj.citations).toEqual(TRUSTED_CITATIONS);
  });
});
