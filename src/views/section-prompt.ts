// The prompt for the section_summary of one section: the chunk views' common contract, a TASK
// paragraph for sections, the CONTEXT lines, SECTION_TEXT (the section's own text), with
// --bottom-up the CHILD_SUMMARIES of its subsections, and the output skeleton.
// Byte-deterministic: the same section and children always give the same prompt.
// CHILD_SUMMARIES is bounded only when asked (maxChildChars: the ladder's cut-text attempts and the
// pre-send fit to the context): the children are kept in order while they fit, and one line says
// how many were left out, so a parent with very many children still gets a prompt that fits.
import { COMMON_CONTRACT, contextValue, type BuiltPrompt, type PromptOptions } from './prompt-text.js';
import { SECTION_QUALITY } from './kinds/section-summary.js';
import { emptySectionSummary, sectionContentSkeleton, type ChildSummary, type SectionInput } from './section-view.js';
import { codePoints, cutText } from './text-cut.js';

// Stands in for an empty SECTION_TEXT (a heading whose text is all in its subsections).
export const NO_OWN_TEXT = '(none: this heading has no text of its own; its subsections are summarised in CHILD_SUMMARIES)';
const WHITESPACE_RE = /\s+/g;

/** How prompts and feedback name the text a reply must come from. */
export function sectionSourceName(hasChildren: boolean): string {
  return hasChildren ? 'SECTION_TEXT or CHILD_SUMMARIES' : 'SECTION_TEXT';
}

export function sectionTaskParagraph(hasChildren: boolean): string {
  const source = sectionSourceName(hasChildren);
  const { targetWords: words, targetConcepts: concepts } = SECTION_QUALITY;
  return [
    'TASK: Write a section_summary JSON for one section of a nuclear plant reliability document, so that a search can find the section before its chunks.',
    hasChildren
      ? 'In the rules above, CHUNK_TEXT means SECTION_TEXT, the text of the section itself, together with CHILD_SUMMARIES, the summaries of its subsections.'
      : 'In the rules above, CHUNK_TEXT means SECTION_TEXT, the text of the section.',
    `summary: what the section covers, in ${words.min} to ${words.max} words (fewer only when ${source} is shorter), extractive and faithful: ` +
      `state only what ${source} says, keep its terms, and copy numbers, limits, units and identifiers exactly as written. ` +
      `concepts: the ${concepts.min} to ${concepts.max} key concepts of the section (systems, equipment, components, mechanisms, actions, topics), ` +
      `each copied as an exact phrase from ${source}.`,
    `Your reply is checked: summary has ${words.min} to ${words.max} words; concepts holds ${concepts.min} to ${concepts.max} distinct phrases, ` +
      `each occurring in ${source}; every number in summary occurs there; a phrase in double quotes is copied exactly.`,
  ].join('\n');
}

export interface SectionPromptOptions extends PromptOptions {
  /** Bound CHILD_SUMMARIES (its lines, the count line included) to this many characters. */
  maxChildChars?: number;
}

/** How CHILD_SUMMARIES was bounded: `generation.section_summary.children_cut`. */
export interface ChildrenCut {
  /** Children with a summary, and how many of them the prompt shows. */
  children: number;
  kept_children: number;
  /** Length of all their lines, and of what was kept (the count line included). */
  child_chars: number;
  kept_chars: number;
}

export interface BuiltSectionPrompt extends BuiltPrompt {
  /** Null when every child summary is shown. */
  childrenCut: ChildrenCut | null;
}

export const CHILDREN_HEADER = 'CHILD_SUMMARIES (one line per subsection: its title, then its summary):';

/** The line standing in for the children left out. */
export function omittedLine(count: number): string {
  return `(… ${count} more child ${count === 1 ? 'section' : 'sections'} not shown)`;
}

/**
 * The CHILD_SUMMARIES lines within `maxChars` (code points, one newline per line counted): the
 * children in order while they and the count line fit, then the count line. Whole lines only: a
 * summary cut mid-way would read as what the child says.
 */
export function childSummaryLines(children: readonly ChildSummary[], maxChars: number | undefined): { lines: string[]; cut: ChildrenCut | null } {
  const lines = children.map((child) => `- ${oneLine(child.title)}: ${oneLine(child.summary)}`);
  const lengths = lines.map((line) => codePoints(line) + 1);
  const total = lengths.reduce((a, b) => a + b, 0);
  if (maxChars === undefined || total <= maxChars) return { lines, cut: null };
  let kept = 0;
  let used = 0;
  while (kept < lines.length && used + lengths[kept]! + codePoints(omittedLine(lines.length - kept - 1)) + 1 <= maxChars) used += lengths[kept++]!;
  const countLine = omittedLine(lines.length - kept);
  const shown = [...lines.slice(0, kept), countLine];
  return { lines: shown, cut: { children: lines.length, kept_children: kept, child_chars: total, kept_chars: used + codePoints(countLine) + 1 } };
}

export function buildSectionPrompt(section: SectionInput, children: readonly ChildSummary[], options: SectionPromptOptions = {}): BuiltSectionPrompt {
  const { text, cut } = cutText(section.text, options.maxChars);
  const hasChildren = children.length > 0;
  const sectionText = text.trim() === '' ? NO_OWN_TEXT : text;
  const own = (context: string[]) => sectionPart(context, sectionText, children, options.maxChildChars);
  if ((options.style ?? 'compact') === 'compact') {
    // What does not depend on the section first (the engine's prefix cache serves it); the model
    // writes the content fields only, the trusted ones are stamped.
    const part = own([`section_id: ${contextValue(section.section_id)}`, `section_path: ${contextValue(section.section_path)}`, `level: ${section.level}`]);
    const lines = [COMMON_CONTRACT, sectionTaskParagraph(hasChildren), '', 'OUTPUT JSON (exact keys/types):', JSON.stringify(sectionContentSkeleton(), null, 2), '', ...part.lines];
    return { prompt: lines.join('\n'), truncated: cut, childrenCut: part.cut };
  }
  const part = own([
    `section_id: ${contextValue(section.section_id)}`,
    `doc_id: ${contextValue(section.doc_id)}`,
    `section_path: ${contextValue(section.section_path)}`,
    `level: ${section.level}`,
    `chunk_count: ${section.total_count}`,
    `page_start: ${contextValue(section.page_start)}`,
    `page_end: ${contextValue(section.page_end)}`,
  ]);
  const lines = [COMMON_CONTRACT, sectionTaskParagraph(hasChildren), '', ...part.lines, '', 'OUTPUT JSON (exact keys/types):', JSON.stringify(emptySectionSummary(section), null, 2)];
  return { prompt: lines.join('\n'), truncated: cut, childrenCut: part.cut };
}

/** The section's own part of its prompt: CONTEXT, SECTION_TEXT, then its children's summaries, bounded. */
function sectionPart(context: string[], sectionText: string, children: readonly ChildSummary[], maxChildChars: number | undefined): { lines: string[]; cut: ChildrenCut | null } {
  const lines = ['CONTEXT:', ...context, '', 'SECTION_TEXT:', sectionText];
  if (children.length === 0) return { lines, cut: null };
  const bounded = childSummaryLines(children, maxChildChars);
  lines.push('', CHILDREN_HEADER, ...bounded.lines);
  return { lines, cut: bounded.cut };
}

function oneLine(text: string): string {
  return text.replace(WHITESPACE_RE, ' ').trim();
}
