import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheKey } from '../../src/cache/cache-key.js';
import { CacheError, openResponseCache, type CachedReply, type ResponseCache } from '../../src/cache/response-cache.js';
import { ROOT } from '../support/golden.js';

const WRITER = join(ROOT, 'test/support/cache-writer.mjs');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 1, 6);

const dir = mkdtempSync(join(tmpdir(), 'rca-cache-'));
let counter = 0;
const freshPath = () => join(dir, `c${++counter}`, 'responses.sqlite');

const open: ResponseCache[] = [];
function openCache(path = freshPath(), clock?: { t: number }): ResponseCache {
  const cache = openResponseCache(path, clock ? { now: () => clock.t } : {});
  open.push(cache);
  return cache;
}
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

const key = (prompt: string, model = 'mistral:latest') => cacheKey({ backend: 'ollama', model, modelDigest: null, options: { seed: 42 }, schema: {}, prompt });
const reply = (content: string, extra: Partial<CachedReply> = {}): CachedReply => ({ content, doneReason: 'stop', promptTokens: 812, outputTokens: 240, attempts: 1, ...extra });
const META = { backend: 'ollama', model: 'mistral:latest' };

describe('ResponseCache: hits and misses', () => {
  it('a stored reply comes back whole; an unknown key is a miss', () => {
    const cache = openCache();
    expect(cache.get(key('a'))).toBeNull();
    cache.put(key('a'), reply('{"scope":"pump"}'), META);
    expect(cache.get(key('a'))).toEqual(reply('{"scope":"pump"}'));
    expect(cache.get(key('b'))).toBeNull();
  });

  it.each<[string, CachedReply]>([
    ['null metadata', { content: '{}', doneReason: null, promptTokens: null, outputTokens: null, attempts: 1 }],
    ['a reply that took three tries', reply('{}', { attempts: 3, promptTokens: 2436, outputTokens: 720 })],
    ['non-ASCII and control characters', reply('{"scope":"°F — “quoted” \\u0000 ✓ \ud83d\ude00\\n"}')],
    ['a large reply', reply(JSON.stringify({ pad: 'x'.repeat(300_000) }))],
    ['an empty reply string', reply('')],
  ])('round-trips %s', (_name, value) => {
    const cache = openCache();
    cache.put(key('r'), value, META);
    expect(cache.get(key('r'))).toEqual(value);
  });

  it('token counts that are not whole numbers are stored as null', () => {
    const cache = openCache();
    cache.put(key('t'), reply('{}', { promptTokens: 1.5, outputTokens: Number.NaN }), META);
    expect(cache.get(key('t'))).toMatchObject({ promptTokens: null, outputTokens: null });
  });

  it('put replaces the entry under the same key (what --refresh relies on)', () => {
    const cache = openCache();
    cache.put(key('a'), reply('old'), META);
    cache.put(key('a'), reply('new', { doneReason: 'length' }), META);
    expect(cache.get(key('a'))).toEqual(reply('new', { doneReason: 'length' }));
    expect(cache.stats().entries).toBe(1);
  });

  it('survives close and reopen, from another connection', () => {
    const path = freshPath();
    const first = openCache(path);
    first.put(key('a'), reply('kept'), META);
    first.close();
    expect(openCache(path).get(key('a'))).toEqual(reply('kept'));
  });

  it('attempts defaults to 1 when not given', () => {
    const cache = openCache();
    cache.put(key('d'), { content: '{}', doneReason: 'stop', promptTokens: 1, outputTokens: 1 }, META);
    expect(cache.get(key('d'))).toMatchObject({ attempts: 1 });
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses attempts %s', (attempts) => {
    expect(() => openCache().put(key('a'), reply('x', { attempts }), META)).toThrow(RangeError);
  });

  it.each(['', 'abc', key('a').toUpperCase(), `${key('a')}0`])('refuses a key that is not a cacheKey(): %j', (bad) => {
    expect(() => openCache().put(bad, reply('x'), META)).toThrow(TypeError);
  });
});

