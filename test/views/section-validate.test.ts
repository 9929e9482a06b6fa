import { describe, expect, it } from 'vitest';
import { SectionSummary } from '../../src/contracts/sections.js';
import { feedbackFor } from '../../src/views/feedback.js';
import { countWords, minConcepts, minSummaryWords, sectionSources, validateSectionSummary } from '../../src/views/section-validate.js';
import { emptySectionSummary, stampSectionProvenance, type ChildSummary, type SectionInput } from '../../src/views/section-view.js';

// 12 words a sentence, 10 sentences: 120 words, so the full gates apply (60 words, 5 concepts).
const SENTENCES = [
  'Operators started auxiliary feedwater pump P-101A for the quarterly inservice test today.',
  'Vibration channel VB-101A peaked at 6.2 mils against the 5.0 mils setpoint.',
  'Discharge pressure held at 1175 psig while suction pressure drifted down slowly.',
  'The coupling misalignment was measured at 12 mils with a dial indicator.',
  'Maintenance replaced the outboard bearing and realigned the coupling within tolerance afterwards.',
  'The post-maintenance test ran thirty minutes and met every acceptance criterion set.',
  'Bearing temperature then stabilized at 128 degrees within ten minutes of running.',
  'Engineering then opened condition report CR-2026-00123 to track the vibration trend further.',
  'The system engineer reviewed the suction pressure trend and the valve lineup.',
  'No safety injection or reactor trip occurred during the event or test.',
];
const SECTION: SectionInput = {
  section_id: 'sec:abc',
  doc_id: 'CR-1',
  section_path: 'Condition Report > 1. Description',
  title: '1. Description',
  level: 2,
  parent_id: 'sec:root',
  child_count: 0,
  total_count: 3,
  page_start: 2,
  page_end: 4,
  text: SENTENCES.join(' '),
};
const SOURCES = sectionSources(SECTION, []);
const CONCEPTS = ['P-101A', 'vibration', 'coupling misalignment', 'outboard bearing', 'suction pressure'];
const SUMMARY = `${SENTENCES.slice(0, 6).join(' ')}`; // 72 words

type Obj = Record<string, any>;
function valid(): Obj {
  return { ...emptySectionSummary(SECTION), summary: SUMMARY, concepts: [...CONCEPTS] };
}
function edit(change: (o: Obj) => void, base: () => Obj = valid): Obj {
  const o = structuredClone(base());
  change(o);
  return o;
}
const words = (n: number, word = 'pump') => Array.from({ length: n }, () => word).join(' ');

describe('the section_summary contract', () => {
  it('has its keys in the issue order, view_type after the trusted ids', () => {
    expect(Object.keys(SectionSummary.shape)).toEqual(['section_id', 'doc_id', 'section_path', 'view_type', 'summary', 'concepts', 'chunk_count', 'citations']);
  });

  it('the skeleton fits the contract and carries the trusted fields', () => {
    const skeleton = emptySectionSummary(SECTION);
    expect(SectionSummary.safeParse(skeleton).success).toBe(true);
    expect(skeleton).toEqual({
      section_id: 'sec:abc',
      doc_id: 'CR-1',
      section_path: 'Condition Report > 1. Description',
      view_type: 'section_summary',
      summary: '',
      concepts: [],
      chunk_count: 3,
      citations: { doc_id: 'CR-1', section_path: 'Condition Report > 1. Description', page_start: 2, page_end: 4 },
    });
  });
});

describe('stampSectionProvenance: the model never decides the ids, path, view_type, chunk_count or citations', () => {
  it.each<[string, Obj, string[]]>([
    ['faithful: nothing fixed', valid(), []],
    ['forged ids and count', edit((o) => Object.assign(o, { section_id: 'x', doc_id: 'y', chunk_count: 99, view_type: 'rca_frame' })), ['section_id', 'doc_id', 'view_type', 'chunk_count']],
    ['forged pages', edit((o) => (o.citations.page_end = 9)), ['citations.page_end']],
    ['citations not an object', edit((o) => (o.citations = [])), ['citations']],
    ['trusted keys missing', { summary: 'x' }, ['section_id', 'doc_id', 'section_path', 'view_type', 'chunk_count', 'citations']],
  ])('%s', (_name, obj, fixed) => {
    expect(stampSectionProvenance(obj, SECTION)).toEqual(fixed);
    expect(obj).toMatchObject({ section_id: 'sec:abc', doc_id: 'CR-1', view_type: 'section_summary', chunk_count: 3, citations: emptySectionSummary(SECTION).citations });
  });
});

