// Where rca-count-sections keeps the chunks of input in any order until the end of input: in
// memory up to a budget, then in a private temporary SQLite database (a file in $TMPDIR that
// SQLite unlinks as soon as it opens it, so nothing is left behind, even after kill -9), so the
// corpus never has to fit in memory. Read back one document at a time, documents in the order they first appeared, each
// document's chunks in input order.

import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import type { SectionChunk } from './section-chunk.js';

// SQLite (a native addon) is loaded when a run first spills, not at start: most runs never do.
let sqlite: typeof Database | null = null;
function openDatabase(): Database.Database {
  sqlite ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  return new sqlite('');
}

export const DEFAULT_SPILL_BYTES = 64 * 2 ** 20;
const INSERTS_PER_TRANSACTION = 2048;
// The page cache of the temporary database: its memory, whatever the corpus size.
const CACHE_KIB = 16 * 1024;

/** A chunk without its doc id (the store keys documents by number), as stored. */
type Stored = [chunkId: string | null, segments: readonly string[], folded: 0 | 1, pageMin: number | null, pageMax: number | null, order: number | null, text: string | null, taggedSectionId: string | null];

export interface ChunkStoreStats {
  spilled: boolean;
  chunks_spilled: number;
}

export class ChunkStore {
  private memory = new Map<number, SectionChunk[]>();
  private heldBytes = 0;
  private db: Database.Database | null = null;
  private insert: Database.Statement<[number, string]> | null = null;
  private pending: [number, string][] = [];
  private spilledChunks = 0;
  private spilled = false;

  constructor(private readonly spillAfterBytes: number = DEFAULT_SPILL_BYTES) {}

  add(doc: number, chunk: SectionChunk): void {
    if (this.db !== null) return this.write(doc, chunk);
    let list = this.memory.get(doc);
    if (list === undefined) this.memory.set(doc, (list = []));
    list.push(chunk);
    this.heldBytes += sizeOf(chunk);
    if (this.heldBytes > this.spillAfterBytes) this.spill();
  }

  /** Each document's chunks, documents by ascending number; the store is empty afterwards. */
  *documents(): Generator<SectionChunk[]> {
    if (this.db === null) {
      const docs = [...this.memory.keys()].sort((a, b) => a - b);
      for (const doc of docs) {
        const chunks = this.memory.get(doc)!;
        this.memory.delete(doc);
        yield chunks;
      }
      return;
    }
    this.flush();
    const db = this.db;
    // Sorted once, here, rather than kept sorted on every insert.
    db.exec('CREATE INDEX chunks_by_doc ON chunks (doc)');
    let doc: number | null = null;
    let chunks: SectionChunk[] = [];
    for (const row of db.prepare<[], { doc: number; data: string }>('SELECT doc, data FROM chunks ORDER BY doc, rowid').iterate()) {
      if (row.doc !== doc && chunks.length > 0) {
        yield chunks;
        chunks = [];
      }
      doc = row.doc;
      chunks.push(fromStored(JSON.parse(row.data) as Stored));
    }
    if (chunks.length > 0) yield chunks;
  }

  stats(): ChunkStoreStats {
    return { spilled: this.spilled, chunks_spilled: this.spilledChunks };
  }

  close(): void {
    this.db?.close();
    this.db = null;
    this.memory.clear();
  }

  private spill(): void {
    // '' opens a private temporary database on disk (SQLite's own temp file, removed on close).
    const db = openDatabase();
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma(`cache_size = -${CACHE_KIB}`);
    db.pragma('temp_store = FILE');
    db.exec('CREATE TABLE chunks (doc INTEGER NOT NULL, data TEXT NOT NULL)');
    this.db = db;
    this.spilled = true;
    this.insert = db.prepare('INSERT INTO chunks (doc, data) VALUES (?, ?)');
    const held = this.memory;
    this.memory = new Map();
    this.heldBytes = 0;
    for (const [doc, chunks] of held) for (const chunk of chunks) this.write(doc, chunk);
  }

  private write(doc: number, chunk: SectionChunk): void {
    this.pending.push([doc, JSON.stringify(toStored(chunk))]);
    this.spilledChunks++;
    if (this.pending.length >= INSERTS_PER_TRANSACTION) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const rows = this.pending;
    this.pending = [];
    const insert = this.insert!;
    this.db!.transaction(() => {
      for (const [doc, data] of rows) insert.run(doc, data);
    })();
  }
}

// Strings cost two bytes a character in V8; the rest of a chunk is about this much.
const CHUNK_OVERHEAD_BYTES = 200;

function sizeOf(chunk: SectionChunk): number {
  let bytes = CHUNK_OVERHEAD_BYTES + 2 * ((chunk.text?.length ?? 0) + (chunk.chunkId?.length ?? 0));
  for (const segment of chunk.segments) bytes += 2 * segment.length + 16;
  return bytes;
}

function toStored(c: SectionChunk): Stored {
  return [c.chunkId ?? null, c.segments, c.folded ? 1 : 0, c.pageMin, c.pageMax, c.order, c.text ?? null, c.taggedSectionId ?? null];
}

// The doc id is the document's, put back by the caller; docIdMissing likewise.
function fromStored(s: Stored): SectionChunk {
  return {
    docId: '',
    docIdMissing: false,
    chunkId: s[0] ?? undefined,
    segments: s[1],
    folded: s[2] === 1,
    pageMin: s[3],
    pageMax: s[4],
    order: s[5],
    text: s[6] ?? undefined,
    taggedSectionId: s[7] ?? undefined,
  };
}
