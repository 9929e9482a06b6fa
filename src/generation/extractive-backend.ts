// The extractive backend: each view filled with no model by its kind's extractive builder (the
// rules of src/views/extractive.ts for the chunk views, src/views/extractive-section.ts for sections).
// Its reply goes through the same ladder check as a model's, so what it writes is what
// rca-validate would pass; being deterministic, one attempt is all it gets (another would give
// the same reply). Not cached: computing a view costs less than a lookup.
import type { JsonObject } from '../contracts/json.js';
import type { ViewName } from '../contracts/vocabulary.js';
import { EXTRACTIVE_BACKEND, EXTRACTIVE_MODEL } from '../views/extractive.js';
import type { ViewKind } from '../views/kinds/kind.js';
import type { ExtractiveSetup } from '../views/kinds/record-kind.js';
import { recordKindOf } from '../views/kinds/records.js';
import { cutText } from '../views/text-cut.js';
import type { Backend, BackendInfo } from './backend.js';

/** The backend for these views; a view whose kind has no extractive builder stops the run here. */
export async function createExtractiveBackend(kinds: readonly ViewKind[], setup: ExtractiveSetup): Promise<Backend> {
  const info: BackendInfo = { backend: EXTRACTIVE_BACKEND, model: EXTRACTIVE_MODEL, model_digest: null, options: null };
  const builders = new Map<ViewName, (input: unknown, text: string) => JsonObject>();
  for (const kind of kinds) builders.set(kind.name, await recordKindOf(kind).extractive(kind, setup));
  return {
    info,
    retries: false,
    attempt(job, input) {
      const build = builders.get(job.kind.name);
      if (build === undefined) throw new Error(`the extractive backend was not set up for ${job.kind.name}`);
      // --max-chars cuts the text the view is taken from, as it cuts a model's prompt.
      const { text, cut } = cutText(job.text, input.maxChars);
      const view = build(job.input, text);
      return Promise.resolve({ content: JSON.stringify(view), doneReason: null, promptTokens: null, outputTokens: null, transportRetries: 0, textCut: cut });
    },
    render() {
      // Unreachable: the configuration refuses --dry-run with this backend.
      return { backend: EXTRACTIVE_BACKEND, model: EXTRACTIVE_MODEL };
    },
  };
}
