// The search index of `rca index` and `rca search`: one SQLite file (better-sqlite3) holding the
// chunks and sections of a corpus, their texts in FTS5 tables (BM25, Porter stemming) and, when the
// records carry them, their vectors in sqlite-vec tables.
// - Idempotent by id: a chunk is (doc_id, chunk_id), a section its section_id; indexing a record
//   again replaces its row, its texts and its vector, so a re-run or a second shard updates.
// - Safe for several writers (WAL, a busy timeout): every write is part of an IMMEDIATE
//   transaction of at most BATCH records, so two processes indexing into one file take turns
//   and a reader sees whole batches; a killed writer loses at most its open batch.
// - The vector tables are made when the first vector arrives (its length fixes their width); every
//   later vector must come from the same model, text and prefix, or it could not be compared.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import type { EmbeddingInfo } from '../contracts/embedding-field.js';
import type { Indexed, IndexedChunk, IndexedSection, IndexedVector } from './index-records.js';
import { loadVectorExtension, type ExtensionLoader } from './vector-extension.js';

const FORMAT = 1;
const DEFAULT_BUSY_TIMEOUT_MS = 30_000;
/** Records per write transaction. */
const BATCH = 256;
// Porter stemming over Unicode words: "vibrating" finds "vibration"; accents fold.
const TOKENIZE = `tokenize = 'porter unicode61 remove_diacritics 2'`;

/**
 * One FTS5 table per chunk text searched, each over the text kept once in `chunks` (external
 * content): BM25's document frequencies are those of the text searched alone, so the raw-text
 * baseline does not move with the views indexed beside it.
 */
export const CHUNK_FTS: readonly (readonly [string, readonly string[]])[] = [
  ['fts_text', ['text']],
  ['fts_views', ['views']],
  ['fts_both', ['text', 'views']],
];

