// The response cache: model replies that passed validation, addressed by cacheKey(). One SQLite
// file (better-sqlite3) in WAL mode, shared by parallel runs (`make -j4` runs four generating
// processes on one cache):
// - every write is one INSERT OR REPLACE, i.e. one atomic transaction: a reader sees a whole
//   entry or none, and a process killed at any moment (even SIGKILL mid-write) leaves the last
//   committed state, which the next opener recovers from the WAL;
// - concurrent writers queue on SQLite's lock with a busy timeout instead of failing;
// - synchronous=NORMAL: under WAL a power cut may lose the last commits, never corrupt the file,
//   and a lost entry is only a miss.
// What the caller decides (see the generate stage):
// - store a reply only once it passed validation, so a failure is retried next time, never replayed;
// - `--refresh` = skip get() and put() the new reply, which replaces the old one;
// - `generation.<view>.cached` records a hit; created_at/last_used stay in here, never in records.
// - an entry is the outcome of a view's whole retry ladder: `attempts` says how many tries it took
//   and the token counts are their totals, so a hit rebuilds the record byte for byte. A ladder
//   that ran out of tries with a reply kept under quality flags is an entry too (`flagged`: its
//   flags and the attempt whose reply was kept), so a re-run does not ask three times again.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { CACHE_KEY_RE } from './cache-key.js';
import type { GenerateReply } from '../llm/model-client.js';

/** A model's reply as the cache keeps it (the client's reply, less what no record names), with the ladder's totals. */
export interface CachedReply extends Omit<GenerateReply, 'thinkingChars'> {
  /** Tries it took to get this reply (1: the first answer was kept); 1 when not given. */
  attempts?: number;
  /** Present when the ladder ran out of tries and kept this reply with quality flags. */
  flagged?: FlaggedOutcome;
}

export interface FlaggedOutcome {
  /** The flags the validator gave the kept reply. */
  flags: string[];
  /** The attempt whose reply was kept (its text cut is the record's). */
  keptAttempt: number;
}

/** What `rca cache merge` did with one source file. */
export interface MergeCounts {
  source: string;
  /** Entries of the source. */
  entries: number;
  /** Keys the target did not have. */
  added: number;
  /** Keys the target had, replaced by the source's newer entry. */
  replaced: number;
}

/** Who wrote an entry: kept for `rca cache stats`, never part of the key's meaning. */
export interface CacheEntryMeta {
  backend: string;
  model: string;
}

export interface CacheGroupStats {
  backend: string;
  model: string;
  entries: number;
  /** UTF-8 bytes of the stored replies. */
  replyBytes: number;
  /** Milliseconds since the epoch; null when the group is empty. */
  oldestCreated: number | null;
  newestCreated: number | null;
}

export interface CacheStats {
  path: string;
  entries: number;
  replyBytes: number;
  /** The database file and its write-ahead log, as on disk now. */
  fileBytes: number;
  walBytes: number;
  oldestCreated: number | null;
  newestCreated: number | null;
  oldestUsed: number | null;
  newestUsed: number | null;
  /** By backend, then model. */
  groups: CacheGroupStats[];
}

export interface ResponseCache {
  readonly path: string;
  /** The stored reply (attempts always set), or null. A hit refreshes the entry's last use (at most once an hour). */
  get(key: string): (CachedReply & { attempts: number }) | null;
  /** Stores (or replaces) the reply under key, atomically. */
  put(key: string, reply: CachedReply, meta: CacheEntryMeta): void;
  stats(): CacheStats;
  /** Deletes entries not used for `olderThanMs`; returns how many. */
  prune(olderThanMs: number): number;
  /**
   * Copies every entry of the cache file at `source` into this one, keys unchanged. A key both
   * hold keeps the newer entry (created_at), so merging again changes nothing. The source is
   * only read; it must be an rca cache of this format or an older one.
   */
  mergeFrom(source: string): MergeCounts;
  close(): void;
}

export interface OpenCacheOptions {
  /** Create the file and its folders when missing (default true); false: a missing cache is an error. */
  create?: boolean;
  /** Wait this long for another process's write lock before failing (default 10 s). */
  busyTimeoutMs?: number;
  /** Clock for created_at / last_used (tests). */
  now?: () => number;
}

