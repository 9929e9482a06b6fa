import { describe, expect, it } from 'vitest';
import { DOC_TYPES, SECTION_ROLES } from '../../src/contracts/vocabulary.js';
import type { DocType } from '../../src/contracts/vocabulary.js';
import { chunkRole, sectionRole, sectionRoleInPath } from '../../src/tagging/section-role.js';
import { readingOf } from '../../src/tagging/layout.js';
import { ContextBuilder } from '../../src/tagging/context.js';
import type { DocSubtype } from '../../src/contracts/vocabulary.js';

type Case = readonly [DocType, string, string];

const CASES: readonly Case[] = [
  // SOP
  ['SOP', '1. Purpose', 'purpose'],
  ['SOP', '2. Scope', 'scope'],
  ['SOP', 'Applicability', 'scope'],
  ['SOP', 'Applicable Systems', 'scope'],
  ['SOP', '3. References', 'references'],
  ['SOP', 'Definitions and Acronyms', 'definitions'],
  ['SOP', 'Prerequisites', 'preconditions'],
  ['SOP', '4.1 Initial Conditions', 'preconditions'],
  ['SOP', 'Precautions and Limitations', 'constraints'],
  ['SOP', '**CAUTION**', 'constraints'],
  ['SOP', 'Hold Points', 'constraints'],
  ['SOP', '5. Procedure', 'steps'],
  ['SOP', 'Step 3: Isolate the pump', 'steps'],
  ['SOP', 'Acceptance Criteria', 'acceptance'],
  ['SOP', 'Records', 'records'],
  ['SOP', 'Attachment 1 - Valve Lineup', 'attachments'],
  ['SOP', 'Appendix A', 'attachments'],
  ['SOP', 'Revision History', 'unknown'],
  ['SOP', 'Scoped Work', 'unknown'],
  // CR, including the DACKAR titles and the reference's known weaknesses
  ['CR', '**Condition Report (CR) - Elevated Vibration on AFW Pump P-101A**', 'header'],
  ['CR', 'Condition Report (CR) - Elevated Vibration on AFW Pump P-101A', 'header'],
  ['CR', '**1. Condition Description**', 'description'],
  ['CR', '1. Condition Description', 'description'],
  ['CR', '2. Immediate Actions', 'immediate_actions'],
  ['CR', '**4. Apparent Cause (if known)**', 'cause_statement'],
  ['CR', '5. Evidence / Data', 'evidence'],
  ['CR', '6. Planned Corrective Actions', 'corrective_actions'],
  ['CR', '3. Operability / Safety Significance', 'impact'],
  ['CR', 'Compensatory Measures', 'immediate_actions'],
  ['CR', 'Date Initiated', 'header'],
  ['CR', 'Initiator', 'header'],
  ['CR', 'Update on pump status', 'unknown'],
  ['CR', 'Photos', 'evidence'],
  ['CR', '', 'unknown'],
  // WO
  ['WO', 'Work Order Description', 'task'],
  ['WO', 'Work Order WO-2026-04567', 'header'],
  ['WO', 'Priority', 'header'],
  ['WO', 'Work Request', 'task'],
  ['WO', 'Work Steps', 'steps'],
  ['WO', 'As-Found Condition', 'as_found'],
  ['WO', 'As Found', 'as_found'],
  ['WO', 'Work Performed', 'work_performed'],
  ['WO', 'As-Left Condition', 'as_left'],
  ['WO', 'as left', 'as_left'],
  ['WO', 'Post-Maintenance Test Results', 'verification'],
  ['WO', 'Parts and Materials', 'parts_tools'],
  ['WO', 'Tools Used', 'parts_tools'],
  ['WO', 'Closeout Notes', 'closeout'],
  ['WO', 'Woodwork', 'unknown'],
  ['WO', '   ', 'unknown'],
  // ECA
  ['ECA', 'Event Summary', 'event_summary'],
  ['ECA', 'Background', 'event_summary'],
  ['ECA', 'Sequence of Events', 'timeline'],
  ['ECA', 'Timeline', 'timeline'],
  ['ECA', 'Inspection Data', 'evidence_items'],
  ['ECA', 'Test Results', 'evidence_items'],
  ['ECA', 'Analysis', 'rationale'],
  ['ECA', 'Root Cause Analysis', 'causal_factors'],
  ['ECA', 'Contributing Causes', 'causal_factors'],
  ['ECA', 'Corrective and Preventive Actions', 'actions'],
  ['ECA', 'Recommendations', 'actions'],
  ['ECA', 'Lessons Learned', 'lessons'],
  ['ECA', 'Discussion', 'rationale'],
  // The NRC's forms: an EOP's and an LER's headings
  ['SOP', 'C. ENTRY CONDITIONS/SYMPTOMS', 'preconditions'],
  ['SOP', 'NOTE', 'constraints'],
  ['CR', 'Event Text', 'description'],
  ['CR', 'ABSTRACT', 'description'],
  ['CR', 'CONDITIONS PRIOR TO OCCURRENCE', 'description'],
  ['CR', 'III. Assessment of Safety Consequences', 'impact'],
  ['CR', 'Safety Consequences and Implications', 'impact'],
  ['CR', 'REPORTABILITY', 'reportability'],
  ['CR', 'Previous Similar Events', 'previous_events'],
  ['CR', 'Failed Component Information', 'evidence'],
  // An LER's narrative sections (NRC Form 366A) and a Part 21 report's
  ['CR', 'III. ANALYSIS OF THE EVENT', 'impact'],
  ['CR', 'Event Analysis', 'impact'],
  ['CR', 'SAFETY SYSTEM FUNCTIONAL FAILURE', 'impact'],
  ['CR', 'Root Cause Analysis', 'cause_statement'],
  ['CR', 'Cause Analysis', 'cause_statement'],
  ['CR', 'ACTIONS TAKEN', 'corrective_actions'],
  ['CR', 'Immediate Actions Taken', 'immediate_actions'],
  ['CR', 'Completed Actions', 'corrective_actions'],
  ['CR', 'Actions to Prevent Recurrence', 'corrective_actions'],
  ['CR', 'REASON FOR REPORT', 'reportability'],
  ['CR', 'Enclosure 2', 'evidence'],
  // OTHER: an inspection report's and a generic communication's parts
  ['OTHER', 'Purpose', 'purpose'],
  ['OTHER', 'Addressees:', 'purpose'],
  ['OTHER', 'Description of Circumstances:', 'description'],
  ['OTHER', 'Event Summary', 'summary'],
  ['OTHER', 'EXECUTIVE SUMMARY', 'summary'],
  ['OTHER', 'Discussion', 'discussion'],
  ['OTHER', '1R12 Maintenance Effectiveness > Inspection Scope', 'inspection_scope'],
  ['OTHER', 'Findings', 'finding'],
  ['OTHER', 'Non-Cited Violation', 'finding'],
  ['OTHER', 'Significance Determination', 'assessment'],
  ['OTHER', 'Enforcement', 'enforcement'],
  ['OTHER', 'NOTICE OF VIOLATION', 'enforcement'],
  ['OTHER', 'Licensee Actions', 'corrective_actions'],
  ['OTHER', 'Actions Requested', 'requested_actions'],
  ['OTHER', 'Required Response', 'requested_actions'],
  ['OTHER', 'References', 'references'],
  ['OTHER', 'Technical Contacts', 'contacts'],
  ['OTHER', 'Persons Contacted', 'contacts'],
  ['OTHER', 'Exit Meeting Summary', 'contacts'],
  ['OTHER', 'EXIT INTERVIEW', 'contacts'],
  ['OTHER', 'LIST OF DOCUMENTS REVIEWED', 'references'],
  ['OTHER', 'Attachment 1', 'unknown'],
  ['OTHER', '', 'unknown'],
];

