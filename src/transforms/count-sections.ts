import { UsageError } from '../runtime/exit-codes.js';
import { defineStage, type JsonObject, type Outcome, type OutputRecord, type Processor, type RecordMeta } from '../runtime/stage.js';
import { ChunkStore, DEFAULT_SPILL_BYTES } from '../sections/chunk-store.js';
import { DocumentGroups } from '../sections/document-groups.js';
import { sectionChunkOf } from '../sections/section-chunk.js';
import { SECTION_FLAGS, SectionTreeBuilder, type NotSorted, type SectionRecord, type SectionStats } from '../sections/section-tree.js';
import { TOC_DESCRIPTION, TocSections, tocFromFile, type TocSectionRecord } from '../sections/toc-sections.js';
import { DEFAULT_MAX_DEPTH } from '../tagging/chunk-fields.js';
import { maxDepthOption } from '../tagging/max-depth-option.js';
import { DocumentPlacements, TocPlacement } from '../tagging/toc-placement.js';

const DEFAULT_MAX_TEXT_CHARS = 20_000;
const NOTHING: Outcome = Object.freeze({});

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
chunk whose section_id differs from the one computed here), section_path_folded (a path deeper
than --max-depth: the deeper headings are folded into the last kept one, as rca-tag does),
duplicate_chunk_id (a chunk id its document had already given a chunk: both are counted, and the
summary line on stderr names the first few).

Input: chunk records, tagged or not, read as rca-tag reads them (rca schema chunk): section_segments
(an array, never split), else section_path / sectionPath / section / section_title (joined with
" > "), doc_id (or document.sourceId; numbers become strings), chunk_id, orderIndex / order_index,
page_start / page_end / page, text (else raw_text, else embedding_text).

By default the chunks may come in any order, documents interleaved too (a parser listing its tables
after its text, an unordered parallel run): they are kept until the end of input, in memory up to
--spill-mb, then in a temporary SQLite file (in $TMPDIR, deleted when the run ends), and each
document is then built in the order sorted input would give (chunks ordered by orderIndex when
every chunk of the document has one, else as read). Documents come out in the order they first
appeared; the chunks without a doc id form one document (doc_id "", flag missing_doc_id), last.
--sorted streams instead, in memory proportional to the tree depth, writing each document as soon
as the next begins: for input whose documents and section subtrees are contiguous, as parsers
emit them. Input that is not (a section re-opens after it was closed, a document appears again)
then ends the run with exit 3, naming the line; run without --sorted.

