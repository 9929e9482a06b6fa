// bin/rca-<stage> runs dist/bin/rca-<stage>.cjs (one file bundled from dist/ by
// scripts/bundle-bins.mjs) with its V8 code cache; bin/rca runs the bundle of its stage or command
// (dist/bin/rca-<stage>.cjs, dist/bin/rca.<command>.cjs) or its own (dist/bin/rca.cjs). These tests
// hold them to the ES modules of dist/ (what the other tests import, and what a build without the
// bundles runs): the same bytes on stdout and stderr and the same exit status, with the cache, with a
// cache V8 refuses, and without a bundle.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { commandNames, stageNames } from '../../src/cli/registry.js';
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

// The reference of bin/rca: the dispatcher run from the ES modules of dist/, as bin/rca did before.
const dispatcherViaModules = (args: string[], input: string, root = ROOT): Run => {
  const script = join(tmp, 'modules-rca.mjs');
  writeFileSync(script, `import(${JSON.stringify(pathToFileURL(join(root, 'dist/cli/main.js')).href)}).then((m) => m.runDispatcher());\n`);
  return run([script, ...args], input);
};

const loaderProbe = (root: string, call: string): string =>
  `const l = require(${JSON.stringify(join(root, 'dist/cli/bin-loader.cjs'))}); process.stdout.write(String(${call}));`;

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
    const probe = loaderProbe(ROOT, `(l.loadBundle(${JSON.stringify(`rca-${stage}`)}, true) ?? {}).cacheRejected`);
    expect(run(['-e', probe], '').stdout).toBe('false');
  });

  it.each(CASES)('rca-%s %j: the same output and exit status as the ES modules', (stage, args, input) => {
    const bundled = run([join(ROOT, 'bin', `rca-${stage}`), ...args], input);
    expect(steady(bundled)).toEqual(steady(viaModules(stage, args, input)));
  });

  it('a cache V8 refuses (other V8 flags) is compiled from source, with the same output', () => {
    const flag = '--max-old-space-size=300';
    const probe = loaderProbe(ROOT, `l.loadBundle('rca-tag', true).cacheRejected`);
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
      const probe = loaderProbe(copy, `l.loadBundle('rca-tag', true)`);
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

// Per bundle of bin/rca: arguments and input that take it through its command (or stage), its help
// and its usage errors.
const RCA_CASES: [string[], string][] = [
  [[], ''],
  [['--help'], ''],
  [['help'], ''],
  [['--version'], ''],
  [['no-such-command'], ''],
  [['../rca-tag'], ''],
  [['schema', 'retrieval_summary'], ''],
  [['schema', 'rca_frame'], ''],
  [['schema', '--fields', 'chunk'], ''],
  [['schema', '--list'], ''],
  [['schema', '--format', 'retrieval_summary'], ''],
  [['schema', 'no_such_kind'], ''],
  [['schema'], ''],
  [['schema', '--help'], ''],
  [['cache', '--help'], ''],
  [['merge', '--help'], ''],
  [['merge'], ''],
  [['report', '--help'], ''],
  [['export', '--help'], ''],
  [['tag'], SAMPLE],
  [['tag', '--help'], ''],
  [['validate'], tagged],
  [['generate', '--backend', 'extractive'], tagged],
];

describe('bin/rca from its bundles and code caches', () => {
  it.each(['rca', ...commandNames().map((c) => `rca.${c}`)])('%s has a bundle and a code cache V8 accepts', (name) => {
    expect(run(['-e', loaderProbe(ROOT, `(l.loadBundle(${JSON.stringify(name)}, true) ?? {}).cacheRejected`)], '').stdout).toBe('false');
  });

  it('runs the bundle of its stage or command, else its own', () => {
    const pick = (argv: string[]) => run(['-e', loaderProbe(ROOT, `l.dispatcherBundleName(${JSON.stringify(argv)})`)], '').stdout;
    expect(pick(['tag', '--help'])).toBe('rca-tag');
    expect(pick(['count-sections'])).toBe('rca-count-sections');
    expect(pick(['schema', 'chunk'])).toBe('rca.schema');
    expect(pick([])).toBe('rca');
    expect(pick(['--help'])).toBe('rca');
    expect(pick(['no-such-command'])).toBe('rca');
    expect(pick(['../bin/rca-tag'])).toBe('rca');
  });

  it.each(RCA_CASES)('rca %j: the same output and exit status as the ES modules', (args, input) => {
    expect(steady(run([join(ROOT, 'bin/rca'), ...args], input))).toEqual(steady(dispatcherViaModules(args, input)));
  });

  it('rca merge of two empty files: the same output and exit status as the ES modules', () => {
    const empty = join(tmp, 'empty.chunks.jsonl');
    writeFileSync(empty, '');
    const args = ['merge', '--inputs', empty, '--outputs', empty];
    const bundled = run([join(ROOT, 'bin/rca'), ...args], '');
    expect(bundled.code).toBe(0);
    expect(bundled).toEqual(dispatcherViaModules(args, ''));
  });

  it('a cache V8 refuses (other V8 flags) is compiled from source, with the same output', () => {
    const flag = '--max-old-space-size=300';
    expect(run([flag, '-e', loaderProbe(ROOT, `l.loadBundle('rca.schema', true).cacheRejected`)], '').stdout).toBe('true');
    for (const args of [['--help'], ['schema', 'chunk']]) expect(run([flag, join(ROOT, 'bin/rca'), ...args], '')).toEqual(dispatcherViaModules(args, ''));
  });

  describe('in a copy of the package', () => {
    const copy = join(tmp, 'package-rca');
    mkdirSync(copy);
    for (const entry of ['bin', 'dist', 'data', 'package.json']) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true, preserveTimestamps: true });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const ARGS: string[][] = [['--help'], ['schema', 'ner_seed'], ['tag', '--help'], ['cache', '--help']];
    const same = () => {
      for (const args of ARGS) expect(run([join(copy, 'bin/rca'), ...args], '', copy)).toEqual(dispatcherViaModules(args, ''));
    };

    it('damaged cache files: compiled from source, the same output', () => {
      for (const name of ['rca', 'rca.schema', 'rca-tag', 'rca.cache']) writeFileSync(join(copy, `dist/bin/${name}.cache`), 'not a code cache');
      same();
    });

    it('bundles older than the tsc output (tsc run alone after a build): the ES modules of dist/', () => {
      const later = new Date(Date.now() + 60_000);
      utimesSync(join(copy, 'dist/cli/main.js'), later, later);
      expect(run(['-e', loaderProbe(copy, `l.loadBundle('rca', true)`)], '').stdout).toBe('undefined');
      same();
    });

    it('no bundles (a tsc-only build): the ES modules of dist/, the same output', () => {
      rmSync(join(copy, 'dist/bin'), { recursive: true });
      expect(run(['-e', loaderProbe(copy, `l.dispatcherBundleName(['schema'])`)], '').stdout).toBe('rca');
      same();
    });

    it('not built: one line naming the build, exit 3', () => {
      rmSync(join(copy, 'dist'), { recursive: true });
      expect(run([join(copy, 'bin/rca'), '--help'], '', copy)).toEqual({ code: 3, stdout: '', stderr: 'rca: not built yet — run: npm run build\n' });
    });

    it('a dist/ older than the wrappers (pulled, not rebuilt): the same one line, exit 3, no stack trace', () => {
      mkdirSync(join(copy, 'dist/cli'), { recursive: true });
      writeFileSync(join(copy, 'dist/cli/bin-loader.cjs'), 'exports.somethingElse = () => {};\n');
      expect(run([join(copy, 'bin/rca'), '--help'], '', copy)).toEqual({ code: 3, stdout: '', stderr: 'rca: not built yet — run: npm run build\n' });
      expect(run([join(copy, 'bin/rca-tag')], '', copy)).toEqual({ code: 3, stdout: '', stderr: 'rca-tag: not built yet — run: npm run build\n' });
    });
  });
});
