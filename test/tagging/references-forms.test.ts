import { describe, expect, it } from 'vitest';
import { extractPatterns } from '../../src/tagging/extractors.js';

// A probe table of the reference, designator and clock-time forms NRC and licensee documents use,
// written from the families' numbering conventions (not copied from the real-text set), each a few
// ways: spacing, OCR damage ("l" for "1", "O" for "0"), a line break inside, in brackets.
//
// A reference probe passes when some doc ref holds the expected text as whole words (the labelling
// convention: the cue word kept when the text gives one, the number as spelled). An equipment probe
// passes when the designator is an equipment id; a "not equipment" probe when no equipment id
// overlaps the number. A time probe passes when a temporal ref holds the clock time.

const norm = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();
/** Whether `item` holds `want` as whole words (blanks folded). */
function holds(item: string, want: string): boolean {
  const i = norm(item);
  const w = norm(want);
  if (i === w) return true;
  const at = i.indexOf(w);
  if (at < 0) return false;
  const before = i.charCodeAt(at - 1);
  const after = i.charCodeAt(at + w.length);
  const edge = (c: number): boolean => Number.isNaN(c) || !/[a-z0-9]/.test(String.fromCharCode(c));
  return edge(before) && edge(after);
}

// [text, expected reference]
const REFERENCES: Array<[string, string]> = [
  // Licensee event reports.
  ['as reported in LER 50-387/2019-003-00 for the event', 'LER 50-387/2019-003-00'],
  ['as reported in LER 2019-003-00 for the event', 'LER 2019-003-00'],
  ['Licensee Event Report 05000387/2019-003-00 describes', 'Licensee Event Report 05000387/2019-003-00'],
  ['see LER 387/2019-003 and', 'LER 387/2019-003'],
  ['see LER 2019-003, Revision 1', 'LER 2019-003'],
  ['reported in LER 50-387/88-012 in 1988', 'LER 50-387/88-012'],
  ['reported in LER 88-012-01 in 1988', 'LER 88-012-01'],
  ['in (LER 2019-003-00) the licensee', 'LER 2019-003-00'],
  ['LER 2Ol9-OO3-OO was received', 'LER 2Ol9-OO3-OO'],
  ['LER\n2019-003-00 was received', '2019-003-00'],
  ['LER 05000387/2019-003-00 was', 'LER 05000387/2019-003-00'],
  ['LERs 2019-001-00 and 2019-002-00 report', '2019-002-00'],
  // Inspection reports.
  ['documented in 05000275/2019002 the', '05000275/2019002'],
  ['documented in Inspection Report 50-275/98-12 the', 'Inspection Report 50-275/98-12'],
  ['documented in IR 05000313/2020-010 the', 'IR 05000313/2020-010'],
  ['NRC Inspection Report 05000313/2020010 and', 'Inspection Report 05000313/2020010'],
  ['Inspection Report Nos. 50-275/98-12 and 50-323/98-12', '50-323/98-12'],
  ['Inspection Report No. 05000275/2019-002\nissued', 'Inspection Report No. 05000275/2019-002'],
  ['Integrated Inspection Report 05000275/2019002 and', '05000275/2019002'],
  ['(Report 05000275/2019002) the', 'Report 05000275/2019002'],
  ['IR O5000275/2019002 was issued', 'O5000275/2019002'],
  ['IR 05000275 /2019002 was issued', '05000275 /2019002'],
  ['IR 05000275/ 2019002 was issued', '05000275/ 2019002'],
  // Enforcement items.
  ['NCV 05000387/2019003-01, Failure to', 'NCV 05000387/2019003-01'],
  ['FIN 05000387/2019003-02, Failure to', 'FIN 05000387/2019003-02'],
  ['VIO 05000387/2019003-03, Failure to', 'VIO 05000387/2019003-03'],
  ['URI 05000387/2019003-04, Review of', 'URI 05000387/2019003-04'],
  ['AV 05000387/2019003-05, Failure to', 'AV 05000387/2019003-05'],
  ['Non-Cited Violation (NCV) 05000387/2019003-01 was', '05000387/2019003-01'],
  ['Non-Cited Violation 05000387/2019003-01 was', '05000387/2019003-01'],
  ['Unresolved Item (URI) 05000387/2019003-04 was', '05000387/2019003-04'],
  ['Notice of Violation 05000387/2019003-03 was', '05000387/2019003-03'],
  ['NCV 50-387/98-12-01 was', 'NCV 50-387/98-12-01'],
  ['closed: 05000387/2019003-01 NCV Failure to', '05000387/2019003-01'],
  ['EA-19-123 was issued', 'EA-19-123'],
  ['EA 2019-123 was issued', 'EA 2019-123'],
  ['IA-19-012 was issued', 'IA-19-012'],
  ['Enforcement Action EA-19-123 was', 'EA-19-123'],
  // ADAMS.
  ['ADAMS Accession No. ML19345F627 the', 'ML19345F627'],
  ['(ADAMS Accession Number ML081130777)', 'ML081130777'],
  ['(ML19345F627)', 'ML19345F627'],
  ['at ML 19345F627 and', 'ML 19345F627'],
  ['at MLl9345F627 and', 'MLl9345F627'],
  // Dockets and licences.
  ['Docket No. 50-321 and', '50-321'],
  ['Docket Nos. 50-321, 50-366 and', '50-366'],
  ['Docket No.: 05000321 and', '05000321'],
  ['Docket Number 50-321 and', '50-321'],
  ['Docket No. 5O-321 and', '5O-321'],
  ['Docket No. 50-3l7 and', '50-3l7'],
  ['Docket No.\n50-321\nLicense No. DPR-57', '50-321'],
  ['License No. DPR-57 and', 'DPR-57'],
  ['Facility Operating License NPF-14 and', 'NPF-14'],
  ['Renewed Facility Operating License No. DPR-57 and', 'DPR-57'],
  ['License Nos. DPR-57 and NPF-5', 'NPF-5'],
  ['licence DPR 57 and', 'DPR 57'],
  ['Construction Permit CPPR-81 and', 'CPPR-81'],
  // Inspection programme documents.
  ['per IMC 0609 App A the', 'IMC 0609 App A'],
  ['per IMC 0609, Appendix A, the', 'IMC 0609, Appendix A'],
  ['per IMC 0609 Appendix M the', 'IMC 0609 Appendix M'],
  ['per Inspection Manual Chapter (IMC) 0612 the', 'Inspection Manual Chapter (IMC) 0612'],
  ['per IMC 0609, Attachment 4, the', 'IMC 0609'],
  ['per IMC 0308, Attachment 6 the', 'IMC 0308'],
  ['per IP 71111.12 the', 'IP 71111.12'],
  ['per Inspection Procedure (IP) 71111.12 the', 'Inspection Procedure (IP) 71111.12'],
  ['per IP 71152 the', 'IP 71152'],
  ['per IP 71111.21M the', 'IP 71111.21M'],
  ['per Inspection Procedure 71111.05Q the', 'Inspection Procedure 71111.05Q'],
  ['per TI 2515/191 the', 'TI 2515/191'],
  ['per Temporary Instruction (TI) 2515/191 the', '2515/191'],
  // Generic communications.
  ['see IN 2019-04 and', 'IN 2019-04'],
  ['see Information Notice 86-09 and', 'Information Notice 86-09'],
  ['see NRC Information Notice 86-09, Supplement 1, and', 'Information Notice 86-09'],
  ['see GL 89-13 and', 'GL 89-13'],
  ['see Generic Letter 89-13, Supplement 1, and', 'Generic Letter 89-13'],
  ['see Bulletin 79-05A and', 'Bulletin 79-05A'],
  ['see IE Bulletin No. 79-05A and', 'IE Bulletin No. 79-05A'],
  ['see IE Circular 81-02 and', 'IE Circular 81-02'],
  ['see IE Circular No. 81-02 and', 'IE Circular No. 81-02'],
  ['see RIS 2005-20 and', 'RIS 2005-20'],
  ['see Regulatory Issue Summary (RIS) 2005-20 and', '2005-20'],
  ['see NRC Regulatory Issue Summary 2005-20, Revision 1, and', 'Regulatory Issue Summary 2005-20'],
  ['see IN 86-O9 and', 'IN 86-O9'],
  ['see Information\nNotice 86-09 and', 'Notice 86-09'],
  ['see IN 2019-04, Revision 1 and', 'IN 2019-04'],
  ['see NRC Bulletin 2012-01 and', 'Bulletin 2012-01'],
  ['see Administrative Letter 98-10 and', 'Administrative Letter 98-10'],
  ['see Generic Letter (GL) 89-13 and', '89-13'],
  // NUREG, Regulatory Guides, SECY, Part 21.
  ['see NUREG-1022 and', 'NUREG-1022'],
  ['see NUREG-1022, Revision 3, and', 'NUREG-1022'],
  ['see NUREG/CR-6928 and', 'NUREG/CR-6928'],
  ['see NUREG 1022 and', 'NUREG 1022'],
  ['see NUREG-0800 Section 9.2.1 and', 'NUREG-0800'],
  ['see Regulatory Guide 1.33 and', 'Regulatory Guide 1.33'],
  ['see Regulatory Guide (RG) 1.33 and', '1.33'],
  ['see RG 1.97 and', 'RG 1.97'],
  ['see Reg. Guide 1.97 and', 'Reg. Guide 1.97'],
  ['see SECY-04-0111 and', 'SECY-04-0111'],
  ['see SECY 04-0111 and', 'SECY 04-0111'],
  ['Part 21 Event Number 54321 was', '54321'],
  // Event numbers.
  ['Event Number: 54321\nRep Org', '54321'],
  ['Event Number:   54321', '54321'],
  ['EN 54321 was retracted', '54321'],
  ['(EN 54321) was retracted', '54321'],
  ['EN# 54321 was retracted', '54321'],
  ['Event Notification (EN) 54321 was', '54321'],
  ['Event Report 54321 was retracted', '54321'],
  // Plant corrective action and work records.
  ['entered as CR-XYZ-2019-01234 and', 'CR-XYZ-2019-01234'],
  ['entered as CR 2019-01234 and', 'CR 2019-01234'],
  ['entered as AR 01234567 and', 'AR 01234567'],
  ['entered as Condition Report 123456 and', 'Condition Report 123456'],
  ['entered as Action Request (AR) 4510234 and', '4510234'],
  ['entered as NCR 412233 and', 'NCR 412233'],
  ['under WO 12345678 and', 'WO 12345678'],
  ['under Work Order 1234567 and', 'Work Order 1234567'],
  ['under PM-3345 and', 'PM-3345'],
  ['under CAP 01234 and', 'CAP 01234'],
  ['entered as IR 04012345 and', 'IR 04012345'],
  ['entered as Issue Report (IR) 04012345 and', '04012345'],
  ['entered as NOTF 20123456 and', 'NOTF 20123456'],
  ['entered as Notification 20123456 and', 'Notification 20123456'],
  ['entered as PIP G-19-01234 and', 'PIP G-19-01234'],
  ['entered as ACR 2019-1234 and', 'ACR 2019-1234'],
  ['entered as CR-2019-01234 and', 'CR-2019-01234'],
  ['entered as CR 2019-1234 and', 'CR 2019-1234'],
  ['entered as CRs 2019-01234 and 2019-01240', '2019-01240'],
  ['entered as Condition Report (CR) 2019-01234 and', '2019-01234'],
  ['entered as CR No. 2019-01234 and', 'CR No. 2019-01234'],
  ['entered as CR# 123456 and', '123456'],
  ['entered as AR 0l234567 and', 'AR 0l234567'],
  ['entered as Work Request 123456 and', 'Work Request 123456'],
  ['entered as WR 123456 and', 'WR 123456'],
  ['entered as Work Order (WO) 1234567 and', '1234567'],
  ['entered as CAP 2019-01234 and', 'CAP 2019-01234'],
  ['entered as AR 1234567-01 and', 'AR 1234567-01'],
  ['entered as CR-HNP-2019-01234 and', 'CR-HNP-2019-01234'],
  ['entered as CR-2019-\n01234 and', 'CR-2019-\n01234'],
  ['entered as Corrective Action Program document 123456 and', '123456'],
  ['entered as TR 123456 (trouble report) and', 'TR 123456'],
  ['under Work Order 01234567-01 and', 'Work Order 01234567-01'],
  // Cause evaluations and procedure change requests.
  ['the Apparent Cause Evaluation ACE 2020-0042 found', 'ACE 2020-0042'],
  ['RCE 04567 identified two causes', 'RCE 04567'],
  ['Root Cause Evaluation 2018-003 found', 'Root Cause Evaluation 2018-003'],
  ['PCR 21-0315 revised the step', 'PCR 21-0315'],
  ['Procedure Change Request 2021-115 added a caution', 'Procedure Change Request 2021-115'],
  // Procedures.
  ['per 2-EOP-3 the', '2-EOP-3'],
  ['per ES-1.2 the', 'ES-1.2'],
  ['per OP-AB-101-105 the', 'OP-AB-101-105'],
  ['per 0-ON-004 the', '0-ON-004'],
  ['entered 0-ON-004, Loss of', '0-ON-004'],
  ['performed SP-0-RHR-001 and', 'SP-0-RHR-001'],
  ['surveillance procedure 34SV-R43-001-1 was', '34SV-R43-001-1'],
  ['performed 34SV-R43-001-1 and', '34SV-R43-001-1'],
  ['entered AOP-1.2 and', 'AOP-1.2'],
  ['entered abnormal operating procedure AOP-14 and', 'AOP-14'],
  ['entered EOP-1 and', 'EOP-1'],
  ['entered 1-AP-17.02 and', '1-AP-17.02'],
  ['entered 2-OHP-4021-001-003 and', '2-OHP-4021-001-003'],
  ['performed OSP-0001 and', 'OSP-0001'],
  ['performed surveillance test STP-123 and', 'STP-123'],
  ['performed procedure 2-ST-3.3.1 and', '2-ST-3.3.1'],
  ['performed procedure MA-AA-716-010 and', 'MA-AA-716-010'],
  ['performed procedure ER-AA-600-1042 and', 'ER-AA-600-1042'],
  ['performed procedure LS-AA-125 and', 'LS-AA-125'],
  ['performed procedure OP-MW-102-100 and', 'OP-MW-102-100'],
  ['performed procedure EN-LI-102 and', 'EN-LI-102'],
  ['performed procedure NMP-GM-002 and', 'NMP-GM-002'],
  ['performed procedure PI-AA-120 and', 'PI-AA-120'],
  ['entered procedure 0-ABN-4 and', '0-ABN-4'],
  ['entered AOP-302, Loss of', 'AOP-302'],
  ['entered Procedure 1-GOP-102 and', '1-GOP-102'],
  ['performed SR 3.8.1.2 per 0-SI-4.8.1', '0-SI-4.8.1'],
  ['performed 1-SR-3.3.1.1 and', '1-SR-3.3.1.1'],
  // 10 CFR.
  ['under 10 CFR 50.73(a)(2)(v)(D) the', '10 CFR 50.73(a)(2)(v)(D)'],
  ['under 10CFR50.72(b)(3)(xiii) the', '10CFR50.72(b)(3)(xiii)'],
  ['under 10 CPR 50.72 the', '10 CPR 50.72'],
  ['under 10 CFR Part 21 the', '10 CFR Part 21'],
  ['under 10 CFR 21.21(d)(3)(i) the', '10 CFR 21.21(d)(3)(i)'],
  ['under 10 CFR 50.73 (a)(2)(i)(B) the', '10 CFR 50.73 (a)(2)(i)(B)'],
  ['under 10 CFR 50.72(b)(2)(iv)(B), and', '10 CFR 50.72(b)(2)(iv)(B)'],
  ['under 10 CFR\n50.73(a)(2)(v)(D) the', '10 CFR\n50.73(a)(2)(v)(D)'],
  ['under 10 CFR 50, Appendix B, Criterion XVI the', '10 CFR 50, Appendix B, Criterion XVI'],
  ['under 10 CFR 50 Appendix R the', '10 CFR 50 Appendix R'],
  ['under Appendix B to 10 CFR Part 50 the', '10 CFR Part 50'],
  ['under 10 CFR 50.65(a)(4) the', '10 CFR 50.65(a)(4)'],
  ['under 10 CFR 50.55a the', '10 CFR 50.55a'],
  ['under 10 CFR 73.71 the', '10 CFR 73.71'],
  ['under 10 CFR 26.719 the', '10 CFR 26.719'],
  ['under Title 10 of the Code of Federal Regulations (10 CFR) 50.73(a)(2)(i)(B)', '50.73(a)(2)(i)(B)'],
  ['under 10 CFR 50.73(a)(2)(i)(B), (a)(2)(v)(D) and', '10 CFR 50.73(a)(2)(i)(B)'],
  ['under l0 CFR 50.72 the', 'l0 CFR 50.72'],
  ['under 10 CFR 50.72(b)(3)(v)(A) and (D) the', '10 CFR 50.72(b)(3)(v)(A)'],
  ['under 10 C.F.R. § 50.9 the', '10 C.F.R. § 50.9'],
  ['under 10 CFR § 50.9 the', '10 CFR § 50.9'],
  // Technical Specifications.
  ['entered TS 3.8.1 and', 'TS 3.8.1'],
  ['entered Technical Specification (TS) 3.5.1 Condition B and', 'Technical Specification (TS) 3.5.1'],
  ['entered LCO 3.0.3 and', 'LCO 3.0.3'],
  ['performed SR 3.8.1.2 and', 'SR 3.8.1.2'],
  ['per TRM 3.3.1 and', 'TRM 3.3.1'],
  ['per Technical Requirements Manual (TRM) 3.3.1 and', '3.3.1'],
  ['per TS LCO 3.8.1 and', 'LCO 3.8.1'],
  ['per Tech Spec 3.6.1.3 and', 'Tech Spec 3.6.1.3'],
  ['per TS 3.4.6.2.d and', 'TS 3.4.6.2.d'],
  ['per Technical Specification 3/4.8.1.1 and', 'Technical Specification 3/4.8.1.1'],
  ['per TS 3/4.7.1 and', 'TS 3/4.7.1'],
  ['per Technical Specification Surveillance Requirement 4.8.1.1.2 and', '4.8.1.1.2'],
  ['per TS Table 3.3.1-1 and', 'TS Table 3.3.1-1'],
  ['per TS 5.5.2 and', 'TS 5.5.2'],
  ['per Technical Specification Section 6.8.1 and', 'Technical Specification Section 6.8.1'],
  ['per TS Section 5.4.1.a and', 'TS Section 5.4.1.a'],
  ['per Technical Specifications (TS) 3.7.5, Condition A, and', '3.7.5'],
  // Codes and standards.
  ['per ASME Section XI and', 'ASME Section XI'],
  ['per IWV-3521 and', 'IWV-3521'],
  ['per ASME OM Code ISTC-3630 and', 'ISTC-3630'],
  ['per IEEE 323-1974 and', 'IEEE 323-1974'],
  ['per IEEE Std 308-1980 and', 'IEEE Std 308-1980'],
  ['per ASME Code Case N-513-3 and', 'N-513-3'],
  ['per ANSI N45.2 and', 'ANSI N45.2'],
  ['per ASME NQA-1 and', 'NQA-1'],
  ['per ASME B31.1 and', 'ASME B31.1'],
  ['per NFPA 805 and', 'NFPA 805'],
  ['per ASME Section III, Subsection NB, and', 'ASME Section III'],
  ['per Section XI of the ASME Code and', 'Section XI'],
  ['per ISTB-5121 and', 'ISTB-5121'],
  ['per IWB-3514 and', 'IWB-3514'],
  ['per 10 CFR 50.55a(g)(4) and', '10 CFR 50.55a(g)(4)'],
  ['per EPRI TR-107396 and', 'TR-107396'],
  ['per NEI 99-04 and', 'NEI 99-04'],
  ['per INPO SOER 02-4 and', 'SOER 02-4'],
  ['per WCAP-16793-NP and', 'WCAP-16793-NP'],
  ['per Generic Letter 88-20 and NUREG-1150 and', 'NUREG-1150'],
  ['per GDC 17 and', 'GDC 17'],
  // Licensee letter numbers: by their place before the letter's date, by the NRC-bound series, a unit digit.
  ['WXY-31234 March 3, 2031 U.S. Nuclear Regulatory Commission', 'WXY-31234'],
  ['Q-712345 June 9, 2031\nDocument Control Desk', 'Q-712345'],
  ['Unit 1 ABC-NRC-2031-17 10 CFR 50.73', 'ABC-NRC-2031-17'],
  ['License No. NPF-99 XYZ2-31-0042\nDear Sir', 'XYZ2-31-0042'],
  // Materials licences of the NRC and Agreement States, in a form field and after "License No.".
  ['License #: 12-34567-01\nAgreement: Y', '12-34567-01'],
  ['License #: 310-123-4\nAgreement: Y', '310-123-4'],
  ['License #: NV 4567890\nAgreement: Y', 'NV 4567890'],
  ['under License No. 21-12345-02, the licensee', '21-12345-02'],
  // Docket numbers in a list after a plant's name.
  ['Plant X 1, 2 (50-901, 50-902)', '50-902'],
  ['Plant Y 1, 2, 3 (50-11, 50-903, 50-904)', '50-11'],
  ['Fuel Co. (70-1234)', '70-1234'],
  ['DN: 50-905 Trans', '50-905'],
  // Vendor inspection reports and findings under their docket.
  ['(see Notice of Violation 99901234/2031-201-01).', 'Notice of Violation 99901234/2031-201-01'],
  ['Inspection 99901234/2031-201 found', '99901234/2031-201'],
  ['05000901/FIN-2031001-01 Plant X', '05000901/FIN-2031001-01'],
  ['05000901/NCV-2031001-02Plant X2031Q1', '05000901/NCV-2031001-02'],
  // Event Notification System and state incident numbers.
  ['| ENS 61234 | 2 May 2031 |', 'ENS 61234'],
  ['State Incident Number: 12345', '12345'],
  // Documents named by their title: the Enforcement Policy, the Maintenance Rule, Appendix B's criteria, state statutes.
  ['consistent with Section 2.3.2 of the Enforcement Policy.', 'Enforcement Policy'],
  ['the criteria of the NRC Enforcement Policy for', 'NRC Enforcement Policy'],
  ['Consistent with Section 6.9, Paragraph d.9, of the NRC Enforcement Policy, the', 'Section 6.9, Paragraph d.9, of the NRC Enforcement Policy'],
  ['requirements of 10 CFR 50.65 [the Maintenance Rule]', 'Maintenance Rule'],
  ['Criterion XVI requires, in part,', 'Criterion XVI'],
  ['Criterion IV of Appendix B', 'Criterion IV'],
  ['In particular, Section XVII, "Quality Assurance Records," requires', 'Section XVII'],
  ['in accordance with Oregon Statute 469.530, the', 'Oregon Statute 469.530'],
  // Federal Register citations.
  ['the final rule (61 FR 65157) changed', '61 FR 65157'],
  // Procedures with a blank for the first hyphen; dotted abnormal procedures; EOP header fields.
  ['PROCEDURE EPIP 2-7 4 EPIP 2-12 3', 'EPIP 2-12'],
  ['entered from AP-IA.2, LOSS OF AIR', 'AP-IA.2'],
  ['entered from AP-CCW.l, LOSS OF CCW', 'AP-CCW.l'],
  ['EOP:FR-C.2TITLE:RESPONSE', 'FR-C.2'],
  ['EOP:ES-1.3TITLE:TRANSFER', 'ES-1.3'],
  ['go to FR-P.l, RESPONSE', 'FR-P.l'],
  ['RESOLUTION OF GENERIC SAFETY ISSUE 124, "AUXILIARY', 'GENERIC SAFETY ISSUE 124'],
];

