import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheKey } from '../../src/cache/cache-key.js';
import { openResponseCache } from '../../src/cache/response-cache.js';
import { ROOT } from '../support/golden.js';

const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), 'rca-cache-cmd-'));
let counter = 0;

function rca(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/rca'), ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A cache with 3 entries last used 40, 20 and 1 days ago. */
function populated(): string {
  const path = join(dir, `c${++counter}.sqlite`);
  const now = Date.now();
  for (const [age, model] of [[40, 'mistral:latest'], [20, 'mistral:latest'], [1, 'qwen2.5:7b']] as const) {
    const cache = openResponseCache(path, { now: () => now - age * DAY });
    cache.put(cacheKey({ backend: 'ollama', model, modelDigest: null, options: {}, schema: {}, prompt: String(age) }), { content: '{"scope":"x"}', doneReason: 'stop', promptTokens: 1, outputTokens: 1 }, { backend: 'ollama', model });
    cache.close();
  }
  return path;
}

describe('rca cache: usage errors exit 2 with one line on stderr', () => {
  it.each<[string[], string]>([
    [[], 'rca cache: which action? (stats or prune or merge; see rca cache --help)\n'],
    [['frob'], "rca cache: unknown action 'frob' (known: stats, prune, merge)\n"],
    [['merge'], 'rca cache: merge needs the SOURCE cache files to copy from\n'],
    [['stats', 'extra'], "rca cache: unexpected argument 'extra'\n"],
    [['stats', '--bogus'], "rca cache: Unknown option '--bogus' (see rca cache --help)\n"],
    [['prune'], 'rca cache: prune needs --older-than DURATION (e.g. 30d)\n'],
    [['prune', '--older-than', 'soon'], "rca cache: --older-than expects a duration such as 30d, 12h or 90m, got 'soon'\n"],
    [['prune', '--older-than', '30'], "rca cache: --older-than expects a duration such as 30d, 12h or 90m, got '30'\n"],
    [['stats', '--older-than', '30d'], 'rca cache: --older-than applies to prune only\n'],
    [['stats', '--cache', ''], 'rca cache: --cache needs a file path\n'],
  ])('rca cache %j', (args, stderr) => {
    const r = rca(['cache', ...args]);
    expect(r).toEqual({ code: 2, stdout: '', stderr });
  });
});

describe('rca cache merge: the caches of the tasks of a job array into one', () => {
  it('copies every entry with its key, is idempotent, and refuses to merge a cache into itself', () => {
    const a = populated();
    const b = join(dir, `c${++counter}.sqlite`);
    const cache = openResponseCache(b);
    cache.put(cacheKey({ backend: 'openai', model: 'm', modelDigest: null, options: {}, schema: {}, prompt: 'b' }), { content: '{}', doneReason: 'stop', promptTokens: 1, outputTokens: 1 }, { backend: 'openai', model: 'm' });
    cache.close();
    const target = join(dir, `merged${counter}`, 'responses.sqlite');
    const first = rca(['cache', 'merge', '--cache', target, a, b]);
    expect(first).toEqual({
      code: 0,
      stdout: `${a}: 3 entries, 3 added, 0 replaced by a newer one\n${b}: 1 entry, 1 added, 0 replaced by a newer one\nmerged 2 caches into ${target}: 4 added, 0 replaced; 4 entries now\n`,
      stderr: '',
    });
    const again = rca(['cache', 'merge', '--cache', target, '--json', a, b]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ added: 0, replaced: 0, entries: 4 });
    // A later run that uses the merged cache finds the keys it knew.
    const sourceKeys = [a, b].flatMap((p) => {
      const c = openResponseCache(p, { create: false });
      try {
        return c.stats().groups.map((g) => `${g.backend} ${g.model} ${g.entries}`);
      } finally {
        c.close();
      }
    });
    const merged = openResponseCache(target, { create: false });
    expect(merged.stats().groups.map((g) => `${g.backend} ${g.model} ${g.entries}`)).toEqual(sourceKeys);
    expect(merged.get(cacheKey({ backend: 'openai', model: 'm', modelDigest: null, options: {}, schema: {}, prompt: 'b' }))).toMatchObject({ content: '{}' });
    merged.close();
    expect(rca(['cache', 'merge', '--cache', target, a, target])).toEqual({ code: 2, stdout: '', stderr: `rca cache: '${target}' is the cache merged into; name it once, with --cache\n` });
  });

  it('a source that is not a cache stops the merge with exit 3, naming it', () => {
    const bad = join(dir, `junk${++counter}.sqlite`);
    writeFileSync(bad, 'not a database '.repeat(100));
    const r = rca(['cache', 'merge', '--cache', join(dir, `m${counter}.sqlite`), bad]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(new RegExp(`^rca cache: ${bad}: not a usable cache`));
  });
});

describe('rca cache', () => {
  it('--help shows the usage, an example and the exit statuses', () => {
    const r = rca(['cache', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: rca cache stats');
    expect(r.stdout).toContain('rca cache prune --older-than 30d');
    expect(r.stdout).toContain('Exit status:');
    expect(r.stderr).toBe('');
  });

  it('rca --help lists the command', () => {
    expect(rca(['--help']).stdout).toMatch(/^ {2}cache +show, prune or merge response caches/m);
  });

  it('stats reports entries, size and the models (text and --json)', () => {
    const path = populated();
    const text = rca(['cache', 'stats', '--cache', path]);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe('');
    expect(text.stdout).toContain(`cache      ${path}\nentries    3\non disk    `);
    expect(text.stdout).toMatch(/^ollama +mistral:latest +2 +26 B /m);
    expect(text.stdout).toMatch(/^ollama +qwen2\.5:7b +1 +13 B /m);

    const json = rca(['cache', 'stats', '--cache', path, '--json']);
    expect(json.code).toBe(0);
    const stats = JSON.parse(json.stdout) as Record<string, any>;
    expect(stats).toMatchObject({ path, exists: true, entries: 3, reply_bytes: 39 });
    expect(stats.file_bytes).toBeGreaterThan(0);
    expect(stats.by_model.map((g: any) => [g.backend, g.model, g.entries])).toEqual([
      ['ollama', 'mistral:latest', 2],
      ['ollama', 'qwen2.5:7b', 1],
    ]);
    expect(Date.parse(stats.oldest_created)).toBeLessThan(Date.parse(stats.newest_created));
  });

  it.each<[string, number, number]>([
    ['30d', 1, 2],
    ['10d', 2, 1],
    ['2w', 2, 1],
    ['1h', 3, 0],
    ['100d', 0, 3],
  ])('prune --older-than %s removes %i and leaves %i', (duration, pruned, remaining) => {
    const path = populated();
    const r = rca(['cache', 'prune', '--older-than', duration, '--cache', path, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ path, pruned, remaining });
    expect(rca(['cache', 'prune', '--older-than', duration, '--cache', path]).stdout).toBe(`pruned 0 entries not used for ${duration}; ${remaining} left in ${path}\n`);
  });

  it('the cache location defaults to $RCA_CACHE, then $XDG_CACHE_HOME, then ~/.cache', () => {
    const path = populated();
    expect(JSON.parse(rca(['cache', 'stats', '--json'], { RCA_CACHE: path }).stdout)).toMatchObject({ path, entries: 3 });
    expect(JSON.parse(rca(['cache', 'stats', '--json'], { XDG_CACHE_HOME: join(dir, 'xdg') }).stdout)).toMatchObject({ path: join(dir, 'xdg', 'rca', 'responses.sqlite') });
    expect(JSON.parse(rca(['cache', 'stats', '--json']).stdout)).toMatchObject({ path: join(dir, 'home', '.cache', 'rca', 'responses.sqlite') });
  });

  it('a cache that does not exist yet has 0 entries, and looking does not create it', () => {
    const path = join(dir, 'never', 'responses.sqlite');
    const stats = rca(['cache', 'stats', '--cache', path]);
    expect(stats).toEqual({ code: 0, stdout: `cache      ${path} (does not exist yet)\nentries    0\n`, stderr: '' });
    expect(JSON.parse(rca(['cache', 'stats', '--json', '--cache', path]).stdout)).toMatchObject({ path, exists: false, entries: 0, file_bytes: 0, by_model: [] });
    expect(rca(['cache', 'prune', '--older-than', '1d', '--cache', path]).stdout).toBe(`no cache at ${path}; nothing to prune\n`);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });

  it('a file that is not a cache is fatal (exit 3), one line', () => {
    const path = join(dir, 'notes.txt');
    const content = 'not a database\n'.repeat(300);
    writeFileSync(path, content);
    const r = rca(['cache', 'stats', '--cache', path]);
    expect(r).toEqual({ code: 3, stdout: '', stderr: `rca cache: ${path}: not a usable cache (file is not a database)\n` });
    expect(readFileSync(path, 'utf8')).toBe(content);
  });
});