describe('sectionRole', () => {
  it.each(CASES)('%s %j → %s', (docType, title, role) => {
    expect(sectionRole(docType, title)).toBe(role);
  });
});

describe('sectionRole: repeated and alternating calls', () => {
  it('gives the same answers in any call order', () => {
    const forward = CASES.map(([docType, title]) => sectionRole(docType, title));
    const backward = [...CASES].reverse().map(([docType, title]) => sectionRole(docType, title)).reverse();
    const twice = CASES.map(([docType, title]) => [sectionRole(docType, title), sectionRole(docType, title)]);
    expect(backward).toEqual(forward);
    expect(twice).toEqual(forward.map((role) => [role, role]));
  });

  it.each<[DocType, DocType, string]>([
    ['CR', 'WO', 'Description'],
    ['WO', 'OTHER', 'Work Order'],
    ['CR', 'OTHER', 'Discussion'],
  ])('same title under %s then %s differs by doc type', (first, second, title) => {
    expect(sectionRole(first, title)).not.toBe(sectionRole(second, title));
  });
});

describe('sectionRole: numbering and markdown do not change the role', () => {
  const decorations = ['%s', '1. %s', '4.2 %s', '4.2.1) %s', 'A. %s', 'IV. %s', '**%s**', '__%s__', '*%s*', '**3. %s**', '  %s  '];
  it.each(
    decorations.flatMap((pattern) =>
      (
        [
          ['CR', 'Condition Description', 'description'],
          ['SOP', 'Purpose', 'purpose'],
          ['WO', 'As-Left Condition', 'as_left'],
        ] as const
      ).map(([docType, title, role]) => [pattern, docType, title, role] as const),
    ),
  )('%j with %s %j → %s', (pattern, docType, title, role) => {
    expect(sectionRole(docType, pattern.replace('%s', title))).toBe(role);
  });
});

describe('sectionRole: every role it returns is in the vocabulary', () => {
  it.each(CASES)('%s %j', (docType, title) => {
    const roles: readonly string[] = SECTION_ROLES[docType];
    expect([...roles, 'unknown']).toContain(sectionRole(docType, title));
  });

  it('each doc type has at least five cases', () => {
    for (const docType of DOC_TYPES) {
      expect(CASES.filter(([t]) => t === docType).length).toBeGreaterThanOrEqual(5);
    }
  });
});