describe('validateSectionSummary: flags', () => {
  it.each<[string, Obj, string[]]>([
    ['a faithful summary passes', valid(), []],
    ['forged provenance is stamped, not flagged', edit((o) => Object.assign(o, { section_id: 'x', chunk_count: 1 })), []],
    ['summary not a string', edit((o) => (o.summary = ['a'])), ['summary_not_str']],
    ['summary missing', edit((o) => delete o.summary), ['missing_summary']],
    ['concepts not a list', edit((o) => (o.concepts = 'P-101A')), ['concepts_not_list']],
    ['concepts missing', edit((o) => delete o.concepts), ['missing_concepts']],
    ['a concept that is not a string', edit((o) => o.concepts.push(7)), ['concepts_item_not_string']],
    ['a blank concept', edit((o) => o.concepts.push('--')), ['concepts_item_blank']],
    ['a repeated concept (case and spaces ignored)', edit((o) => o.concepts.push('Coupling  Misalignment')), ['concepts_item_duplicate']],
    ['a stringified list', edit((o) => o.concepts.push("['pump']")), ['concepts_item_stringified', 'ungrounded_concept:[\'pump\']']],
    ['an unexpected key', edit((o) => (o.confidence = 0.9)), ['unexpected_key_confidence']],
    ['summary under 60 words', edit((o) => (o.summary = SENTENCES.slice(0, 4).join(' '))), ['summary_too_short']],
    ['summary of 60 words passes', edit((o) => (o.summary = `${SENTENCES.slice(0, 4).join(' ')} ${words(12)}`)), []],
    ['summary over 250 words', edit((o) => (o.summary = words(251))), ['summary_too_long']],
    ['summary of 250 words passes', edit((o) => (o.summary = words(250))), []],
    ['4 concepts', edit((o) => o.concepts.pop()), ['few_concepts']],
    ['5 concepts that are 4 distinct ones', edit((o) => (o.concepts[4] = 'VIBRATION')), ['concepts_item_duplicate', 'few_concepts']],
    ['11 concepts', edit((o) => o.concepts.push('dial indicator', 'valve lineup', 'Bearing temperature', 'condition report', 'reactor trip', 'safety injection')), ['too_many_concepts']],
    ['10 concepts pass', edit((o) => o.concepts.push('dial indicator', 'valve lineup', 'Bearing temperature', 'condition report', 'reactor trip')), []],
    ['a concept not in the text', edit((o) => (o.concepts[0] = 'P-101B')), ['ungrounded_concept:P-101B']],
    ['a concept matched only inside a word', edit((o) => (o.concepts[0] = 'vibra')), ['ungrounded_concept:vibra']],
    ['concepts are matched ignoring case, spacing and hyphen forms', edit((o) => (o.concepts = ['P\u2011101A', 'VIBRATION', 'coupling\nmisalignment', 'Outboard Bearing', ' suction pressure '])), []],
    ['a concept from the section title', edit((o) => (o.concepts[0] = 'Description')), []],
    ['a number not in the text', edit((o) => (o.summary = `${o.summary} Flow was 480 gpm.`)), ['ungrounded_number:480']],
    ['digits inside an identifier are not a number', edit((o) => (o.summary = `${o.summary} See CR-2026-00123.`)), []],
    ['a quote not in the text', edit((o) => (o.summary = `${o.summary} The crew said "pump seized".`)), ['ungrounded_quote:pump seized']],
    ['a quote from the text', edit((o) => (o.summary = `${o.summary} The text says "dial indicator".`)), []],
  ])('%s', (_name, obj, flags) => {
    expect(validateSectionSummary(obj, SECTION, SOURCES).flags.filter((f) => !/^(unsupported_item|novel_entity):/.test(f))).toEqual(flags);
  });

  it('keeps only contract keys, in contract order, on the same object', () => {
    const obj: Obj = { concepts: CONCEPTS, extra: 1, summary: SUMMARY };
    const checked = validateSectionSummary(obj, SECTION, SOURCES);
    expect(checked.view).toBe(obj);
    expect(Object.keys(obj)).toEqual(Object.keys(SectionSummary.shape));
    expect(checked.fixed).toEqual(['section_id', 'doc_id', 'section_path', 'view_type', 'chunk_count', 'citations']);
    expect(checked.flags).toEqual(['unexpected_key_extra']);
  });

  it('a short section needs a shorter summary and fewer concepts', () => {
    const short: SectionInput = { ...SECTION, text: SENTENCES[1]! }; // 12 words
    const sources = sectionSources(short, []);
    const obj = { ...emptySectionSummary(short), summary: 'Vibration channel VB-101A peaked at 6.2 mils.', concepts: ['VB-101A'] };
    expect(validateSectionSummary(obj, short, sources).flags).toEqual([]);
    const tooShort = { ...emptySectionSummary(short), summary: 'VB-101A peaked.', concepts: ['VB-101A'] };
    expect(validateSectionSummary(tooShort, short, sources).flags).toEqual(['summary_too_short']);
  });
});