export type CacheErrorCode = 'MISSING' | 'NOT_A_CACHE' | 'NEWER_FORMAT' | 'BUSY' | 'READONLY' | 'IO';

/** Any failure of the store, with a one-line message naming the file. */
export class CacheError extends Error {
  override readonly name = 'CacheError';
  constructor(
    readonly code: CacheErrorCode,
    message: string,
  ) {
    super(message);
  }
}

// 2 added `attempts`; 3 added flagged outcomes (`flags`, `kept_attempt`; null for an outcome that
// passed outright). Older files are upgraded in place: their entries took one try each (1) and
// all passed outright (1, 2).
const SCHEMA_VERSION = 3;
const DEFAULT_BUSY_TIMEOUT_MS = 10_000;
// A hit is a read; writing last_used on every hit would make readers contend with writers.
// Prune works in hours and days, so an hour of slack in last_used is invisible.
const TOUCH_INTERVAL_MS = 3_600_000;
const TABLE = 'responses';

const CREATE_SCHEMA = `
CREATE TABLE ${TABLE} (
  key TEXT PRIMARY KEY,
  backend TEXT NOT NULL,
  model TEXT NOT NULL,
  content TEXT NOT NULL,
  done_reason TEXT,
  prompt_tokens INTEGER,
  output_tokens INTEGER,
  attempts INTEGER NOT NULL DEFAULT 1,
  flags TEXT,
  kept_attempt INTEGER,
  created_at INTEGER NOT NULL,
  last_used INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX ${TABLE}_last_used ON ${TABLE} (last_used);
`;
const UPGRADE_FROM_1 = `ALTER TABLE ${TABLE} ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;`;
const UPGRADE_FROM_2 = `ALTER TABLE ${TABLE} ADD COLUMN flags TEXT; ALTER TABLE ${TABLE} ADD COLUMN kept_attempt INTEGER;`;
const COLUMNS = 'key, backend, model, content, done_reason, prompt_tokens, output_tokens, attempts, flags, kept_attempt, created_at, last_used';

interface Row {
  content: string;
  done_reason: string | null;
  prompt_tokens: number | null;
  output_tokens: number | null;
  attempts: number;
  flags: string | null;
  kept_attempt: number | null;
  last_used: number;
}

