// Checks a section_summary against its contract and its sources, with the chunk views' machinery
// (shape walk, item checks, key order, flag values, grounding) and gates of its own:
// - summary_too_short / summary_too_long: the prompt asks for 100 to 200 words; a reply is let
//   through down to 60 and up to 250, and a section whose sources hold fewer words needs only
//   half of them (a 30-word section cannot be summarised in 100 words);
// - few_concepts / too_many_concepts: 5 to 10 distinct concepts; a short section needs only one
//   per 10 words of its sources (a 20-word section does not hold five key phrases);
// - ungrounded_concept:<c>: a concept that is not a phrase of the sources; ungrounded_number:<n>
//   and ungrounded_quote:<q> as for the chunk views (numbers of the summary, quoted phrases).
// The sources are the section's own text and its title, and with --bottom-up the titles and
// summaries of its children: what the prompt showed the model.
import type { JsonObject } from '../contracts/json.js';
import { finish, itemEvidence, type EvidenceSpan, type SpanMapper, type ViewEvidence } from './evidence.js';
import { splitSentences } from './evidence-match.js';
import { GroundingText, numbersIn, quotedPhrases } from './grounding.js';
import { SECTION_SUMMARY_SHAPE, stampSectionProvenance, type ChildSummary, type SectionInput } from './section-view.js';
import { flagValue, keepContractKeys, shapeFlags } from './validate-view.js';
import { SECTION_QUALITY } from './kinds/section-summary.js';

// A phrase never spans two sources: a separator no concept or number can contain.
const SOURCE_SEPARATOR = '\n|\n';
const WORD_RE = /\S+/g;
const HAS_CONTENT_RE = /[\p{L}\p{N}]/u;

/** The words of a text: whitespace-separated tokens with a letter or digit. */
export function countWords(text: string): number {
  let n = 0;
  for (const m of text.matchAll(WORD_RE)) if (HAS_CONTENT_RE.test(m[0])) n++;
  return n;
}

/** What a section summary must be grounded in, prepared once for the ladder and its retries. */
export interface SectionSources {
  grounding: GroundingText;
  /** Where a span of the joined sources is for a reader: a chunk of the section, its title, a child's summary. */
  mapSpan: SpanMapper;
  /** Words of the section text and the child summaries (titles are not counted): what the length gates scale with. */
  words: number;
}

// count-sections joins a section's chunks with a blank line (section-tree.ts).
const CHUNK_SEPARATOR = '\n\n';

interface SourcePart {
  start: number;
  end: number;
  source: EvidenceSpan['source'];
  id: string | null;
}

export function sectionSources(section: SectionInput, children: readonly ChildSummary[]): SectionSources {
  const parts: SourcePart[] = [];
  let joined = '';
  const add = (value: string, source: EvidenceSpan['source'], id: string | null): void => {
    if (joined !== '') joined += SOURCE_SEPARATOR;
    parts.push({ start: joined.length, end: joined.length + value.length, source, id });
    joined += value;
  };
  add(section.text, 'section_text', null);
  add(section.title, 'title', section.section_id);
  let words = countWords(section.text);
  for (const child of children) {
    add(child.title, 'title', child.section_id ?? null);
    add(child.summary, 'child', child.section_id ?? null);
    words += countWords(child.summary);
  }
  const chunks = chunkPieces(section);
  const mapSpan: SpanMapper = (span) => {
    const part = parts.find((p) => span.start >= p.start && span.start < p.end) ?? parts[0]!;
    const start = span.start - part.start;
    const end = Math.min(span.end, part.end) - part.start;
    if (part.source !== 'section_text' || chunks === null) return { source: part.source, id: part.id, start, end };
    const chunk = chunks.find((c) => start >= c.start && start < c.end) ?? chunks.at(-1)!;
    return { source: 'chunk', id: chunk.id, start: start - chunk.start, end: Math.min(end, chunk.end) - chunk.start };
  };
  return { grounding: new GroundingText(joined), mapSpan, words };
}

// The section's text split back into its chunks, when that is unambiguous: as many pieces
// between blank lines as it has chunks (a chunk whose own text holds a blank line makes it
// ambiguous; spans then point into the section's text).
function chunkPieces(section: SectionInput): { id: string; start: number; end: number }[] | null {
  const ids = section.chunk_ids;
  if (ids === undefined || ids.length === 0) return null;
  if (ids.length === 1) return [{ id: ids[0]!, start: 0, end: section.text.length }];
  const pieces = section.text.split(CHUNK_SEPARATOR);
  if (pieces.length !== ids.length) return null;
  let at = 0;
  return pieces.map((piece, i) => {
    const out = { id: ids[i]!, start: at, end: at + piece.length };
    at += piece.length + CHUNK_SEPARATOR.length;
    return out;
  });
}

