// The extractive backend: each view filled from the chunk text and its NER seed by the rules of
// src/llm/extractive.ts, with no model. Its reply goes through the same ladder check as a model's,
// so what it writes is what rca-validate would pass; being deterministic, one attempt is all it
// gets (another would give the same reply). Not cached: computing a view costs less than a lookup.
import { EXTRACTIVE_BACKEND, EXTRACTIVE_MODEL, extractiveView } from '../llm/extractive.js';
import { cutText } from '../views/text-cut.js';
import type { Backend, BackendInfo } from './backend.js';
import { isSectionJob } from './section-job.js';

export function createExtractiveBackend(): Backend {
  const info: BackendInfo = { backend: EXTRACTIVE_BACKEND, model: EXTRACTIVE_MODEL, model_digest: null, options: null };
  return {
    info,
    retries: false,
    attempt(job, input) {
      // Sections have rules of their own: section-mode.ts runs section-extractive-backend.ts instead.
      if (isSectionJob(job)) throw new Error('the chunk views\' extractive backend does not write section_summary');
      // --max-chars cuts the text the views are taken from, as it cuts a model's prompt.
      const { text, cut } = cutText(job.text, input.maxChars);
      const view = extractiveView(job.view, { context: job.context, nerSeed: job.nerSeed, text });
      return Promise.resolve({ content: JSON.stringify(view), doneReason: null, promptTokens: null, outputTokens: null, transportRetries: 0, textCut: cut });
    },
    render() {
      // Unreachable: the configuration refuses --dry-run with this backend.
      return { backend: EXTRACTIVE_BACKEND, model: EXTRACTIVE_MODEL };
    },
  };
}
