import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC_SUBTYPES, DOC_TYPES } from '../../src/contracts/vocabulary.js';
import type { DocType } from '../../src/contracts/vocabulary.js';
import { ContextBuilder } from '../../src/tagging/context.js';
import type { DocForm, DocTypeEvidence } from '../../src/tagging/doc-type.js';
import { authorityFor, detectDocForm, detectDocType, formAt, formIndex, isDocType, normaliseDocType, TYPE_OF_SUBTYPE, upstreamDocType } from '../../src/tagging/doc-type.js';

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
    // A number ends where its word does: one that runs on into letters or digits is a model or part
    // designation; a plant id of separated segments stays an id.
    ['OP 38TD8-1/8 Connecting Rod', 'OTHER'],
    ['op 12b', 'OTHER'],
    ['OP 38 rev 2', 'SOP'],
    ['OP 38.', 'SOP'],
    ['SOP-101A', 'SOP'],
    ['cr-2026x', 'CR'],
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

describe('detectDocForm: the document\'s own form', () => {
  it.each<[string, DocTypeEvidence, DocForm]>([
    ['an event notification by its heading', { text: 'EVENT NOTIFICATION REPORT for May 2, 2031\nPower Reactor  Event Number: 99001' }, { type: 'CR', subtype: 'EN' }],
    ['an event notification by its field', { text: 'Facility: Anyplace\nEvent Number: 12345\nNotification Date: 01/02/2031' }, { type: 'CR', subtype: 'EN' }],
    ['a licensee event report by its title', { title: 'LICENSEE EVENT REPORT (LER)', text: 'Facility Name: Anyplace Unit 1' }, { type: 'CR', subtype: 'LER' }],
    ['a licensee event report by its NRC form', { text: 'NRC FORM 366 (04-2031)\nU.S. NUCLEAR REGULATORY COMMISSION' }, { type: 'CR', subtype: 'LER' }],
    ['a Part 21 report', { text: 'Subject: 10 CFR Part 21 notification of a defect in a relay' }, { type: 'CR', subtype: 'PART21' }],
    ['an event notification that reports a defect is a Part 21 report', { text: 'EVENT NOTIFICATION REPORT\nPART 21 - DEFECTIVE BREAKER LATCH' }, { type: 'CR', subtype: 'PART21' }],
    ['an inspection report', { text: 'NRC INSPECTION REPORT 05000999/2031-002\nDear Mr. Smith:' }, { type: 'OTHER', subtype: 'IR' }],
    ['an inspection finding', { text: 'Introduction: The inspectors identified a Green non-cited violation of the license.' }, { type: 'OTHER', subtype: 'IR' }],
    ['an information notice', { text: 'NRC INFORMATION NOTICE 2031-07: CRACKED WELDS IN DRAIN LINES' }, { type: 'OTHER', subtype: 'IN' }],
    ['a generic letter', { text: 'GENERIC LETTER 31-01: TESTING OF BATTERIES' }, { type: 'OTHER', subtype: 'GL' }],
    ['an NRC bulletin by its number', { text: 'IE Bulletin No. 31-04: valve operators' }, { type: 'OTHER', subtype: 'BULLETIN' }],
    ['a circular by its number', { text: 'Circular No. 31-02 - pump bearing wear' }, { type: 'OTHER', subtype: 'CIRCULAR' }],
    ['an EOP numbered in its title, with a unit', { title: '2-ECA-1.1 LOSS OF RECIRCULATION', text: 'STEP ACTION/EXPECTED RESPONSE' }, { type: 'SOP', subtype: 'EOP' }],
    ['an EOP by its field', { text: 'EOP: FR-H.1\nTITLE: RESPONSE TO LOSS OF HEAT SINK' }, { type: 'SOP', subtype: 'EOP' }],
    ['an abnormal procedure', { text: 'ABNORMAL OPERATING PROCEDURE\nLoss of instrument air' }, { type: 'SOP', subtype: 'EOP' }],
    ['a procedure by its section headings', { text: '1.0 PURPOSE\nTo fill the tank.\n2.0 PRECAUTIONS\nWear gloves.' }, { type: 'SOP', subtype: 'PROC' }],
  ])('%s', (_label, evidence, expected) => {
    expect(detectDocForm(evidence)).toEqual(expected);
  });

  it('the form in the text beats a word in the file name', () => {
    expect(detectDocForm({ docName: 'cr31002.html', text: 'IE Circular No. 31-02\nFailures of pump seals' })).toEqual({ type: 'OTHER', subtype: 'CIRCULAR' });
    // Without a form, the name still decides.
    expect(detectDocForm({ docName: 'cr31002.html', text: 'Failures of pump seals' }).type).toBe('CR');
  });

  it('the earliest marker wins: a notice that mentions an LER is a notice', () => {
    expect(detectDocForm({ text: 'INFORMATION NOTICE 2031-01\nA licensee event report described the failure.' }).subtype).toBe('IN');
  });

  it('NRC document names: an LER number, an event notification page', () => {
    expect(detectDocForm({ docName: 'LER-2031-004-00.pdf' })).toEqual({ type: 'CR', subtype: 'LER' });
    expect(detectDocForm({ sourcePath: 'reading-rm/event-status/2031/20310412en.html' })).toEqual({ type: 'CR', subtype: 'EN' });
    expect(detectDocForm({ sourcePath: 'reading-rm/20310412english.html' }).subtype).toBeNull();
  });

  it('the rule an event report is made under: 50.73 an LER, 50.72 an event notification', () => {
    expect(detectDocForm({ text: 'This condition is reportable under 10 CFR 50.73(a)(2)(i)(B).' }).subtype).toBe('LER');
    expect(detectDocForm({ text: 'reported per 10CFR50.72(b)(3)(v)' }).subtype).toBe('EN');
    expect(detectDocForm({ text: 'Section 150.72 applies' }).subtype).toBeNull();
  });

  it('a supplier\'s letter to the NRC about a part is a Part 21 notification, whatever ids its subject holds', () => {
    const letter = (subject: string) =>
      `ACME Engine Division\n12 Main Street\n\n3 September 2031\n\nDocument Control Desk\nU.S. Nuclear Regulatory Commission\nWashington, DC 20555\n\n${subject}\n16701706.\n`;
    expect(detectDocForm({ docName: '2031510', text: letter('Subject, OP 38TD8-1/8 Connecting Rod: part numbers 16600736,') })).toEqual({ type: 'CR', subtype: 'PART21' });
    expect(detectDocForm({ text: letter('Subject: Model No. 7 relay, serial numbers 1 through 40') }).subtype).toBe('PART21');
    expect(detectDocForm({ text: 'Subject: Reportable defect in a pump shaft' })).toEqual({ type: 'CR', subtype: 'PART21' });
    // A letter about no part, or a part named outside a letter to the NRC, is no such notice.
    expect(detectDocForm({ text: letter('Subject: Request for relief from the code') }).subtype).toBeNull();
    expect(detectDocForm({ text: 'Subject: part numbers 1 and 2 of the drawing list' }).subtype).toBeNull();
    expect(detectDocForm({ text: `${letter('Subject: Subjected to load')} part number 3` }).subtype).toBeNull();
  });

  it.each<[string, DocTypeEvidence, DocForm]>([
    ['an NRC number with a four-digit year', { text: 'Bulletin 2031-01: Design Vulnerability in Electric Power Systems' }, { type: 'OTHER', subtype: 'BULLETIN' }],
    ['an inspection report\'s cover fields', { text: 'Report No. 50-999/31009(DRS)\nDocket No. 50-999\nInspection At: Anyplace Site' }, { type: 'OTHER', subtype: 'IR' }],
    ['inspection reports, plural', { text: 'Inspection Reports No. 50-998/31036; No. 50-999/31028' }, { type: 'OTHER', subtype: 'IR' }],
    ['a significance determination', { text: 'SUBJECT: FINAL SIGNIFICANCE DETERMINATION OF A WHITE FINDING' }, { type: 'OTHER', subtype: 'IR' }],
    ['10 CFR 21.21\'s words', { text: 'Subject: Interim Report of a Deviation or Failure to Comply' }, { type: 'CR', subtype: 'PART21' }],
    ['an LER\'s cover letter', { text: 'Dear Sir:\nEnclosed is LER 50-999/2031-001-00 for Anyplace Unit 1.' }, { type: 'CR', subtype: 'LER' }],
    ['an EOP number in the title', { title: 'EOP-1.0 REACTOR SCRAM', text: 'STEP ACTION' }, { type: 'SOP', subtype: 'EOP' }],
    ['an AOP number in the title, with a unit', { title: '2-AOP-13 LOSS OF INSTRUMENT AIR', text: '1. CHECK air pressure' }, { type: 'SOP', subtype: 'EOP' }],
    ['a hint in the title', { title: 'Surveillance Test Procedure', text: 'This test verifies the pump.' }, { type: 'SOP', subtype: 'PROC' }],
    // A procedure's form beats the ids it cites.
    ['a procedure that cites a NUREG', { text: 'References: NUREG-0737\n1.0 PURPOSE\nTo test the pump.\n2.0 PRECAUTIONS\nWear gloves.' }, { type: 'SOP', subtype: 'PROC' }],
    ['a procedure written for a CR', { text: 'Revised per CR-2031-1234.\n1.0 PURPOSE\nTo test.\n2.0 PREREQUISITES\nNone.' }, { type: 'SOP', subtype: 'PROC' }],
  ])('%s', (_label, evidence, expected) => {
    expect(detectDocForm(evidence)).toEqual(expected);
  });

  it('an event notification by its ENS number or its operations officer\'s lines', () => {
    expect(detectDocForm({ text: '| ENS 61234 | 2 May 2031 | Plant X | Region 4 | The pump tripped.' })).toEqual({ type: 'CR', subtype: 'EN' });
    expect(detectDocForm({ text: 'The following information was provided by the licensee via fax: a valve failed.' }).subtype).toBe('EN');
    expect(detectDocForm({ text: 'A fire alarm sounded.\nThe licensee notified the county.\nNotified DHS, FEMA and NICC via email.' }).subtype).toBe('EN');
    expect(detectDocForm({ text: 'Notified R4DO (Smith) and NRR EO.' }).subtype).toBe('EN');
    // Not a number of the system: a word, a year, a long id.
    expect(detectDocForm({ text: 'the lens 2031 was cracked' }).subtype).toBeNull();
    expect(detectDocForm({ text: 'ENS 12 valves' }).subtype).toBeNull();
    expect(detectDocForm({ text: 'ENS 1234567 is a drawing' }).subtype).toBeNull();
  });

  it('an LER by NRC Form 366\'s burden statement or its OMB number', () => {
    expect(detectDocForm({ text: 'Reported lessons learned are incorporated into the licensing process and fed back to industry.' })).toEqual({ type: 'CR', subtype: 'LER' });
    expect(detectDocForm({ text: 'Office of Management and Budget (3150-0104), Washington' }).subtype).toBe('LER');
    expect(detectDocForm({ text: 'OMB number 3150-01045' }).subtype).toBeNull();
  });

  it('an EOP or AOP number in the text names no form, nor does an LER cited after another form', () => {
    expect(detectDocForm({ text: 'Operators entered EOP-1.0 and AOP-13.' }).subtype).toBeNull();
    expect(detectDocForm({ text: 'INSPECTION REPORT 05000999/2031001\n(Closed) LER 05000999/2031-004-00' }).subtype).toBe('IR');
    expect(detectDocForm({ text: 'the lerp 2' }).subtype).toBeNull();
  });

  it('not a form: a vendor bulletin, a plant ECA id, an ES page id outside a procedure', () => {
    expect(detectDocForm({ text: 'the vendor service bulletin recommends new gaskets' })).toEqual({ type: 'OTHER', subtype: null });
    expect(detectDocForm({ docId: 'ECA-2031-0007' })).toEqual({ type: 'ECA', subtype: null });
    expect(detectDocForm({ text: 'see page ES-1 of the drawing list' }).subtype).toBeNull();
  });

  it('authority: a procedure mandatory, a generic letter or bulletin guidance, the rest informational', () => {
    expect(authorityFor('SOP', 'EOP')).toBe('mandatory');
    expect(authorityFor('OTHER', 'GL')).toBe('guidance');
    expect(authorityFor('OTHER', 'BULLETIN')).toBe('guidance');
    expect(authorityFor('OTHER', 'IN')).toBe('informational');
    expect(authorityFor('CR', 'LER')).toBe('informational');
  });

  it('every subtype belongs to one of the five types', () => {
    for (const subtype of DOC_SUBTYPES) expect(DOC_TYPES).toContain(TYPE_OF_SUBTYPE[subtype]);
  });

  it('formIndex and formAt are inverse over every type alone and every subtype', () => {
    const forms: DocForm[] = [...DOC_TYPES.map((type) => ({ type, subtype: null })), ...DOC_SUBTYPES.map((s) => ({ type: TYPE_OF_SUBTYPE[s], subtype: s }))];
    for (const form of forms) expect(formAt(formIndex(form))).toEqual(form);
    // The index travels in an Int8Array.
    expect(Math.max(...forms.map(formIndex))).toBeLessThan(128);
  });
});