describe('sectionRole: machine-written headings are read as words', () => {
  it.each<[DocType, string, string]>([
    ['CR', 'corrective_actions', 'corrective_actions'],
    ['CR', 'cause_statement', 'cause_statement'],
    ['CR', 'symptom_description', 'description'],
    ['ECA', 'root_cause_determination', 'causal_factors'],
    ['WO', 'as_left_condition', 'as_left'],
    ['WO', 'as-found-condition', 'as_found'],
    ['WO', 'workScope', 'task'],
    ['SOP', 'operational_limits', 'constraints'],
    ['SOP', 'acceptance_criteria_table_2', 'acceptance'],
    // A heading with spaces keeps its compounds.
    ['WO', 'Post-Maintenance Test', 'verification'],
  ])('%s %j → %s', (docType, title, role) => {
    expect(sectionRole(docType, title)).toBe(role);
  });
});

describe('sectionRoleInPath: a section without a role inherits the nearest ancestor\'s', () => {
  it.each<[DocType, string[], string, boolean]>([
    ['SOP', ['SOP-AFW-012 Auxiliary Feedwater Pump Quarterly Surveillance', '6. Procedure', '6.1 Pump Start'], 'steps', true],
    ['SOP', ['SOP-AFW-012', '4. Precautions and Limitations', '4.1 General'], 'constraints', true],
    ['SOP', ['SOP-AFW-012', '6. Procedure', '6.3 Acceptance Criteria'], 'acceptance', false],
    // A document title is no container role: "Work Order …" names the document, its subsections keep unknown.
    ['WO', ['Work Order WO-2026-04567', 'Miscellany'], 'unknown', false],
    ['CR', ['**Condition Report (CR) - Elevated Vibration**', 'Attachments list'], 'evidence', false],
    ['SOP', ['Pump Start'], 'unknown', false],
    // A first segment naming the document's form is its title: no role of its own, none to inherit.
    ['OTHER', ['Information Notice No. 31-05: Background Noise in Detectors'], 'unknown', false],
    ['OTHER', ['Information Notice No. 31-05: Background Noise in Detectors', 'Discussion:'], 'discussion', false],
    ['SOP', ['ES-1.3 TRANSFER TO COLD LEG RECIRCULATION', 'Step 4'], 'steps', false],
    ['SOP', ['ES-1.3 TRANSFER TO COLD LEG RECIRCULATION', 'Foldout Page'], 'unknown', false],
  ])('%s %j → %s', (docType, segments, role, inherited) => {
    expect(sectionRoleInPath(docType, segments)).toEqual({ role, inherited });
  });
});

describe('chunkRole: the path, else the chunk\'s own heading, else its shape in a known form', () => {
  const role = (docType: DocType, subtype: DocSubtype | null, segments: string[], text: string) => chunkRole(docType, subtype, segments, readingOf(text).summary);
  const NARRATIVE = 'On a morning in spring, with the unit at full power, the operators noticed that the level in the tank was falling slowly. They started the standby pump and the level recovered within ten minutes.';

  it('the path decides first', () => {
    expect(role('CR', 'LER', ['LER 2031-001', 'CAUSE OF THE EVENT'], `EVENT DESCRIPTION\n${NARRATIVE}`)).toEqual({ role: 'cause_statement', inherited: false, source: 'section' });
  });

  it('else the first heading the chunk opens with', () => {
    expect(role('CR', 'EN', [], `Event Text\n\n${NARRATIVE}`)).toEqual({ role: 'description', inherited: false, source: 'section' });
    expect(role('OTHER', 'IN', ['Information Notice No. 31-05: Noise'], `Discussion:\n${NARRATIVE}`).role).toBe('discussion');
  });

  it('a later heading counts only as headings are written (a label, a number), not a letterhead line', () => {
    const letterhead = `UNITED STATES\nOFFICE OF INSPECTION AND ENFORCEMENT\nWASHINGTON, D.C. 20555\n\nAddressees:\nAll holders of operating licenses for nuclear power reactors.`;
    expect(role('OTHER', 'IN', [], letterhead).role).toBe('purpose');
  });

  it('an event report\'s unheaded narrative is its description; a field block is its header', () => {
    expect(role('CR', 'EN', [], NARRATIVE).role).toBe('description');
    const fields = 'Facility: Anyplace\nRegion: 4   State: XX\nUnit: [1] [ ] [ ]\nNotification Date: 01/02/2031\nNotification Time: 14:05 [ET]\nEvent Date: 01/02/2031\nEmergency Class: Non Emergency';
    expect(role('CR', 'EN', [], fields).role).toBe('header');
  });

  it('an inspection finding\'s paragraphs by their first words', () => {
    expect(role('OTHER', 'IR', [], 'The inspectors identified a Green finding and an associated non-cited violation when the licensee failed to follow its procedure for filling the tank.').role).toBe('finding');
    expect(role('OTHER', 'IR', [], 'The finding was determined to be more than minor because it affected the equipment performance attribute of the mitigating systems cornerstone.').role).toBe('assessment');
  });

  it('a generic communication opens with its addressees', () => {
    expect(role('OTHER', 'GL', [], 'All holders of operating licenses for nuclear power reactors, except those who have permanently ceased operations.').role).toBe('purpose');
  });

  it('a procedure\'s unheaded instructions are its steps', () => {
    expect(role('SOP', 'EOP', [], '1. VERIFY reactor trip.\n2. CHECK turbine stop valves closed.\n3. CHECK safety injection status.').role).toBe('steps');
  });

  it('no form known: an unheaded chunk stays unknown, and an OTHER has no roles at all', () => {
    expect(role('CR', null, [], NARRATIVE).role).toBe('unknown');
    expect(role('OTHER', null, ['Discussion'], NARRATIVE).role).toBe('unknown');
  });
});