// [text, designator] that must be an equipment id (as written, with its noun when it has one).
const EQUIPMENT: Array<[string, string]> = [
  ['the 1-FCV-62-93 valve closed', '1-FCV-62-93'],
  ['pump P-101A tripped', 'P-101A'],
  ['switch 2-HS-3-48A was', '2-HS-3-48A'],
  ['DG 2A was started', 'DG 2A'],
  ['EDG #2 was started', 'EDG #2'],
  ['EDG No. 2 was started', 'EDG No. 2'],
  ['EDG 2 was started', 'EDG 2'],
  ['the 2B EDG was started', '2B EDG'],
  ['Bus 3C was lost', 'Bus 3C'],
  ['4160V bus 1E was lost', 'bus 1E'],
  ['4160 V Bus 1E was lost', 'Bus 1E'],
  ['the 1E 4160V bus was lost', '1E 4160V bus'],
  ['Feeder X12 tripped', 'Feeder X12'],
  ['TR 4 tripped', 'TR 4'],
  ['the 1B RHR pump tripped', '1B RHR pump'],
  ['MOV 1-SI-8801A failed', '1-SI-8801A'],
  ['valve 2CS*MOV108 failed', '2CS*MOV108'],
  ['valve 2RCS*PT455 failed', '2RCS*PT455'],
  ['breaker 52-1A3 opened', '52-1A3'],
  ['transformer T-21 failed', 'T-21'],
  ['transformer 1X03 failed', '1X03'],
  ['Transformer 21 failed', 'Transformer 21'],
  ['the A RHR pump tripped', 'A RHR pump'],
  ["the 'A' RHR pump tripped", "'A' RHR pump"],
  ['the 11 charging pump tripped', '11 charging pump'],
  ['the No. 12 SW pump tripped', 'No. 12 SW pump'],
  ['the 1A emergency diesel generator tripped', '1A emergency diesel generator'],
  ['MCC 2B was deenergized', 'MCC 2B'],
  ['Bus 11 was deenergized', 'Bus 11'],
  ['Buses 2A and 3A were deenergized', 'Buses 2A'],
  ['battery charger 1A was', 'charger 1A'],
  ['inverter 2B was', 'inverter 2B'],
  ['valve HV-2-1234 failed', 'HV-2-1234'],
  ['valve 1-RH-8701A failed', '1-RH-8701A'],
  ['relay 27-1A failed', '27-1A'],
  ['pump 2P-35A failed', '2P-35A'],
  ['the E12-F008 valve failed', 'E12-F008'],
  ['valve 1E51-F045 failed', '1E51-F045'],
  ['valve 2E11-F017B failed', '2E11-F017B'],
  ['the SW-V-15 valve failed', 'SW-V-15'],
  ['the 21 SG tube', '21 SG'],
  ['reactor coolant pump 1B tripped', 'pump 1B'],
  ['RCP 1B tripped', 'RCP 1B'],
  ['the 2-1 diesel generator was', '2-1 diesel generator'],
  ['penetration X-12 failed', 'X-12'],
  ['the Division 1 EDG tripped', 'Division 1 EDG'],
  ['the B train RHR pump tripped', 'B train RHR pump'],
  ['the 1-PT-455 transmitter failed', '1-PT-455'],
  ['the PT-455 transmitter failed', 'PT-455'],
  ['the FT-1102 flow transmitter', 'FT-1102'],
];

