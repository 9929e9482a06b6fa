import { describe, expect, it } from 'vitest';
import { combinedText, flattenView } from '../../src/views/flatten-view.js';

describe('flattenView: the reference cases', () => {
  it.each<[string, 'retrieval_summary' | 'rca_frame', unknown, string]>([
    [
      'retrieval_summary drops empty fields',
      'retrieval_summary',
      { scope: '', entities: { systems: ['RCS'], equipment_ids: [], components: [] }, symptoms_outcomes: [], keywords_synonyms: ['packing'] },
      'SYSTEMS: RCS\nKEYWORDS: packing',
    ],
    ['a null scope is dropped, never "SCOPE: None"', 'retrieval_summary', { scope: null }, ''],
    ['an empty retrieval_summary', 'retrieval_summary', {}, ''],
    [
      'retrieval_summary keeps populated fields in order',
      'retrieval_summary',
      {
        scope: 'pump seal leak',
        entities: { systems: ['RCS'], equipment_ids: ['P-1A'], components: ['seal'] },
        symptoms_outcomes: ['leak'],
        mechanisms: ['wear'],
        diagnostics: ['visual'],
        corrective_actions: ['replace'],
        numbers_limits: ['<1gpm'],
        keywords_synonyms: ['packing'],
      },
      'SCOPE: pump seal leak\nSYSTEMS: RCS\nEQUIPMENT: P-1A\nCOMPONENTS: seal\nSYMPTOMS/OUTCOMES: leak\nMECHANISMS: wear\nDIAGNOSTICS: visual\nACTIONS: replace\nNUMBERS/LIMITS: <1gpm\nKEYWORDS: packing',
    ],
    ['rca_frame drops empty fields', 'rca_frame', { observed: ['a', 'b'], hypotheses: [] }, 'OBSERVED: a; b'],
    ['an empty rca_frame', 'rca_frame', {}, ''],
    [
      'rca_frame keeps populated fields in order',
      'rca_frame',
      { observed: ['a', 'b'], hypotheses: ['h1'], tests_to_confirm: ['t1'], candidate_actions: ['c1'], constraints: ['k1'] },
      'OBSERVED: a; b\nHYPOTHESES: h1\nTESTS: t1\nACTIONS: c1\nCONSTRAINTS: k1',
    ],
  ])('%s', (_name, view, obj, text) => {
    expect(flattenView(view, obj)).toBe(text);
  });
});

describe('flattenView: whatever the view holds, one line per field', () => {
  it.each<[string, 'retrieval_summary' | 'rca_frame', unknown, string]>([
    ['a missing view', 'rca_frame', undefined, ''],
    ['a view that is not an object', 'rca_frame', ['observed'], ''],
    ['newlines inside values become spaces', 'rca_frame', { observed: ['pump\ntripped', '  flow   low '] }, 'OBSERVED: pump tripped; flow low'],
    ['a multi-line scope stays one line', 'retrieval_summary', { scope: 'line one\n\nline two' }, 'SCOPE: line one line two'],
    ['items without letters or digits are left out', 'retrieval_summary', { keywords_synonyms: ['----', 'pump', '', ' '] }, 'KEYWORDS: pump'],
    ['numbers are kept, other non-strings left out', 'rca_frame', { observed: [6.2, null, { a: 1 }, 'x'] }, 'OBSERVED: 6.2; x'],
    ['a list field holding one string uses it as the value', 'rca_frame', { observed: 'pump tripped' }, 'OBSERVED: pump tripped'],
    ['a scope that is a list is joined like a list', 'retrieval_summary', { scope: ['a', 'b'] }, 'SCOPE: a, b'],
    ['keys outside the layout are ignored', 'rca_frame', { observed: ['a'], unknowns: ['u'], scope: 's' }, 'OBSERVED: a'],
    ['non-ASCII kept', 'retrieval_summary', { numbers_limits: ['172 °F', '≤ 5 µm'] }, 'NUMBERS/LIMITS: 172 °F, ≤ 5 µm'],
  ])('%s', (_name, view, obj, text) => {
    expect(flattenView(view, obj)).toBe(text);
  });
});

describe('combinedText', () => {
  it.each<[string, string, string[], string]>([
    ['section path then both views', 'A > B', ['SCOPE: s', 'OBSERVED: o'], 'SECTION: A > B\nSCOPE: s\nOBSERVED: o'],
    ['an empty view is skipped', 'A', ['', 'OBSERVED: o'], 'SECTION: A\nOBSERVED: o'],
    ['no content at all gives ""', 'A > B', ['', ''], ''],
    ['no section path', '', ['SCOPE: s', ''], 'SCOPE: s'],
    ['a multi-line section path stays one line', 'A\n> B', ['SCOPE: s'], 'SECTION: A > B\nSCOPE: s'],
  ])('%s', (_name, path, texts, expected) => {
    expect(combinedText(path, texts)).toBe(expected);
  });
});
