// Preloaded into a spawned bin (NODE_OPTIONS=--import): at exit, writes the process's peak
// resident memory (VmHWM, in kB) to $RCA_TEST_PEAK_RSS_FILE, read right before the process ends.
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.env.RCA_TEST_PEAK_RSS_FILE;
if (file) {
  process.on('exit', () => {
    let kb = process.resourceUsage().maxRSS;
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
      if (m) kb = Number(m[1]);
    } catch {
      // Not Linux: resourceUsage's maxRSS is the same measure.
    }
    writeFileSync(file, `${kb}\n`);
  });
}
