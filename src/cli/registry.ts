// The stages and commands `rca` knows, by name. An explicit list rather than a folder listing, so a
// helper module placed beside the stages is not taken for one. Each entry is a lazy import: a bin
// loads its own stage only (rca-tag must not load the model, cache or view code).
import type { Command } from '../commands/command.js';
import type { Stage } from '../runtime/stage.js';

type Loader<T> = () => Promise<{ default: T }>;

const STAGES: Readonly<Record<string, Loader<Stage>>> = {
  'count-sections': () => import('../transforms/count-sections.js'),
  flatten: () => import('../transforms/flatten.js'),
  generate: () => import('../transforms/generate.js'),
  prompt: () => import('../transforms/prompt.js'),
  summarize: () => import('../transforms/summarize.js'),
  tag: () => import('../transforms/tag.js'),
  validate: () => import('../transforms/validate.js'),
};

const COMMANDS: Readonly<Record<string, Loader<Command>>> = {
  cache: () => import('../commands/cache.js'),
  export: () => import('../commands/export.js'),
  merge: () => import('../commands/merge.js'),
  report: () => import('../commands/report.js'),
  schema: () => import('../commands/schema.js'),
};

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
