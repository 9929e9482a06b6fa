import { describe, expect, it } from 'vitest';
import { COMMON_CONTRACT } from '../../src/views/prompt-text.js';
import { buildSectionPrompt, CHILDREN_HEADER, childSummaryLines, NO_OWN_TEXT, omittedLine, sectionSourceName, sectionTaskParagraph, type SectionPromptOptions } from '../../src/views/section-prompt.js';
import { flattenView } from '../../src/views/flatten-view.js';
import { emptySectionSummary, type ChildSummary, type SectionInput } from '../../src/views/section-view.js';

const SECTION: SectionInput = {
  section_id: 's:6',
  doc_id: 'SOP-AFW-012',
  section_path: 'SOP-AFW-012 > 6. Procedure',
  title: '6. Procedure',
  level: 2,
  parent_id: 's:root',
  child_count: 2,
  total_count: 4,
  page_start: null,
  page_end: 7,
  text: 'Perform the steps in order. Stop at any HOLD POINT.',
};
const CHILDREN: ChildSummary[] = [
  { title: '6.1 Pump Start', summary: 'Start P-101A from the control room.\nVerify discharge pressure.' },
  { title: '6.2  Vibration', summary: 'Measure vibration at both bearings.' },
];

/** The seed project's layout (--prompt-style dackar), which the layout tests below pin. */
const dackarPrompt = (section: SectionInput, children: readonly ChildSummary[], options: SectionPromptOptions = {}) => buildSectionPrompt(section, children, { ...options, style: 'dackar' });

describe('buildSectionPrompt: the compact layout (the default)', () => {
  it('is contract, TASK and the content skeleton, then CONTEXT, SECTION_TEXT and CHILD_SUMMARIES', () => {
    const { prompt } = buildSectionPrompt(SECTION, CHILDREN);
    expect(prompt).toBe(
      [
        COMMON_CONTRACT,
        sectionTaskParagraph(true),
        '',
        'OUTPUT JSON (exact keys/types):',
        JSON.stringify({ summary: '', concepts: [] }, null, 2),
        '',
        'CONTEXT:',
        'section_id: s:6',
        'section_path: SOP-AFW-012 > 6. Procedure',
        'level: 2',
        '',
        'SECTION_TEXT:',
        SECTION.text,
        '',
        'CHILD_SUMMARIES (one line per subsection: its title, then its summary):',
        '- 6.1 Pump Start: Start P-101A from the control room. Verify discharge pressure.',
        '- 6.2 Vibration: Measure vibration at both bearings.',
      ].join('\n'),
    );
  });
});