/** The least a summary of these sources may hold: 60 words, or half the sources' words when they are fewer than 120. */
export function minSummaryWords(sourceWords: number): number {
  return Math.min(SECTION_QUALITY.minWords, Math.ceil(sourceWords / 2));
}

/** The fewest concepts: 5, or one per 10 words of a shorter source (at least 1). */
export function minConcepts(sourceWords: number): number {
  return Math.min(SECTION_QUALITY.targetConcepts.min, Math.max(1, Math.floor(sourceWords / SECTION_QUALITY.wordsPerConcept)));
}

export interface SectionValidation {
  /** The same object, changed in place: trusted fields stamped, only contract keys, in contract order. */
  view: JsonObject;
  flags: string[];
  /** Trusted paths whose stored value differed and was overwritten. */
  fixed: string[];
  /** Where each sentence of the summary and each concept is supported in the sources. */
  evidence: ViewEvidence;
}

export function validateSectionSummary(obj: JsonObject, section: SectionInput, sources: SectionSources): SectionValidation {
  const fixed = stampSectionProvenance(obj, section);
  const flags = shapeFlags(SECTION_SUMMARY_SHAPE, obj);
  keepContractKeys(SECTION_SUMMARY_SHAPE, obj);
  const checked = sectionEvidence(obj, sources, [section.section_path, section.doc_id]);
  flags.push(...qualityFlags(obj, sources.words), ...groundingFlags(obj, sources.grounding), ...checked.flags);
  return { view: obj, flags: [...new Set(flags)], fixed, evidence: checked.evidence };
}

/** Each sentence of the summary is a claim (checked for units, comparators, negation, entities;
 *  its numbers and quotes are checked above); each concept is located (ungrounded_concept is its check). */
function sectionEvidence(obj: JsonObject, sources: SectionSources, context: readonly string[] = []): { evidence: ViewEvidence; flags: string[] } {
  const items = [];
  if (typeof obj.summary === 'string') {
    for (const [i, sentence] of splitSentences(obj.summary).entries()) items.push(itemEvidence('summary', i, sentence.text, 'claim', sources.grounding, sources.mapSpan, { context }, false));
  }
  if (Array.isArray(obj.concepts)) {
    obj.concepts.forEach((c, i) => {
      if (typeof c === 'string' && HAS_CONTENT_RE.test(c)) items.push(itemEvidence('concepts', i, c, 'id', sources.grounding, sources.mapSpan, { context }, false));
    });
  }
  return finish(items, {});
}

function qualityFlags(obj: JsonObject, sourceWords: number): string[] {
  const flags: string[] = [];
  if (typeof obj.summary === 'string') {
    const words = countWords(obj.summary);
    if (words < minSummaryWords(sourceWords)) flags.push('summary_too_short');
    if (words > SECTION_QUALITY.maxWords) flags.push('summary_too_long');
  }
  if (Array.isArray(obj.concepts)) {
    // Distinct phrases with content: ["pump", "Pump", "--"] is one concept.
    const distinct = new Set(obj.concepts.filter((c): c is string => typeof c === 'string' && HAS_CONTENT_RE.test(c)).map(conceptKey));
    if (distinct.size < minConcepts(sourceWords)) flags.push('few_concepts');
    if (distinct.size > SECTION_QUALITY.targetConcepts.max) flags.push('too_many_concepts');
  }
  return flags;
}

function groundingFlags(obj: JsonObject, grounding: GroundingText): string[] {
  const flags: string[] = [];
  const summary = typeof obj.summary === 'string' ? obj.summary : '';
  const concepts = Array.isArray(obj.concepts) ? obj.concepts.filter((c): c is string => typeof c === 'string') : [];
  for (const concept of concepts) {
    const phrase = concept.trim();
    if (HAS_CONTENT_RE.test(phrase) && !grounding.hasPhrase(phrase)) flags.push(`ungrounded_concept:${flagValue(phrase)}`);
  }
  for (const number of numbersIn(summary)) if (!grounding.hasNumber(number)) flags.push(`ungrounded_number:${number}`);
  for (const text of [summary, ...concepts]) {
    for (const phrase of quotedPhrases(text)) if (!grounding.hasPhrase(phrase)) flags.push(`ungrounded_quote:${flagValue(phrase)}`);
  }
  return flags;
}

function conceptKey(concept: string): string {
  return concept.trim().replace(/\s+/g, ' ').toLowerCase();
}
