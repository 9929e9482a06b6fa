import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConceptFinder, extractiveSectionSummary, TARGET_SUMMARY_WORDS } from '../../src/views/extractive-section.js';
import { parseLexiconCsv } from '../../src/tagging/lexicon.js';
import countSections from '../../src/transforms/count-sections.js';
import tag from '../../src/transforms/tag.js';
import { countWords, sectionSources, validateSectionSummary } from '../../src/views/section-validate.js';
import type { ChildSummary, SectionInput } from '../../src/views/section-view.js';
import { ROOT } from '../support/golden.js';
import { runInProcess } from '../support/run-in-process.js';

const FINDER = new ConceptFinder(parseLexiconCsv(readFileSync(join(ROOT, 'data/lexicon/rca-default.csv'), 'utf8'), 'builtin'));
const BASE: SectionInput = {
  section_id: 's:1',
  doc_id: 'D',
  section_path: 'Doc > Part',
  title: 'Part',
  level: 2,
  parent_id: 's:0',
  child_count: 0,
  total_count: 1,
  page_start: null,
  page_end: null,
  text: '',
};

function summarise(text: string, children: ChildSummary[] = [], title = 'Part') {
  return extractiveSectionSummary({ section: { ...BASE, text, title, child_count: children.length }, text, children }, FINDER);
}
/** A sentence of exactly `n` words (capitalised, so the sentence splitter sees where it starts). */
const sentence = (n: number, word = 'word') => `${word[0]!.toUpperCase()}${word.slice(1)} ${Array.from({ length: n - 2 }, () => word).join(' ')} end.`;

describe('extractive section summary: the leading sentences', () => {
  it.each<[string, string, string]>([
    ['a short text is taken whole, whitespace collapsed', 'Pump P-101A tripped.\n\nThe  operator reset it.', 'Pump P-101A tripped. The operator reset it.'],
    ['a table row is read as its cells, a unit of its own; header rows are left out', '| Tag | Value |\n|---|---|\n| PT-1102 | 1175 psig |\n| FT-1102 | 465 gpm |', 'PT-1102, 1175 psig. FT-1102, 465 gpm.'],
    ['a row repeated by the parser is said once', 'Row 1: CR | CR-2026-00123 | open\nRow 1: CR | CR-2026-00123 | open\nThe pump tripped.', 'CR, CR-2026-00123, open. The pump tripped.'],
    ['an empty text gives an empty summary', '', ''],
    // DACKAR's sec5 and sec5:p001 carry the same text, and its table chunk the same rows written differently.
    [
      'a sentence two chunks share is said once, punctuation and pipes aside',
      'CA-1 | Generate WO to inspect coupling alignment and check bearing condition. Maintenance | | 2026-02-10\n\nRow 1: CA-1 | Generate WO to inspect coupling alignment and check bearing condition | Maintenance | 2026-02-10\nThe pump tripped.',
      'CA-1, Generate WO to inspect coupling alignment and check bearing condition. Maintenance, 2026-02-10. The pump tripped.',
    ],
    [
      'a garbled copy of a row is a repeat',
      'CA-3 | Perform vibration spectrum capture for 1x/2x indicators during controlled run. Engineering | | 2026-02-12\n\nRow 3: CA-3 | Perform vibration spectrum capture for 1x/2x indicators during controlled | ruEnngineering | 2026-02-12',
      'CA-3, Perform vibration spectrum capture for 1x/2x indicators during controlled run. Engineering, 2026-02-12.',
    ],
  ])('%s', (_name, text, summary) => {
    expect(summarise(text).summary).toBe(summary);
  });

  it.each<[string, number[], number, boolean]>([
    // Whole sentences while the summary stays within 150 words.
    ['sentences of 40 words: three fit (120), the fourth would pass 150', [40, 40, 40, 40], 120, false],
    ['sentences of 50 words: three make exactly 150', [50, 50, 50, 50], 150, false],
    // Under 100 words, the next sentence is added, cut at a word at 150 and marked.
    ['90 words then a sentence of 70: cut to 150', [90, 70], 150, true],
    ['one sentence of 400 words: its first 150', [400], 150, true],
    ['a text of 99 words is taken whole', [33, 33, 33], 99, false],
  ])('%s', (_name, lengths, words, cut) => {
    const text = lengths.map((n, i) => sentence(n, `w${i}`)).join(' ');
    const { summary } = summarise(text);
    expect(countWords(summary)).toBe(words);
    expect(summary.endsWith(' …')).toBe(cut);
    expect(words).toBeLessThanOrEqual(TARGET_SUMMARY_WORDS);
  });
});

