// Peak memory of a spawned bin, measured inside it at exit (see peak-rss-probe.mjs).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const PROBE = pathToFileURL(join(import.meta.dirname, 'peak-rss-probe.mjs')).href;

export interface PeakRssProbe {
  /** Environment for the child: loads the probe and names the file it writes. */
  env: Record<string, string>;
  /** Peak resident memory of the child in MB, once it has exited (NaN if it wrote nothing). */
  peakMb(): number;
}

export function peakRssProbe(): PeakRssProbe {
  const file = join(mkdtempSync(join(tmpdir(), 'rca-rss-')), 'peak-kb');
  return {
    env: { NODE_OPTIONS: `--import=${PROBE}`, RCA_TEST_PEAK_RSS_FILE: file },
    peakMb() {
      try {
        return Number(readFileSync(file, 'utf8').trim()) / 1024;
      } catch {
        return Number.NaN;
      }
    },
  };
}