// [text, number] that must not be (part of) an equipment id.
const NOT_EQUIPMENT: Array<[string, string]> = [
  ['per procedure 2-EOP-3 the', '2-EOP-3'],
  ['per OP-AB-101-105 the', 'OP-AB-101-105'],
  ['per 0-ON-004 the', '0-ON-004'],
  ['per ES-1.2 the', 'ES-1.2'],
  ['per 34SV-R43-001-1 the', '34SV-R43-001-1'],
  ['per MA-AA-716-010 the', 'MA-AA-716-010'],
  ['per EN-LI-102 the', 'EN-LI-102'],
  ['per SP-0-RHR-001 the', 'SP-0-RHR-001'],
  ['Docket No. 50-321 the', '50-321'],
  ['License DPR-57 the', 'DPR-57'],
  ['License NPF-14 the', 'NPF-14'],
  ['a relay model 1200-SX was', '1200-SX'],
  ['a relay, model no. 12HFA51A42H, was', '12HFA51A42H'],
  ['part number 123-456 was', '123-456'],
  ['part no. 123-456A was', '123-456A'],
  ['P/N 123-456 was', '123-456'],
  ['S/N 1234 was', '1234'],
  ['serial number 12-3456 was', '12-3456'],
  ['serial no. AB-1234 was', 'AB-1234'],
  ['catalogue number CR-120-A was', 'CR-120-A'],
  ['catalog number 7-1234-5 was', '7-1234-5'],
  ['Type HFA-51 relays were', 'HFA-51'],
  ['the valve [V] and pump [P] in [BA]', '[P]'],
  ['the pump (EIIS: P) in the system [BA]', 'BA'],
  ['the system [EIIS: BA] and component [P]', 'BA'],
  ['the valve [ISV] was', 'ISV'],
  ['NUREG-1022 says', 'NUREG-1022'],
  ['NUREG/CR-6928 says', 'CR-6928'],
  ['IEEE 323-1974 says', '323-1974'],
  ['SECY-04-0111 says', 'SECY-04-0111'],
  ['EA-19-123 says', 'EA-19-123'],
  ['IA-19-012 says', 'IA-19-012'],
  ['ASME Code Case N-513-3 says', 'N-513-3'],
  ['EPRI TR-107396 says', 'TR-107396'],
  ['EPRI NP-5652 says', 'NP-5652'],
  ['PIP G-19-01234 says', 'G-19-01234'],
  ['Figure 3-1 shows', '3-1'],
  ['Table 3.3.1-1 shows', '3.3.1-1'],
  ['Attachment 2-A shows', '2-A'],
  ['Revision 3-A shows', '3-A'],
  ['NCV 05000387/2019003-01 was', '2019003-01'],
  ['WO 12345678-01 was', '12345678-01'],
  ['AR 1234567-01 was', '1234567-01'],
  ['the IR 2019-003 and', '2019-003'],
  ['drawing M-123 shows', 'M-123'],
  ['drawing E-1234-A shows', 'E-1234-A'],
  ['calculation CALC-M-123 shows', 'CALC-M-123'],
  ['manufactured by GE as model NT-300 and', 'NT-300'],
  ['lot number L-12345 and', 'L-12345'],
  ['Code Case N-513 applies', 'N-513'],
  ['ISTC-3630 applies', 'ISTC-3630'],
  ['IWV-3521 applies', 'IWV-3521'],
  ['RX TYPE: [1] GE-4,[2] GE-4', 'GE-4'],
  ['Reg Guide 1.97 Rev. 3 applies', '1.97'],
  // Letter numbers are no equipment.
  ['Unit 1 ABC-NRC-2031-17 10 CFR 50.73', 'ABC-NRC-2031-17'],
  ['WXY-31234 March 3, 2031 U.S. Nuclear Regulatory Commission', 'WXY-31234'],
];