describe('buildSectionPrompt: layout', () => {
  it('is contract, TASK, CONTEXT, SECTION_TEXT, OUTPUT JSON without children', () => {
    const { prompt, truncated } = dackarPrompt(SECTION, []);
    expect(prompt).toBe(
      [
        COMMON_CONTRACT,
        sectionTaskParagraph(false),
        '',
        'CONTEXT:',
        'section_id: s:6',
        'doc_id: SOP-AFW-012',
        'section_path: SOP-AFW-012 > 6. Procedure',
        'level: 2',
        'chunk_count: 4',
        'page_start: null',
        'page_end: 7',
        '',
        'SECTION_TEXT:',
        SECTION.text,
        '',
        'OUTPUT JSON (exact keys/types):',
        JSON.stringify(emptySectionSummary(SECTION), null, 2),
      ].join('\n'),
    );
    expect(truncated).toBeNull();
  });

  it('adds CHILD_SUMMARIES after SECTION_TEXT, one line per child, whitespace collapsed', () => {
    const { prompt } = dackarPrompt(SECTION, CHILDREN);
    expect(prompt).toContain(
      [
        'SECTION_TEXT:',
        SECTION.text,
        '',
        'CHILD_SUMMARIES (one line per subsection: its title, then its summary):',
        '- 6.1 Pump Start: Start P-101A from the control room. Verify discharge pressure.',
        '- 6.2 Vibration: Measure vibration at both bearings.',
        '',
        'OUTPUT JSON (exact keys/types):',
      ].join('\n'),
    );
    expect(prompt).toContain(sectionTaskParagraph(true));
  });

  it('says so when the section has no text of its own', () => {
    const { prompt } = dackarPrompt({ ...SECTION, text: '  ' }, CHILDREN);
    expect(prompt).toContain(`SECTION_TEXT:\n${NO_OWN_TEXT}\n\nCHILD_SUMMARIES`);
  });

  it('a leaf has the same prompt with or without --bottom-up (its cache entries are shared)', () => {
    expect(dackarPrompt(SECTION, []).prompt).toBe(dackarPrompt(SECTION, []).prompt);
    expect(dackarPrompt(SECTION, []).prompt).not.toContain('CHILD_SUMMARIES');
  });

  it('--max-chars cuts the section text, never the child summaries', () => {
    const { prompt, truncated } = dackarPrompt(SECTION, CHILDREN, { maxChars: 30 });
    expect(truncated).toEqual({ text_chars: 51, kept_chars: 27, cut_at: 'sentence' });
    expect(prompt).toContain('SECTION_TEXT:\nPerform the steps in order.\n\nCHILD_SUMMARIES');
    expect(prompt).toContain('- 6.2 Vibration: Measure vibration at both bearings.');
  });

  it('maxChildChars bounds CHILD_SUMMARIES: children in order while they fit, then one count line', () => {
    // 60 children of about 250 characters each (15,000 in all), 2,000 characters allowed.
    const many: ChildSummary[] = Array.from({ length: 60 }, (_, i) => ({
      title: `6.${i + 1} Step ${i + 1}`,
      summary: `Step ${i + 1} of the procedure. ` + 'Verify the discharge pressure of P-101A and record it in the log. '.repeat(3),
    }));
    const whole = dackarPrompt(SECTION, many);
    expect(whole.childrenCut).toBeNull();
    const { prompt, truncated, childrenCut } = dackarPrompt(SECTION, many, { maxChildChars: 2000 });
    expect(truncated).toBeNull(); // the section text is not touched
    const block = prompt.slice(prompt.indexOf(`${CHILDREN_HEADER}\n`) + CHILDREN_HEADER.length + 1, prompt.indexOf('\n\nOUTPUT JSON'));
    const lines = block.split('\n');
    const kept = lines.slice(0, -1);
    // Fits: every kept line plus the count line, a newline each, within the budget.
    expect([...block].length + 1).toBeLessThanOrEqual(2000);
    expect(kept.length).toBeGreaterThan(0);
    // Whole lines, in input order: the first children exactly as without a bound.
    expect(kept).toEqual(many.slice(0, kept.length).map((c) => `- ${c.title}: ${c.summary.trim()}`));
    expect(lines.at(-1)).toBe(`(… ${60 - kept.length} more child sections not shown)`);
    expect(lines.at(-1)).toBe(omittedLine(60 - kept.length));
    // Another child would not have fitted with the count line.
    const next = `- ${many[kept.length]!.title}: ${many[kept.length]!.summary.trim()}`;
    expect([...block].length + 1 + next.length + 1).toBeGreaterThan(2000);
    expect(childrenCut).toEqual({ children: 60, kept_children: kept.length, child_chars: many.reduce((n, c) => n + `- ${c.title}: ${c.summary.trim()}`.length + 1, 0), kept_chars: [...block].length + 1 });
    // Byte-identical for the same input: the response cache key stays stable.
    expect(dackarPrompt(SECTION, many, { maxChildChars: 2000 }).prompt).toBe(prompt);
    // A bound the children fit in changes nothing.
    expect(dackarPrompt(SECTION, CHILDREN, { maxChildChars: 2000 })).toEqual(dackarPrompt(SECTION, CHILDREN));
  });

  it('a budget too small for any child shows the count line alone; one left out is one section', () => {
    const { prompt, childrenCut } = dackarPrompt(SECTION, CHILDREN, { maxChildChars: 10 });
    expect(prompt).toContain(`${CHILDREN_HEADER}\n(… 2 more child sections not shown)\n\nOUTPUT JSON`);
    expect(childrenCut).toMatchObject({ children: 2, kept_children: 0 });
    // 81 + 35 characters fit 120; the second child (53 more) would not.
    const one = childSummaryLines(CHILDREN, 120);
    expect(one.lines).toEqual(['- 6.1 Pump Start: Start P-101A from the control room. Verify discharge pressure.', '(… 1 more child section not shown)']);
    expect(one.cut).toEqual({ children: 2, kept_children: 1, child_chars: 134, kept_chars: 116 });
    expect(childSummaryLines(CHILDREN, 134).cut).toBeNull();
  });

  it('keeps CONTEXT lines one line each', () => {
    const { prompt } = dackarPrompt({ ...SECTION, section_path: 'A\nB', page_start: 3 }, []);
    expect(prompt).toContain('section_path: A B\n');
    expect(prompt).toContain('page_start: 3\n');
  });

  it('the OUTPUT JSON is the skeleton with the trusted fields', () => {
    const { prompt } = dackarPrompt(SECTION, []);
    const skeleton = JSON.parse(prompt.slice(prompt.indexOf('OUTPUT JSON (exact keys/types):\n') + 32));
    expect(skeleton).toEqual({
      section_id: 's:6',
      doc_id: 'SOP-AFW-012',
      section_path: 'SOP-AFW-012 > 6. Procedure',
      view_type: 'section_summary',
      summary: '',
      concepts: [],
      chunk_count: 4,
      citations: { doc_id: 'SOP-AFW-012', section_path: 'SOP-AFW-012 > 6. Procedure', page_start: null, page_end: 7 },
    });
  });
});

