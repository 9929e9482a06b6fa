// rca-generate / rca-summarize --view section_summary: one section_summary per record of
// rca-count-sections output, through the same backends, retry ladder, response cache, request gate
// and run control as the chunk views, written the same way (the view at its own key, its
// generation entry under `generation.section_summary`) except for its flags: a section record's
// `flags` already holds count-sections' own list, so the view's go to `view_flags.section_summary`.
//
// --bottom-up: a parent's prompt holds its children's summaries. count-sections writes children
// before their parent, so each child's summary is kept, as a promise, under its parent_id until
// the parent arrives; the parent's work starts when those promises settle (its children's ladders
// run in parallel in the reorder window; the parent waits only for its own children). What is held
// is the finished children of the open ancestors, never a chapter's text: a chapter is summarised
// from its own text and its sections' summaries. A child without a summary (failed, rejected,
// absent) adds nothing to its parent's prompt; `generation.section_summary.children_missing`
// counts such gaps.
import { UsageError } from '../runtime/exit-codes.js';
import { RawJson, type JsonObject, type OptionsSpec, type Outcome, type RecordMeta, type SetupContext } from '../runtime/stage.js';
import { checkerFor } from '../contracts/runtime.js';
import { parseLexiconCsv, type LexiconEntry } from '../tagging/lexicon.js';
import { sectionSources } from '../views/section-validate.js';
import { flattenSectionSummary, SECTION_VIEW, type ChildSummary, type SectionInput } from '../views/section-view.js';
import { isPlainObject } from '../views/validate-view.js';
import { VIEW_TYPES } from '../contracts/vocabulary.js';
import type { GenerateConfig } from './config.js';
import { createGenerator, type CreateOptions } from './create.js';
import { Generator, type GeneratorDeps, type Prepared } from './generator.js';
import type { ViewResult } from './ladder.js';
import type { SectionJob } from './section-job.js';

export const SECTION_OPTIONS = {
  view: {
    type: 'string',
    placeholder: 'VIEW',
    choices: [SECTION_VIEW],
    help: 'section_summary: summarise the sections of rca-count-sections output, one view per section, instead of the chunk views (--views)',
  },
  'bottom-up': {
    type: 'boolean',
    default: false,
    help: "with --view section_summary: a section's prompt also holds its subsections' summaries, so headings without text of their own and whole chapters get summaries",
  },
} as const satisfies OptionsSpec;

export const SECTION_DESCRIPTION = `--view section_summary reads rca-count-sections records instead of tagged chunks and writes
one section_summary per section: {section_id, doc_id, section_path, view_type, summary (100 to
200 words), concepts (5 to 10 exact phrases of the section), chunk_count, citations}, its flags
under view_flags.section_summary (the record's own flags are count-sections'). --bottom-up adds
the summaries of a section's subsections to its prompt (they come first in count-sections output),
so a chapter is summarised from its own text and its sections' summaries; memory holds only the
summaries waiting for their parent. A section with no text of its own and no child summary passes
through without a view. --backend extractive takes the leading sentences and the lexicon terms
and identifiers of the section (and of its children's summaries).`;

export interface SectionMode {
  bottomUp: boolean;
  /** The built-in lexicon, read only when the extractive backend needs it. */
  lexicon: () => LexiconEntry[];
}

interface SectionOptionValues {
  view: string | undefined;
  'bottom-up': boolean;
  views: string[];
}

/** The section settings of a run, or null for the chunk views. */
export function resolveSectionMode(options: SectionOptionValues, setup: SetupContext): SectionMode | null {
  if (options.view === undefined) {
    if (options['bottom-up']) throw new UsageError('--bottom-up works with --view section_summary');
    return null;
  }
  const defaultViews = options.views.length === VIEW_TYPES.length && VIEW_TYPES.every((v, i) => options.views[i] === v);
  if (!defaultViews) throw new UsageError('--views names chunk views and --view section_summary summarises sections: give one or the other');
  return { bottomUp: options['bottom-up'], lexicon: () => parseLexiconCsv(setup.readText(setup.dataFile('lexicon/rca-default.csv')), 'builtin') };
}