// [text, clock time].
const TIMES: Array<[string, string]> = [
  ['at 1430 CDT the', '1430 CDT'],
  ['at 0624 EDT the', '0624 EDT'],
  ['at 0145 the reactor', '0145'],
  ['At 0145, the reactor', '0145'],
  ['at 1735Z the', '1735Z'],
  ['at 1735 Zulu the', '1735 Zulu'],
  ['NOTIFICATION TIME: 04:56 [EDT]', '04:56 [EDT]'],
  ['Event Time: 04:56[EDT]', '04:56[EDT]'],
  ['at 2:15 a.m. the', '2:15 a.m.'],
  ['at 2:15 AM the', '2:15 AM'],
  ['at 2:15 p.m. on', '2:15 p.m.'],
  ['at 1415 hours the', '1415 hours'],
  ['at 1415 hrs the', '1415 hrs'],
  ['at approximately 1415 hours the', '1415 hours'],
  ['at approximately 0300 the', '0300'],
  ['at about 0300 the', '0300'],
  ['at 0300 on May 5 the', '0300'],
  ['at 0300 when the', '0300'],
  ['at 0300. The', '0300'],
  ['at 0300 EST on', '0300 EST'],
  ['at 0300 Eastern Standard Time', '0300 Eastern Standard Time'],
  ['at 0300 (EST) the', '0300 (EST)'],
  ['at 0300 [EST] the', '0300 [EST]'],
  ['at 0300 CST the', '0300 CST'],
  ['at 0300 MDT the', '0300 MDT'],
  ['at 0300 PDT the', '0300 PDT'],
  ['at 0300 ET the', '0300 ET'],
  ['at 0300 CT the', '0300 CT'],
  ['at 0300 local time the', '0300 local'],
  ['at 0300 UTC the', '0300 UTC'],
  ['at 03:00 EST the', '03:00 EST'],
  ['On May 5, 2019, at 1415, the', '1415'],
  ['between 0300 and 0415 hours the', '0415 hours'],
  ['from 0300 to 0415 EDT the', '0415 EDT'],
  ['at 0300 the next day', '0300'],
  ['at 14:15 the', '14:15'],
  ['at 1415 (CDT) the', '1415 (CDT)'],
  ['at 1415 CDT, the', '1415 CDT'],
  ['at 1415CDT the', '1415CDT'],
  ['at 0800 hours on', '0800 hours'],
  ['At approximately 2230 on', '2230'],
  ['Time: 1415 EDT\nDate', '1415 EDT'],
  ['at 1415 Eastern Daylight Time (EDT) the', '1415 Eastern Daylight Time'],
  ['at 1415 Central Daylight Time the', '1415 Central Daylight Time'],
  ['at 9:30 the', '9:30'],
  ['at 2:15 a.m. EDT the', '2:15 a.m.'],
  ['at 11:05 PM on', '11:05 PM'],
];

