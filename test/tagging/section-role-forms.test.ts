import { describe, expect, it } from 'vitest';
import type { DocType } from '../../src/contracts/vocabulary.js';
import { chunkRole, sectionRole } from '../../src/tagging/section-role.js';
import { readingOf } from '../../src/tagging/layout.js';

// Headings spelled as the documents' own forms spell them: all capitals, numbered, lettered,
// Roman, OCR-damaged, NRC Form 366 item labels, and the ROP inspection report's parts.
const PROBES: readonly (readonly [DocType, string, string])[] = [
  ['SOP', '1.0 PURPOSE', 'purpose'],
  ['SOP', '2.0 SCOPE', 'scope'],
  ['SOP', '3.0 REFERENCES', 'references'],
  ['SOP', '4.0 PRECAUTIONS AND LIMITATIONS', 'constraints'],
  ['SOP', '5.0 PREREQUISITES', 'preconditions'],
  ['SOP', '6.0 INITIAL CONDITIONS', 'preconditions'],
  ['SOP', '7.0 PROCEDURE', 'steps'],
  ['SOP', '8.0 RECORDS', 'records'],
  ['SOP', '9.0 ATTACHMENTS', 'attachments'],
  ['CR', 'B. Cause of Event', 'cause_statement'],
  ['CR', 'DESCRlPTION OF EVENT', 'description'],
  ['CR', 'II. EVENT DESCRIPTION', 'description'],
  ['CR', '16. Abstract', 'description'],
  ['CR', 'NARRATIVE', 'description'],
  ['CR', 'SAFETY CONSEQUENCES AND IMPLICATIONS', 'impact'],
  ['CR', 'PREVIOUS SIMILAR EVENTS', 'previous_events'],
  ['CR', 'CORRECTIVE ACTIONS', 'corrective_actions'],
  ['CR', 'Description of the deviation', 'description'],
  ['CR', 'Basis for reportability', 'reportability'],
  ['OTHER', 'Enforcement', 'enforcement'],
  ['OTHER', 'Analysis', 'discussion'],
  ['OTHER', 'Screening', 'assessment'],
  ['OTHER', 'Inspection Scope', 'inspection_scope'],
  // A container: an inspection report's numbered sections under it decide their own roles.
  ['OTHER', 'REPORT DETAILS', 'unknown'],
  ['OTHER', 'Persons Contacted', 'contacts'],
  ['OTHER', 'Exit Meeting', 'contacts'],
  ['OTHER', 'Introduction', 'description'],
  ['OTHER', '1. Persons Contacted', 'contacts'],
  ['CR', 'CAUSE OF EVENT', 'cause_statement'],
  ['CR', 'ROOT CAUSE ANALYSlS', 'cause_statement'],
  ['CR', 'Cause', 'cause_statement'],
  ['OTHER', 'Description', 'description'],
  ['OTHER', 'Findings', 'finding'],
  ['OTHER', 'Assessment', 'assessment'],
  ['OTHER', 'Observations', 'finding'],
  ['OTHER', 'Background', 'description'],
  ['OTHER', 'Discussion', 'discussion'],
  ['OTHER', 'Requested Actions', 'requested_actions'],
  ['OTHER', 'Required Response', 'requested_actions'],
  ['OTHER', 'Backfit Discussion', 'discussion'],
  ['OTHER', 'NOTICE OF VIOLATION', 'enforcement'],
];

describe('section role of headings as the forms spell them', () => {
  it.each(PROBES)('%s %j -> %s', (docType, heading, role) => {
    expect(sectionRole(docType, heading)).toBe(role);
  });
});

describe('unheaded inspection-report chunks', () => {
  const role = (text: string) => {
    const reading = readingOf(text);
    return chunkRole('OTHER', 'IR', [], reading.summary, reading.text).role;
  };
  it('reads an inspection summary (areas inspected, then results) as the summary, OCR-damaged labels too', () => {
    expect(role("Inspection on June 3-7, 1991 (Report No. 50-999/91-12)\n\nAreas' Inspected:\n\nRoutine, announced inspection of the licensee's fire protection program and housekeeping.\n\nResults:\n\nThe program was adequate; no violations were identified.")).toBe('summary');
    expect(role('Areas-Inspected: Routine inspection of maintenance and surveillance activities.\nResults: One violation was identified in the area of procedure adherence.')).toBe('summary');
  });
  it('leaves a paragraph that only names the areas inspected to the other cues', () => {
    expect(role('The inspector toured the areas inspected last year and found the pump room clean and the valves labelled.')).not.toBe('summary');
  });
});
