import { describe, expect, it } from 'vitest';
import { extractPatterns } from '../../src/tagging/extractors.js';
import { referenceSpans } from '../../src/tagging/extractors/references.js';

// Each family of references by its grammar and cue words, on constructed text of the shapes NRC
// and plant documents write (not copies of the real-text set).
const refs = (text: string): string[] => referenceSpans(text).map((r) => r.text);

describe('regulatory references', () => {
  it.each<[string, string, string[]]>([
    ['subparagraphs stay whole', 'reportable under 10 CFR 50.73(a)(2)(v)(D) and 10 CFR 50.72(b)(3)(iv)(A).', ['10 CFR 50.73(a)(2)(v)(D)', '10 CFR 50.72(b)(3)(iv)(A)']],
    ['no blank, OCR letters', 'per 10CFR50.72 and 10 CPR 50.72(b) and 10 CER 21.21', ['10CFR50.72', '10 CPR 50.72(b)', '10 CER 21.21']],
    ['dotted form and a blank before the paragraphs', 'under 10 C.F.R. 50.9 and 10 CFR 50.72 (b)(2)(xi).', ['10 C.F.R. 50.9', '10 CFR 50.72 (b)(2)(xi)']],
    ['a Part, its appendix and criterion', 'See 10 CFR Part 21 and 10 CFR Part 50, Appendix B, Criterion XVI.', ['10 CFR Part 21', '10 CFR Part 50, Appendix B, Criterion XVI']],
    ['a section letter', 'the 10 CFR 50.55a(g)(4) inservice rule', ['10 CFR 50.55a(g)(4)']],
    ['a report numbered in its Part', 'Report No. 10CFR21-0123 follows.', ['Report No. 10CFR21-0123']],
    ['a section without "10 CFR"', 'Section:\n50.72(b)(3)(v)(B) - Loss of Safety Function', ['50.72(b)(3)(v)(B)']],
    ['a paragraph cited alone', 'as listed in paragraph (a)(2)(iv)(B) of that rule', ['paragraph (a)(2)(iv)(B)']],
    ['the field name alone is no reference', '10 CFR SECTION:\n', []],
    ['Technical Specifications', 'TS 3.8.1, LCO 3.0.3 and Surveillance Requirement 3.8.1.2 per the Technical Specifications.', ['TS 3.8.1', 'LCO 3.0.3', 'Surveillance Requirement 3.8.1.2', 'Technical Specifications']],
    ['an acronym in brackets and a lettered part', 'Technical Specification (TS) 3.6.1.a was entered.', ['Technical Specification (TS) 3.6.1.a']],
    ['a short form needs a number', 'the SR was met and TS were reviewed', []],
    ['ASME sections and articles', 'acceptable under ASME Code, Section XI, IWV-3521 and IWB-3600.', ['ASME Code, Section XI', 'IWV-3521', 'IWB-3600']],
    ['the OM Code and its subsections', 'tested to the ASME OM Code, ISTC-3500 and ISTB-5121; the ASME Code applies', ['ASME OM Code', 'ISTC-3500', 'ISTB-5121']],
    ['design criteria', 'GDC 17 and General Design Criterion 44 apply', ['GDC 17', 'General Design Criterion 44']],
    ['an OCR\'d title number: its 0 read as O, or split from the 1', 'per 1 OCFR50.72, 1OCFR 21.21 and 1 0 CFR 50.9', ['1 OCFR50.72', '1OCFR 21.21', '1 0 CFR 50.9']],
    ['a 1 and an O that open no title stay prose', 'Unit 1 O ring and 1 0 pumps', []],
  ])('%s', (_name, text, expected) => {
    expect(refs(text)).toEqual(expected);
  });
});