// Forms the rules do not read yet, kept so a rule that starts reading one is noticed: a blank
// inside a section number after its second dot, dotted zone letters, an OCR'd digit inside a clock
// time, a train letter after a bracketed acronym.
const KNOWN_GAPS: Array<[string, string, (text: string) => string[]]> = [
  ['per TS 3.8. 1 and', 'TS 3.8. 1', (t) => extractPatterns(t).doc_refs],
  ['at 1415 c.d.t. the', '1415 c.d.t.', (t) => extractPatterns(t).temporal_refs],
  ['at 14l5 CDT the', '14l5 CDT', (t) => extractPatterns(t).temporal_refs],
  ['steam generator (SG) B was', 'SG B', (t) => extractPatterns(t).equipment_ids],
];

describe('forms not read yet', () => {
  it.fails.each(KNOWN_GAPS)('%s → %s', (text, want, read) => {
    expect(read(text).some((r) => holds(r, want))).toBe(true);
  });
});

describe('reference forms', () => {
  it.each(REFERENCES)('%s → %s', (text, want) => {
    const refs = extractPatterns(text).doc_refs;
    expect(refs.some((r) => holds(r, want)), `doc_refs: ${JSON.stringify(refs)}`).toBe(true);
  });
});

describe('equipment designators', () => {
  it.each(EQUIPMENT)('%s → %s', (text, want) => {
    const ids = extractPatterns(text).equipment_ids;
    expect(ids.some((r) => holds(r, want)), `equipment_ids: ${JSON.stringify(ids)}`).toBe(true);
  });
});