describe('ContextBuilder: a chunk that continues a section takes the role of the section it continues', () => {
  const NARRATIVE = 'The operators noticed that the level in the tank was falling slowly, started the standby pump and saw the level recover within ten minutes.';
  const STEPS = '1. VERIFY reactor trip.\n2. CHECK turbine stop valves closed.\n3. CHECK safety injection status.';
  /** Each chunk's role and whether it was continued, built in order by one builder. */
  const roles = (chunks: Record<string, unknown>[]) => {
    const builder = new ContextBuilder({ docTypeMode: 'auto', authority: null });
    return chunks.map((c, i) => {
      const facts = builder.build({ chunk_id: `c${i}`, doc_type: 'CR', ...c });
      return `${facts.context.section_role}${facts.flags.includes('section_role_continued') ? '+' : ''}`;
    });
  };

  it('a chunk without a path, or with the same path, after a headed one', () => {
    expect(roles([
      { doc_id: 'a', section_path: 'Report > Corrective Actions', text: NARRATIVE },
      { doc_id: 'a', text: NARRATIVE },
      { doc_id: 'a', text: NARRATIVE },
      { doc_id: 'a', section_path: 'Report > Corrective Actions', text: NARRATIVE },
    ])).toEqual(['corrective_actions', 'corrective_actions+', 'corrective_actions+', 'corrective_actions']);
    // The heading in the chunk's text, the same title-only path on the next chunk.
    expect(roles([
      { doc_id: 'a', section_path: 'Report', text: `Cause of the Event:\n${NARRATIVE}` },
      { doc_id: 'a', section_path: 'Report', text: NARRATIVE },
    ])).toEqual(['cause_statement', 'cause_statement+']);
  });

  it('never across documents, nor into a chunk with another path or a heading of its own', () => {
    expect(roles([
      { doc_id: 'a', section_path: 'Report > Corrective Actions', text: NARRATIVE },
      { doc_id: 'b', text: NARRATIVE },
    ])).toEqual(['corrective_actions', 'unknown']);
    expect(roles([
      { doc_id: 'a', section_path: 'Report > Corrective Actions', text: NARRATIVE },
      { doc_id: 'a', section_path: 'Report > Attachment Z', text: NARRATIVE },
      { doc_id: 'a', text: NARRATIVE },
    ])).toEqual(['corrective_actions', 'evidence', 'evidence+']);
    // A numbered heading that names no role opens a section all the same: it ends the one before.
    expect(roles([
      { doc_id: 'a', section_path: 'Report > Corrective Actions', text: NARRATIVE },
      { doc_id: 'a', text: `4.3 Plant Status\n${NARRATIVE}` },
      { doc_id: 'a', text: NARRATIVE },
    ])).toEqual(['corrective_actions', 'unknown', 'unknown']);
  });

  it('what a chunk plainly is outranks the section before it; a header is continued by nothing', () => {
    const fields = 'Facility: Anyplace\nRegion: 4   State: XX\nUnit: [1] [ ] [ ]\nNotification Date: 01/02/2031\nNotification Time: 14:05 [ET]\nEmergency Class: Non Emergency';
    // An event notification (a known form): its field block is the header, its narrative the description.
    const en = (text: string, path?: string) => ({ doc_id: 'en', doc_name: 'en.html', ...(path ? { section_path: path } : {}), text: `Event Number: 12345\n${text}` });
    expect(roles([en(NARRATIVE, 'Event Notification Report > Corrective Actions'), en(fields), en(NARRATIVE)])).toEqual(['corrective_actions', 'header', 'description']);
    const eop = (text: string, path?: string) => ({ doc_id: 'e', doc_type: 'SOP', ...(path ? { section_path: path } : {}), text });
    expect(roles([eop(NARRATIVE, 'E-0 REACTOR TRIP > B. ENTRY CONDITIONS'), eop(STEPS), eop(NARRATIVE)])).toEqual(['preconditions', 'steps', 'unknown']);
  });
});

