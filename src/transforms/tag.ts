import { AUTHORITY_LEVELS, DOC_TYPES, type AuthorityLevel } from '../contracts/vocabulary.js';
import { appendMembers, defineStage, type JsonObject, type OffThreadRunner, type Outcome, type Processor, type RecordMeta, type SetupContext } from '../runtime/stage.js';
import type { NerSeed } from '../contracts/chunk.js';
import { SEED_KERNEL } from '../tagging/seed-kernel.js';
import { DocumentPlacements, TocPlacement } from '../tagging/toc-placement.js';
import { UsageError } from '../runtime/exit-codes.js';
import { maxDepthOption } from '../tagging/max-depth-option.js';
import type { ContextOptions } from '../tagging/context.js';
import { buildGazetteer } from '../tagging/gazetteer.js';
import { buildKeywordLists } from '../tagging/keyword-lists.js';
import { parseLexiconCsv, type LexiconEntry } from '../tagging/lexicon.js';
import type { TagSetup } from '../tagging/tag-batch.js';
import { AUTO_MIN_INPUT_BYTES, autoPlan, MAX_AUTO_JOBS, MAX_JOBS, ParallelTagger } from '../tagging/tag-pool.js';
import { Tagger } from '../tagging/tagger.js';
import { TagFlagCounts } from '../tagging/tag-summary.js';

export { Tagger, type TaggerConfig } from '../tagging/tagger.js';

const BUILTIN_LEXICON = 'builtin';