describe('validateSectionSummary: with --bottom-up the children ground the parent', () => {
  const parent: SectionInput = { ...SECTION, text: '', child_count: 2, title: 'Condition Report' };
  const children: ChildSummary[] = [
    { title: '6.1 Pump Start', summary: SENTENCES.slice(0, 5).join(' ') },
    { title: '6.2 Vibration Measurement', summary: SENTENCES.slice(5).join(' ') },
  ];
  const sources = sectionSources(parent, children);

  it.each<[string, string[], string[]]>([
    ['concepts from either child summary', ['P-101A', 'dial indicator', 'reactor trip', 'valve lineup', 'Bearing temperature'], []],
    ['a concept from a child title', ['Pump Start', 'dial indicator', 'reactor trip', 'valve lineup', 'Bearing temperature'], []],
    ['a phrase spanning two children is not grounded', ['tolerance afterwards The post-maintenance', 'dial indicator', 'reactor trip', 'valve lineup', 'P-101A'], ['ungrounded_concept:tolerance afterwards The post-maintenance']],
    ['a concept of no source', ['P-101C', 'dial indicator', 'reactor trip', 'valve lineup', 'P-101A'], ['ungrounded_concept:P-101C']],
  ])('%s', (_name, concepts, flags) => {
    const obj = { ...emptySectionSummary(parent), summary: SUMMARY, concepts };
    expect(validateSectionSummary(obj, parent, sources).flags).toEqual(flags);
  });

  it('the words of the child summaries count as the source length', () => {
    expect(sources.words).toBe(120);
  });
});

describe('the gates scale down for short sources', () => {
  it.each<[number, number, number]>([
    [0, 0, 1],
    [9, 5, 1],
    [10, 5, 1],
    [24, 12, 2],
    [49, 25, 4],
    [50, 25, 5],
    [119, 60, 5],
    [120, 60, 5],
    [5000, 60, 5],
  ])('%i source words → at least %i summary words and %i concepts', (sourceWords, summary, concepts) => {
    expect(minSummaryWords(sourceWords)).toBe(summary);
    expect(minConcepts(sourceWords)).toBe(concepts);
  });

  it.each<[string, number]>([
    ['', 0],
    ['one two  three\nfour', 4],
    ['a | b | --- | c', 3],
    ['6.2 mils (alarm)', 3],
  ])('countWords(%j) = %i', (text, n) => {
    expect(countWords(text)).toBe(n);
  });
});

describe('retry feedback names the section flags and the section text', () => {
  it.each<[string, string, string]>([
    ['summary_too_short', 'SECTION_TEXT', 'summary is too short: say what the section covers in 100 to 200 words (from a shorter text, at least half as many words as it has)'],
    ['summary_too_long', 'SECTION_TEXT', 'summary is too long: keep it to 100 to 200 words'],
    ['few_concepts', 'SECTION_TEXT', 'concepts needs 5 to 10 distinct key phrases (from a shorter text, one per 10 words)'],
    ['too_many_concepts', 'SECTION_TEXT', 'concepts holds more than 10 items; keep the 5 to 10 most important'],
    ['ungrounded_concept:P-101B', 'SECTION_TEXT or CHILD_SUMMARIES', 'the concept "P-101B" does not occur in SECTION_TEXT or CHILD_SUMMARIES; copy each concept exactly as written there'],
    ['ungrounded_number:480', 'SECTION_TEXT', 'the number 480 does not occur in SECTION_TEXT'],
    ['concepts_not_list', 'SECTION_TEXT', 'concepts must be a list of strings'],
    ['summary_not_str', 'SECTION_TEXT', 'summary must be a string'],
  ])('%s (%s)', (flag, source, reason) => {
    expect(feedbackFor({ flags: [flag] }, source)).toBe(
      `Your previous reply failed these checks: ${reason}. Reply with the whole corrected JSON object, shaped exactly like OUTPUT JSON, and nothing else.`,
    );
  });

  it('the chunk views keep CHUNK_TEXT', () => {
    expect(feedbackFor({ flags: ['ungrounded_number:6.5'] })).toContain('the number 6.5 does not occur in CHUNK_TEXT');
  });
});