describe("chunkRole: an inspection report's numbered sections and a finding's parts", () => {
  const role = (subtype: DocSubtype | null, segments: string[], text: string) => {
    const reading = readingOf(text);
    return chunkRole('OTHER', subtype, segments, reading.summary, reading.text).role;
  };
  const PROSE = 'The inspectors reviewed the evaluations of the degraded valves and the records of the tests that followed them.';

  it('a numbered section holds what was inspected: its subsections decide, else it is the scope', () => {
    expect(role('IR', ['REPORT DETAILS', '1R15 Operability Determinations and Functionality Assessments (71111.15)'], PROSE)).toBe('inspection_scope');
    expect(role('IR', [], `1R15 Operability Determinations (71111.15)\n\n${PROSE}`)).toBe('inspection_scope');
    expect(role('IR', ['REPORT DETAILS', '1R15 Operability Determinations and Functionality Assessments (71111.15)'], `b. Findings\n\n${PROSE}`)).toBe('finding');
    expect(role('IR', ['REPORT DETAILS', '4OA6 Meetings, Including Exit'], PROSE)).toBe('contacts');
    expect(role('IR', ['REPORT DETAILS', '4OA7 Licensee-Identified Violations'], PROSE)).toBe('finding');
    // Not a section code: a plain number, a lower-case code; nor outside an inspection report.
    expect(role('IR', ['4 Operability Assessments'], PROSE)).toBe('assessment');
    expect(role('IN', ['1R15 Operability Assessments'], PROSE)).toBe('assessment');
  });

  it("a finding's bare Description and Analysis are the finding and its assessment", () => {
    expect(role('IR', ['1R15 Operability', 'Description'], PROSE)).toBe('finding');
    expect(role('IR', ['Analysis.'], PROSE)).toBe('assessment');
    expect(role('IN', ['Description'], PROSE)).toBe('description');
    expect(role('IR', ['Description of Circumstances'], PROSE)).toBe('description');
  });
});