export default defineStage({
  name: 'tag',
  summary: 'add the trusted context (doc type, section role, citations) and the NER seed to each chunk',
  description: `Adds to every chunk record:
  context    {doc_id, doc_type, doc_subtype, chunk_id, section_path, page_start, page_end, authority_level, section_role}
  section_id a stable id of (doc_id, normalised section path), the key that links chunks to sections
  ner_seed   the 18 NER lists (systems ... conjectures) from the lexicon and the pattern extractors
  tag_flags  what the chunk lacked or what was changed; [] when complete:
             missing_chunk_id, missing_doc_id, missing_text, missing_section_path;
             <field>_coerced (doc_id 123 -> "123", page_start "3" -> 3); <field>_dropped (a value
             present but unusable: page_start -1 or 1e309, an object where a string belongs);
             section_path_folded (deeper than --max-depth); <field>_kept_as:<name> (an input field
             named like one any stage writes - context, section_id, ner_seed, tag_flags, prompts,
             the views, flags, evidence, generation, embedding_text, ... - holding a value not in
             that stage's shape is kept, renamed upstream_<field>; values in rca's own shape are
             replaced, as on a re-run)
Input fields used (rca schema chunk lists them): chunk_id (else provenance.chunk_id, else
record_id), doc_id (or document.sourceId; numbers become strings), doc_type, doc_name,
source_path, section_segments (else section_path / sectionPath / section / section_title, split
on " > ", else library_rag v1's hierarchy {part, chapter, section, subsection}, else its title),
text (else raw_text, else embedding_text, also once kept as upstream_embedding_text),
page_start / page_end (else page). All other fields pass through untouched, in order.
A chunk of a document with a toc (library_rag v2) that names only its heading (section,
section_level) gets the sectionPath the TOC places it at, as library_rag's toc_enricher adds it:
a heading equal to a TOC title takes that entry's path, another goes under the nearest earlier
heading of a lower level. The last stderr line counts the chunks tagged and their flags.
With --jobs N, N threads tag: N-1 worker threads take the input in blocks of bytes and hand back
finished output; this one reads, keeps input order, decides each document's doc type, writes, and
tags a block itself when every worker is busy. The output is the same bytes whatever N.
--jobs auto (the default) is one thread per idle CPU (by the load average), at most ${MAX_AUTO_JOBS},
so 1 on a one-CPU or busy machine, and 1 for an input file under ${AUTO_MIN_INPUT_BYTES / 2 ** 20} MiB; from a
pipe the workers start once that much has been read. Threads cost CPU time of their own (starting
each one, and more per byte): when other work keeps the CPUs busy, --jobs 1 is faster.`,
  examples: [
    'rca-tag < chunks.jsonl > tagged.jsonl',
    'rca-tag --doc-type detect --rejects rejects.jsonl chunks.jsonl',
    'rca-tag --lexicon builtin --lexicon plant-terms.csv < chunks.jsonl',
    'rca-tag --jobs 1 < chunks.jsonl    # one thread',
    "jq -c '.chunks[]' doc_chunks.json | rca-tag --toc doc_chunks.json    # a library_rag document's chunks as JSON Lines",
  ],
  options: {
    'doc-type': {
      type: 'string',
      placeholder: 'TYPE',
      default: 'auto',
      choices: ['auto', 'detect', ...DOC_TYPES],
      help: 'auto: keep a valid upstream doc_type, else detect per document; detect: always detect; or force one type',
    },
    authority: {
      type: 'string',
      placeholder: 'LEVEL',
      choices: AUTHORITY_LEVELS,
      help: 'override the authority level (default: mandatory for SOP, guidance for a generic letter or bulletin, informational otherwise)',
    },
    lexicon: {
      type: 'list',
      placeholder: 'FILE',
      help: `gazetteer CSV (sheet,column_header,label,term or label,term) replacing the built-in one; '${BUILTIN_LEXICON}' names the built-in lexicon`,
    },
    'max-depth': maxDepthOption('fold section path segments deeper than N into the Nth (flag section_path_folded); rca-count-sections must use the same N'),
    jobs: {
      type: 'string',
      placeholder: 'N',
      default: 'auto',
      help: `threads that tag, this one included: auto (one per idle CPU, at most ${MAX_AUTO_JOBS}) or 1 to ${MAX_JOBS}`,
    },
    toc: {
      type: 'string',
      placeholder: 'FILE',
      help: "place chunks that name only their heading in this table of contents (a library_rag document, or a JSON list of {title, level}), as a document's own toc places them; tags on one thread",
    },
  },
  create(options, setup) {
    let fixedToc: TocPlacement | null = null;
    if (options.toc) {
      const file = setup.readDocumentFields(options.toc, ['toc']);
      fixedToc = TocPlacement.of(file.array ?? file.fields.toc);
      if (fixedToc === null) throw new UsageError(`--toc '${options.toc}' has no toc: expected a JSON list of {title, level} or a document with a "toc" list`);
    }
    // Placement follows the document order, which blocks on worker threads would not keep.
    const requestedJobs = fixedToc ? 1 : parseJobs(options.jobs);
    const lexicon = loadLexicon(options.lexicon.length ? options.lexicon : [BUILTIN_LEXICON], setup);
    const tagSetup: TagSetup = {
      // Read where the matchers are built (the first record; a worker's data, which copies it).
      get lexicon() {
        return lexicon();
      },
      keywordFiles: readKeywordFiles(setup),
      context: {
        docTypeMode: options['doc-type'],
        authority: (options.authority as AuthorityLevel | undefined) ?? null,
        maxDepth: options['max-depth'],
      } satisfies ContextOptions,
    };
    const { jobs, spawnAfterBytes } = requestedJobs === 'auto' ? autoPlan(setup.inputBytes ?? null) : { jobs: requestedJobs, spawnAfterBytes: 0 };
    const placements = new DocumentPlacements(fixedToc);
    if (jobs > 1) {
      const parallel = new ParallelTagger({ jobs, setup: tagSetup, spawnAfterBytes, ...(setup.offThread ? { offThread: setup.offThread } : {}) });
      // A document's records come one by one as lines (never in blocks): placed here, in document
      // order, before the tagger reads the line.
      const tagLine = parallel.tagLine.bind(parallel);
      parallel.tagLine = (line, meta) => {
        if (meta.document === undefined) return tagLine(line, meta);
        const input = JSON.parse(line) as JsonObject;
        const [record, placedMeta] = placed(placements, input, meta);
        return record === input ? tagLine(line, meta) : tagLine(placedMeta.raw, placedMeta);
      };
      (parallel as { documentFields?: readonly string[] }).documentFields = ['toc'];
      return parallel;
    }
    // The matchers are built on the first record: an empty input starts fast.
    return lazyTagger(
      () => new Tagger({ ...tagSetup.context, gazetteer: buildGazetteer(tagSetup.lexicon), keywords: buildKeywordLists(tagSetup.keywordFiles) }),
      placements,
      setup.offThread && { offThread: setup.offThread, setup: tagSetup },
    );
  },
});

