// The full fault soak (`make soak`): 10,000 requests of rca-summarize (or the stages in
// SOAK_STAGES) against the fake Ollama server, about one in ten faulted — 503, 500, connection
// reset, too slow, garbage, truncated stream — seeded per view and request (SOAK_SEED), plus a few
// views that fail every try. Checks exactly what the scaled-down soak in test/reliability checks,
// and prints (and writes to $SOAK_SUMMARY) requests, faults by kind, records, retries and wall time.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, it } from 'vitest';
import { runSoak, soakSummary, type SoakOptions } from '../support/fault-soak.js';
import { checkSoak } from '../support/fault-soak-checks.js';

const env = process.env;
const STAGES = (env.SOAK_STAGES ?? 'summarize').split(',').map((s) => s.trim()) as SoakOptions['stage'][];
const OPTIONS: Omit<SoakOptions, 'stage'> = {
  seed: Number(env.SOAK_SEED ?? 2026),
  targetRequests: Number(env.SOAK_REQUESTS ?? 10_000),
  rate: Number(env.SOAK_FAULT_RATE ?? 0.1),
  doomed: Number(env.SOAK_DOOMED ?? 12),
  concurrency: Number(env.SOAK_CONCURRENCY ?? 8),
  latencyMs: Number(env.SOAK_LATENCY_MS ?? 5),
  limits: { maxTransportRetries: 3, maxTries: 3 },
  timeoutSeconds: 1,
};

describe.each(STAGES)('fault soak of rca-%s', (stage) => {
  it(`${OPTIONS.targetRequests} requests, ${OPTIONS.rate * 100} % faulted: nothing lost, duplicated or reordered; counts agree`, async () => {
    const result = await runSoak({ ...OPTIONS, stage });
    const summary = soakSummary(result);
    console.log(summary);
    if (env.SOAK_SUMMARY) {
      mkdirSync(dirname(env.SOAK_SUMMARY), { recursive: true });
      appendFileSync(env.SOAK_SUMMARY, `${summary}\n\n`);
    }
    checkSoak(result);
  });
});
