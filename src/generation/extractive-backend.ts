// The extractive backend: each view filled with no model by its kind's extractive builder (the
// rules of src/views/extractive.ts for the chunk views, src/views/extractive-section.ts for sections).
// Its view goes through the same ladder check as a model's reply, so what it writes is what
// rca-validate would pass; being deterministic, one attempt is all it gets (another would give
// the same reply). Not cached: computing a view costs less than a lookup. The generator takes the
// view object as built (`build`, checked by builtResult, no JSON text and no promise); `attempt`
// gives the same view as a model's reply, for the ladder.
import type { JsonObject } from '../contracts/json.js';
import type { ViewName } from '../contracts/vocabulary.js';
import { EXTRACTIVE_BACKEND, EXTRACTIVE_MODEL } from '../views/extractive.js';
import type { ViewKind } from '../views/kinds/kind.js';
import type { ExtractiveSetup } from '../views/records/record-kind.js';
import { recordKindOf } from '../views/records/records.js';
import { cutText } from '../views/text-cut.js';
import type { AttemptInput, Backend, BackendInfo, BuiltView, Job } from './backend.js';

/** The backend for these views; a view whose kind has no extractive builder stops the run here. */
export async function createExtractiveBackend(kinds: readonly ViewKind[], setup: ExtractiveSetup): Promise<Backend> {
  const info: BackendInfo = { backend: EXTRACTIVE_BACKEND, model: EXTRACTIVE_MODEL, model_digest: null, options: null };
  const builders = new Map<ViewName, (input: unknown, text: string) => JsonObject>();
  for (const kind of kinds) builders.set(kind.name, await recordKindOf(kind).extractive(kind, setup));
  const build = (job: Job, input: AttemptInput): BuiltView => {
    const builder = builders.get(job.kind.name);
    if (builder === undefined) throw new Error(`the extractive backend was not set up for ${job.kind.name}`);
    // --max-chars cuts the text the view is taken from, as it cuts a model's prompt.
    const { text, cut } = cutText(job.text, input.maxChars);
    return { view: builder(job.input, text), textCut: cut };
  };
  return {
    info,
    retries: false,
    build,
    attempt(job, input) {
      const { view, textCut } = build(job, input);
      return Promise.resolve({ content: JSON.stringify(view), doneReason: null, promptTokens: null, outputTokens: null, transportRetries: 0, textCut });
    },
    render() {
      // Unreachable: the configuration refuses --dry-run with this backend.
      return { backend: EXTRACTIVE_BACKEND, model: EXTRACTIVE_MODEL };
    },
  };
}
