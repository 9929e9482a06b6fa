// The fault soak, scaled down for every test run: a few hundred requests against the fake server,
// about one in ten faulted (503, 500, reset, slow, garbage, truncated), seeded per view and request
// so a failure reproduces. `make soak` runs the 10,000-request version (test/soak/).
import { describe, expect, it } from 'vitest';
import { expectedTotals, runSoak, soakSummary, type SoakOptions } from '../support/fault-soak.js';
import { checkSoak } from '../support/fault-soak-checks.js';

const BASE: Omit<SoakOptions, 'stage' | 'seed' | 'doomed'> = {
  targetRequests: 400,
  rate: 0.1,
  concurrency: 6,
  latencyMs: 2,
  limits: { maxTransportRetries: 2, maxTries: 3 },
  // Room for a loaded machine: a good reply must never hit the deadline that `slow` faults do.
  timeoutSeconds: 2,
  // Every record in progress at once: the slow faults' waits overlap instead of queueing at the head.
  window: 1000,
};

describe.each<[string, SoakOptions, { failed: boolean }]>([
  ['generate, every fault cured by a retry: exit 0', { ...BASE, stage: 'generate', seed: 7, doomed: 0 }, { failed: false }],
  ['summarize, and six views that fail every try: exit 1, those views null with their error', { ...BASE, stage: 'summarize', seed: 11, doomed: 6 }, { failed: true }],
])('fault soak: %s', (_name, options, want) => {
  it('writes every record once, in order; views, stats and the server agree with the plan', async () => {
    const result = await runSoak(options);
    const totals = expectedTotals(result.expected);
    // The scenario is what it says: faults of every kind were served, and failures only where meant.
    expect(totals.requests).toBeGreaterThanOrEqual(options.targetRequests);
    expect(Object.values(totals.faults).every((n) => n > 0)).toBe(true);
    expect(totals.failed > 0).toBe(want.failed);
    if (want.failed) expect(totals.failed).toBeGreaterThanOrEqual(options.doomed);
    try {
      checkSoak(result);
    } catch (err) {
      console.error(soakSummary(result));
      throw err;
    }
  });
});
