// section_summary: the summary and key concepts of a section of rca-count-sections output
// (contract: src/contracts/sections.ts). Its prompt, checks and extractive rules are the section
// record kind's (section-records.ts, section-prompt.ts, section-validate.ts), as it is the one view of sections.
import type { SectionViewKind } from './kind.js';

export const sectionSummary: SectionViewKind = {
  name: 'section_summary',
  reads: 'section',
  extractive: true,
  // `SECTION: <path>\nSUMMARY: …\nCONCEPTS: a, b, c`; "" for a missing view or one with neither summary nor concepts.
  flatten: {
    separator: ', ',
    fields: [
      ['SUMMARY', 'summary'],
      ['CONCEPTS', 'concepts'],
    ],
    pathLine: true,
  },
};
