// The extractive backend of --view section_summary: each section's view filled by the rules of
// src/llm/extractive-section.ts, with no model. Its reply goes through the same ladder check as a
// model's; being deterministic, one attempt is all it gets, and nothing is cached.
import { EXTRACTIVE_BACKEND, EXTRACTIVE_MODEL } from '../llm/extractive.js';
import { ConceptFinder, extractiveSectionSummary } from '../llm/extractive-section.js';
import type { LexiconEntry } from '../tagging/lexicon.js';
import { cutText } from '../views/text-cut.js';
import type { Backend, BackendInfo } from './backend.js';
import { isSectionJob } from './section-job.js';

export function createSectionExtractiveBackend(lexicon: readonly LexiconEntry[]): Backend {
  const info: BackendInfo = { backend: EXTRACTIVE_BACKEND, model: EXTRACTIVE_MODEL, model_digest: null, options: null };
  const finder = new ConceptFinder(lexicon);
  return {
    info,
    retries: false,
    attempt(job, input) {
      if (!isSectionJob(job)) throw new Error(`the section extractive backend writes section_summary only, not ${job.view}`);
      // --max-chars cuts the section text the view is taken from, as it cuts a model's prompt.
      const { text, cut } = cutText(job.text, input.maxChars);
      const view = extractiveSectionSummary({ section: job.section, text, children: job.children }, finder);
      return Promise.resolve({ content: JSON.stringify(view), doneReason: null, promptTokens: null, outputTokens: null, transportRetries: 0, textCut: cut });
    },
    render() {
      // Unreachable: the configuration refuses --dry-run with this backend.
      return { backend: EXTRACTIVE_BACKEND, model: EXTRACTIVE_MODEL };
    },
  };
}