describe('document references', () => {
  it.each<[string, string, string[]]>([
    ['a docket as a form\'s boxes print it', 'DOCKET NUMBER 05000- 298 and Docket No. 05000-354, Docket 05000 387', ['05000- 298', '05000-354', '05000 387']],
    ['OMB clearance numbers', 'the NEOB-10202 (3150-0104) office', ['3150-0104']],
    ['generic safety issues and their plans', 'Unresolved Safety Issues A-3, A-4 and A-5, USI A-46 and Generic Safety Issue 191', ['Unresolved Safety Issues A-3', 'A-4', 'A-5', 'USI A-46', 'Generic Safety Issue 191']],
    ['LER numbers', 'LER 50-123/2021-002-00 and Licensee Event Report 2020-004-01 and LER 345/2019-001-00', ['LER 50-123/2021-002-00', 'Licensee Event Report 2020-004-01', 'LER 345/2019-001-00']],
    ['an LER number by its form alone, OCR-spaced too', 'LER NUMBER\n2021 - 003 - 00\nand 2018-011-00', ['2021 - 003 - 00', '2018-011-00']],
    ['the acronym in brackets: the number alone', 'Licensee Event Report (LER) 50-123/2021-002-00 was sent', ['50-123/2021-002-00']],
    ['inspection reports under a docket', 'Inspection Report 05000123/2024-003 and 50-321/97-12 and 50-321/98015(DRP)', ['Inspection Report 05000123/2024-003', '50-321/97-12', '50-321/98015(DRP)']],
    ['NRC generic communications', 'IN 2019-04, GL 89-13, Information Notice No. 97-21, IE Bulletin 80-04 and Generic Letter 2004-02', ['IN 2019-04', 'GL 89-13', 'Information Notice No. 97-21', 'IE Bulletin 80-04', 'Generic Letter 2004-02']],
    ['a list after one cue', 'IE Bulletins 80-04, 80-04A (Revision 1), and 80-05 & 80-06', ['IE Bulletins 80-04', '80-04A (Revision 1)', '80-05', '80-06']],
    ['enforcement and inspection programme numbers', 'EA-24-017, EA 98-110, IMC 2515, Inspection Manual Chapter 0609, Appendix G, IP 71111.12 and Inspection Procedure 93812', ['EA-24-017', 'EA 98-110', 'IMC 2515', 'Inspection Manual Chapter 0609, Appendix G', 'IP 71111.12', 'Inspection Procedure 93812']],
    ['vendor topical reports and Commission papers, never equipment', 'per WCAP-16530-NP, NEDC-32983P, BAW-10192, CENPD-254 and SECY-04-0111 (SRM-SECY-04-0111)', ['WCAP-16530-NP', 'NEDC-32983P', 'BAW-10192', 'CENPD-254', 'SECY-04-0111', 'SRM-SECY-04-0111']],
    ['industry guidance series after their cue', 'EPRI TR-107396, NEI 03-12, INPO SOER 02-4 and Branch Technical Position 5-3', ['EPRI TR-107396', 'NEI 03-12', 'SOER 02-4', 'Branch Technical Position 5-3']],
    ['safety analysis report parts', 'UFSAR Section 6.3.2, FSAR Table 15.0-2, USAR Chapter 14 and the Updated Final Safety Analysis Report (UFSAR) Figure 9.2-4', ['UFSAR Section 6.3.2', 'FSAR Table 15.0-2', 'USAR Chapter 14', 'Updated Final Safety Analysis Report (UFSAR) Figure 9.2-4']],
    ['the report alone names no part', 'the UFSAR describes the system', []],
    ['temporary instructions', 'TI 2515/177 and Temporary Instruction 2515/193', ['TI 2515/177', 'Temporary Instruction 2515/193']],
    ['problem reports and engineering changes', 'PIR 2016-0456, ACR 08-2211, Engineering Change EC 400123 and DCP 09-017', ['PIR 2016-0456', 'ACR 08-2211', 'Engineering Change EC 400123', 'DCP 09-017']],
    ['event numbers as the form gives them', 'Event Number: 41234\nFacility: X\nEN #41299 and Event# 41300', ['41234', '41299', '41300']],
    ['the index line under its heading', '** EVENT NUMBERS **\n\n41234 41235  41240\n', ['41234', '41235', '41240']],
    ['dockets and licences', 'Docket Nos. 50-321 and 50-366\nLicense Nos. DPR-57, NPF-5\nDocket: 07001234\nLicense #: SNM-1234', ['50-321', '50-366', 'DPR-57', 'NPF-5', '07001234', 'SNM-1234']],
    ['a docket alone on its line, an eight-digit docket anywhere', 'REGION II\n50-321\nfiled under 05000366.', ['50-321', '05000366']],
    ['ADAMS and legacy accession numbers', 'ADAMS Accession No. ML19345F627 (ML 21012A345) and 8701150123', ['Accession No. ML19345F627', 'ML 21012A345', '8701150123']],
    ['plant documents after their cue', 'Condition Reports 2019-01234, 2019-01240, and 2019-01301; NCR 412233; CR 1234567; AR 01234567', ['Condition Reports 2019-01234', '2019-01240', '2019-01301', 'NCR 412233', 'CR 1234567', 'AR 01234567']],
    ['report, file and order numbers', 'Deviation Report No.84-112, File No. 97-003, purchase order PO45678', ['Deviation Report No.84-112', 'File No. 97-003', 'purchase order PO45678']],
    ['blanks alone join no list', 'FOIA SMITH90-112 PDR 00', ['FOIA SMITH90-112']],
    ['procedures by their series', 'per 2-EOP-3, OP-AB-101-105, 1-AOI-57-1A and OP-2325D', ['2-EOP-3', 'OP-AB-101-105', '1-AOI-57-1A', 'OP-2325D']],
    ['an EOP set, OCR forms too', 'go to E-0, ES-1.2, ECA-0.0, FR-S.1, 3-ECA-0.0, F-0.2 or E-O and FR-H. 1', ['E-0', 'ES-1.2', 'ECA-0.0', 'FR-S.1', '3-ECA-0.0', 'F-0.2', 'E-O', 'FR-H. 1']],
    ['procedure numbers after "Procedure"', 'PROCEDURE 204 and procedure P-12 and Procedure No. 5.3.2', ['PROCEDURE 204', 'procedure P-12', 'Procedure No. 5.3.2']],
    ['a licensee letter number', 'letter CNL-21-034 and RS-19-101', ['CNL-21-034', 'RS-19-101']],
    ['a form field number is no document', 'LICENSEE EVENT REPORT (LER)\n1. FACILITY NAME', []],
  ])('%s', (_name, text, expected) => {
    expect(refs(text)).toEqual(expected);
  });
});

