// The record kind of section_summary: the sections of rca-count-sections output. Its prompt is
// section-prompt.ts's, its check section-validate.ts's; its results go at the view's key with
// `view_flags.<view>` (a section record's `flags` already holds count-sections' own list),
// `evidence.<view>` and `generation.<view>`.
//
// --bottom-up is this kind's input strategy: a parent's prompt holds its children's summaries.
// count-sections writes children before their parent, so each child's summary is kept, as a
// promise, under its parent_id until the parent arrives; the parent's input is ready when those
// promises settle (its children's ladders run in parallel in the reorder window; the parent waits
// only for its own children). What is held is the finished children of the open ancestors, never
// a chapter's text: a chapter is summarised from its own text and its sections' summaries. A
// child without a summary (failed, rejected, absent) adds nothing to its parent's prompt;
// `generation.section_summary.children_missing` counts such gaps.
import { keepUpstream } from '../../tagging/added-fields.js';
import { isPlainObject, type JsonObject } from '../../contracts/json.js';
import { checkerFor } from '../../contracts/checkers.js';
import { SECTION_VIEW } from '../../contracts/vocabulary.js';
import { buildSectionPrompt, childSummaryLines, sectionSourceName } from '../section-prompt.js';
import { sectionSources, validateSectionSummary, type SectionSources } from '../section-validate.js';
import { sectionReplyAsView, type ChildSummary, type SectionInput } from '../section-view.js';
import type { SectionViewKind } from '../kinds/kind.js';
import { setViewEntry, viewMap, type PromptBudgets, type ReadResult, type RecordKind, type RecordRun, type RunSettings } from './record-kind.js';

/** A section as its job sees it: the section, the summaries of its children (--bottom-up), and what its replies are grounded in. */
export interface SectionJobInput {
  section: SectionInput;
  /** The children's summaries shown in the prompt, in input order ([] without --bottom-up). */
  children: readonly ChildSummary[];
  sources: SectionSources;
}

function readSection(record: JsonObject): ReadResult<SectionInput> {
  if (record.kind !== 'section') {
    const looksLike = record.context !== undefined || record.chunk_id !== undefined ? ' (it looks like a chunk)' : '';
    return { ok: false, code: 'NOT_A_SECTION', message: `record is not a section${looksLike}: --view section_summary reads rca-count-sections output` };
  }
  const problem = checkerFor('section')(record);
  if (problem !== null) return { ok: false, code: 'BAD_SECTION', message: problem };
  // The checker holds the record to the section contract's JSON Schema.
  const r = record as JsonObject & SectionInput;
  return {
    ok: true,
    value: {
      section_id: r.section_id,
      doc_id: r.doc_id,
      section_path: r.section_path,
      title: r.title,
      level: r.level,
      parent_id: r.parent_id,
      child_count: r.child_count,
      total_count: r.total_count,
      page_start: r.page_start,
      page_end: r.page_end,
      text: r.text,
      chunk_ids: r.chunk_ids,
    },
  };
}

function jobInput(section: SectionInput, children: readonly ChildSummary[]): SectionJobInput {
  return { section, children, sources: sectionSources(section, children) };
}

/** Children's summaries waiting for their parent: only the open ancestors' finished children. */
class PendingChildren {
  private docId: string | null = null;
  private readonly byParent = new Map<string, Promise<ChildSummary | null>[]>();
  private held = 0;
  peak = 0;
  /** Children whose parent never came after them: the input was not in count-sections' order. */
  private orphans = 0;

  /** The summaries waiting for this section (settling in input order), no longer held here. */
  take(section: SectionInput): Promise<ChildSummary | null>[] {
    // count-sections finishes a document before the next: what another document left has no parent to come.
    if (section.doc_id !== this.docId) {
      this.orphans += this.held;
      this.byParent.clear();
      this.held = 0;
      this.docId = section.doc_id;
    }
    const children = this.byParent.get(section.section_id) ?? [];
    this.byParent.delete(section.section_id);
    this.held -= children.length;
    return children;
  }

  add(parentId: string, summary: Promise<ChildSummary | null>): void {
    let list = this.byParent.get(parentId);
    if (list === undefined) this.byParent.set(parentId, (list = []));
    list.push(summary);
    this.held++;
    if (this.held > this.peak) this.peak = this.held;
  }

  /** Children that found no parent, counting those still held at the end of input. */
  get orphaned(): number {
    return this.orphans + this.held;
  }
}

class SectionRun implements RecordRun<SectionInput, SectionJobInput> {
  readonly startsOnlyWhileRunning = true;
  private readonly waiting: PendingChildren | null;
  private withoutText = 0;
  private childrenMissing = 0;

  constructor(private readonly bottomUp: boolean) {
    this.waiting = bottomUp ? new PendingChildren() : null;
  }

  input(section: SectionInput): SectionJobInput | Promise<SectionJobInput> {
    const children = this.waiting?.take(section) ?? [];
    if (children.length === 0) return jobInput(section, []);
    return Promise.all(children).then((kids) => jobInput(section, kids.filter((k): k is ChildSummary => k !== null)));
  }

  handOn(section: SectionInput, view: JsonObject | null | Promise<JsonObject | null>): void {
    if (this.waiting === null || section.parent_id === null) return;
    const { title, section_id } = section;
    this.waiting.add(
      section.parent_id,
      Promise.resolve(view).then((v) => {
        const summary = v === null ? null : String(v.summary);
        return summary === null || summary.trim() === '' ? null : { title, summary, section_id };
      }),
    );
  }

  empty(input: SectionJobInput): boolean {
    if (input.section.text.trim() !== '' || input.children.length > 0) return false;
    this.withoutText++;
    return true;
  }