${TOC_DESCRIPTION}`,
  examples: [
    'rca-count-sections < chunks.jsonl > sections.jsonl',
    'rca-tag < chunks.jsonl | tee tagged.jsonl | rca-count-sections > sections.jsonl',
    'rca-count-sections --sorted --max-text-chars 4000 chunks.jsonl',
    'rca-count-sections peirce_chunks.json            # a library_rag document: sections from its toc',
    'rca-tag peirce_chunks.json | rca-count-sections --toc peirce_chunks.json',
  ],
  options: {
    sorted: {
      type: 'boolean',
      default: false,
      help: 'the input is sorted (documents and section subtrees contiguous): stream it, holding only the open path',
    },
    unsorted: {
      type: 'boolean',
      default: false,
      help: 'any order (the default; kept so that existing scripts run)',
    },
    'max-text-chars': {
      type: 'number',
      placeholder: 'N',
      default: DEFAULT_MAX_TEXT_CHARS,
      min: 0,
      integer: true,
      help: "keep at most N characters of a section's direct text (text_truncated says when cut)",
    },
    'max-depth': maxDepthOption('fold path segments deeper than N into the Nth (flag section_path_folded); use the N rca-tag used'),
    'spill-mb': {
      type: 'number',
      placeholder: 'MB',
      default: DEFAULT_SPILL_BYTES / 2 ** 20,
      min: 0,
      help: 'without --sorted: hold up to MB of chunks in memory, then move them to a temporary SQLite file',
    },
    toc: {
      type: 'string',
      placeholder: 'FILE',
      help: "take every document's sections from this table of contents: a library_rag document (its toc) or a JSON list of {title, level[, children]}",
    },
  },
  create(options, setup) {
    if (options.sorted && options.unsorted) throw new UsageError('--sorted and --unsorted exclude each other');
    const counter = new SectionCounter({
      sorted: options.sorted,
      maxTextChars: options['max-text-chars'],
      maxDepth: options['max-depth'],
      spillAfterBytes: options['spill-mb'] * 2 ** 20,
    });
    if (options.toc) {
      try {
        const file = setup.readDocumentFields(options.toc, ['toc']);
        counter.toc = new TocSections(tocFromFile(file, options.toc));
        counter.placements = new DocumentPlacements(TocPlacement.of(file.array ?? file.fields.toc));
      } catch (err) {
        throw err instanceof UsageError ? err : new UsageError((err as Error).message);
      }
    }
    return counter;
  },
});

export interface SectionCounterOptions {
  /** Streaming mode: the input's documents and subtrees are contiguous. */
  sorted?: boolean;
  maxTextChars: number;
  maxDepth?: number;
  /** Without `sorted`: bytes of chunks held in memory before they move to a temporary file. */
  spillAfterBytes?: number;
}

export class SectionCounter implements Processor {
  private readonly builder: SectionTreeBuilder;
  private readonly sorted: boolean;
  private readonly maxDepth: number;
  /** Every chunk without --sorted; with it, only the chunks without a doc id (written last). */
  private readonly groups: DocumentGroups;
  /** Sections from a TOC (--toc, or a document's own): applied to what the tree writes. */
  toc = new TocSections(null);
  readonly documentFields = ['toc'];

  constructor(options: SectionCounterOptions) {
    this.sorted = options.sorted ?? false;
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.builder = new SectionTreeBuilder({ maxTextChars: options.maxTextChars });
    this.groups = new DocumentGroups(this.builder, options.maxTextChars, new ChunkStore(options.spillAfterBytes));
  }

  /** A document's chunks that name only their heading are placed in its TOC as rca-tag places them. */
  placements = new DocumentPlacements();

  process(input: JsonObject, meta?: RecordMeta): Outcome {
    const record = this.placements.place(input, meta?.document);
    const chunk = sectionChunkOf(record, this.maxDepth);
    if (meta) this.toc.observe(chunk.docId, meta);
    if (!this.sorted || chunk.docIdMissing) {
      this.groups.add(chunk);
      return NOTHING;
    }
    const out: SectionRecord[] = [];
    const problem = this.builder.add(chunk, out);
    // Output cut short is never "some records rejected": exit 3.
    if (problem) return { records: this.toc.apply(out), fatal: this.explain(problem) };
    return out.length ? { records: this.toc.apply(out) } : NOTHING;
  }

  finish(): Outcome {
    const out: SectionRecord[] = [];
    if (this.sorted) this.builder.finish(out);
    return { stream: this.withToc(out, this.groups.finish()) };
  }

  /** The tree's records with the TOC applied, one at a time; TOC-only sections after each document. */
  private *withToc(first: SectionRecord[], rest: Iterable<SectionRecord>): Generator<OutputRecord> {
    for (const record of first) yield* this.toc.apply([record]);
    for (const record of rest) yield* this.toc.apply([record]);
    const last: TocSectionRecord[] = [];
    this.toc.finish(last);
    yield* last;
  }

  close(): void {
    this.groups.close();
  }

  /** Merged by the runner into the --stats FILE; deterministic (no clock). */
  stats(): SectionStats & { store: Record<string, unknown>; toc?: ReturnType<TocSections['stats']> } {
    const toc = this.toc.stats();
    return { ...this.builder.stats(), store: this.groups.stats(), ...(toc.documents_with_toc ? { toc } : {}) };
  }

  progress(): string {
    const s = this.builder.stats();
    // Without --sorted nothing is built before the end of input: say what is waiting.
    const waiting = this.groups.held - (this.sorted ? 0 : s.chunks);
    return `${count(s.sections, 'section')} in ${count(s.documents, 'document')}${waiting > 0 ? `, ${count(waiting, 'chunk')} waiting` : ''}`;
  }

  summary(): string[] {
    const s = this.stats();
    // Every flag the written sections carry: the tree's, then those the TOC adds.
    const flags = [...SECTION_FLAGS.filter((f) => s.flags[f]).map((f) => `${f} ${s.flags[f]}`), ...[...this.toc.flagCounts].map(([f, n]) => `${f} ${n}`)];
    return [
      `${count(s.chunks, 'chunk')}, ${count(s.documents, 'document')}, ${count(s.sections, 'section')}, ` +
        `max depth ${s.max_depth}, ${s.unsectioned} unsectioned, flags: ${flags.length ? flags.join(', ') : 'none'}`,
      ...this.duplicateLines(s.duplicate_chunks),
      ...this.toc.summary(),
    ];
  }

  /** Chunk ids read more than once: how many, and the first few by name. */
  private duplicateLines(duplicates: number): string[] {
    if (duplicates === 0) return [];
    const named = this.builder.duplicateChunks().map((d) => `chunk ${JSON.stringify(d.chunkId)} of document ${JSON.stringify(d.docId)} ${d.times} times`);
    const more = duplicates > named.length ? ', …' : '';
    return [`duplicate_chunk_id: ${count(duplicates, 'chunk')} read under a chunk id already read in its document, each counted (its section is flagged duplicate_chunk_id): ${named.join('; ')}${more}`];
  }

  private explain(problem: NotSorted): string {
    if (problem.kind === 'document') {
      return `input not grouped by document: document ${JSON.stringify(problem.docId)} appears again after other documents; ` +
        'run without --sorted to accept any order';
    }
    const where = problem.reopened === problem.chunkPath ? '' : ` (chunk path ${JSON.stringify(problem.chunkPath)})`;
    return `input not sorted: section ${JSON.stringify(problem.reopened)} of document ${JSON.stringify(problem.docId)} ` +
      `re-opens after it was closed${where}; run without --sorted to accept any order`;
  }
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