const CREATE_SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE chunks (
  id INTEGER PRIMARY KEY,
  doc_id TEXT NOT NULL,
  chunk_id TEXT NOT NULL,
  section_id TEXT,
  section_path TEXT NOT NULL,
  doc_type TEXT NOT NULL,
  section_role TEXT NOT NULL,
  authority TEXT NOT NULL,
  text TEXT NOT NULL,
  views TEXT NOT NULL,
  UNIQUE (doc_id, chunk_id)
) STRICT;
CREATE INDEX chunks_by_section ON chunks (section_id);
CREATE INDEX chunks_by_chunk_id ON chunks (chunk_id);
${CHUNK_FTS.map(([table, columns]) => `CREATE VIRTUAL TABLE ${table} USING fts5(${columns.join(', ')}, content='chunks', content_rowid='id', ${TOKENIZE});`).join('\n')}
CREATE TABLE sections (
  id INTEGER PRIMARY KEY,
  section_id TEXT NOT NULL UNIQUE,
  doc_id TEXT NOT NULL,
  parent_id TEXT,
  section_path TEXT NOT NULL,
  title TEXT NOT NULL,
  level INTEGER NOT NULL,
  summarized INTEGER NOT NULL
) STRICT;
CREATE INDEX sections_by_parent ON sections (parent_id);
CREATE VIRTUAL TABLE section_fts USING fts5(path, summary, ${TOKENIZE});
`;

export type VectorKind = 'chunk' | 'section';
const VECTOR_TABLE: Record<VectorKind, string> = { chunk: 'chunk_vec', section: 'section_vec' };

export class IndexError extends Error {
  override readonly name = 'IndexError';
}

export interface IndexCounts {
  chunks: number;
  sections: number;
  summarizedSections: number;
  chunkVectors: number;
  sectionVectors: number;
}

export interface PutResult {
  /** false: the id was already in the index and its row was replaced. */
  added: boolean;
  /** The record's vector was stored (false: it had none, or sqlite-vec is not loaded). */
  vector: boolean;
}

export interface OpenIndexOptions {
  /** Create the file when missing (rca index); false: a missing index is an error (rca search). */
  create: boolean;
  busyTimeoutMs?: number;
  /** Tests: a loader of sqlite-vec that fails. */
  loadExtension?: ExtensionLoader;
}

let sqlite: typeof Database | undefined;
const openDatabase = (path: string, options: Database.Options): Database.Database => {
  sqlite ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  return new sqlite(path, options);
};

export class IndexStore {
  readonly db: Database.Database;
  /** Why sqlite-vec is not loaded (one line), or null when it is. */
  readonly vectorProblem: string | null;
  private inTransaction = false;
  private pending = 0;
  private readonly embeddings = new Map<VectorKind, EmbeddingInfo | null>();
  private readonly statements = new Map<string, Database.Statement>();

  private constructor(readonly path: string, db: Database.Database, vectorProblem: string | null) {
    this.db = db;
    this.vectorProblem = vectorProblem;
  }

  static open(path: string, options: OpenIndexOptions): IndexStore {
    let db: Database.Database;
    try {
      if (options.create) mkdirSync(dirname(path), { recursive: true });
      else if (!existsSync(path)) throw new IndexError(`${path}: no index here (build one with rca index --db ${path} FILE...)`);
      db = openDatabase(path, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS, fileMustExist: !options.create });
    } catch (err) {
      throw indexError(err, path, 'open');
    }
    try {
      const problem = loadVectorExtension(db, options.loadExtension);
      prepareSchema(db, path, options.create);
      const store = new IndexStore(path, db, problem);
      // A replaced row would keep its old vector in a table this process cannot write.
      if (options.create && problem !== null && (store.embeddingOf('chunk') !== null || store.embeddingOf('section') !== null)) {
        throw new IndexError(`${path} holds vectors and ${problem}; index into it where sqlite-vec loads`);
      }
      return store;
    } catch (err) {
      db.close();
      throw indexError(err, path, 'open');
    }
  }

  get vectorsLoaded(): boolean {
    return this.vectorProblem === null;
  }

  /** The model, text and prefix of the index's vectors of that kind; null when it holds none. */
  embeddingOf(kind: VectorKind): EmbeddingInfo | null {
    if (!this.embeddings.has(kind)) {
      const row = this.db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(`${kind}_embedding`);
      this.embeddings.set(kind, row === undefined ? null : (JSON.parse(row.value) as EmbeddingInfo));
    }
    return this.embeddings.get(kind) ?? null;
  }

  /** Adds or replaces one chunk or section; refuses one whose vector the index's cannot be compared with. */
  put(item: Indexed): PutResult | { reject: { code: string; message: string } } {
    this.begin();
    const held = item.vector === null || !this.vectorsLoaded ? null : this.embeddingOf(item.kind);
    const mismatch = held === null || item.vector === null ? null : embeddingMismatch(held, item.vector.info);
    if (mismatch !== null) return { reject: { code: 'EMBEDDING_MISMATCH', message: `its vector ${mismatch}: vectors of other models, texts or prefixes cannot be searched together` } };
    const result = item.kind === 'chunk' ? this.putChunk(item) : this.putSection(item);
    if (++this.pending >= BATCH) this.commit();
    return result;
  }

  /** Ends the open write transaction, if any: what was put is then visible to other processes. */
  commit(): void {
    if (!this.inTransaction) return;
    try {
      this.statement('COMMIT').run();
    } catch (err) {
      throw indexError(err, this.path, 'write');
    }
    this.inTransaction = false;
    this.pending = 0;
  }

  counts(): IndexCounts {
    const n = (sql: string): number => (this.db.prepare<[], { n: number }>(sql).get()?.n ?? 0);
    const vectors = (kind: VectorKind): number => (this.embeddingOf(kind) !== null && this.vectorsLoaded ? n(`SELECT count(*) AS n FROM ${VECTOR_TABLE[kind]}`) : 0);
    return {
      chunks: n('SELECT count(*) AS n FROM chunks'),
      sections: n('SELECT count(*) AS n FROM sections'),
      summarizedSections: n('SELECT count(*) AS n FROM sections WHERE summarized = 1'),
      chunkVectors: vectors('chunk'),
      sectionVectors: vectors('section'),
    };
  }

  hasSections(): boolean {
    return this.statement('SELECT 1 FROM sections LIMIT 1').get() !== undefined;
  }

  fileBytes(): number {
    return ['', '-wal'].reduce((sum, suffix) => sum + (existsSync(this.path + suffix) ? statSync(this.path + suffix).size : 0), 0);
  }

  close(): void {
    if (!this.db.open) return;
    try {
      this.commit();
    } finally {
      this.db.close();
    }
  }

  private begin(): void {
    if (this.inTransaction) return;
    try {
      this.statement('BEGIN IMMEDIATE').run();
    } catch (err) {
      throw indexError(err, this.path, 'write');
    }
    this.inTransaction = true;
    // Another writer may have made the vector tables since our last batch.
    this.embeddings.clear();
  }

  private putChunk(c: IndexedChunk): PutResult {
    const existing = this.statement('SELECT id, text, views FROM chunks WHERE doc_id = ? AND chunk_id = ?').get(c.docId, c.chunkId) as { id: number; text: string; views: string } | undefined;
    const values = [c.sectionId, c.sectionPath, c.docType, c.sectionRole, c.authority, c.text, c.views];
    let id: number;
    if (existing === undefined) {
      id = Number(this.statement('INSERT INTO chunks (section_id, section_path, doc_type, section_role, authority, text, views, doc_id, chunk_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(...values, c.docId, c.chunkId).lastInsertRowid);
    } else {
      id = existing.id;
      // An external-content index forgets a row by being told its old values.
      for (const [table, columns] of CHUNK_FTS) {
        this.statement(`INSERT INTO ${table} (${table}, rowid, ${columns.join(', ')}) VALUES ('delete', ?, ${columns.map(() => '?').join(', ')})`).run(id, ...columns.map((col) => existing[col as 'text' | 'views']));
      }
      this.statement('UPDATE chunks SET section_id = ?, section_path = ?, doc_type = ?, section_role = ?, authority = ?, text = ?, views = ? WHERE id = ?').run(...values, id);
    }
    for (const [table, columns] of CHUNK_FTS) {
      this.statement(`INSERT INTO ${table} (rowid, ${columns.join(', ')}) VALUES (?, ${columns.map(() => '?').join(', ')})`).run(id, ...columns.map((col) => c[col as 'text' | 'views']));
    }
    const vector = this.putVector('chunk', id, c.vector, existing !== undefined, [c.docId, c.docType, c.sectionRole, c.authority]);
    return { added: existing === undefined, vector };
  }

  private putSection(s: IndexedSection): PutResult {
    const existing = this.statement('SELECT id FROM sections WHERE section_id = ?').get(s.sectionId) as { id: number } | undefined;
    const values = [s.docId, s.parentId, s.sectionPath, s.title, s.level, s.summarized ? 1 : 0];
    let id: number;
    if (existing === undefined) {
      id = Number(this.statement('INSERT INTO sections (doc_id, parent_id, section_path, title, level, summarized, section_id) VALUES (?, ?, ?, ?, ?, ?, ?)').run(...values, s.sectionId).lastInsertRowid);
    } else {
      id = existing.id;
      this.statement('UPDATE sections SET doc_id = ?, parent_id = ?, section_path = ?, title = ?, level = ?, summarized = ? WHERE id = ?').run(...values, id);
      this.statement('DELETE FROM section_fts WHERE rowid = ?').run(id);
    }
    this.statement('INSERT INTO section_fts (rowid, path, summary) VALUES (?, ?, ?)').run(id, s.sectionPath, s.summary);
    const vector = this.putVector('section', id, s.vector, existing !== undefined, [s.docId]);
    return { added: existing === undefined, vector };
  }

  private putVector(kind: VectorKind, id: number, given: IndexedVector | null, replacing: boolean, metadata: string[]): boolean {
    // Without sqlite-vec the index has no vector tables (open() refuses to write into one that has).
    if (!this.vectorsLoaded) return false;
    const held = this.embeddingOf(kind);
    const table = VECTOR_TABLE[kind];
    if (held !== null && replacing) this.statement(`DELETE FROM ${table} WHERE rowid = ?`).run(BigInt(id));
    if (given === null) return false;
    if (held === null) this.createVectorTable(kind, given.info);
    const placeholders = metadata.map(() => ', ?').join('');
    this.statement(`INSERT INTO ${table} (rowid, embedding${kind === 'chunk' ? ', doc_id, doc_type, section_role, authority' : ', doc_id'}) VALUES (?, ?${placeholders})`).run(BigInt(id), new Float32Array(given.vector), ...metadata);
    return true;
  }

  private createVectorTable(kind: VectorKind, info: EmbeddingInfo): void {
    // Metadata columns of vec0 filter a KNN query in place (equality only, as rca search filters).
    const columns = kind === 'chunk' ? ', doc_id text, doc_type text, section_role text, authority text' : ', doc_id text';
    this.db.exec(`CREATE VIRTUAL TABLE ${VECTOR_TABLE[kind]} USING vec0(embedding float[${info.dims}] distance_metric=cosine${columns})`);
    this.statement('INSERT INTO meta (key, value) VALUES (?, ?)').run(`${kind}_embedding`, JSON.stringify(info));
    this.embeddings.set(kind, info);
  }

  statement(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (s === undefined) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }
}

/** How a vector's provenance differs from the index's, or null when they can be compared. */
export function embeddingMismatch(held: EmbeddingInfo, given: EmbeddingInfo): string | null {
  if (given.model !== held.model) return `comes from model ${given.model}, the index's from ${held.model}`;
  if (given.digest !== null && held.digest !== null && given.digest !== held.digest) return `comes from another build of ${given.model} (digest ${given.digest.slice(0, 12)}, the index's ${held.digest.slice(0, 12)})`;
  if (given.dims !== held.dims) return `has ${given.dims} dimensions, the index's ${held.dims}`;
  if (given.field !== held.field) return `embeds ${given.field || 'an unnamed text'}, the index's ${held.field || 'an unnamed text'}`;
  if (given.prefix !== held.prefix) return `was made with prefix ${JSON.stringify(given.prefix)}, the index's with ${JSON.stringify(held.prefix)}`;
  return null;
}

