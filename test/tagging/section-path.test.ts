import { describe, expect, it } from 'vitest';
import { PATH_SEPARATOR, displaySectionPath, normaliseSegments, sectionId, stripMarkdown } from '../../src/tagging/section-path.js';

const DACKAR_TITLE = '**Condition Report (CR) - Elevated Vibration on AFW Pump P-101A**';
const NFC_MENON = 'M\u00e9non';
const NFD_MENON = 'Me\u0301non';

describe('stripMarkdown', () => {
  it.each<[string, string]>([
    ['**Bold**', 'Bold'],
    ['__Bold__', 'Bold'],
    ['*Italic*', 'Italic'],
    ['_Italic_', 'Italic'],
    ['***Both***', 'Both'],
    ['`code`', 'code'],
    ['**1. Condition Description**', '1. Condition Description'],
    ['Pump **P-101A** trip', 'Pump P-101A trip'],
    ['a _word_ here', 'a word here'],
    // Underscores inside identifiers and arithmetic stars are content, not markup.
    ['FM_AIR_INLEAK', 'FM_AIR_INLEAK'],
    ['snake_case_name', 'snake_case_name'],
    ['5 * 3 * 2', '5 * 3 * 2'],
    ['** not bold **', '** not bold **'],
    ['plain title', 'plain title'],
    ['****', ''],
    ['`', ''],
    ['', ''],
  ])('%j → %j', (input, expected) => {
    expect(stripMarkdown(input)).toBe(expected);
  });
});

describe('normaliseSegments: string input', () => {
  it.each<[string, string, readonly string[]]>([
    ['plain', 'A > B > C', ['A', 'B', 'C']],
    ['trailing spaces', 'A  > B   ', ['A', 'B']],
    ['double spaces around the separator', 'A  >  B', ['A', 'B']],
    ['double spaces inside a title', 'Pump   P-101A > Vibration  data', ['Pump P-101A', 'Vibration data']],
    ['tabs and newlines inside a title', 'Pump\tP-101A\n data > B', ['Pump P-101A data', 'B']],
    ['non-breaking spaces inside titles', 'CP\u00a05.31 > Step\u202f1\u20072', ['CP 5.31', 'Step 1 2']],
    ['non-breaking spaces around the separator', 'A\u00a0>\u00a0B', ['A', 'B']],
    ['markdown bold', `${DACKAR_TITLE} > **1. Condition Description**`, ['Condition Report (CR) - Elevated Vibration on AFW Pump P-101A', '1. Condition Description']],
    ['bare ">" without spaces', 'A>B > C', ['A>B', 'C']],
    ['">" with a space on one side only', 'x >y > z> w', ['x >y', 'z> w']],
    ['empty segments dropped', ' > A >  > B > ', ['A', 'B']],
    ['segments empty after markdown dropped', '**** > A', ['A']],
    ['only separators', ' >  > ', []],
    ['empty string', '', []],
    ['NFD becomes NFC', `Chapter 1 > ${NFD_MENON}`, ['Chapter 1', NFC_MENON]],
  ])('%s', (_label, input, expected) => {
    expect(normaliseSegments(input)).toEqual(expected);
  });
});

describe('normaliseSegments: array input is never split', () => {
  it.each<[string, readonly string[], readonly string[]]>([
    ['" > " inside a segment is kept whole', ['A > B', 'C'], ['A > B', 'C']],
    ['segments are cleaned', ['  **A**  ', '\u00a0B\u00a0\u00a0b '], ['A', 'B b']],
    ['empty segments dropped', ['', 'A', '   ', '**'], ['A']],
    ['NFD becomes NFC', [NFD_MENON], [NFC_MENON]],
    ['empty array', [], []],
  ])('%s', (_label, input, expected) => {
    expect(normaliseSegments(input)).toEqual(expected);
  });
});

