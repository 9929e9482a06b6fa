import { defineStage, type JsonObject, type Outcome } from '../runtime/stage.js';
import { readTaggedChunk } from '../views/kinds/chunk-records.js';
import { buildPrompt } from '../views/prompt-text.js';
import type { TextCut } from '../views/text-cut.js';
import { asUsage } from '../runtime/exit-codes.js';
import { parseViewList, ViewListError } from '../views/view-types.js';
import { VIEW_TYPES, type ViewType } from '../contracts/vocabulary.js';

export default defineStage({
  name: 'prompt',
  summary: 'add the model prompt of each view (retrieval_summary, rca_frame) to each tagged chunk',
  description: `Reads records written by rca-tag (it needs context, ner_seed and text) and adds:
  prompts            {retrieval_summary: "...", rca_frame: "..."}: the full prompt text of each view
  prompt_truncation  null, or {text_chars, kept_chars, cut_at} when --max-chars cut the chunk text
Each prompt is the extraction contract, a task paragraph for the doc type and view, the CONTEXT
lines, the NER seed, the chunk text and the empty output JSON with the trusted citations.
The same record always gives the same bytes. A record without a valid context or ner_seed, or
without text, is rejected (NOT_TAGGED, BAD_CONTEXT, BAD_NER_SEED, NO_TEXT).`,
  examples: [
    'rca-tag < chunks.jsonl | rca-prompt > prompts.jsonl',
    'rca-prompt --views rca_frame --max-chars 4000 tagged.jsonl',
    "rca-prompt tagged.jsonl | jq -r '.prompts.retrieval_summary' | head -40",
  ],
  options: {
    views: {
      type: 'list',
      placeholder: 'VIEWS',
      default: [...VIEW_TYPES],
      help: `comma-separated views to write prompts for (${VIEW_TYPES.join(', ')})`,
    },
    'max-chars': {
      type: 'number',
      placeholder: 'N',
      min: 1,
      integer: true,
      help: 'cut the chunk text to N characters at a sentence or word boundary (default: no cut)',
    },
  },
  create(options) {
    return new Prompter(asUsage(() => parseViewList(options.views), [ViewListError]), options['max-chars']);
  },
});

class Prompter {
  constructor(
    private readonly views: readonly ViewType[],
    private readonly maxChars: number | undefined,
  ) {}

  process(record: JsonObject): Outcome {
    // The chunk views' own reader: the same codes and messages as rca-generate.
    const read = readTaggedChunk(record);
    if (!read.ok) return { reject: { code: read.code, message: read.message } };
    const { context, nerSeed, text } = read.value;
    const prompts: Partial<Record<ViewType, string>> = {};
    let truncation: TextCut | null = null;
    for (const view of this.views) {
      const built = buildPrompt(context, nerSeed, text, view, { maxChars: this.maxChars });
      prompts[view] = built.prompt;
      // Every view cuts the same text the same way: one record of it is enough.
      truncation = built.truncated;
    }
    return { records: [{ ...record, prompts, prompt_truncation: truncation }] };
  }
}