function prepareSchema(db: Database.Database, path: string, create: boolean): void {
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  if (mode !== 'wal') throw new IndexError(`${path}: cannot switch the index to WAL mode (got ${String(mode)})`);
  db.pragma('synchronous = NORMAL');
  if (formatOf(db, path) === FORMAT) return;
  if (!create) throw new IndexError(`${path}: an empty file, not an rca index`);
  // Two first writers may race here: the immediate transaction serialises them.
  db.transaction(() => {
    if (formatOf(db, path) === FORMAT) return;
    const tables = db.prepare<[], { name: string }>(`SELECT name FROM sqlite_schema WHERE type = 'table'`).all();
    if (tables.length > 0) throw new IndexError(`${path}: an SQLite database but not an rca index (tables: ${tables.map((t) => t.name).slice(0, 5).join(', ')})`);
    db.exec(CREATE_SCHEMA);
    db.pragma(`user_version = ${FORMAT}`);
  }).immediate();
}

function formatOf(db: Database.Database, path: string): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > FORMAT) throw new IndexError(`${path}: written by a newer rca (index format ${version}; this rca reads ${FORMAT})`);
  if (version !== 0 && version !== FORMAT) throw new IndexError(`${path}: unknown index format ${version}`);
  return version;
}

function indexError(err: unknown, path: string, doing: string): Error {
  if (err instanceof IndexError) return err;
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  const detail = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') return new IndexError(`${path}: not a usable index (${detail})`);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return new IndexError(`${path}: still locked by another process after the busy timeout (${doing})`);
  return new IndexError(`${path}: cannot ${doing} the index: ${detail}`);
}
