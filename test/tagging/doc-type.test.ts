import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC_TYPES } from '../../src/contracts/vocabulary.js';
import type { DocType } from '../../src/contracts/vocabulary.js';
import type { DocTypeEvidence } from '../../src/tagging/doc-type.js';
import { authorityFor, detectDocType, isDocType, normaliseDocType, upstreamDocType } from '../../src/tagging/doc-type.js';

describe('detectDocType: pinned cases (DESIGN §2), as text', () => {
  it.each<[string, DocType]>([
    ['CR12345', 'CR'],
    ['WO98765', 'WO'],
    ['OP1234', 'SOP'],
    ['SOP1234', 'SOP'],
    ['ECA0007', 'ECA'],
    ['CR-12345', 'CR'],
    ['WO_98765', 'WO'],
    ['SOP-101 Valve Procedure', 'SOP'],
    ['this standard operating procedure applies', 'SOP'],
    ['unrelated narrative text', 'OTHER'],
    ['the procedure identified a root cause', 'ECA'],
    ['isopropyl alcohol', 'OTHER'],
  ])('%j → %s', (text, expected) => {
    expect(detectDocType({ text })).toBe(expected);
  });
});

describe('detectDocType: the same ids found in each evidence field', () => {
  const fields = ['docName', 'sourcePath', 'docId', 'text'] as const;
  it.each(
    fields.flatMap((field) =>
      (
        [
          ['CR12345', 'CR'],
          ['WO_98765', 'WO'],
          ['OP 1234', 'SOP'],
          ['eca-2026-0007', 'ECA'],
        ] as const
      ).map(([value, expected]) => [field, value, expected] as const),
    ),
  )('%s = %j → %s', (field, value, expected) => {
    expect(detectDocType({ [field]: value })).toBe(expected);
  });
});

describe('detectDocType: strong id rules', () => {
  it.each<[string, DocType]>([
    ['SOP 101', 'SOP'],
    ['sop_7', 'SOP'],
    ['op-12 rev 3', 'SOP'],
    ['cr 2026-00123', 'CR'],
    ['Initiate a Condition Report for the leak', 'CR'],
    ['condition reports are trended', 'CR'],
    ['wo-2026-04567', 'WO'],
    ['Open a work order', 'WO'],
    ['ECA_12', 'ECA'],
    ['an event causal evaluation was performed', 'ECA'],
    ['the causal evaluation found', 'ECA'],
    // The separator is optional and single: two separators are not an id (only the "cr-" hint).
    ['cr  12 drafting', 'OTHER'],
    ['cr--12 drafting', 'CR'],
  ])('%j → %s', (text, expected) => {
    expect(detectDocType({ text })).toBe(expected);
  });
});

describe('detectDocType: ids must start a word', () => {
  it.each<[string, DocType]>([
    ['scr12 breaker', 'OTHER'],
    ['wood12 pallets', 'OTHER'],
    ['loop 12 flow', 'OTHER'],
    ['two 3 inch lines', 'OTHER'],
    ['deca12 solvent', 'OTHER'],
    ['isop12', 'OTHER'],
    ['microprocedures', 'OTHER'],
    ['condition reporting tool', 'OTHER'],
    ['path/to/CR12.pdf', 'CR'],
    ['x.wo12', 'WO'],
    ['(op1234)', 'SOP'],
  ])('%j → %s', (text, expected) => {
    expect(detectDocType({ text })).toBe(expected);
  });
});

describe('detectDocType: longest hint phrase', () => {
  it.each<[string, DocType]>([
    ['see the operating procedure', 'SOP'],
    ['procedures for the pump', 'SOP'],
    ['an sop for valves', 'SOP'],
    ['cr-draft notes', 'CR'],
    ['wo-pending list', 'WO'],
    ['eca-draft and sop', 'ECA'],
    ['root causes and the procedure', 'ECA'],
    ['event causal analysis of the operating procedure', 'ECA'],
    ['standard operating procedure: root cause review', 'SOP'],
    // Equal length (3): the earlier phrase in the evidence wins.
    ['sop then cr-x', 'SOP'],
    ['cr-x then sop', 'CR'],
    ['isopropyl alcohol procedure', 'SOP'],
  ])('%j → %s', (text, expected) => {
    expect(detectDocType({ text })).toBe(expected);
  });
});

