// A command is a non-streaming verb of `rca` (e.g. `rca schema`): it gets argv and the standard
// streams and returns an exit status. Stages (streaming filters) live in src/transforms instead.
// A command declares its options in an OptionsSpec table, as a stage does: the table drives the
// parsing (runtime/options.ts, the stages' parser without their common options) and the
// Options section of its --help.
import type { Writable } from 'node:stream';
import { EXIT } from '../runtime/exit-codes.js';
import { optionLines, parseOptions } from '../runtime/options.js';
import type { Env, OptionsSpec, OptionValues } from '../runtime/stage.js';

export interface CommandIO {
  argv: readonly string[];
  stdout: Writable;
  stderr: Writable;
  env: Env;
  /** Where SIGINT/SIGTERM arrive: the process, when run by rca (absent in tests). */
  signals?: NodeJS.EventEmitter;
}

/**
 * A command that writes its result only once everything is read (rca merge, rca report) ends on
 * SIGINT/SIGTERM at once: one line on stderr (`unwritten` says what is not written) and status
 * 130. Its work between two reads is short (one record), so the signal is seen within it. Returns
 * the function to call before the result is written: a signal after it is let pass (the command
 * ends right after the write), since with no listener at all it would kill the process mid-write.
 */
export function exitOnSignal(io: CommandIO, tool: string, unwritten: string): () => void {
  const signals = io.signals;
  if (signals === undefined) return () => undefined;
  const onSignal = () => {
    io.stderr.write(`${tool}: interrupted; ${unwritten}\n`);
    process.exit(EXIT.INTERRUPTED);
  };
  signals.on('SIGINT', onSignal);
  signals.on('SIGTERM', onSignal);
  return () => {
    const letPass = () => undefined;
    signals.on('SIGINT', letPass);
    signals.on('SIGTERM', letPass);
    signals.off('SIGINT', onSignal);
    signals.off('SIGTERM', onSignal);
  };
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
