import { describe, expect, it } from 'vitest';
import { DOC_TYPES, SECTION_ROLES } from '../../src/contracts/vocabulary.js';
import type { DocType } from '../../src/contracts/vocabulary.js';
import { sectionRole, sectionRoleInPath } from '../../src/tagging/section-role.js';

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
  // OTHER: no rules at all
  ['OTHER', 'Purpose', 'unknown'],
  ['OTHER', 'Condition Description', 'unknown'],
  ['OTHER', 'Work Order Description', 'unknown'],
  ['OTHER', 'Event Summary', 'unknown'],
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
  ])('%s %j → %s', (docType, segments, role, inherited) => {
    expect(sectionRoleInPath(docType, segments)).toEqual({ role, inherited });
  });
});
