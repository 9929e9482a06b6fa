// One rule for the files every bin reads (runtime/options.ts, checkInputPaths), checked before the
// first record: a missing file, a folder given as a file and an unreadable file are usage errors,
// exit 2, one line on stderr, nothing on stdout. Folders are taken only where they stand for their
// files (rca report OUT/, rca merge --inputs DIR).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stageNames } from '../../src/cli/registry.js';
import { ROOT } from '../support/golden.js';

const tmp = mkdtempSync(join(tmpdir(), 'rca-input-files-'));
const missing = join(tmp, 'nope.jsonl');
const folder = join(tmp, 'chunks');
mkdirSync(folder);
const locked = join(tmp, 'locked.jsonl');
writeFileSync(locked, '{"doc_id":"d","chunk_id":"c","text":"x"}\n');
chmodSync(locked, 0o000);
const good = join(tmp, 'good.jsonl');
writeFileSync(good, '{"doc_id":"d","chunk_id":"c","text":"x"}\n');
chmodSync(tmp, 0o755);

// root reads every file whatever its mode: the unreadable case runs as nobody (setpriv, util-linux).
const asRoot = process.getuid?.() === 0;
const canDrop = !asRoot || existsSync('/usr/bin/setpriv');
const NOBODY = asRoot ? 'setpriv --reuid=65534 --regid=65534 --clear-groups ' : '';

function sh(script: string) {
  const r = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Each bin with a command line that takes one FILE, and the tool name its messages carry. The
// model stages get the extractive backend: the file is checked before any server would be asked.
const BINS: [string, (file: string) => string][] = [
  ...stageNames().map((stage): [string, (file: string) => string] => {
    const extra = stage === 'generate' || stage === 'summarize' ? ' --backend extractive' : '';
    return [`rca-${stage}`, (file) => `./bin/rca-${stage}${extra} ${file}`];
  }),
  ...stageNames().map((stage): [string, (file: string) => string] => [`rca-${stage}`, (file) => `./bin/rca ${stage} - ${file}`]),
  ['rca export', (file) => `./bin/rca export ${file}`],
];

const cases: [string, string, string][] = [
  ['a missing file', missing, `cannot read input file '${missing}': no such file`],
  ['a folder', folder, `cannot read input file '${folder}': it is a folder, not a file`],
];

describe('every stage bin (and rca export): a bad input file is exit 2 before the first record', () => {
  for (const [name, path, message] of cases) {
    it.each(BINS)(`${name}: %s`, (tool, line) => {
      const r = sh(`${line(path)} < /dev/null`);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`${tool}: ${message}\n`);
      expect(r.code).toBe(2);
    });
  }

  it.runIf(canDrop).each(BINS)('an unreadable file: %s', (tool, line) => {
    const r = sh(`${NOBODY}${line(locked)} < /dev/null`);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${tool}: cannot read input file '${locked}': permission denied\n`);
    expect(r.code).toBe(2);
  });

  it('a good file after a bad one: nothing is read from either', () => {
    const r = sh(`./bin/rca-tag ${good} ${missing}`);
    expect(r).toEqual({ code: 2, stdout: '', stderr: `rca-tag: cannot read input file '${missing}': no such file\n` });
  });
});

describe('rca report, rca merge and rca cache merge follow the same rule', () => {
  it('rca report nosuchdir/ is a usage error', () => {
    const r = sh(`./bin/rca report ${join(tmp, 'nosuchdir')}/`);
    expect(r).toEqual({ code: 2, stdout: '', stderr: `rca report: cannot read build '${join(tmp, 'nosuchdir')}/': no such file or folder\n` });
  });

  it.runIf(canDrop)('rca report of an unreadable file is a usage error', () => {
    const r = sh(`${NOBODY}./bin/rca report ${locked} --output -`);
    expect(r).toEqual({ code: 2, stdout: '', stderr: `rca report: cannot read build '${locked}': permission denied\n` });
  });

  it('rca merge: a missing --inputs path, and a folder where a file of a folder should be', () => {
    const r = sh(`./bin/rca merge --inputs ${missing} --outputs ${folder}`);
    expect(r).toEqual({ code: 2, stdout: '', stderr: `rca merge: cannot read --inputs '${missing}': no such file or folder\n` });
    const nested = join(tmp, 'outs');
    mkdirSync(join(nested, 'x.summarized.jsonl'), { recursive: true });
    const inner = sh(`./bin/rca merge --inputs ${good} --outputs ${nested}`);
    expect(inner.code).toBe(2);
    expect(inner.stderr).toBe(`rca merge: cannot read --outputs file '${join(nested, 'x.summarized.jsonl')}': it is a folder, not a file\n`);
  });

  it.runIf(canDrop)('rca merge: an unreadable input file', () => {
    const r = sh(`${NOBODY}./bin/rca merge --inputs ${locked} --outputs ${good}`);
    expect(r).toEqual({ code: 2, stdout: '', stderr: `rca merge: cannot read --inputs '${locked}': permission denied\n` });
  });

  it('rca cache merge: a SOURCE that is missing or a folder', () => {
    const cache = join(tmp, 'cache.sqlite');
    for (const [source, problem] of [
      [missing, 'no such file'],
      [folder, 'it is a folder, not a file'],
    ]) {
      const r = sh(`./bin/rca cache merge --cache ${cache} ${source}`);
      expect(r).toEqual({ code: 2, stdout: '', stderr: `rca cache: cannot read SOURCE cache file '${source}': ${problem}\n` });
    }
    expect(existsSync(cache)).toBe(false);
  });
});