describe('chunkRole: the parts of a report its form makes plain without a heading', () => {
  const role = (docType: DocType, subtype: DocSubtype | null, text: string) => {
    const reading = readingOf(text);
    return chunkRole(docType, subtype, [], reading.summary, reading.text).role;
  };

  it('a field block flattened into one line is the header', () => {
    expect(role('CR', 'EN', 'Region: 3 State: ZZ Unit: [2] Notified by: A. SMITH HQ Ops Officer: B. JONES Emergency Class: NON EMERGENCY and then the first words of the event text follow here.')).toBe('header');
    // Two labels in a sentence are prose.
    expect(role('CR', 'EN', 'The crew checked two things: the level in the tank and the pump. Result: both were normal and the unit stayed at full power for the rest of the shift.')).toBe('description');
  });

  it('the paperwork notice a federal form prints is the header', () => {
    const notice = 'Estimated burden per response to comply with this mandatory collection request: 80 hours. Send comments regarding burden estimate to the records branch. If a means used to impose an information collection does not display a currently valid OMB control number, the agency may not conduct or sponsor it.';
    expect(role('CR', 'LER', notice)).toBe('header');
  });

  it('a letter that transmits a report is the header', () => {
    expect(role('CR', 'PART21', 'Enclosed is a report received from the vendor on the bolting material of the diesel engines. Please follow up on this matter with the licensee as needed.')).toBe('header');
  });

  it("an event report's paragraph on the safety significance is its impact, one on reportability its reportability", () => {
    expect(role('CR', 'PART21', 'On the basis of our evaluation, the condition could create a substantial safety hazard if left uncorrected in the plants that use the relay.')).toBe('impact');
    expect(role('CR', 'LER', 'The safety significance of this event was minimal because the redundant train remained available throughout the period.')).toBe('impact');
    expect(role('CR', 'LER', 'The report is the mechanism that starts the management review and the determination of reportability of an event at the station.')).toBe('reportability');
    // Only an event report's.
    expect(role('OTHER', 'IN', 'The safety significance of these events is discussed below for the addressees who use the valves.')).toBe('description');
  });

  it("a written report's paragraph by what its first sentence says: reportability, cause, actions, previous events, consequences", () => {
    expect(role('CR', 'LER', 'This event is reportable under 10 CFR 50.73(a)(2)(iv)(A) because of the valid actuation of the reactor protection system.')).toBe('reportability');
    expect(role('CR', 'LER', 'This report is submitted pursuant to 10 CFR 50.73(a)(2)(i)(B) as a condition prohibited by the Technical Specifications.')).toBe('reportability');
    expect(role('CR', 'LER', 'The cause of the event was a failed relay in the logic cabinet that de-energized the coil of the breaker.')).toBe('cause_statement');
    expect(role('CR', 'PART21', 'The most probable root cause was an inadequate torque value for the sleeve of the fuel line connection.')).toBe('cause_statement');
    expect(role('CR', 'LER', 'Corrective actions include replacing the relay and revising the test procedure before the next refueling outage.')).toBe('corrective_actions');
    expect(role('CR', 'PART21', 'Internal changes to the manufacturing process are in place to prevent recurrence of this situation at the plant.')).toBe('corrective_actions');
    expect(role('CR', 'LER', 'There were no previous similar events at the station in the last three years of operation of the units.')).toBe('previous_events');
    expect(role('CR', 'LER', 'This event had no significant effect on the health and safety of the public, and the plant responded as designed.')).toBe('impact');
    // The cue is in the first sentence, not later in the paragraph.
    expect(role('CR', 'LER', 'On a spring morning the operators found the pump tripped and the valve closed. The cause of the event was a failed relay.')).toBe('description');
    // "Reportable Occurrence No." names a report, it says nothing on reportability.
    expect(role('CR', 'LER', 'This letter forwards three copies of Reportable Occurrence No. 50-999/82-45 to the staff of the regional office.')).toBe('description');
  });

  it("a written report's paragraph that says what caused the event, or what a cause evaluation found", () => {
    expect(role('CR', 'LER', 'This event was caused by a technician error during the relay replacement. The crew restored the bus within the hour.')).toBe('cause_statement');
    expect(role('CR', 'PART21', 'The cracking is attributed to an improper heat treatment of the forging lot at the supplier.')).toBe('cause_statement');
    expect(role('CR', 'LER', 'A root cause evaluation concluded that the work instructions did not warn of the exposed terminals in the cabinet.')).toBe('cause_statement');
    // Behind a continuation page's form caption run into the same line.
    expect(role('CR', 'LER', 'FACILITY NAME (1) DOCKET NUMBER (2) PAGE (3) 05009999 YEAR 31 02 The apparent cause evaluation of the trip identified a worn contact on the auxiliary relay as the cause.')).toBe('cause_statement');
    // A cause evaluation still under way, or a caused effect late in the sentence, says no cause.
    expect(role('CR', 'LER', 'A root cause evaluation is in progress and its results will be given in a supplement to this report.')).toBe('description');
    expect(role('CR', 'LER', 'On the morning of the test the operators noted that the pump discharge pressure dropped, which was caused by a closed valve.')).toBe('description');
    // Not an event notification's.
    expect(role('CR', 'EN', 'This event was caused by a technician error during the relay replacement on the bus.')).toBe('description');
  });

  it("a written report's heading run into its paragraph names that part", () => {
    expect(role('CR', 'LER', 'CAUSE OF EVENT The cause was a loose terminal lug on the trip coil circuit of the feeder breaker.')).toBe('cause_statement');
    expect(role('CR', 'LER', 'ASSESSMENT OF SAFETY CONSEQUENCES The redundant train remained available for the whole period the pump was out.')).toBe('impact');
    expect(role('CR', 'LER', 'CORRECTIVE ACTIONS The operators replaced the fuse and the procedure was revised to add the check.')).toBe('corrective_actions');
    expect(role('CR', 'LER', 'Safety Significance: The redundant train remained available for the whole period the pump was out.')).toBe('impact');
    expect(role('CR', 'LER', 'Root Cause: The technician lifted the wrong lead because the drawing showed an older terminal layout.')).toBe('cause_statement');
    expect(role('CR', 'LER', 'B. Cause: The technician lifted the wrong lead because the drawing showed an older terminal layout.')).toBe('cause_statement');
    expect(role('CR', 'LER', 'PREVIOUS SIMILAR EVENTS A review of the station records for the last five years found one other trip of this kind.')).toBe('previous_events');
    // Capitals that are a tag or a name, not a heading, say nothing; nor does a label of no known part.
    expect(role('CR', 'LER', 'RHR Pump 1A was started at noon and the operators watched the discharge pressure rise to normal.')).toBe('description');
    expect(role('CR', 'LER', 'Weather: The wind was calm and the temperature near freezing when the operators walked down the yard.')).toBe('description');
  });

  it("an event notification's text is its description, whatever a paragraph of it opens on", () => {
    expect(role('CR', 'EN', 'The cause of the trip was dirty windings on an over voltage relay that prevented the wiper from contacting them.')).toBe('description');
    expect(role('CR', 'EN', 'Corrective actions include cleaning the relay windings and checking the other relays of the same model at the site.')).toBe('description');
  });

  it("an inspection report's enforcement paragraph, and an NRC letter on the licensee's reply to a violation", () => {
    expect(role('OTHER', 'IR', 'Contrary to the above, on May 2, 2031, the licensee failed to follow the procedure for the valve lineup of the pump.')).toBe('enforcement');
    expect(role('OTHER', 'IR', 'This violation is being treated as a non-cited violation, consistent with Section 2.3.2 of the Enforcement Policy.')).toBe('enforcement');
    expect(role('OTHER', 'IR', 'The inspectors identified a Green non-cited violation of Technical Specification 5.4.1 for the failure to follow a procedure.')).toBe('finding');
    expect(role('OTHER', 'IR', 'This will acknowledge receipt of your letter dated May 2, 2031, in response to our Notice of Violation of April 1, 2031.')).toBe('corrective_actions');
  });

  it("a generic communication's closing contacts and its requests of the addressees", () => {
    expect(role('OTHER', 'IN', 'This information notice requires no specific action or written response from the addressees of this notice.')).toBe('contacts');
    expect(role('OTHER', 'IN', 'If you have any questions about the information in this notice, please contact the technical contact listed below.')).toBe('contacts');
    expect(role('OTHER', 'GL', 'Addressees are requested to review the information and to take the actions below within 90 days of this letter.')).toBe('requested_actions');
  });
});