describe('extractive section summary: --bottom-up fills with the children', () => {
  const children: ChildSummary[] = [
    { title: '1. Start', summary: `${sentence(30, 'alpha')} ${sentence(30, 'aleph')} ${sentence(30, 'alif')}` },
    { title: '2. Run', summary: `${sentence(30, 'beta')} ${sentence(30, 'beth')}` },
    { title: '3. Stop', summary: sentence(30, 'gamma') },
  ];

  it('every child is heard before any says more, and each speaks in order', () => {
    const { summary } = summarise('', children);
    // Round 1: alpha, beta, gamma (90 words); round 2: aleph, beth (150); alif does not fit.
    expect(summary).toBe([sentence(30, 'alpha'), sentence(30, 'aleph'), sentence(30, 'beta'), sentence(30, 'beth'), sentence(30, 'gamma')].join(' '));
  });

  it("the section's own text comes first and leaves the rest to the children", () => {
    const { summary } = summarise(sentence(100, 'own'), children);
    expect(summary).toBe([sentence(100, 'own'), sentence(30, 'alpha')].join(' '));
  });

  it("a child's sentence the section already said is not said again", () => {
    const shared = 'Operator stopped P-101A within 2 minutes of alarm.';
    const { summary } = summarise(shared, [{ title: 'p001', summary: `${shared} Control Room notified.` }]);
    expect(summary).toBe(`${shared} Control Room notified.`);
  });

  // DACKAR's CR: its cause section was left out of the report's summary, a sibling's table row
  // having used the budget as one over-long unit.
  it('a child whose first sentence does not fit is heard by the first of its sentences that does', () => {
    const { summary } = summarise(sentence(100, 'own'), [
      { title: '1. Rows', summary: sentence(30, 'row') },
      { title: '4. Cause', summary: `${sentence(40, 'long')} Potential contributors include reduced suction pressure margin and coupling misalignment.` },
    ]);
    expect(summary).toBe([sentence(100, 'own'), sentence(30, 'row'), 'Potential contributors include reduced suction pressure margin and coupling misalignment.'].join(' '));
  });

  it("a child's table rows are units of their own: a row in its summary does not swallow its sentences", () => {
    const child = summarise('Unknown at initiation. Potential contributors include coupling misalignment.\n\n| Source | Value | Units |\n|---|---|---|\n| VB-101A peak | 6.2 | mils |').summary;
    expect(child).toBe('Unknown at initiation. Potential contributors include coupling misalignment. VB-101A peak, 6.2, mils.');
    const { summary } = summarise(sentence(130, 'own'), [{ title: '4. Cause', summary: child }]);
    expect(summary).toContain('Unknown at initiation. Potential contributors include coupling misalignment.');
  });

  it('children whose first sentences are too long still give a summary, cut', () => {
    const { summary } = summarise('', [{ title: 'Long', summary: sentence(300, 'delta') }]);
    expect(countWords(summary)).toBe(150);
    expect(summary.endsWith('delta …')).toBe(true);
    expect(summary.startsWith('Delta delta')).toBe(true);
  });
});

describe('extractive section concepts', () => {
  it.each<[string, string, string[]]>([
    // Verbs (leaked, tripped, restarted) only fill a list of fewer than 5, first seen first.
    ['most frequent first, then first seen', 'The valve leaked. The pump tripped. The pump restarted. The pump vibrated. The valve closed. The motor hummed.', ['pump', 'valve', 'motor', 'leaked', 'tripped']],
    ['identifiers count like terms', 'P-101A stopped. P-101A ran. The motor of P-101A hummed. The valve held. The seal and the gasket held. The seal held.', ['P-101A', 'seal', 'motor', 'valve', 'gasket']],
    ['action words only fill a short list', 'Inspect the pump. Replace the bearing.', ['pump', 'bearing', 'Inspect', 'Replace']],
    ['action words stay out of a full list', 'Inspect the pump, bearing, valve, motor, coupling and seal.', ['pump', 'bearing', 'valve', 'motor', 'coupling', 'seal']],
    ['the longest term wins; the first spelling is kept', 'PUMP stopped. The pump and the Pump casing.', ['PUMP', 'Pump casing']],
  ])('%s', (_name, text, concepts) => {
    expect(summarise(text, [], '').concepts).toEqual(concepts);
  });

  it('keeps at most 10', () => {
    const text = 'pump valve motor bearing seal coupling impeller shaft casing gasket strainer heat exchanger.';
    expect(summarise(text).concepts).toHaveLength(10);
  });

  it('the title and the child summaries are sources too', () => {
    const { concepts } = summarise('', [{ title: 'Condenser', summary: 'The strainer clogged.' }], 'Circulating Water Pump');
    expect(concepts).toEqual(expect.arrayContaining(['Condenser', 'strainer', 'Pump']));
  });
});

describe('extractive section summaries of the sample corpus pass their own checks', async () => {
  const tagged = await runInProcess(tag, [readFileSync(join(ROOT, 'examples/sample-corpus.jsonl'))]);
  const sections = await runInProcess(countSections, [tagged.stdout], ['--unsorted']);
  const records = sections.stdout.trim().split('\n').map((l) => JSON.parse(l) as SectionInput & { kind: string });

  it.each(records.map((r) => [r.section_path || r.section_id, r] as const))('%s', (_path, section) => {
    const view = extractiveSectionSummary({ section, text: section.text, children: [] }, FINDER) as unknown as Record<string, unknown>;
    const sources = sectionSources(section, []);
    const flags = validateSectionSummary(view, section, sources).flags;
    // Nothing is invented: no flag says a concept, number or quote is not in the text.
    expect(flags.filter((f) => f.startsWith('ungrounded_'))).toEqual([]);
    expect(flags).not.toContain('summary_too_long');
    for (const concept of view.concepts as string[]) expect([section.text, section.title].some((s) => s.replace(/\s+/g, ' ').includes(concept))).toBe(true);
  });
});

describe('concepts: outcome nouns read only in context', () => {
  it('are no concept alone ("alert limit", "at initiation"), while a loss is', () => {
    const concepts = FINDER.find(['Vibration stayed below the alert limit; the cause was unknown at initiation after a loss of the pump.']);
    expect(concepts).not.toContain('alert');
    expect(concepts).not.toContain('initiation');
    expect(concepts).toContain('loss');
  });
});
