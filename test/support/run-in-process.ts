import { EventEmitter } from 'node:events';
import { PassThrough, Readable, Writable } from 'node:stream';
import { runStage } from '../../src/runtime/runner.js';
import type { Stage } from '../../src/runtime/stage.js';
import type { OffThread } from '../../src/runtime/off-thread.js';

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Feeds `chunks` to a stage through the real runner, in this process. */
export async function runInProcess(
  stage: Stage,
  chunks: Array<string | Buffer>,
  argv: string[] = [],
  opts: { signals?: EventEmitter; stdout?: Writable; env?: Record<string, string>; offThread?: OffThread } = {},
): Promise<InProcessResult> {
  const stdin = Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)), { objectMode: false });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const stdout = opts.stdout ?? collect(out);
  const stderr = collect(err);
  const code = await runStage(stage, `rca-${stage.name}`, {
    argv,
    stdin,
    stdout,
    stderr,
    env: opts.env ?? {},
    signals: opts.signals ?? new EventEmitter(),
    version: '0.0.0-test',
    ...(opts.offThread ? { offThread: opts.offThread } : {}),
  });
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

function collect(into: Buffer[]): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, cb) {
      into.push(chunk);
      cb();
    },
  });
}

export { PassThrough };
