import { asUsage } from '../runtime/exit-codes.js';
import { defineStage } from '../runtime/stage.js';
import { CONFIG_ERRORS, GENERATE_OPTIONS, resolveConfig, resolveSectionMode, SECTION_DESCRIPTION, SECTION_OPTIONS } from '../generation/config.js';
import { createGenerator } from '../generation/create.js';
import { parseLexiconCsv } from '../tagging/lexicon.js';
import type { SetupContext } from '../runtime/stage.js';
import type { ExtractiveSetup } from '../views/records/record-kind.js';
import { CHUNK_VIEWS_SAID } from '../views/view-types.js';

export const GENERATE_DESCRIPTION = `Reads records written by rca-tag (context, ner_seed, text) and asks the model for each view,
--concurrency requests at a time across records; records come out in input order.
Several Ollama hosts (--host given more than once, or OLLAMA_HOSTS=a,b,c) share the work: each
request goes to the least-loaded host with a free slot (--concurrency each, or host=URL,slots=N);
a host that fails is rested and probed again, its requests going to the others. Hosts without
the model are left out; hosts whose copies of the model differ stop the run before it starts.
--backend openai --base-url URL speaks to an OpenAI-compatible server instead (vLLM, llama.cpp's
server, LM Studio, TGI, Ollama's /v1); --api-key-env NAME names the variable holding its key.
--backend extractive needs no model: each view is taken from the chunk text and its NER seed by
fixed rules (deterministic; its provenance says backend "extractive"), to try the toolkit without
a server or to compare model output with.
Per view, a reply that is not usable is tried again (up to --max-tries): first the prompt, then
the prompt with a note naming what was wrong, then the same with the chunk text cut to
--truncate-chars. Connection errors, timeouts and 429/5xx answers are retried with backoff
(--max-transport-retries); a busy server (503) also lowers the requests in flight for a while.
Every reply is checked as rca-validate checks it (trusted provenance stamped first). Adds:
  ${CHUNK_VIEWS_SAID.list.padEnd(28)}  the view, or null when it failed after all tries
  flags                         {<view>: [flag, ...]} for each view written; [] is a clean pass
  generation                    {<view>: {backend, model, model_digest, options, attempts,
                                 done_reason, prompt_tokens, output_tokens, text_cut, cached,
                                 error}}; error: null, or {code, message, attempts} for a
                                 failed view; cached: true when replayed from the cache
A view still flagged after the last try is kept with its flags when it fits its contract.
A record whose views are present and valid passes through untouched (unless --overwrite); a view
that is null is generated again, so a run over its own output retries what failed.
Model replies are kept in a response cache (--cache, default $RCA_CACHE or
~/.cache/rca/responses.sqlite), keyed by model, digest, options, schema and prompt: running the
same input again sends no request for them and writes the same records, with "cached": true. A
failed view is never kept, so it is asked again next time; a view kept with quality flags is
replayed flagged while today's checks give it the same flags (--retry-flagged asks again). An
OpenAI-compatible server reports no model digest: after redeploying a model under the same name,
use --refresh.
Ctrl-C stops reading and cancels the requests in flight; the output then holds every record
before the first unfinished one, in input order. If the server (every host) fails every request
for --give-up-after seconds, the run stops the same way with exit status 3; so does a model that
disappears mid-run or an API key that stops being accepted.`;

export default defineStage({
  name: 'generate',
  summary: `write the ${CHUNK_VIEWS_SAID.and} views of each tagged chunk with a model (Ollama, or an OpenAI-compatible server)`,
  description: `${GENERATE_DESCRIPTION}\n${SECTION_DESCRIPTION}`,
  examples: [
    'rca-tag < chunks.jsonl | rca-generate > generated.jsonl',
    'rca-generate --model qwen2.5:7b --concurrency 4 --stats stats.json tagged.jsonl > generated.jsonl',
    'rca-generate --host gpu1 --host gpu2 --host host=gpu3,slots=8 tagged.jsonl > generated.jsonl      # three Ollama hosts',
    'VLLM_KEY=... rca-generate --backend openai --base-url http://vllm:8000/v1 --model Qwen/Qwen2.5-7B-Instruct --api-key-env VLLM_KEY --concurrency 32 tagged.jsonl',
    'rca-generate --dry-run --views rca_frame tagged.jsonl | jq -r \'.requests.rca_frame.prompt\'',
    'rca-generate generated.jsonl > retried.jsonl      # retries only the views that failed',
    'rca-generate --backend extractive tagged.jsonl > baseline.jsonl      # no model: the extractive baseline',
    'rca-count-sections tagged.jsonl | rca-generate --view section_summary --bottom-up > section-summaries.jsonl',
  ],
  options: { ...GENERATE_OPTIONS, ...SECTION_OPTIONS },
  create(options, setup) {
    const config = asUsage(() => resolveConfig(options, setup.env), CONFIG_ERRORS);
    const sections = asUsage(() => resolveSectionMode(options), CONFIG_ERRORS);
    return createGenerator(config, { sections, extractiveSetup: extractiveSetup(setup), ...(setup.say ? { say: setup.say } : {}), ...(setup.offThread ? { offThread: setup.offThread } : {}) });
  },
});

/** The built-in lexicon, read only when an extractive builder asks for it (the sections'). */
export function extractiveSetup(setup: SetupContext): ExtractiveSetup {
  return { lexicon: () => parseLexiconCsv(setup.readText(setup.dataFile('lexicon/rca-default.csv')), 'builtin') };
}
