import { AppendedJson, defineStage, RawJson, type JsonObject } from '../runtime/stage.js';
import { GENERATE_OPTIONS, resolveConfig } from '../generation/config.js';
import { createGenerator } from '../generation/create.js';
import { createSectionGenerator, resolveSectionMode, SECTION_DESCRIPTION, SECTION_OPTIONS } from '../generation/section-mode.js';
import { UsageError } from '../runtime/exit-codes.js';
import { DEFAULT_VIEW_FIELDS } from '../views/view-types.js';
import { GENERATE_DESCRIPTION } from './generate.js';
import { Flattener } from './flatten.js';

export default defineStage({
  name: 'summarize',
  summary: 'prompt, generate, validate and flatten in one process: tagged chunks in, validated views and embedding text out',
  description: `rca-generate and rca-flatten in one process, the records handed over as objects
(the prompt is built and every reply validated inside generate). Adds what rca-generate adds, and
  embedding_text  {retrieval_summary: "...", rca_frame: "..."} (and "combined" with --combined)
With --dry-run it writes the requests only, as rca-generate --dry-run does; with --no-flatten it
writes what rca-generate writes. With --view section_summary (rca-count-sections records in) it adds
  embedding_text  {section_summary: "SECTION: <path>\\nSUMMARY: ...\\nCONCEPTS: a, b, c"}

About generate:
${GENERATE_DESCRIPTION}
${SECTION_DESCRIPTION}`,
  examples: [
    'cat chunks.jsonl | rca-tag | rca-summarize > out.jsonl',
    'rca-tag < chunks.jsonl | rca-summarize --backend extractive > out.jsonl      # no model needed',
    'rca-summarize --concurrency 4 --combined --stats stats.json tagged.jsonl > out.jsonl',
    'rca-summarize out.jsonl > out.retried.jsonl      # retries only the views that failed',
    'rca-count-sections tagged.jsonl | rca-summarize --view section_summary --bottom-up > section-summaries.jsonl',
  ],
  options: {
    ...GENERATE_OPTIONS,
    ...SECTION_OPTIONS,
    combined: {
      type: 'boolean',
      default: false,
      help: 'also write embedding_text.combined: the section path and both views in one text',
    },
    flatten: {
      type: 'boolean',
      default: true,
      help: 'add embedding_text (--no-flatten: write the records exactly as rca-generate does)',
    },
  },
  create(options, setup) {
    const config = resolveConfig(options, setup.env);
    const sections = resolveSectionMode(options, setup);
    if (sections !== null) {
      if (options.combined) throw new UsageError('--combined joins the chunk views; a section has one view, its embedding text is already whole');
      return createSectionGenerator(config, sections, { flatten: !config.dryRun && options.flatten });
    }
    if (config.dryRun || !options.flatten) return createGenerator(config);
    const flattener = new Flattener({ ...DEFAULT_VIEW_FIELDS }, options.combined);
    return createGenerator(config, { finishRecord: (record) => flattened(flattener, record) });
  },
});

function flattened(flattener: Flattener, record: JsonObject): JsonObject {
  const out = flattener.process(record).records?.[0];
  // Flatten always returns the one record it was given, as an object.
  return out === undefined || out instanceof RawJson || out instanceof AppendedJson ? record : out;
}
