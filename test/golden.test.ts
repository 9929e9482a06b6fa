import { describe, expect, it } from 'vitest';
import { expectedOf, goldenCases, runCase, updateCase } from './support/golden.js';

// `npm run golden` sets RCA_UPDATE_GOLDEN=1 to rewrite the expected files; CI never does.
const updating = process.env.RCA_UPDATE_GOLDEN === '1';
if (updating && process.env.CI) throw new Error('refusing to rewrite golden files in CI');

describe.each(Object.entries(groupByStage()))('golden: %s', (_stage, cases) => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const actual = runCase(c);
    if (updating) updateCase(c, actual);
    const expected = expectedOf(c);
    expect(actual.stdout).toBe(expected.stdout);
    expect(actual.stderr).toBe(expected.stderr);
    expect(actual.code).toBe(expected.code);
  });
});

function groupByStage() {
  const groups: Record<string, ReturnType<typeof goldenCases>> = {};
  for (const c of goldenCases()) (groups[c.stage] ??= []).push(c);
  return groups;
}
