// An `rca` command that is a stage (index, export), run by the runner. Its own module, so the
// commands that are not stages do not load the runner.
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import type { CommandIO } from './command.js';
import { runStage } from '../runtime/runner.js';
import type { Stage } from '../runtime/stage.js';

const PACKAGE_JSON = new URL('../../package.json', import.meta.url);

export interface StageCommandIO extends CommandIO {
  stdin?: NodeJS.ReadableStream;
}

/** An `rca` command that is a stage over stdin or files (index, export): the runner runs it, with
 *  the process's signals unless a test gives its own stdin. */
export function runStageCommand(stage: Stage, tool: string, io: StageCommandIO): Promise<number> {
  return runStage(stage, tool, {
    argv: io.argv,
    stdin: (io.stdin ?? process.stdin) as never,
    stdout: io.stdout,
    stderr: io.stderr,
    env: io.env,
    signals: io.stdin ? new EventEmitter() : process,
    version: (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }).version,
  });
}