describe('detectDocType: which source wins', () => {
  it.each<[string, DocTypeEvidence, DocType]>([
    ['name id beats text id', { docName: 'SOP-12 valve lineup.pdf', text: 'Initiate CR-123 if the valve sticks' }, 'SOP'],
    ['path id beats text id', { sourcePath: '/plant/wo/WO-778.pdf', text: 'per SOP-4' }, 'WO'],
    ['name beats doc id', { docName: 'ECA-9.pdf', docId: 'cr12' }, 'ECA'],
    ['first id in the text wins', { text: 'WO-1 was written after CR-2' }, 'WO'],
    // The document's own name says what it is; the CR its text answers does not.
    ['a hint in the name beats a strong id in the text', { docName: 'standard operating procedure.pdf', text: 'CR-1' }, 'SOP'],
    ['Condenser Vacuum Procedure responding to a CR', { docName: 'Condenser Vacuum Procedure', text: 'Written in response to CR-2024-04821.' }, 'SOP'],
    ['hint in the name, nothing in the text', { docName: 'valve procedure.pdf', text: 'unrelated narrative text' }, 'SOP'],
    ['nothing anywhere', { docName: 'notes.pdf', sourcePath: '/tmp/notes.pdf', docId: 'ad61d26ecf6e', text: 'hello' }, 'OTHER'],
    ['empty evidence', {}, 'OTHER'],
    ['undefined fields', { docName: undefined, text: undefined }, 'OTHER'],
    ['fields do not run together', { docName: 'wo', text: '12 pumps' }, 'OTHER'],
  ])('%s', (_label, evidence, expected) => {
    expect(detectDocType(evidence)).toBe(expected);
  });

  it('reads only the first 4,000 characters of text', () => {
    const filler = 'x '.repeat(2000);
    expect(detectDocType({ text: filler + 'CR-1' })).toBe('OTHER');
    expect(detectDocType({ text: filler.slice(0, 3990) + 'CR-1' })).toBe('CR');
  });
});

describe('detectDocType: the DACKAR condition report sample', () => {
  const first = JSON.parse(
    readFileSync(new URL('../fixtures/dackar/ad61d26ecf6e_chunks.jsonl', import.meta.url), 'utf8').split('\n')[0] ?? '',
  ) as Record<string, string>;

  it.each<[string, DocTypeEvidence]>([
    ['the whole record', { docName: first.doc_name, sourcePath: first.source_path, docId: first.doc_id, text: first.text }],
    ['the name alone', { docName: first.doc_name }],
    ['the path alone', { sourcePath: first.source_path }],
    ['the text alone', { text: first.text }],
  ])('%s → CR', (_label, evidence) => {
    expect(first.doc_name).toContain('example_CR_2026_00123');
    expect(detectDocType(evidence)).toBe('CR');
  });
});

describe('isDocType / normaliseDocType', () => {
  it.each<[unknown, boolean, DocType | null]>([
    ['SOP', true, 'SOP'],
    ['CR', true, 'CR'],
    ['WO', true, 'WO'],
    ['ECA', true, 'ECA'],
    ['OTHER', true, 'OTHER'],
    ['sop', false, 'SOP'],
    [' Cr ', false, 'CR'],
    ['other', false, 'OTHER'],
    ['BULLETIN', false, null],
    ['FMEA', false, null],
    ['', false, null],
    [null, false, null],
    [undefined, false, null],
    [3, false, null],
    [['SOP'], false, null],
  ])('%j → isDocType %s, normalised %j', (value, exact, normalised) => {
    expect(isDocType(value)).toBe(exact);
    expect(normaliseDocType(value)).toBe(normalised);
  });
});

describe('authorityFor', () => {
  it.each(DOC_TYPES.map((t) => [t, t === 'SOP' ? 'mandatory' : 'informational'] as const))('%s → %s', (docType, level) => {
    expect(authorityFor(docType)).toBe(level);
  });
});

describe('detectDocType: the own identity first, plant-style ids, kinds outside the vocabulary', () => {
  it.each<[string, DocTypeEvidence, DocType]>([
    ['plant-style SOP id', { docId: 'SOP-U2-CND-001' }, 'SOP'],
    ['plant-style ids with colons', { docId: 'CR:SEC:2026:1042' }, 'CR'],
    ['plant-style WO id', { docId: 'WO-2024-11847' }, 'WO'],
    ['plant-style id cited in text', { text: 'per SOP-U2-CND-001 Step 4.2' }, 'SOP'],
    ['an FMEA citing an SOP is not an SOP', { docId: 'FMEA-U2-CND-001', text: 'Diagnostic guidance per SOP-U2-CND-001.' }, 'OTHER'],
    ['an operating-experience bulletin citing a CR', { docId: 'OE-INPO-2023-CND-047', text: 'see CR-2024-04821' }, 'OTHER'],
    ['an FMEA named as such', { docName: 'Condenser FMEA.xlsx', text: 'per SOP-12' }, 'OTHER'],
    ['letters only are not an id', { text: 'the op-amp drifted' }, 'OTHER'],
  ])('%s', (_label, evidence, expected) => {
    expect(detectDocType(evidence)).toBe(expected);
  });

  it('a wrong "mandatory" is never inferred from a cited procedure', () => {
    expect(authorityFor(detectDocType({ docId: 'FMEA-U2-CND-001', text: 'SOP-U2-CND-001' }))).toBe('informational');
  });
});

describe('upstreamDocType', () => {
  it.each<[unknown, DocType | null]>([
    ['CR', 'CR'],
    [' sop ', 'SOP'],
    ['Condition Report', 'CR'],
    ['work_orders', 'WO'],
    ['event causal analysis', 'ECA'],
    ['FMEA', 'OTHER'],
    ['BULLETIN', 'OTHER'],
    ['', null],
    ['   ', null],
    [7, null],
    [undefined, null],
  ])('%j → %s', (value, expected) => {
    expect(upstreamDocType(value)).toBe(expected);
  });
});
