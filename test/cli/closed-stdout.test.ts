// Every bin and every rca command treats a closed stdout as the stages do: a reader that went away
// (`| head -1`, `| true`) is a quiet end, exit 0, nothing on stderr; a stdout that cannot take the
// output (a full disk: /dev/full answers every write with ENOSPC) is one line on stderr and exit 3.
// Never a stack trace. Real pipes, real processes: the race of `| head -1` (the reader leaves
// while the writer still writes) is caught by running each case many times.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandNames, stageNames } from '../../src/cli/registry.js';
import { ROOT } from '../support/golden.js';

const SAMPLE = 'test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl';
const tmp = mkdtempSync(join(tmpdir(), 'rca-closed-stdout-'));

function sh(script: string) {
  const r = spawnSync('bash', ['-o', 'pipefail', '-c', script], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// What each kind of output looks like: a help, a version, a command's listing, a stage's records.
const COMMANDS = [
  './bin/rca --help',
  './bin/rca --version',
  ...stageNames().flatMap((stage) => [`./bin/rca-${stage} --help`, `./bin/rca-${stage} --version`, `./bin/rca ${stage} --help`]),
  ...commandNames().map((command) => `./bin/rca ${command} --help`),
  './bin/rca schema --list',
  './bin/rca schema --fields chunk',
  './bin/rca schema chunk',
  './bin/rca schema --format rca_frame',
  `./bin/rca cache stats --cache ${join(tmp, 'none.sqlite')}`,
];
// Stages, which also print their summary line on stderr.
const STAGE_RUNS = [`./bin/rca-tag ${SAMPLE}`, `./bin/rca tag ${SAMPLE}`, `./bin/rca export --target weaviate ${SAMPLE}`];

describe('a reader that goes away is a quiet end, for every bin and command', () => {
  it.each(COMMANDS)('%s | true: exit 0, nothing on stderr', (command) => {
    const r = sh(`${command} | true`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it.each(STAGE_RUNS)('%s | true: exit 0, only the summary on stderr', (command) => {
    const r = sh(`${command} | true`);
    expect(r.stderr).not.toMatch(/EPIPE|cannot write|\n\s+at /);
    expect(r.code).toBe(0);
  });

  // The reported race: 7 of 10 runs of these crashed with an EPIPE stack trace and exit 1.
  it.each(['./bin/rca schema --list', './bin/rca schema --fields chunk', './bin/rca --help'])('%s | head -1, 25 times: exit 0 every time, first line only', (command) => {
    const first = sh(command).stdout.split('\n')[0];
    const runs = Array.from({ length: 25 }, () => sh(`${command} | head -1`));
    expect(runs.map((r) => r.stderr).filter((e) => e !== '')).toEqual([]);
    expect(runs.map((r) => r.code)).toEqual(runs.map(() => 0));
    for (const r of runs) expect(r.stdout).toBe(`${first}\n`);
  }, 60_000);
});

describe.runIf(existsSync('/dev/full'))('a stdout that cannot take the output (ENOSPC) is one line and exit 3', () => {
  it.each([
    ['./bin/rca schema --list', 'rca schema'],
    ['./bin/rca schema --fields chunk', 'rca schema'],
    ['./bin/rca --help', 'rca'],
    ['./bin/rca-tag --help', 'rca-tag'],
    ['./bin/rca cache --help', 'rca cache'],
  ])('%s > /dev/full', (command, tool) => {
    const r = sh(`${command} > /dev/full`);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`${tool}: cannot write output: ENOSPC: no space left on device, write\n`);
  });

  it('a stage says it once, and counts no record as written', () => {
    const r = sh(`./bin/rca-tag ${SAMPLE} > /dev/full`);
    expect(r.code).toBe(3);
    const lines = r.stderr.trim().split('\n');
    expect(lines.filter((l) => l.includes('cannot write output'))).toEqual(['rca-tag: cannot write output: ENOSPC: no space left on device, write']);
    expect(lines.at(-1)).toBe('rca-tag: stopped after reading 9 records; 0 records written');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
