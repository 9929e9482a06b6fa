import { UsageError } from '../runtime/exit-codes.js';
import { defineStage, type JsonObject, type Outcome, type Processor, type RecordMeta } from '../runtime/stage.js';
import { DocumentGroups } from '../sections/document-groups.js';
import { sectionChunkOf } from '../sections/section-chunk.js';
import { SECTION_FLAGS, SectionTreeBuilder, type NotSorted, type SectionRecord, type SectionStats } from '../sections/section-tree.js';
import { TOC_DESCRIPTION, TocSections, tocFromFile } from '../sections/toc-sections.js';

const DEFAULT_MAX_TEXT_CHARS = 20_000;

export default defineStage({
  name: 'count-sections',
  summary: "build each document's section tree: one record per section with its chunk counts, chunk ids, pages and text",
  description: `Every prefix of every section path is a section, including headings with no chunks of their own.
One record per section, children before their parent:
  kind "section", section_id, doc_id, section_path, segments, title, level, parent_id, parent_path,
  direct_count, total_count, child_count, chunk_ids (direct, in order), page_start, page_end,
  first_order, last_order (over the subtree; null when unknown), text (the direct chunks' text,
  up to --max-text-chars), text_truncated, flags
section_id is the id rca-tag puts on each chunk: a section's chunks are the chunks whose section_id
equals it. Paths are split on " > " and compared by whole segments, after removing markdown
emphasis, Unicode NFC and whitespace clean-up, so "CP 5.31" is never an ancestor of "CP 5.314".
A chunk without a path belongs to its document's "(unsectioned)" section (flag unsectioned).
Flags: unsectioned, missing_doc_id, missing_chunk_id, missing_text, section_id_mismatch (a tagged
chunk whose section_id differs from the one computed here).

Input: chunk records, tagged or not: section_path / sectionPath (joined with " > ") or
section_segments (an array, never split), doc_id (or document.sourceId), chunk_id,
orderIndex / order_index, page_start / page_end / page, text (else raw_text).

Sorted input (each document's chunks together, each section's subtree together, as parsers emit
them) streams in memory proportional to the tree depth. A section that re-opens after it was
closed stops the run (exit 1) naming the line and the path; --unsorted then holds one document at
a time and orders its chunks by orderIndex (when every chunk has one, else as read), giving the
output sorted input would give. Documents must be contiguous in both modes.

${TOC_DESCRIPTION}`,
  examples: [
    'rca-count-sections < chunks.jsonl > sections.jsonl',
    'rca-tag < chunks.jsonl | tee tagged.jsonl | rca-count-sections --unsorted > sections.jsonl',
    'rca-count-sections --max-text-chars 4000 chunks.jsonl',
    'rca-count-sections peirce_chunks.json            # a library_rag document: sections from its toc',
    'rca-tag peirce_chunks.json | rca-count-sections --toc peirce_chunks.json',
  ],
  options: {
    unsorted: {
      type: 'boolean',
      default: false,
      help: "accept sections whose chunks are scattered within a document: group each document in memory",
    },
    'max-text-chars': {
      type: 'number',
      placeholder: 'N',
      default: DEFAULT_MAX_TEXT_CHARS,
      min: 0,
      integer: true,
      help: "keep at most N characters of a section's direct text (text_truncated says when cut)",
    },
    toc: {
      type: 'string',
      placeholder: 'FILE',
      help: "take every document's sections from this table of contents: a library_rag document (its toc) or a JSON list of {title, level[, children]}",
    },
  },
  create(options, setup) {
    const counter = new SectionCounter({ unsorted: options.unsorted, maxTextChars: options['max-text-chars'] });
    if (options.toc) {
      try {
        counter.toc = new TocSections(tocFromFile(setup.readDocumentFields(options.toc, ['toc']), options.toc));
      } catch (err) {
        throw err instanceof UsageError ? err : new UsageError((err as Error).message);
      }
    }
    return counter;
  },
});

export interface SectionCounterOptions {
  unsorted: boolean;
  maxTextChars: number;
}

export class SectionCounter implements Processor {
  private readonly builder: SectionTreeBuilder;
  private readonly groups: DocumentGroups | null;
  /** Sections from a TOC (--toc, or a document's own): applied to what the tree writes. */
  toc = new TocSections(null);
  readonly documentFields = ['toc'];

  constructor(options: SectionCounterOptions) {
    this.builder = new SectionTreeBuilder({ maxTextChars: options.maxTextChars });
    this.groups = options.unsorted ? new DocumentGroups(this.builder, options.maxTextChars) : null;
  }

  process(record: JsonObject, meta?: RecordMeta): Outcome {
    const out: SectionRecord[] = [];
    const chunk = sectionChunkOf(record);
    if (meta) this.toc.observe(chunk.docId, meta);
    const problem = this.groups ? this.groups.add(chunk, out) : this.builder.add(chunk, out);
    if (problem) return { records: out, stop: this.explain(problem) };
    return out.length ? { records: this.toc.apply(out) } : {};
  }

  finish(): Outcome {
    const out: SectionRecord[] = [];
    if (this.groups) this.groups.finish(out);
    else this.builder.finish(out);
    const records = this.toc.apply(out);
    this.toc.finish(records);
    return { records };
  }

  /** Merged by the runner into the --stats FILE; deterministic (no clock). */
  stats(): SectionStats & { toc?: ReturnType<TocSections['stats']> } {
    const toc = this.toc.stats();
    return { ...this.builder.stats(), ...(toc.documents_with_toc ? { toc } : {}) };
  }

  progress(): string {
    const s = this.builder.stats();
    return `${count(s.sections, 'section')} in ${count(s.documents, 'document')}`;
  }

  summary(): string[] {
    const s = this.stats();
    const flags = SECTION_FLAGS.filter((f) => s.flags[f]).map((f) => `${f} ${s.flags[f]}`);
    return [
      `${count(s.chunks, 'chunk')}, ${count(s.documents, 'document')}, ${count(s.sections, 'section')}, ` +
        `max depth ${s.max_depth}, ${s.unsectioned} unsectioned, flags: ${flags.length ? flags.join(', ') : 'none'}`,
      ...this.toc.summary(),
    ];
  }

  private explain(problem: NotSorted): string {
    if (problem.kind === 'document') {
      return `input not grouped by document: document ${JSON.stringify(problem.docId)} appears again after other documents; ` +
        'put the records of each document together (e.g. sort by doc_id) and run again';
    }
    const where = problem.reopened === problem.chunkPath ? '' : ` (chunk path ${JSON.stringify(problem.chunkPath)})`;
    return `input not sorted: section ${JSON.stringify(problem.reopened)} of document ${JSON.stringify(problem.docId)} ` +
      `re-opens after it was closed${where}; use --unsorted to group each document in memory`;
  }
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
