import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, createWriteStream, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/golden.js';

const record = `{"chunk_id":"c","doc_id":"d","text":"${'x'.repeat(1000)}"}\n`;
const TOTAL_RECORDS = 32 * 1024; // 32 MiB offered
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// stdin of `cat corpus | rca-<stage>` is a pipe (a net.Socket in Node, not the fs stream a file
// argument gets): the stage must read it only as fast as its stdout is consumed. Named pipes are
// real pipes (64 KiB in the kernel), unlike the socket pairs of spawn's 'pipe'.
describe('runner: backpressure through a real pipe on stdin', () => {
  it('reads a bounded amount ahead of a stdout nobody reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rca-pipe-'));
    const input = join(dir, 'in');
    const output = join(dir, 'out');
    expect(spawnSync('mkfifo', [input, output]).status).toBe(0);
    // Held open for reading and never read: the stage's stdout fills and stays full.
    const held = openSync(output, constants.O_RDWR);
    const child = spawn('bash', ['-c', `exec node bin/rca-flatten < ${input} > ${output}`], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    const feed = createWriteStream(input);
    feed.on('error', () => undefined); // EPIPE once the stage is stopped
    let accepted = 0;
    let stopped = false;
    void (async () => {
      for (let i = 0; i < TOTAL_RECORDS && !stopped; i++) {
        const more = feed.write(record, (err) => {
          if (!err) accepted += record.length;
        });
        if (!more) await new Promise<void>((resolve) => feed.once('drain', () => resolve()));
      }
    })();
    try {
      // Wait until the stage has taken more than the input pipe holds, then until it stops taking input.
      let last = -1;
      let still = 0;
      while (still < 10) {
        await sleep(200);
        if (accepted > 128 * 1024 && accepted === last) still++;
        else still = 0;
        last = accepted;
      }
      // Of 32 MiB offered, the stage took 216 KiB on Linux: the input pipe (64 KiB), the chunk it
      // works on, the stream's buffer, the writer's batch and the full output pipe (64 KiB).
      expect(accepted).toBeLessThan(1024 * 1024);
    } finally {
      // The reader goes away (EPIPE, a normal end): the stage stops; SIGTERM would wait for the full pipe.
      stopped = true;
      closeSync(held);
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
      feed.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