describe('references are never equipment', () => {
  it.each<[string, string]>([
    ['a surveillance test procedure', 'performed ST-O-052-100-2 and MST-0456 and 2-OHP-4021-001-003'],
    ['an identifier work is done per', 'in accordance with 0-SI-82-1'],
    ['a design document', 'installed by DCP-12345 per CALC-M-123'],
    ['a licence', 'License No. NPF-90 for the unit'],
    ['a procedure', 'entered 3-ECA-0.0 and OP-AB-101-105'],
    ['an ASME article', 'flaw evaluated to IWB-3600'],
    ['a letter number', 'Letter WBL-24-041'],
    ['a topical report', 'analysed to WCAP-17100-P'],
    ['an EPRI report', 'guidance of EPRI NP-5652'],
  ])('%s', (_name, text) => {
    const spans = extractPatterns(text);
    expect(spans.equipment_ids).toEqual([]);
    expect(spans.doc_refs.length).toBeGreaterThan(0);
  });

  it('reads a corrective action record with its plant segment, its serial wrapped too', () => {
    expect(extractPatterns('CR-XYZ-2019-01234, Condition Report CR-IP3-2015- 05952 and AR-A1-2020-1234').doc_refs).toEqual([
      'CR-XYZ-2019-01234',
      'Condition Report CR-IP3-2015- 05952',
      'AR-A1-2020-1234',
    ]);
  });

  it('takes the identifier after "per" or "in accordance with" alone, and nothing that is no identifier', () => {
    expect(extractPatterns('tested per ST-O-052-100-2, 50 gpm per pump, per the TS and in accordance with 0-SI-82-1').doc_refs).toEqual(['ST-O-052-100-2', '0-SI-82-1']);
  });

  it('reads a NUREG whose U OCR read as IJ', () => {
    expect(extractPatterns('NUREG-0844 and NIJREG-0800 apply').doc_refs).toEqual(['NUREG-0844', 'NIJREG-0800']);
  });

  it('keeps the doc refs of both readers in text order', () => {
    expect(extractPatterns('See SOP-101, then 10 CFR 50.59 and CR-2026-00123.').doc_refs).toEqual(['SOP-101', '10 CFR 50.59', 'CR-2026-00123']);
  });
});

describe('the scan is linear', () => {
  it('reads a long run of cue words and numbers once', () => {
    const text = 'Condition Report No. 1234567, '.repeat(20000) + 'LER ' + '2019-'.repeat(20000);
    const started = process.hrtime.bigint();
    referenceSpans(text);
    // A generous bound that only catches a quadratic walk (seconds, not milliseconds).
    expect(Number(process.hrtime.bigint() - started) / 1e9).toBeLessThan(5);
  });
});