export function openResponseCache(path: string, options: OpenCacheOptions = {}): ResponseCache {
  const create = options.create ?? true;
  const now = options.now ?? Date.now;
  let db: Database.Database;
  try {
    if (create) mkdirSync(dirname(path), { recursive: true });
    else if (!existsSync(path)) throw new CacheError('MISSING', `${path}: no cache here`);
    db = new Database(path, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS, fileMustExist: !create });
  } catch (err) {
    throw cacheError(err, path, 'open');
  }
  try {
    prepareSchema(db, path);
  } catch (err) {
    db.close();
    throw cacheError(err, path, 'open');
  }

  const select = db.prepare<[string], Row>(`SELECT content, done_reason, prompt_tokens, output_tokens, attempts, flags, kept_attempt, last_used FROM ${TABLE} WHERE key = ?`);
  const touch = db.prepare<[number, string]>(`UPDATE ${TABLE} SET last_used = ? WHERE key = ?`);
  const upsert = db.prepare<[string, string, string, string, string | null, number | null, number | null, number, string | null, number | null, number, number]>(
    `INSERT OR REPLACE INTO ${TABLE} (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const remove = db.prepare<[number]>(`DELETE FROM ${TABLE} WHERE last_used < ?`);

  return {
    path,
    get(key) {
      try {
        const row = select.get(key);
        if (row === undefined) return null;
        const at = now();
        if (at - row.last_used >= TOUCH_INTERVAL_MS) {
          try {
            touch.run(at, key);
          } catch (err) {
            // The reply is good whether or not its last use could be noted (busy or read-only file).
            if (!isLockOrReadOnly(err)) throw err;
          }
        }
        const found: CachedReply & { attempts: number } = { content: row.content, doneReason: row.done_reason, promptTokens: row.prompt_tokens, outputTokens: row.output_tokens, attempts: row.attempts };
        const flagged = flaggedOf(row);
        if (flagged !== null) found.flagged = flagged;
        return found;
      } catch (err) {
        throw cacheError(err, path, 'read');
      }
    },
    put(key, reply, meta) {
      if (!CACHE_KEY_RE.test(key)) throw new TypeError(`cache key must be 64 lowercase hex digits (cacheKey()), got '${key.slice(0, 80)}'`);
      const attempts = reply.attempts ?? 1;
      if (!Number.isSafeInteger(attempts) || attempts < 1) throw new RangeError(`attempts must be a whole number of at least 1, got ${attempts}`);
      const { flagged } = reply;
      if (flagged !== undefined && !(Number.isSafeInteger(flagged.keptAttempt) && flagged.keptAttempt >= 1 && flagged.keptAttempt <= attempts && flagged.flags.length > 0)) {
        throw new RangeError(`a flagged outcome needs its flags and the attempt kept (1..${attempts}), got ${JSON.stringify(flagged)}`);
      }
      const at = now();
      try {
        upsert.run(key, meta.backend, meta.model, reply.content, reply.doneReason, intOrNull(reply.promptTokens), intOrNull(reply.outputTokens), attempts, flagged ? JSON.stringify(flagged.flags) : null, flagged ? flagged.keptAttempt : null, at, at);
      } catch (err) {
        throw cacheError(err, path, 'write');
      }
    },
    stats() {
      try {
        return readStats(db, path);
      } catch (err) {
        throw cacheError(err, path, 'read');
      }
    },
    prune(olderThanMs) {
      if (!Number.isFinite(olderThanMs) || olderThanMs < 0) throw new RangeError(`prune: olderThanMs must be a non-negative number, got ${olderThanMs}`);
      try {
        const removed = remove.run(now() - olderThanMs).changes;
        if (removed > 0) {
          // Give freed pages back to the file system and keep the log from holding them.
          db.pragma('incremental_vacuum');
          db.pragma('wal_checkpoint(TRUNCATE)');
        }
        return removed;
      } catch (err) {
        throw cacheError(err, path, 'write');
      }
    },
    mergeFrom(source) {
      // Opened once on its own first: refuses what is not an rca cache and brings an older format
      // up to this one, so the columns below exist.
      openResponseCache(source, { create: false, busyTimeoutMs: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS }).close();
      try {
        db.prepare('ATTACH DATABASE ? AS source').run(source);
      } catch (err) {
        throw cacheError(err, source, 'open');
      }
      try {
        return db.transaction(() => {
          const entries = db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM source.${TABLE}`).get()!.n;
          const added = db.prepare(`INSERT OR IGNORE INTO main.${TABLE} (${COLUMNS}) SELECT ${COLUMNS} FROM source.${TABLE}`).run().changes;
          const replaced = db
            .prepare(
              `INSERT OR REPLACE INTO main.${TABLE} (${COLUMNS})
               SELECT ${COLUMNS.split(', ').map((c) => `s.${c}`).join(', ')} FROM source.${TABLE} AS s JOIN main.${TABLE} AS m ON m.key = s.key
               WHERE s.created_at > m.created_at`,
            )
            .run().changes;
          return { source, entries, added, replaced };
        }).immediate();
      } catch (err) {
        throw cacheError(err, path, 'write');
      } finally {
        db.prepare('DETACH DATABASE source').run();
      }
    },
    close() {
      if (db.open) db.close();
    },
  };
}

function flaggedOf(row: Row): FlaggedOutcome | null {
  if (row.flags === null || row.kept_attempt === null) return null;
  const flags = JSON.parse(row.flags) as unknown;
  if (!Array.isArray(flags) || !flags.every((f) => typeof f === 'string')) return null;
  return { flags, keptAttempt: row.kept_attempt };
}