describe('sectionRoleInPath: a letter\'s subject line, and the parts of a report\'s summary', () => {
  it('a SUBJECT: or RE: segment names the letter, it gives no role', () => {
    expect(sectionRoleInPath('OTHER', ['EA-31-001 - Anyplace 1 & 2', 'SUBJECT: NOTICE OF VIOLATION (NRC INSPECTION REPORT 50-999/31-01)'], 'IR')).toEqual({ role: 'unknown', inherited: false });
    expect(sectionRoleInPath('OTHER', ['Letter to the licensee', 're: Notice of Violation'], 'IR').role).toBe('unknown');
    // A heading that only opens with the word is a heading all the same.
    expect(sectionRoleInPath('OTHER', ['Subjects of the Enforcement Conference'], 'IR').role).toBe('enforcement');
  });

  it("a summary's Scope: is the summary; a report's own scope section stays the scope", () => {
    expect(sectionRoleInPath('OTHER', ['Report No.: 50-999/31-01', 'SUMMARY', 'Scope:'], 'IR')).toEqual({ role: 'summary', inherited: true });
    expect(sectionRoleInPath('OTHER', ['Report No.: 50-999/31-01', 'Inspection Summary', 'Areas Inspected:'], 'IR').role).toBe('summary');
    expect(sectionRoleInPath('OTHER', ['Report No.: 50-999/31-01', 'REPORT DETAILS', 'Inspection Scope'], 'IR').role).toBe('inspection_scope');
  });
});

