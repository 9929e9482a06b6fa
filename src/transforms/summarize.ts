import type { JsonObject } from '../contracts/json.js';
import { SECTION_VIEW } from '../contracts/vocabulary.js';
import { CONFIG_ERRORS, GENERATE_OPTIONS, resolveConfig, resolveSectionMode, SECTION_DESCRIPTION, SECTION_OPTIONS } from '../generation/config.js';
import { createGenerator } from '../generation/create.js';
import { keepUpstream } from '../tagging/added-fields.js';
import { asUsage, UsageError } from '../runtime/exit-codes.js';
import { defineStage } from '../runtime/stage.js';
import { embeddingTexts, flattenView } from '../views/flatten-view.js';
import { CHUNK_VIEWS_SAID, DEFAULT_VIEW_FIELDS } from '../views/view-types.js';
import { extractiveSetup, GENERATE_DESCRIPTION } from './generate.js';

// An upstream embedding_text (DACKAR's string) is kept as upstream_embedding_text (added-fields.ts).
const EMBEDDING_TEXT = ['embedding_text'];

export default defineStage({
  name: 'summarize',
  summary: 'prompt, generate, validate and flatten in one process: tagged chunks in, validated views and embedding text out',
  description: `rca-generate and rca-flatten in one process, the records handed over as objects
(the prompt is built and every reply validated inside generate). Adds what rca-generate adds, and
  embedding_text  ${CHUNK_VIEWS_SAID.object} (and "combined" with --combined)
With --dry-run it writes the requests only, as rca-generate --dry-run does; with --no-flatten it
writes what rca-generate writes. With --view section_summary (rca-count-sections records in) it adds
  embedding_text  {section_summary: "SECTION: <path>\\nSUMMARY: ...\\nCONCEPTS: a, b, c"}
No input field is overwritten: a field named like one it writes holding a value of another shape
(DACKAR's embedding_text string) is kept as upstream_<field>, and a kept embedding_text string
is still read as the chunk's text.

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
    const config = asUsage(() => resolveConfig(options, setup.env), CONFIG_ERRORS);
    const sections = asUsage(() => resolveSectionMode(options), CONFIG_ERRORS);
    const lexicon = extractiveSetup(setup);
    const said = { ...(setup.say ? { say: setup.say } : {}), ...(setup.offThread ? { offThread: setup.offThread } : {}) };
    if (sections !== null) {
      if (options.combined) throw new UsageError('--combined joins the chunk views; a section has one view, its embedding text is already whole');
      const flatten = !config.dryRun && options.flatten;
      return createGenerator(config, { sections, extractiveSetup: lexicon, ...said, ...(flatten ? { finishRecord: withSectionText } : {}) });
    }
    if (config.dryRun || !options.flatten) return createGenerator(config, { extractiveSetup: lexicon, ...said });
    const combined = options.combined;
    return createGenerator(config, { extractiveSetup: lexicon, ...said, finishRecord: (record) => ({ ...keepUpstream(record, EMBEDDING_TEXT), embedding_text: embeddingTexts(record, DEFAULT_VIEW_FIELDS, combined) }) });
  },
});

function withSectionText(record: JsonObject): JsonObject {
  return { ...keepUpstream(record, EMBEDDING_TEXT), embedding_text: { [SECTION_VIEW]: flattenView(SECTION_VIEW, record[SECTION_VIEW]) } };
}