  written(input: SectionJobInput): JsonObject | null {
    if (this.waiting === null) return null;
    const missing = Math.max(0, input.section.child_count - input.children.length);
    this.childrenMissing += missing;
    return { children_missing: missing };
  }

  summaryLines(): string[] {
    const notes: string[] = [];
    if (this.withoutText > 0) {
      const hint = this.bottomUp ? '' : ' (--bottom-up summarises them from their subsections)';
      const have = this.withoutText === 1 ? 'section has no text of its own' : 'sections have no text of their own';
      notes.push(`${this.withoutText} ${have} and no child summary: passed through without a section_summary${hint}`);
    }
    if (this.childrenMissing > 0) notes.push(`${this.childrenMissing} ${this.childrenMissing === 1 ? 'child is' : 'children are'} missing from their parents' prompts (failed, rejected or not in the input)`);
    const orphaned = this.waiting?.orphaned ?? 0;
    if (orphaned > 0) {
      notes.push(`${orphaned} ${orphaned === 1 ? 'section found' : 'sections found'} no parent after them: --bottom-up needs rca-count-sections' order (children before their parent, one document at a time)`);
    }
    return notes;
  }

  stats(): JsonObject {
    return {
      sections: {
        bottom_up: this.bottomUp,
        without_text: this.withoutText,
        children_missing: this.childrenMissing,
        // The most child summaries held at once waiting for their parent: the memory --bottom-up needs.
        peak_waiting_children: this.waiting?.peak ?? 0,
        orphaned_children: this.waiting?.orphaned ?? 0,
      },
    };
  }
}

/**
 * A section prompt `excess` characters shorter: its text and its CHILD_SUMMARIES share what is
 * left, each keeping all it has when that is under half, the other taking the rest. So a parent
 * with a short text and very many children keeps its text and the first children that fit, and
 * one with a long text and a few children keeps its children (the text alone is cut, as for chunks).
 */
function shrink(input: SectionJobInput, budgets: PromptBudgets, excess: number): PromptBudgets | null {
  if (input.children.length === 0) return null;
  const textChars = Math.min(input.section.text.length, budgets.maxChars ?? Number.POSITIVE_INFINITY);
  const shown = childSummaryLines(input.children, budgets.maxChildChars);
  const childChars = shown.cut?.kept_chars ?? shown.lines.reduce((n, line) => n + line.length + 1, 0);
  const room = Math.max(0, textChars + childChars - excess);
  const half = Math.floor(room / 2);
  let maxChars = budgets.maxChars;
  let maxChildChars = budgets.maxChildChars;
  if (childChars <= half) maxChars = Math.max(1, room - childChars);
  else if (textChars <= half) maxChildChars = room - textChars;
  else {
    maxChars = Math.max(1, room - half);
    maxChildChars = half;
  }
  return { maxChars, ...(maxChildChars === undefined ? {} : { maxChildChars }) };
}

// What placing a section's view writes besides the view: upstream values there are kept (added-fields.ts).
const SECTION_VIEW_MAPS = ['view_flags', 'evidence', 'generation'];

export const SECTION_RECORDS: RecordKind<SectionInput, SectionJobInput, SectionViewKind> = {
  read: readSection,
  run: (settings: RunSettings) => new SectionRun(settings.bottomUp),
  text: (input) => input.section.text,
  id: (input) => input.section.section_id,
  grounding: (input) => input.sources.grounding,
  boundsChildren: true,
  prompt(_kind, input, budgets) {
    const built = buildSectionPrompt(input.section, input.children, {
      maxChars: budgets.maxChars,
      ...(budgets.maxChildChars === undefined ? {} : { maxChildChars: budgets.maxChildChars }),
      ...(budgets.style === undefined ? {} : { style: budgets.style }),
    });
    return { prompt: built.prompt, textCut: built.truncated, childrenCut: built.childrenCut };
  },
  shrink,
  check(_kind, input, _grounding, value) {
    // Checked against its own sources (text, titles, child summaries), the grounding among them.
    // A compact prompt's reply holds the content fields only: the trusted ones go in their places first.
    const checked = validateSectionSummary(sectionReplyAsView(value, input.section), input.section, input.sources);
    return { view: checked.view, flags: checked.flags, fixed: checked.fixed, evidence: checked.evidence, withinContract: checkerFor(SECTION_VIEW)(checked.view) === null };
  },
  feedbackSource: (input) => sectionSourceName(input.children.length > 0),
  isDone: (_kind, value) => isPlainObject(value) && checkerFor(SECTION_VIEW)(value) === null,
  place(input, results, extra) {
    const record = keepUpstream(input, [...results.map(([kind]) => kind.name), ...SECTION_VIEW_MAPS]);
    const out: JsonObject = { ...record };
    const flags = viewMap(record.view_flags);
    const generation = viewMap(record.generation);
    const evidence = viewMap(record.evidence);
    for (const [{ name: view }, result] of results) {
      out[view] = result.view;
      setViewEntry(flags, view, result.flags);
      setViewEntry(evidence, view, result.evidence);
      generation[view] = extra === null ? result.generation : { ...result.generation, ...extra };
    }
    out.view_flags = flags;
    out.evidence = evidence;
    out.generation = generation;
    return out;
  },
  async extractive(_kind, setup) {
    // Sections have rules of their own, with a lexicon matcher loaded only here.
    const { ConceptFinder, extractiveSectionSummary } = await import('../extractive-section.js');
    const finder = new ConceptFinder(setup.lexicon());
    return (input, text) => extractiveSectionSummary({ section: input.section, text, children: input.children }, finder);
  },
};
