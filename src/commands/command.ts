// A command is a non-streaming verb of `rca` (e.g. `rca schema`): it gets argv and the standard
// streams and returns an exit status. Stages (streaming filters) live in src/transforms instead.
// A command declares its options in an OptionsSpec table, as a stage does: the table drives the
// parsing (runtime/options.ts, the stages' parser without their common options) and the
// Options section of its --help.
import type { Writable } from 'node:stream';
import { optionLines, parseOptions } from '../runtime/options.js';
import type { Env, OptionsSpec, OptionValues } from '../runtime/stage.js';

export interface CommandIO {
  argv: readonly string[];
  stdout: Writable;
  stderr: Writable;
  env: Env;
}

export interface Command {
  name: string;
  summary: string;
  run(io: CommandIO): Promise<number> | number;
}

export interface CommandArgs<S extends OptionsSpec> {
  values: OptionValues<S>;
  positionals: string[];
}

/** Parses a command's argv against its table; a bad command line is a UsageError with one line. */
export function parseCommandArgs<S extends OptionsSpec>(spec: S, argv: readonly string[], allowPositionals: boolean): CommandArgs<S> {
  const { values, files } = parseOptions(spec, argv, allowPositionals);
  return { values: values as OptionValues<S>, positionals: files };
}

/** A command's --help: its usage and prose, the Options rows of its table, then the rest. */
export function commandHelp(head: string, spec: OptionsSpec, tail: string): string {
  return `${head.trimEnd()}\n\nOptions:\n${optionLines(spec).join('\n')}\n\n${tail.trimStart()}`;
}