function prepareSchema(db: Database.Database, path: string): void {
  // Only takes effect in a new, empty file; lets prune return space without an exclusive VACUUM.
  db.pragma('auto_vacuum = INCREMENTAL');
  // WAL is persistent in the file: the first opener converts it, later ones find it set.
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  if (mode !== 'wal') throw new CacheError('IO', `${path}: cannot switch the cache to WAL mode (got ${String(mode)})`);
  db.pragma('synchronous = NORMAL');
  if (schemaVersion(db, path) === SCHEMA_VERSION) return;
  // Several first openers may race here: the immediate transaction serialises them and the
  // loser finds the schema in place.
  db.transaction(() => {
    const version = schemaVersion(db, path);
    if (version === SCHEMA_VERSION) return;
    if (version === 1 || version === 2) {
      if (version === 1) db.exec(UPGRADE_FROM_1);
      db.exec(UPGRADE_FROM_2);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
      return;
    }
    const tables = db.prepare<[], { name: string }>(`SELECT name FROM sqlite_schema WHERE type = 'table'`).all();
    if (tables.length > 0) throw new CacheError('NOT_A_CACHE', `${path}: an SQLite database but not an rca response cache (tables: ${tables.map((t) => t.name).join(', ')})`);
    db.exec(CREATE_SCHEMA);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

function schemaVersion(db: Database.Database, path: string): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) throw new CacheError('NEWER_FORMAT', `${path}: written by a newer rca (cache format ${version}; this rca reads ${SCHEMA_VERSION})`);
  if (version !== 0 && version !== 1 && version !== 2 && version !== SCHEMA_VERSION) throw new CacheError('NOT_A_CACHE', `${path}: unknown cache format ${version}`);
  return version;
}

interface Totals {
  entries: number;
  reply_bytes: number | null;
  oldest_created: number | null;
  newest_created: number | null;
  oldest_used: number | null;
  newest_used: number | null;
}
interface GroupRow {
  backend: string;
  model: string;
  entries: number;
  reply_bytes: number;
  oldest_created: number;
  newest_created: number;
}

function readStats(db: Database.Database, path: string): CacheStats {
  // One read transaction: the totals and the groups describe the same moment.
  return db.transaction(() => {
    const totals = db
      .prepare<[], Totals>(
        `SELECT count(*) AS entries, sum(length(CAST(content AS BLOB))) AS reply_bytes,
                min(created_at) AS oldest_created, max(created_at) AS newest_created,
                min(last_used) AS oldest_used, max(last_used) AS newest_used
         FROM ${TABLE}`,
      )
      .get()!;
    const groups = db
      .prepare<[], GroupRow>(
        `SELECT backend, model, count(*) AS entries, sum(length(CAST(content AS BLOB))) AS reply_bytes,
                min(created_at) AS oldest_created, max(created_at) AS newest_created
         FROM ${TABLE} GROUP BY backend, model ORDER BY backend, model`,
      )
      .all();
    return {
      path,
      entries: totals.entries,
      replyBytes: totals.reply_bytes ?? 0,
      fileBytes: fileSize(path),
      walBytes: fileSize(`${path}-wal`),
      oldestCreated: totals.oldest_created,
      newestCreated: totals.newest_created,
      oldestUsed: totals.oldest_used,
      newestUsed: totals.newest_used,
      groups: groups.map((g) => ({
        backend: g.backend,
        model: g.model,
        entries: g.entries,
        replyBytes: g.reply_bytes,
        oldestCreated: g.oldest_created,
        newestCreated: g.newest_created,
      })),
    };
  })();
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function intOrNull(value: number | null): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : null;
}

function sqliteCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function isLockOrReadOnly(err: unknown): boolean {
  const code = sqliteCode(err) ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || code.startsWith('SQLITE_READONLY');
}

function cacheError(err: unknown, path: string, doing: 'open' | 'read' | 'write'): Error {
  if (err instanceof CacheError) return err;
  const code = sqliteCode(err) ?? '';
  const detail = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') return new CacheError('NOT_A_CACHE', `${path}: not a usable cache (${detail})`);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return new CacheError('BUSY', `${path}: cache still locked by another process after the busy timeout (${doing})`);
  if (code.startsWith('SQLITE_READONLY')) return new CacheError('READONLY', `${path}: cache is read-only (${doing})`);
  return new CacheError('IO', `${path}: cannot ${doing} the cache: ${detail}`);
}
