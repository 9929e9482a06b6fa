// The stages and commands `rca` knows, by name. An explicit list rather than a folder listing, so a
// helper module placed beside the stages is not taken for one. Each entry is a lazy import: a bin
// loads its own stage only (rca-tag must not load the model, cache or view code).
import type { Command } from '../commands/command.js';
import type { Stage } from '../runtime/stage.js';

type Loader<T> = () => Promise<{ default: T }>;

const STAGES: Readonly<Record<string, Loader<Stage>>> = {
  'count-sections': () => import('../transforms/count-sections.js'),
  embed: () => import('../transforms/embed.js'),
  flatten: () => import('../transforms/flatten.js'),
  generate: () => import('../transforms/generate.js'),
  prompt: () => import('../transforms/prompt.js'),
  summarize: () => import('../transforms/summarize.js'),
  tag: () => import('../transforms/tag.js'),
  validate: () => import('../transforms/validate.js'),
};

const COMMANDS: Readonly<Record<string, Loader<Command>>> = {
  cache: () => import('../commands/cache.js'),
  'eval-retrieval': () => import('../commands/eval-retrieval.js'),
  export: () => import('../commands/export.js'),
  index: () => import('../commands/index.js'),
  merge: () => import('../commands/merge.js'),
  report: () => import('../commands/report.js'),
  schema: () => import('../commands/schema.js'),
  search: () => import('../commands/search.js'),
};

// The one-line summary of each, for `rca --help`, which would otherwise import every stage and
// command (110 modules) to print them; test/cli/registry.test.ts holds each equal to its own.
const SUMMARIES: Readonly<Record<string, string>> = {
  'count-sections': "build each document's section tree: one record per section with its chunk counts, chunk ids, pages and text",
  embed: 'add the embedding vector of each chunk or section record (Ollama /api/embed, or an OpenAI-compatible /v1/embeddings)',
  flatten: 'add the embedding text of each view: one "LABEL: value" line per non-empty field',
  generate: 'write the retrieval_summary and rca_frame views of each tagged chunk with a model (Ollama, or an OpenAI-compatible server)',
  prompt: 'add the model prompt of each view (retrieval_summary, rca_frame) to each tagged chunk',
  summarize: 'prompt, generate, validate and flatten in one process: tagged chunks in, validated views and embedding text out',
  tag: 'add the trusted context (doc type, section role, citations) and the NER seed to each chunk',
  validate: 'stamp trusted provenance on each view, check it against its contract and the chunk text, add flags',
  cache: 'show, prune or merge response caches of generate/summarize (rca cache --help)',
  'eval-retrieval': 'measure recall@k, MRR and nDCG@10 of each search mode and indexed text on labelled questions, next to flat BM25 over the raw text (rca eval-retrieval --help)',
  export: 'write the Weaviate Summary/Chunk objects or Chroma records of sections and chunks (rca export --help)',
  index: 'write chunk and section records into a search index with full-text and vector search (rca index --help)',
  merge: 'check that the outputs of a sharded corpus build hold every input record exactly once (rca merge --help)',
  report: 'write one self-contained HTML page about a corpus build (rca report OUT/)',
  schema: 'print the JSON Schema of a record kind (rca schema --list names them)',
  search: 'search an index for a question: flat, hierarchical (sections first) or hybrid (keyword and vector ranks fused) (rca search --help)',
};

/** The summary line of a stage or command, without loading it. */
export function summaryOf(name: string): string {
  if (!Object.hasOwn(SUMMARIES, name)) throw new Error(`no summary of '${name}' in cli/registry.ts`);
  return SUMMARIES[name]!;
}

export function stageNames(): string[] {
  return Object.keys(STAGES).sort();
}

export function commandNames(): string[] {
  return Object.keys(COMMANDS).sort();
}

export async function loadStage(name: string): Promise<Stage> {
  const stage = Object.hasOwn(STAGES, name) ? (await STAGES[name]!()).default : undefined;
  if (!stage || stage.name !== name) throw new Error(`transforms/${name}.js does not export its stage`);
  return stage;
}

export async function loadCommand(name: string): Promise<Command> {
  const command = Object.hasOwn(COMMANDS, name) ? (await COMMANDS[name]!()).default : undefined;
  if (!command || command.name !== name) throw new Error(`commands/${name}.js does not export its command`);
  return command;
}
