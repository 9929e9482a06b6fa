// A command is a non-streaming verb of `rca` (e.g. `rca schema`): it gets argv and the standard
// streams and returns an exit status. Stages (streaming filters) live in src/transforms instead.
import type { Writable } from 'node:stream';
import type { Env } from '../runtime/stage.js';

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