describe('chunkRole: an NRC letter, a finding and a notice by their first words', () => {
  const role = (docType: DocType, subtype: DocSubtype | null, text: string, segments: string[] = []) => {
    const reading = readingOf(text);
    return chunkRole(docType, subtype, segments, reading.summary, reading.text).role;
  };

  it("a finding the licensee identified is the finding, though its first sentence names its significance", () => {
    expect(role('OTHER', 'IR', 'The following issue of very low safety significance (Green) was identified by the licensee and was a violation of NRC requirements. The pump was found degraded.')).toBe('finding');
    expect(role('OTHER', 'IR', 'The finding was of very low safety significance (Green) because the redundant train remained available.')).toBe('assessment');
  });

  it('a cue on what the first sentence says is read to the end of a long sentence', () => {
    const long = 'On the basis of our evaluation of the relays returned from the three plants, it has been determined that the subject condition, if it is left uncorrected in the plant applications listed in the enclosure, could potentially create a Substantial Safety Hazard. The plants will evaluate it.';
    expect(role('CR', 'PART21', long)).toBe('impact');
    const table = '05000999/FIN-2031001-01Anyplace2031Q1Severity level IVMitigating Systems10 CFR 50.73\n10 CFR 50.73(a)(2)(i)(B), Prohibited by Technical Specifications\nThis violation of very low safety significance was identified by the licensee and is being treated as a non-cited violation, consistent with Section 2.3.2 of the Enforcement Policy.Violation: the report was late. The rest follows.';
    expect(role('OTHER', 'IR', table)).toBe('finding');
  });

  it('the cues read a paragraph across its hard line breaks', () => {
    expect(role('OTHER', 'IR', 'The finding was evaluated using Phase 1 of the At-Power\nSDP, and was determined to be of very low safety significance\nbecause the inspectors answered no to all questions.')).toBe('assessment');
  });

  it("a notice of violation's title and its violation statement; the letter's summary and enforcement", () => {
    expect(role('OTHER', 'IR', 'APPENDIX A NOTICE OF VIOLATION Anyplace Power Company Docket No.: 50-999 During May 3 through 7, 2031, the NRC reviewed the purchasing of the spare relays at the plant.')).toBe('enforcement');
    expect(role('OTHER', 'IR', '1.\n\n10 CFR 50, Appendix B, Criterion XVII requires, in part, that sufficient records be maintained to furnish evidence of activities affecting quality.')).toBe('finding');
    expect(role('OTHER', 'IR', 'This refers to the inspection conducted between May 3 and 7, 2031, at the plant. The inspection included a review of the maintenance of the pumps.')).toBe('summary');
    expect(role('OTHER', 'IR', 'Based on the information developed during the inspection, the NRC has determined that violations of NRC requirements occurred at the plant.')).toBe('enforcement');
    expect(role('OTHER', 'IR', 'On June 12, 2031, a Predecisional Enforcement Conference was conducted with you and members of your staff to discuss the violations.')).toBe('enforcement');
    // Naming a notice of violation later in its sentence is no notice's title.
    expect(role('OTHER', 'IR', 'This will acknowledge receipt of your letter dated May 2, 2031, in response to our letter which transmitted a Notice of Violation to you.')).toBe('corrective_actions');
  });

  it("a generic communication's purpose, and its headings run into their paragraphs", () => {
    const letterhead = 'UNITED STATES\nNUCLEAR REGULATORY COMMISSION\nWASHINGTON, D.C. 20555\n\nMay 4, 2031\n\n';
    expect(role('OTHER', 'IN', `${letterhead}All fuel cycle licensees.\n\nThe U.S. Nuclear Regulatory Commission is issuing this information notice to alert addressees to problems with the valves.`)).toBe('purpose');
    expect(role('OTHER', 'GL', 'Addressees All holders of operating licenses for nuclear power reactors. Purpose The purpose of this generic letter is to inform licensees of a change.')).toBe('purpose');
    expect(role('OTHER', 'GL', 'Discussion OVERVIEW The staff reviewed the reports that licensees submit each month and found that some of them repeat one another.')).toBe('discussion');
    expect(role('OTHER', 'IN', 'Background The pumps were installed in 1985 and have run without trouble since then at most of the plants.')).toBe('description');
    // The word opening a sentence of prose is no heading.
    expect(role('OTHER', 'IN', 'Discussions with the vendor showed that the valves were assembled with the wrong springs at the factory.')).toBe('description');
  });

  it("a letter's closing, and a memorandum's distribution, are its contacts", () => {
    expect(role('OTHER', 'IN', 'Sincerely,\n\nJ. Smith, Director\nOffice of Inspection and Enforcement\n\nEnclosures: 1. IE Information Notice No. 31-02')).toBe('contacts');
    const distribution = 'Anyplace Power Company Unit 1, 2 (50-998, 50-999)\n\nOtherplace Electric Company Unit 3 (50-997)\n\nJ. Smith, Chief Administrative Branch\n\nEnclosure:\n\nIE Bulletin No. 31-05';
    expect(role('OTHER', 'BULLETIN', distribution)).toBe('contacts');
    // Without an enclosure, copy or distribution line, a non-prose block is the header.
    expect(role('OTHER', 'BULLETIN', 'UNITED STATES\nNUCLEAR REGULATORY COMMISSION\nREGION III\n799 ROOSEVELT ROAD\nGLEN ELLYN, ILLINOIS 60137')).toBe('header');
    // A procedure has no contacts role: its transmittal's closing stays unknown.
    expect(role('SOP', 'PROC', 'Very truly yours, J. Smith Manager, Training Department Enclosures xc: Region 1 (2 copies)')).toBe('unknown');
  });

  it("an EOP's lettered sections in text that lost its spaces", () => {
    expect(role('SOP', 'EOP', 'EOP:ES-9.9TITLE:REACTORTRIPRESPONSEREV:10PAGE2of19A.PURPOSE-Thisprocedure providesthenecessary instructions tostabilize theplant.\nB.ENTRYCONDITIONS/SYMPTOMS 1.ENTRYCONDITIONS')).toBe('purpose');
    expect(role('SOP', 'EOP', 'REV: 12 FR-Z.9 PAGE 2 of 26\nB.ENTRYCONDITIONS/SYMPTOMS 1.ENTRYCONDITIONS\n-Thisprocedure isenteredfrom:a.E-0,REACTORTRIP, whenflowisnotverified.')).toBe('preconditions');
    // A capital word inside another word is no lettered heading.
    expect(role('SOP', 'EOP', 'THEPURPOSEOFTHISSTEPISTOCOOLTHEPLANT and the crew follows it.')).toBe('unknown');
  });

  it("a step table's head holding only CAUTION and NOTE blocks is the constraints; with a numbered step, the steps", () => {
    const head = 'EOP:ES-9.9TITLE:REACTORTRIPRESPONSEREV:10PAGE3of19STEPACTION/EXPECTED RESPONSERESPONSENOTOBTAINED*******\n*************\nCAUTIONIFSIACTUATION OCCURSDURINGTHISPROCEDURE, THENE-0SHOULDBEPERFORMED.\n*************\nx****x*NOTE:oFOLDOUTpageshouldbeopen.';
    expect(role('SOP', 'EOP', head)).toBe('constraints');
    expect(role('SOP', 'EOP', `${head}\n1 VERIFY reactor trip:\n2 CHECK turbine stop valves - CLOSED`)).toBe('steps');
  });
});

describe('ContextBuilder: a finding\'s parts found by their first words carry to the chunks after them', () => {
  const roles = (texts: string[]) => {
    const builder = new ContextBuilder({ docTypeMode: 'auto', authority: null });
    return texts.map((text, i) => {
      const facts = builder.build({ chunk_id: `f:c${i}`, doc_id: 'f', doc_name: 'FIN-2031001-01', doc_type: 'OTHER', text: `${i === 0 ? 'Inspection Report 05000999/2031001\n' : ''}${text}` });
      return `${facts.context.section_role}${facts.flags.includes('section_role_continued') ? '+' : ''}`;
    });
  };

  it("the finding's next paragraph, which opens on no cue, is the finding's", () => {
    expect(roles([
      'The inspectors identified a Green non-cited violation of Technical Specification 5.4.1 for the failure to follow a procedure.',
      'The licensee concluded that the three valves were inoperable for a period longer than the Technical Specifications allow.',
      'The finding was of very low safety significance (Green) because the redundant train remained available.',
    ])).toEqual(['finding', 'finding+', 'assessment']);
  });
});