function parseJobs(value: string): number | 'auto' {
  if (value === 'auto') return 'auto';
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isInteger(n) || n < 1 || n > MAX_JOBS) {
    throw new UsageError(`--jobs expects auto or a whole number from 1 to ${MAX_JOBS}, got '${value}'`);
  }
  return n;
}

/**
 * The entries of the --lexicon files, in order. Every file is read now, and a file of the command
 * line is parsed now, so a bad one is refused before any input is read; the built-in lexicon (a
 * test holds it valid) is parsed on first use, which an empty input never reaches.
 */
function loadLexicon(files: string[], setup: SetupContext): () => LexiconEntry[] {
  const parts: Array<() => LexiconEntry[]> = [];
  for (const file of files) {
    const path = file === BUILTIN_LEXICON ? setup.dataFile('lexicon/rca-default.csv') : file;
    try {
      const text = setup.readText(path);
      if (file === BUILTIN_LEXICON) parts.push(() => parseLexiconCsv(text, file));
      else {
        const entries = parseLexiconCsv(text, file);
        parts.push(() => entries);
      }
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`--lexicon ${file}: ${(err as Error).message}`);
    }
  }
  let entries: LexiconEntry[] | undefined;
  return () => (entries ??= parts.flatMap((part) => part()));
}

function readKeywordFiles(setup: SetupContext): TagSetup['keywordFiles'] {
  const read = (name: string) => setup.readText(setup.dataFile(`keywords/${name}.csv`));
  return {
    temporalQualifiers: read('temporal_qualifiers'),
    temporalRelations: read('temporal_relations'),
    locations: read('locations'),
    conjectures: read('conjectures'),
  };
}

/**
 * A chunk of a library_rag document that names only its heading gets the `sectionPath` its TOC
 * places it at (tagging/toc-placement.ts), appended as library_rag's toc_enricher adds it, so every
 * later stage reads the same path; the record and the line as read are both given it.
 */
function placed(placements: DocumentPlacements, record: JsonObject, meta: RecordMeta): [JsonObject, RecordMeta] {
  const out = placements.place(record, meta.document);
  if (out === record) return [record, meta];
  const { bytes: _stale, ...rest } = meta;
  return [out, { ...rest, raw: appendMembers(meta.raw, `"sectionPath":${JSON.stringify(out.sectionPath)}`) }];
}

function lazyTagger(build: () => Tagger, placements: DocumentPlacements, off: { offThread: OffThreadRunner; setup: TagSetup } | undefined): Processor {
  let tagger: Tagger | null = null;
  const none = new TagFlagCounts();
  const seed = off && ((text: string) => off.offThread.run<NerSeed>(SEED_KERNEL, off.setup, text));
  return {
    documentFields: ['toc'],
    process(input: JsonObject, inputMeta): Outcome | Promise<Outcome> {
      tagger ??= build();
      const [record, meta] = placed(placements, input, inputMeta);
      // A large record's seed is made on the run's worker thread; its context here, in order.
      if (seed !== undefined && off!.offThread.takes(inputMeta.raw)) return tagger.processWith(record, meta, seed);
      return tagger.process(record, meta);
    },
    summary: () => (tagger?.flagCounts ?? none).summary(),
    stats: () => ({ jobs: 1, workers_started: 0, ...(tagger?.flagCounts ?? none).stats() }),
  };
}
