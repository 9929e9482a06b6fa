// Preloaded into a spawned bin (NODE_OPTIONS=--import): at exit, writes the longest time the main
// thread went without a turn of its event loop (monitorEventLoopDelay's max, in seconds) to
// $RCA_BENCH_LOOP_BLOCK_FILE. A signal is seen only on such a turn: this bounds its latency.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const file = process.env.RCA_BENCH_LOOP_BLOCK_FILE;
if (file && isMainThread) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  process.on('exit', () => {
    delay.disable();
    writeFileSync(file, `${delay.max / 1e9}\n`);
  });
}