describe('ContextBuilder: type and subtype', () => {
  const build = (mode: string, record: Record<string, unknown>) => new ContextBuilder({ docTypeMode: mode, authority: null }).build(record).context;
  const eop = { doc_id: 'd1', chunk_id: 'c1', section_path: 'E-0 REACTOR TRIP OR SAFETY INJECTION', text: 'Verify reactor trip.' };

  it('a detected form gives both, and the subtype reaches the authority', () => {
    expect(build('auto', eop)).toMatchObject({ doc_type: 'SOP', doc_subtype: 'EOP', authority_level: 'mandatory' });
    expect(build('auto', { doc_id: 'd2', chunk_id: 'c', text: 'GENERIC LETTER 31-02\nAddressees' })).toMatchObject({ doc_type: 'OTHER', doc_subtype: 'GL', authority_level: 'guidance' });
  });

  it('an upstream type keeps a subtype of its own type only', () => {
    expect(build('auto', { ...eop, doc_type: 'SOP' })).toMatchObject({ doc_type: 'SOP', doc_subtype: 'EOP' });
    expect(build('auto', { ...eop, doc_type: 'CR' })).toMatchObject({ doc_type: 'CR', doc_subtype: null });
    expect(build('OTHER', eop)).toMatchObject({ doc_type: 'OTHER', doc_subtype: null });
  });

  it('the form is decided from the document\'s first chunk', () => {
    const builder = new ContextBuilder({ docTypeMode: 'auto', authority: null });
    builder.build(eop);
    expect(builder.build({ doc_id: 'd1', chunk_id: 'c2', section_path: 'Step 3', text: 'Check generator breakers open.' }).context.doc_subtype).toBe('EOP');
  });

  it('no form: null', () => {
    expect(build('auto', { doc_id: 'd3', chunk_id: 'c', text: 'The pump tripped on low suction pressure.' }).doc_subtype).toBeNull();
  });
});