export interface SectionGeneratorOptions extends CreateOptions {
  /** summarize: add embedding_text.section_summary to every record written. */
  flatten?: boolean;
}

export async function createSectionGenerator(config: GenerateConfig, mode: SectionMode, opts: SectionGeneratorOptions = {}): Promise<Generator> {
  const { flatten, ...create } = opts;
  // The chunk views' extractive backend fills chunk views; sections have rules of their own (and
  // their lexicon matcher is loaded only here).
  const extractive = config.backend === 'extractive' ? (await import('./section-extractive-backend.js')).createSectionExtractiveBackend(mode.lexicon()) : null;
  return createGenerator(config, {
    ...create,
    ...(flatten ? { finishRecord: withEmbeddingText } : {}),
    processor: (deps) => new SectionGenerator(extractive === null ? deps : { ...deps, backend: extractive }, mode),
  });
}

function withEmbeddingText(record: JsonObject): JsonObject {
  return { ...record, embedding_text: { [SECTION_VIEW]: flattenSectionSummary(record[SECTION_VIEW]) } };
}

type ReadSection = { ok: true; section: SectionInput } | { ok: false; code: string; message: string };

export function readSection(record: JsonObject): ReadSection {
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
    section: {
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

/** A section_summary already present and within its contract: the record passes through (unless --overwrite). */
function doneSummary(value: unknown): string | null {
  return isPlainObject(value) && checkerFor(SECTION_VIEW)(value) === null ? (value.summary as string) : null;
}

/** The record with its section_summary, view_flags.section_summary and generation.section_summary. */
export function withSectionResult(record: JsonObject, result: ViewResult, childrenMissing: number | null): JsonObject {
  const out: JsonObject = { ...record };
  const flags: JsonObject = isPlainObject(record.view_flags) ? { ...record.view_flags } : {};
  const generation: JsonObject = isPlainObject(record.generation) ? { ...record.generation } : {};
  const evidence: JsonObject = isPlainObject(record.evidence) ? { ...record.evidence } : {};
  out[SECTION_VIEW] = result.view;
  if (result.flags === null) delete flags[SECTION_VIEW];
  else flags[SECTION_VIEW] = result.flags;
  if (result.evidence === null) delete evidence[SECTION_VIEW];
  else evidence[SECTION_VIEW] = result.evidence;
  generation[SECTION_VIEW] = childrenMissing === null ? result.generation : { ...result.generation, children_missing: childrenMissing };
  out.view_flags = flags;
  out.evidence = evidence;
  out.generation = generation;
  return out;
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

interface Finished {
  prepared: Prepared;
  /** What the parent's prompt gets (--bottom-up); null when there is none. */
  summary: string | null;
}

export class SectionGenerator extends Generator {
  private readonly waiting: PendingChildren | null;
  private sectionSeq = 0;
  private withoutText = 0;
  private childrenMissing = 0;

  constructor(
    deps: GeneratorDeps,
    private readonly mode: SectionMode,
  ) {
    super(deps);
    this.waiting = mode.bottomUp ? new PendingChildren() : null;
  }

  override process(record: JsonObject, meta: RecordMeta): Outcome | Promise<Outcome> {
    const read = readSection(record);
    if (!read.ok) return { reject: { code: read.code, message: read.message } };
    const section = read.section;
    const children = this.waiting?.take(section) ?? [];
    const done = this.deps.config.overwrite ? null : doneSummary(record[SECTION_VIEW]);
    let work: Finished | Promise<Finished>;
    if (done !== null) {
      this.counters.viewsSkipped++;
      this.counters.passedThrough++;
      work = { prepared: this.passThrough(record, meta), summary: done };
    } else {
      const seq = this.sectionSeq++;
      work = children.length === 0 ? this.summarise(record, meta, section, [], seq) : Promise.all(children).then((kids) => this.summarise(record, meta, section, kids, seq));
    }
    if (this.waiting !== null && section.parent_id !== null) {
      const title = section.title;
      this.waiting.add(section.parent_id, Promise.resolve(work).then((w) => (w.summary === null || w.summary.trim() === '' ? null : { title, summary: w.summary, section_id: section.section_id })));
    }
    return this.inOrder(work instanceof Promise ? work.then((w) => w.prepared) : work.prepared, meta);
  }

  private summarise(record: JsonObject, meta: RecordMeta, section: SectionInput, kids: readonly (ChildSummary | null)[], seq: number): Finished | Promise<Finished> {
    const { config, control, backend } = this.deps;
    const children = kids.filter((k): k is ChildSummary => k !== null);
    if (section.text.trim() === '' && children.length === 0) {
      this.withoutText++;
      return { prepared: this.passThrough(record, meta), summary: null };
    }
    const job: SectionJob = { view: SECTION_VIEW, section, children, text: section.text, sources: sectionSources(section, children), seq };
    if (config.dryRun) {
      const request = backend.render(job, { attempt: 1, feedback: null, maxChars: config.maxChars });
      this.counters.requestsRendered++;
      const requests = isPlainObject(record.requests) ? { ...record.requests, [SECTION_VIEW]: request } : { [SECTION_VIEW]: request };
      return { prepared: { outcome: { records: [{ ...record, requests }] }, unfinished: false }, summary: null };
    }
    // A child cut short by the stop would leave this prompt short of its summary.
    if (control.stopped) return { prepared: { outcome: {}, unfinished: true }, summary: null };
    const missing = this.waiting === null ? null : Math.max(0, section.child_count - children.length);
    return this.view(job, job.sources.grounding).then((result) => ({
      prepared: this.assembleSection(record, result, missing),
      summary: result.view === null ? null : String(result.view.summary),
    }));
  }

  private assembleSection(record: JsonObject, result: ViewResult, missing: number | null): Prepared {
    // Once the run has stopped, a failed view may be a casualty of the stop, not a real answer.
    if (this.deps.control.stopped && result.status === 'failed') return { outcome: {}, unfinished: true };
    const warnings: string[] = [];
    const failed = this.tally(SECTION_VIEW, result, warnings);
    const cacheWarning = this.deps.cache?.takeWarning();
    if (cacheWarning) warnings.push(cacheWarning);
    if (missing !== null) this.childrenMissing += missing;
    let out = withSectionResult(record, result, missing);
    if (this.deps.finishRecord) out = this.deps.finishRecord(out);
    return { outcome: { records: [out], failed, warnings }, unfinished: false };
  }

  private passThrough(record: JsonObject, meta: RecordMeta): Prepared {
    const out = this.deps.finishRecord ? this.deps.finishRecord(record) : new RawJson(meta.raw);
    return { outcome: { records: [out] }, unfinished: false };
  }

  override summary(): string[] {
    const lines = super.summary();
    const notes: string[] = [];
    if (this.withoutText > 0) {
      const hint = this.mode.bottomUp ? '' : ' (--bottom-up summarises them from their subsections)';
      const have = this.withoutText === 1 ? 'section has no text of its own' : 'sections have no text of their own';
      notes.push(`${this.withoutText} ${have} and no child summary: passed through without a section_summary${hint}`);
    }
    if (this.childrenMissing > 0) notes.push(`${this.childrenMissing} ${this.childrenMissing === 1 ? 'child is' : 'children are'} missing from their parents' prompts (failed, rejected or not in the input)`);
    const orphaned = this.waiting?.orphaned ?? 0;
    if (orphaned > 0) {
      notes.push(`${orphaned} ${orphaned === 1 ? 'section found' : 'sections found'} no parent after them: --bottom-up needs rca-count-sections' order (children before their parent, one document at a time)`);
    }
    return [...lines, ...notes];
  }

  override stats(): Record<string, unknown> {
    return {
      ...super.stats(),
      sections: {
        bottom_up: this.mode.bottomUp,
        without_text: this.withoutText,
        children_missing: this.childrenMissing,
        // The most child summaries held at once waiting for their parent: the memory --bottom-up needs.
        peak_waiting_children: this.waiting?.peak ?? 0,
        orphaned_children: this.waiting?.orphaned ?? 0,
      },
    };
  }
}