describe('numbers that are not equipment', () => {
  it.each(NOT_EQUIPMENT)('%s ↛ %s', (text, number) => {
    const ids = extractPatterns(text).equipment_ids;
    const overlapping = ids.filter((id) => norm(id).includes(norm(number)) || norm(number).includes(norm(id)));
    expect(overlapping, `equipment_ids: ${JSON.stringify(ids)}`).toEqual([]);
  });
});

describe('clock times', () => {
  it.each(TIMES)('%s → %s', (text, want) => {
    const times = extractPatterns(text).temporal_refs;
    expect(times.some((t) => holds(t, want)), `temporal_refs: ${JSON.stringify(times)}`).toBe(true);
  });
});

// What the widened rules must still leave alone.
describe('near misses stay what they are', () => {
  it.each<[string, string, 'temporal_refs' | 'doc_refs' | 'equipment_ids', string[]]>([
    ['a pressure, a speed and a current after "at" are no times', 'held at 1500 psig, run at 1800 rpm and tripped at 1200 A on overcurrent', 'temporal_refs', []],
    ['"TR 4" is a transformer, not a trouble report', 'TR 4 tripped and TR 12 was isolated', 'doc_refs', []],
    ['a date after a notification word is no record number', 'Notification 05/12/2019 and NOTIFICATION TIME: 12:53', 'doc_refs', []],
    ['an article is no train letter', 'The pump started and a pump was in the A area of the building', 'equipment_ids', []],
    ['grid cells after no equipment noun are no tags', 'cells A-1 and B-2 on page 3-1', 'equipment_ids', []],
    ['a tag before a date is no letter number', 'P-12 July 3, 2031 and MOV-123 May 1, 2031; pump P-12345 July 3, 2031 tripped', 'doc_refs', []],
    ['a range in brackets is no docket list', 'flow (50-100 gpm) and (30-40)', 'doc_refs', []],
    ['"Criterion" with a number is a design criterion, not Appendix B', 'Criterion 17 and criterion X2', 'doc_refs', []],
    ['a section numeral without a quoted title is the document\'s own section', 'as Section IV, below, describes', 'doc_refs', []],
    ['a lower-case rule and policy are no titles', 'the maintenance rule and the enforcement policy', 'doc_refs', []],
    ['an abnormal procedure name needs its number', 'AP-IA, AP-CCW.', 'doc_refs', []],
    ['"FR" after a count is no Federal Register', '5 FR 12 and 56 FR 40', 'doc_refs', []],
    ['"TR 4" stays equipment', 'TR 4 tripped', 'equipment_ids', ['TR 4']],
  ])('%s', (_name, text, field, expected) => {
    expect(extractPatterns(text)[field]).toEqual(expected);
  });
});