describe('ResponseCache: the file', () => {
  it('creates missing folders, uses WAL, incremental auto-vacuum and schema version 3', () => {
    const path = join(dir, 'deep', 'er', 'responses.sqlite');
    openCache(path).close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    expect(db.pragma('user_version', { simple: true })).toBe(3);
    db.close();
  });

  it('upgrades a version-1 cache in place: its entries took one try each', () => {
    const path = freshPath();
    mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    db.exec(`CREATE TABLE responses (key TEXT PRIMARY KEY, backend TEXT NOT NULL, model TEXT NOT NULL, content TEXT NOT NULL,
      done_reason TEXT, prompt_tokens INTEGER, output_tokens INTEGER, created_at INTEGER NOT NULL, last_used INTEGER NOT NULL) STRICT, WITHOUT ROWID`);
    db.prepare('INSERT INTO responses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(key('old'), 'ollama', 'mistral:latest', '{"scope":"old"}', 'stop', 812, 240, T0, T0);
    db.pragma('user_version = 1');
    db.close();
    const cache = openCache(path);
    expect(cache.get(key('old'))).toEqual(reply('{"scope":"old"}'));
    cache.put(key('new'), reply('{}', { attempts: 2 }), META);
    expect(cache.get(key('new'))).toMatchObject({ attempts: 2 });
    cache.close();
    const check = new Database(path, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(3);
    check.close();
  });

  it('upgrades a version-2 cache in place: its entries passed outright', () => {
    const path = freshPath();
    mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    db.exec(`CREATE TABLE responses (key TEXT PRIMARY KEY, backend TEXT NOT NULL, model TEXT NOT NULL, content TEXT NOT NULL,
      done_reason TEXT, prompt_tokens INTEGER, output_tokens INTEGER, attempts INTEGER NOT NULL DEFAULT 1, created_at INTEGER NOT NULL, last_used INTEGER NOT NULL) STRICT, WITHOUT ROWID`);
    db.prepare('INSERT INTO responses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(key('old'), 'ollama', 'mistral:latest', '{"scope":"old"}', 'stop', 812, 240, 2, T0, T0);
    db.pragma('user_version = 2');
    db.close();
    const cache = openCache(path);
    expect(cache.get(key('old'))).toEqual(reply('{"scope":"old"}', { attempts: 2 }));
    cache.put(key('flagged'), reply('{}', { attempts: 3, flagged: { flags: ['SCOPE_TOO_SHORT'], keptAttempt: 2 } }), META);
    expect(cache.get(key('flagged'))).toEqual(reply('{}', { attempts: 3, flagged: { flags: ['SCOPE_TOO_SHORT'], keptAttempt: 2 } }));
  });
});

describe('ResponseCache: flagged outcomes', () => {
  it('round-trip with their flags and the attempt kept; a passed outcome has no flagged part', () => {
    const cache = openCache();
    const flagged = reply('{"scope":"x"}', { attempts: 3, flagged: { flags: ['SCOPE_TOO_SHORT', 'NO_CAUSE'], keptAttempt: 1 } });
    cache.put(key('f'), flagged, META);
    expect(cache.get(key('f'))).toEqual(flagged);
    cache.put(key('f'), reply('{"scope":"y"}', { attempts: 2 }), META);
    expect(cache.get(key('f'))).not.toHaveProperty('flagged');
  });

  it.each<[string, CachedReply]>([
    ['no flags', reply('{}', { attempts: 3, flagged: { flags: [], keptAttempt: 1 } })],
    ['a kept attempt past the attempts', reply('{}', { attempts: 2, flagged: { flags: ['F'], keptAttempt: 3 } })],
    ['a kept attempt of 0', reply('{}', { attempts: 2, flagged: { flags: ['F'], keptAttempt: 0 } })],
  ])('refuses a flagged outcome with %s', (_name, value) => {
    expect(() => openCache().put(key('bad'), value, META)).toThrow(RangeError);
  });
});

describe('ResponseCache: mergeFrom (rca cache merge)', () => {
  it('copies every entry with its key; merging again changes nothing; a key both hold keeps the newer entry', () => {
    const clock = { t: T0 };
    const a = openCache(freshPath(), clock);
    const bPath = freshPath();
    const b = openCache(bPath, clock);
    a.put(key('shared'), reply('old'), META);
    a.put(key('only-a'), reply('a'), META);
    clock.t += DAY;
    b.put(key('shared'), reply('new'), META);
    b.put(key('only-b'), reply('b', { attempts: 3, flagged: { flags: ['F'], keptAttempt: 2 } }), META);
    b.close();
    expect(a.mergeFrom(bPath)).toEqual({ source: bPath, entries: 2, added: 1, replaced: 1 });
    expect(a.get(key('shared'))).toEqual(reply('new'));
    expect(a.get(key('only-b'))).toEqual(reply('b', { attempts: 3, flagged: { flags: ['F'], keptAttempt: 2 } }));
    expect(a.get(key('only-a'))).toEqual(reply('a'));
    expect(a.mergeFrom(bPath)).toEqual({ source: bPath, entries: 2, added: 0, replaced: 0 });
    expect(a.stats().entries).toBe(3);
  });

  it('refuses a source that is not an rca cache, or is missing, naming it', () => {
    const target = openCache();
    const notCache = join(dir, 'not-a-cache.sqlite');
    writeFileSync(notCache, 'hello, world, this is not SQLite at all '.repeat(40));
    expect(() => target.mergeFrom(notCache)).toThrow(CacheError);
    expect(() => target.mergeFrom(join(dir, 'nowhere.sqlite'))).toThrow(/no cache here/);
  });

  function sqliteFile(setup: (db: Database.Database) => void): string {
    const path = freshPath();
    openCache(path).close();
    const db = new Database(path);
    setup(db);
    db.close();
    return path;
  }

  it.each<[string, () => string, string]>([
    [
      'a file that is not SQLite',
      () => {
        const path = join(dir, `not-sqlite-${++counter}.txt`);
        writeFileSync(path, 'hello, this is not a database\n'.repeat(200));
        return path;
      },
      'NOT_A_CACHE',
    ],
    [
      "someone else's SQLite database",
      () => {
        const path = join(dir, `other-${++counter}.sqlite`);
        const db = new Database(path);
        db.exec('CREATE TABLE invoices (id INTEGER)');
        db.close();
        return path;
      },
      'NOT_A_CACHE',
    ],
    ['a cache written by a newer rca', () => sqliteFile((db) => db.pragma('user_version = 7')), 'NEWER_FORMAT'],
  ])('refuses %s with a one-line CacheError', (_name, make, code) => {
    const path = make();
    let error: unknown;
    try {
      openResponseCache(path).close();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CacheError);
    expect((error as CacheError).code).toBe(code);
    expect((error as CacheError).message).toContain(path);
    expect((error as CacheError).message).not.toContain('\n');
  });

  it('create: false does not create a missing cache', () => {
    const path = freshPath();
    expect(() => openResponseCache(path, { create: false })).toThrow(expect.objectContaining({ code: 'MISSING' }));
    expect(() => openResponseCache(join(dir, 'no-such-dir', 'x.sqlite'), { create: false })).toThrow(expect.objectContaining({ code: 'MISSING' }));
  });
});

describe('ResponseCache: last use, prune and stats (clock injected)', () => {
  it('prune removes entries not used for the given time; a hit counts as a use', () => {
    const clock = { t: T0 };
    const cache = openCache(freshPath(), clock);
    cache.put(key('used'), reply('u'), META);
    cache.put(key('idle'), reply('i'), META);
    clock.t = T0 + 10 * DAY;
    expect(cache.get(key('used'))).not.toBeNull();
    clock.t = T0 + 12 * DAY;
    cache.put(key('fresh'), reply('f'), META);
    expect(cache.prune(7 * DAY)).toBe(1);
    expect(cache.get(key('idle'))).toBeNull();
    expect(cache.get(key('used'))).not.toBeNull();
    expect(cache.get(key('fresh'))).not.toBeNull();
    clock.t += 1;
    expect(cache.prune(0)).toBe(2);
    expect(cache.stats().entries).toBe(0);
  });

  it('a hit within the hour does not rewrite last_used (reads stay reads)', () => {
    const clock = { t: T0 };
    const cache = openCache(freshPath(), clock);
    cache.put(key('a'), reply('a'), META);
    clock.t = T0 + HOUR - 1;
    cache.get(key('a'));
    expect(cache.stats().newestUsed).toBe(T0);
    clock.t = T0 + HOUR;
    cache.get(key('a'));
    expect(cache.stats().newestUsed).toBe(T0 + HOUR);
  });

  it.each([-1, Number.NaN, Infinity])('prune refuses %s', (bad) => {
    expect(() => openCache().prune(bad)).toThrow(RangeError);
  });

  it('stats counts entries and reply bytes by backend and model, oldest and newest', () => {
    const clock = { t: T0 };
    const cache = openCache(freshPath(), clock);
    cache.put(key('1', 'qwen'), reply('°F'), { backend: 'ollama', model: 'qwen' });
    clock.t = T0 + HOUR;
    cache.put(key('2'), reply('abc'), META);
    clock.t = T0 + 2 * HOUR;
    cache.put(key('3'), reply('de'), META);
    cache.put(key('4', 'x'), reply('{}'), { backend: 'extractive', model: 'extractive' });
    const stats = cache.stats();
    expect(stats).toMatchObject({
      entries: 4,
      replyBytes: 3 + 3 + 2 + 2,
      oldestCreated: T0,
      newestCreated: T0 + 2 * HOUR,
      oldestUsed: T0,
      newestUsed: T0 + 2 * HOUR,
    });
    expect(stats.fileBytes).toBeGreaterThan(0);
    expect(stats.groups).toEqual([
      { backend: 'extractive', model: 'extractive', entries: 1, replyBytes: 2, oldestCreated: T0 + 2 * HOUR, newestCreated: T0 + 2 * HOUR },
      { backend: 'ollama', model: 'mistral:latest', entries: 2, replyBytes: 5, oldestCreated: T0 + HOUR, newestCreated: T0 + 2 * HOUR },
      { backend: 'ollama', model: 'qwen', entries: 1, replyBytes: 3, oldestCreated: T0, newestCreated: T0 },
    ]);
  });

  it('an empty cache has zero entries and null dates', () => {
    expect(openCache().stats()).toMatchObject({ entries: 0, replyBytes: 0, oldestCreated: null, newestUsed: null, groups: [] });
  });
});

interface Child {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function runWriter(args: string[], onStdout?: (text: string, kill: () => void) => void): Promise<Child> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => onStdout?.(d.toString(), () => child.kill('SIGKILL')));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

/** Every row must be a whole entry written by cache-writer.mjs: its key recomputes from its content. */
function checkWholeEntries(path: string, payload: number): { rows: number; integrity: string } {
  const db = new Database(path);
  const integrity = db.pragma('integrity_check', { simple: true }) as string;
  const rows = db.prepare('SELECT key, backend, model, content, done_reason, prompt_tokens, output_tokens FROM responses').all() as Array<Record<string, any>>;
  for (const row of rows) {
    const body = JSON.parse(row.content as string) as { writer: string; i: number; pad: string };
    expect(body.pad).toHaveLength(payload);
    const expectedKey = cacheKey({ backend: 'test', model: `writer-${body.writer}`, modelDigest: null, options: { i: body.i }, schema: { writer: body.writer }, prompt: `${body.writer}:${body.i}` });
    expect(row).toEqual({
      key: expectedKey,
      backend: 'test',
      model: `writer-${body.writer}`,
      content: row.content,
      done_reason: 'stop',
      prompt_tokens: body.i,
      output_tokens: payload,
    });
  }
  db.close();
  return { rows: rows.length, integrity };
}

describe('ResponseCache: several processes, and kill -9', () => {
  it('4 processes writing 500 entries each at the same moment into a new cache: all 2,000 land, no busy errors', async () => {
    const path = freshPath();
    const startAt = String(Date.now() + 400);
    const children = await Promise.all(['1', '2', '3', '4'].map((w) => runWriter([path, w, '500', '200', startAt])));
    for (const child of children) expect(child).toEqual({ code: 0, signal: null, stderr: '' });
    const { rows, integrity } = checkWholeEntries(path, 200);
    expect(integrity).toBe('ok');
    expect(rows).toBe(2000);
    const cache = openCache(path);
    expect(cache.stats().groups.map((g) => [g.model, g.entries])).toEqual([
      ['writer-1', 500],
      ['writer-2', 500],
      ['writer-3', 500],
      ['writer-4', 500],
    ]);
  });

  it('a writer killed with SIGKILL in the middle of its write loop leaves a sound cache of whole entries, again and again', async () => {
    const path = freshPath();
    const payload = 150_000; // large entries: most of the loop's time is inside a write
    let before = 0;
    for (const delayMs of [60, 150, 260]) {
      const child = await runWriter([path, `k${delayMs}`, 'forever', String(payload), '0'], (text, kill) => {
        if (text.includes('writing')) setTimeout(kill, delayMs);
      });
      expect(child.signal).toBe('SIGKILL');
      const { rows, integrity } = checkWholeEntries(path, payload);
      expect(integrity).toBe('ok');
      expect(rows).toBeGreaterThan(before);
      before = rows;
      // The next round writes on top of what the killed process left behind.
      const cache = openResponseCache(path);
      expect(cache.stats().entries).toBe(rows);
      cache.close();
    }
  });
});