describe('the TASK paragraph names the text the reply comes from', () => {
  it.each<[boolean, string]>([
    [false, 'SECTION_TEXT'],
    [true, 'SECTION_TEXT or CHILD_SUMMARIES'],
  ])('children: %s → %s', (hasChildren, source) => {
    const task = sectionTaskParagraph(hasChildren);
    expect(sectionSourceName(hasChildren)).toBe(source);
    expect(task.startsWith('TASK: Write a section_summary JSON')).toBe(true);
    expect(task).toContain(`each copied as an exact phrase from ${source}.`);
    expect(task).toContain('100 to 200 words');
    expect(task).toContain('5 to 10');
    expect(task.includes('CHILD_SUMMARIES')).toBe(hasChildren);
  });
});

describe('flattenSectionSummary: embedding text', () => {
  const view = { ...emptySectionSummary(SECTION), summary: 'Start the pump.\nMeasure vibration.', concepts: ['P-101A', ' vibration ', '--', null] };

  it.each<[string, unknown, string]>([
    ['path, summary, concepts', view, 'SECTION: SOP-AFW-012 > 6. Procedure\nSUMMARY: Start the pump. Measure vibration.\nCONCEPTS: P-101A, vibration'],
    ['no concepts: no CONCEPTS line', { ...view, concepts: [] }, 'SECTION: SOP-AFW-012 > 6. Procedure\nSUMMARY: Start the pump. Measure vibration.'],
    ['no summary: no SUMMARY line', { ...view, summary: ' ' }, 'SECTION: SOP-AFW-012 > 6. Procedure\nCONCEPTS: P-101A, vibration'],
    ['nothing to embed', { ...view, summary: '', concepts: [] }, ''],
    ['a failed view (null)', null, ''],
    ['no path: no SECTION line', { ...view, section_path: '' }, 'SUMMARY: Start the pump. Measure vibration.\nCONCEPTS: P-101A, vibration'],
  ])('%s', (_name, obj, text) => {
    expect(flattenView('section_summary', obj)).toBe(text);
  });
});
