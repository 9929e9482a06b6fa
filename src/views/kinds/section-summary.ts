// section_summary: the summary and key concepts of a section of rca-count-sections output
// (contract: src/contracts/sections.ts). Its prompt, checks and extractive rules are the section
// record kind's (views/records/section-records.ts, section-prompt.ts, section-validate.ts), as it is the one view of sections.
import { CITATIONS, ID, list, PATH } from './bounds.js';
import type { SectionViewKind } from './kind.js';

/** What its checks hold a summary to; the prompt, the feedback, the format bounds and the extractive rules say the same numbers. */
export const SECTION_QUALITY = {
  targetWords: { min: 100, max: 200 },
  minWords: 60,
  maxWords: 250,
  targetConcepts: { min: 5, max: 10 },
  wordsPerConcept: 10,
} as const;

// The summary's ceiling in characters: SECTION_QUALITY.maxWords words of up to 7 characters.
const SUMMARY_CHARS_PER_WORD = 7;

function span(range: { min: number; max: number }): string {
  return `${range.min} to ${range.max}`;
}

export const sectionSummary: SectionViewKind = {
  name: 'section_summary',
  reads: 'section',
  extractive: true,
  feedback: {
    summary_too_short: () => `summary is too short: say what the section covers in ${span(SECTION_QUALITY.targetWords)} words (from a shorter text, at least half as many words as it has)`,
    summary_too_long: () => `summary is too long: keep it to ${span(SECTION_QUALITY.targetWords)} words`,
    few_concepts: () => `concepts needs ${span(SECTION_QUALITY.targetConcepts)} distinct key phrases (from a shorter text, one per ${SECTION_QUALITY.wordsPerConcept} words)`,
    too_many_concepts: () => `concepts holds more than ${SECTION_QUALITY.targetConcepts.max} items; keep the ${span(SECTION_QUALITY.targetConcepts)} most important`,
  },
  roles: {},
  polarity: ['summary'],
  // concepts: between 1 (a short section needs only one) and the most the checks allow.
  bounds: {
    section_id: PATH,
    doc_id: ID,
    section_path: PATH,
    summary: { maxLength: SECTION_QUALITY.maxWords * SUMMARY_CHARS_PER_WORD },
    concepts: list(SECTION_QUALITY.targetConcepts.max, 80, 1),
    ...CITATIONS,
  },
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
