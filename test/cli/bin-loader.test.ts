// bin/rca-<stage> runs dist/bin/rca-<stage>.cjs (one file bundled from dist/ by
// scripts/bundle-bins.mjs) with its V8 code cache. These tests hold it to the ES modules of dist/
// (what the other tests import, and what a build without the bundle runs): the same bytes on stdout
// and stderr and the same exit status, with the cache, with a cache V8 refuses, and without a bundle.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { stageNames } from '../../src/cli/registry.js';
import { ROOT } from '../support/golden.js';

const SAMPLE = readFileSync(join(ROOT, 'test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl'), 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'rca-bin-loader-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const run = (args: string[], input: string, cwd = ROOT): Run => {
  const r = spawnSync(process.execPath, args, { cwd, input, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

// The reference: the stage run from the ES modules of dist/, as bin/rca-<stage> did before the bundle.
const viaModules = (stage: string, args: string[], input: string): Run => {
  const script = join(tmp, `modules-${stage}.mjs`);
  writeFileSync(script, `import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/cli/main.js')).href)}).then((m) => m.runStageBin(${JSON.stringify(stage)}));\n`);
  return run([script, ...args], input);
};

// Timings are the one part of a summary line that differs between two runs.
const steady = (r: Run): Run => ({ ...r, stderr: r.stderr.replace(/wall time [\d.]+ s, [\d.]+ records\/s/g, 'wall time …') });

const tagged = viaModules('tag', [], SAMPLE).stdout;
// Per stage: arguments and input that take it through its records (and a usage error).
const CASES: [string, string[], string][] = [
  ['tag', [], SAMPLE],
  ['tag', ['--no-such-option'], ''],
  ['count-sections', [], tagged],
  ['flatten', [], tagged],
  ['prompt', [], tagged],
  ['validate', [], tagged],
  ['generate', ['--backend', 'extractive'], tagged],
  ['generate', ['--dry-run'], tagged.split('\n').slice(0, 2).join('\n') + '\n'],
  ['summarize', ['--backend', 'extractive'], tagged],
];

describe('bin/rca-<stage> from its bundle and code cache', () => {
  it.each(stageNames())('rca-%s has a bundle and a code cache V8 accepts', (stage) => {
    const probe = `const l = require(${JSON.stringify(join(ROOT, 'dist/cli/bin-loader.cjs'))}).loadBundle(${JSON.stringify(stage)}, true); process.stdout.write(String(l && l.cacheRejected));`;
    expect(run(['-e', probe], '').stdout).toBe('false');
  });

  it.each(CASES)('rca-%s %j: the same output and exit status as the ES modules', (stage, args, input) => {
    const bundled = run([join(ROOT, 'bin', `rca-${stage}`), ...args], input);
    expect(steady(bundled)).toEqual(steady(viaModules(stage, args, input)));
  });

  it('a cache V8 refuses (other V8 flags) is compiled from source, with the same output', () => {
    const flag = '--max-old-space-size=300';
    const probe = `const l = require(${JSON.stringify(join(ROOT, 'dist/cli/bin-loader.cjs'))}).loadBundle('tag', true); process.stdout.write(String(l.cacheRejected));`;
    expect(run([flag, '-e', probe], '').stdout).toBe('true');
    expect(run([flag, join(ROOT, 'bin/rca-tag')], SAMPLE)).toEqual(viaModules('tag', [], SAMPLE));
  });

  describe('in a copy of the package', () => {
    const copy = join(tmp, 'package');
    mkdirSync(copy);
    for (const entry of ['bin', 'dist', 'data', 'package.json']) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true, preserveTimestamps: true });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const expected = viaModules('tag', [], SAMPLE);

    it('a damaged cache file: compiled from source, the same output', () => {
      writeFileSync(join(copy, 'dist/bin/rca-tag.cache'), 'not a code cache');
      expect(run([join(copy, 'bin/rca-tag')], SAMPLE, copy)).toEqual(expected);
    });

    it('a bundle older than the tsc output (tsc run alone after a build): the ES modules of dist/', () => {
      const later = new Date(Date.now() + 60_000);
      utimesSync(join(copy, 'dist/cli/main.js'), later, later);
      const probe = `process.stdout.write(String(require(${JSON.stringify(join(copy, 'dist/cli/bin-loader.cjs'))}).loadBundle('tag', true)))`;
      expect(run(['-e', probe], '').stdout).toBe('undefined');
      expect(run([join(copy, 'bin/rca-tag')], SAMPLE, copy)).toEqual(expected);
    });

    it('no bundle (a tsc-only build): the ES modules of dist/, the same output', () => {
      rmSync(join(copy, 'dist/bin'), { recursive: true });
      expect(run([join(copy, 'bin/rca-tag')], SAMPLE, copy)).toEqual(expected);
    });

    it('not built: one line naming the build, exit 3', () => {
      rmSync(join(copy, 'dist'), { recursive: true });
      expect(run([join(copy, 'bin/rca-tag')], SAMPLE, copy)).toEqual({ code: 3, stdout: '', stderr: 'rca-tag: not built yet — run: npm run build\n' });
    });
  });

  it('runs through a symlink on PATH, as npm link and a global install make it', () => {
    const dir = join(tmp, 'path-bin');
    mkdirSync(dir);
    symlinkSync(join(ROOT, 'bin/rca-tag'), join(dir, 'rca-tag'));
    const r = spawnSync('bash', ['-c', 'rca-tag --help'], { cwd: tmp, encoding: 'utf8', env: { PATH: `${dir}:${process.env.PATH ?? ''}` } });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: rca-tag');
  });
});