describe('normaliseSegments: repeated calls', () => {
  it.each(['A > B', `${DACKAR_TITLE} > **1. Condition Description**`])('a caller mutating the result does not change the next answer: %j', (path) => {
    const first = normaliseSegments(path);
    const expected = [...first];
    first.push('mutated');
    first[0] = 'changed';
    expect(normaliseSegments(path)).toEqual(expected);
  });

  it('alternating inputs give stable answers', () => {
    const paths = ['A > B', 'C', 'A > B', ' A  >  B ', 'C', ''];
    const once = paths.map((p) => [normaliseSegments(p), displaySectionPath(p)]);
    const again = paths.map((p) => [normaliseSegments(p), displaySectionPath(p)]);
    expect(again).toEqual(once);
    expect(once.map(([, display]) => display)).toEqual(['A > B', 'C', 'A > B', 'A > B', 'C', '']);
  });
});

describe('displaySectionPath', () => {
  it.each<[string, string]>([
    [`${DACKAR_TITLE} > **4. Apparent Cause (if known)** > **5. Evidence / Data**`, 'Condition Report (CR) - Elevated Vibration on AFW Pump P-101A > 4. Apparent Cause (if known) > 5. Evidence / Data'],
    [' A  >  > B\u00a0 ', 'A > B'],
    ['A>B', 'A>B'],
    ['', ''],
  ])('%j → %j', (input, expected) => {
    expect(displaySectionPath(input)).toBe(expected);
  });

  it.each([
    `${DACKAR_TITLE} > **1. Condition Description**`,
    'A\u00a0>\u00a0B  >  C',
    `x >y > ${NFD_MENON} > `,
  ])('is a fixed point and parses back to the same segments: %j', (input) => {
    const display = displaySectionPath(input);
    expect(displaySectionPath(display)).toBe(display);
    expect(normaliseSegments(display)).toEqual(normaliseSegments(input));
    expect(display).toBe(normaliseSegments(input).join(PATH_SEPARATOR));
  });
});

describe('sectionId', () => {
  it('is pinned (a change here changes every stored section id)', () => {
    expect(sectionId('ad61d26ecf6e', [DACKAR_TITLE, '**1. Condition Description**'])).toBe('sec_7d9a09f0d90756d8');
  });

  it.each<[string, readonly string[], readonly string[]]>([
    ['NFD and NFC', ['Chapter 1', NFD_MENON], ['Chapter 1', NFC_MENON]],
    ['markdown and stray whitespace', ['**Chapter 1**  ', ' Intro'], ['Chapter 1', 'Intro']],
    ['non-breaking spaces', ['CP\u00a05.31'], ['CP 5.31']],
    ['empty segments', ['', 'A', ' '], ['A']],
  ])('same id despite %s', (_label, a, b) => {
    expect(sectionId('doc1', a)).toBe(sectionId('doc1', b));
  });

  it.each<[string, string, readonly string[], string, readonly string[]]>([
    ['a longer number is another section', 'doc1', ['CP 5.31'], 'doc1', ['CP 5.314']],
    ['Chapter 1 is not Chapter 10', 'doc1', ['Chapter 1'], 'doc1', ['Chapter 10']],
    ['same path in two documents', 'doc1', ['Scope'], 'doc2', ['Scope']],
    ['one segment with " > " is not two segments', 'doc1', ['A > B'], 'doc1', ['A', 'B']],
    ['a child is not its parent', 'doc1', ['A'], 'doc1', ['A', 'B']],
    ['order matters', 'doc1', ['A', 'B'], 'doc1', ['B', 'A']],
  ])('different ids: %s', (_label, docA, a, docB, b) => {
    expect(sectionId(docA, a)).not.toBe(sectionId(docB, b));
  });

  it.each([
    ['doc1', ['A']],
    ['ad61d26ecf6e', [DACKAR_TITLE]],
    ['', []],
  ] as const)('has the shape sec_ + 16 hex: %j %j', (docId, segments) => {
    expect(sectionId(docId, segments)).toMatch(/^sec_[0-9a-f]{16}$/);
  });
});
