// The three searches of an index, each returning its hits with the reason they were returned:
// - flat: BM25 over the chunks' text, their views' text, or both;
// - hierarchical: BM25 over the sections (path, summary and concepts) first, then the chunks of
//   the top sections' subtrees, found by section id (the tree's parent links), never by a path
//   prefix; each hit names the section that led to it;
// - hybrid: the BM25 ranking and the vector ranking of the chunks fused by reciprocal rank (RRF),
//   which needs no calibration between a BM25 score and a cosine distance.
import type { IndexStore } from './index-store.js';
import { queryTerms } from './query.js';

export const SEARCH_MODES = ['flat', 'hierarchical', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];
/** Which chunk texts the keyword search reads. */
export const CHUNK_TEXTS = ['text', 'views', 'text+views'] as const;
export type ChunkText = (typeof CHUNK_TEXTS)[number];

export interface SearchFilters {
  docType?: string | undefined;
  sectionRole?: string | undefined;
  authority?: string | undefined;
  docId?: string | undefined;
}

export interface SearchOptions {
  mode: SearchMode;
  text: ChunkText;
  k: number;
  /** hierarchical: how many sections the first stage keeps. */
  sections: number;
  filters: SearchFilters;
  /** hybrid: the question's vector (from the model of the index's vectors). */
  queryVector?: readonly number[] | null;
  /** Say which words matched where (a query per hit); the evaluation turns it off. */
  explain: boolean;
}

export interface SectionHit {
  rank: number;
  sectionId: string;
  docId: string;
  sectionPath: string;
  score: number;
  matched: Record<string, string[]>;
}

export interface Hit {
  rank: number;
  score: number;
  chunkId: string;
  docId: string;
  sectionId: string | null;
  sectionPath: string;
  docType: string;
  sectionRole: string;
  authority: string;
  /** The words that matched, per field searched (only with explain). */
  matched: Record<string, string[]>;
  /** hierarchical: the section whose subtree holds the chunk. */
  via: SectionHit | null;
  /** hybrid: the chunk's place in either ranking (null: not in its first RRF_DEPTH). */
  keyword?: { rank: number; score: number } | null;
  vector?: { rank: number; distance: number } | null;
}

export interface SearchResult {
  terms: string[];
  hits: Hit[];
  /** hierarchical: the sections of the first stage, in rank order. */
  sections: SectionHit[];
  /** hierarchical: every section id in the subtrees of the first stage's sections. */
  reached: string[];
}

export class SearchError extends Error {
  override readonly name = 'SearchError';
}

// The FTS5 table of each chunk text (index-store.ts CHUNK_FTS) and its columns.
const FTS: Record<ChunkText, { table: string; columns: string[] }> = {
  text: { table: 'fts_text', columns: ['text'] },
  views: { table: 'fts_views', columns: ['views'] },
  'text+views': { table: 'fts_both', columns: ['text', 'views'] },
};
const SECTION_COLUMNS = ['path', 'summary'];
// BM25 weights of a section's path and summary: the headings say more per word (dev questions).
const SECTION_WEIGHTS = '1.0, 0.5';
// How deep each ranking goes before fusion; RRF's constant, as Cormack et al. (2009) found best.
const RRF_DEPTH = 100;
const RRF_K = 60;
// FTS5's highlight() markers never nest: a span stops at the next opener too, so an opener with no
// closer costs a scan to the next opener, not to the end of the text (linear: no quadratic move).
const MARKED = /\u0001([^\u0001\u0002]*)\u0002/g;
const MAX_MATCHED = 8;

interface ChunkRow {
  id: number;
  chunk_id: string;
  doc_id: string;
  section_id: string | null;
  section_path: string;
  doc_type: string;
  section_role: string;
  authority: string;
  bm: number;
}

const CHUNK_FIELDS = 'c.id, c.chunk_id, c.doc_id, c.section_id, c.section_path, c.doc_type, c.section_role, c.authority';

export function search(store: IndexStore, question: string, options: SearchOptions): SearchResult {
  const { terms, match } = queryTerms(question);
  if (options.mode === 'hybrid') return hybrid(store, terms, match, options);
  if (match === '') return { terms, hits: [], sections: [], reached: [] };
  if (options.mode === 'flat') {
    const rows = keywordChunks(store, match, options, options.k);
    return { terms, hits: explained(store, rows.map((row, i) => hitOf(row, i + 1, -row.bm)), rows, match, options), sections: [], reached: [] };
  }
  return hierarchical(store, terms, match, options);
}

function filterSql(filters: SearchFilters, alias: string): { sql: string; params: string[] } {
  const parts: string[] = [];
  const params: string[] = [];
  const add = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    parts.push(`${alias}.${column} = ?`);
    params.push(value);
  };
  add('doc_type', filters.docType);
  add('section_role', filters.sectionRole);
  add('authority', filters.authority);
  add('doc_id', filters.docId);
  return { sql: parts.map((p) => ` AND ${p}`).join(''), params };
}

// Ranked by BM25 inside FTS5 first and joined to the chunks after: joining every matching row
// before the sort took 6x as long (33 against 5.5 ms a question on 10k chunks). The inner list
// runs TIE_SLACK deeper so that the final order of equal scores is by doc_id and chunk_id.
const TIE_SLACK = 32;

function keywordChunks(store: IndexStore, match: string, options: SearchOptions, limit: number, within?: readonly string[]): ChunkRow[] {
  const filter = filterSql(options.filters, 'k');
  const { table } = FTS[options.text];
  const scoped = filter.sql !== '' || within !== undefined;
  const scope = within === undefined ? '' : ' AND k.section_id IN (SELECT value FROM json_each(?))';
  // `+rowid`: given MATCH and a rowid constraint, FTS5 (SQLite 3.53) answers every matching row.
  const keep = scoped ? ` AND +${table}.rowid IN (SELECT k.id FROM chunks k WHERE 1${filter.sql}${scope})` : '';
  const sql = `SELECT ${CHUNK_FIELDS}, t.bm AS bm FROM (SELECT ${table}.rowid AS id, bm25(${table}) AS bm FROM ${table}
    WHERE ${table} MATCH ?${keep} ORDER BY bm LIMIT ?) t JOIN chunks c ON c.id = t.id ORDER BY t.bm, c.doc_id, c.chunk_id LIMIT ?`;
  const params: unknown[] = [match, ...filter.params, ...(within === undefined ? [] : [JSON.stringify(within)]), limit + TIE_SLACK, limit];
  return store.statement(sql).all(...params) as ChunkRow[];
}

function hierarchical(store: IndexStore, terms: string[], match: string, options: SearchOptions): SearchResult {
  if (!store.hasSections()) throw new SearchError('the index holds no sections: hierarchical search needs rca-count-sections records (best summarised: rca-summarize --view section_summary), indexed with the chunks');
  const docFilter = options.filters.docId === undefined ? '' : ' AND s.doc_id = ?';
  const sectionRows = store
    .statement(
      `SELECT s.id, s.section_id, s.doc_id, s.section_path, bm25(section_fts, ${SECTION_WEIGHTS}) AS bm FROM section_fts JOIN sections s ON s.id = section_fts.rowid
       WHERE section_fts MATCH ?${docFilter} ORDER BY bm, s.section_id LIMIT ?`,
    )
    .all(...[match, ...(options.filters.docId === undefined ? [] : [options.filters.docId]), options.sections]) as { id: number; section_id: string; doc_id: string; section_path: string; bm: number }[];
  const sectionWords = options.explain ? marked(store, 'section_fts', SECTION_COLUMNS, sectionRows.map((s) => s.id), match) : new Map<number, Record<string, string[]>>();
  const sections: SectionHit[] = sectionRows.map((s, i) => ({
    rank: i + 1,
    sectionId: s.section_id,
    docId: s.doc_id,
    sectionPath: s.section_path,
    score: -s.bm,
    matched: sectionWords.get(s.id) ?? {},
  }));
  const subtree = store.statement(
    `WITH RECURSIVE sub(id) AS (SELECT ? UNION SELECT s.section_id FROM sections s JOIN sub ON s.parent_id = sub.id) SELECT id FROM sub`,
  );
  // Each chunk of the kept sections' subtrees, under the best-ranked section that holds it, scored
  // by that section's BM25 and its own (each over the best of its list, so the two weigh alike);
  // a chunk without a word of the question keeps its section's share. Chosen on the dev questions
  // over a strict section-by-section order (test/fixtures/retrieval/README.md, docs/retrieval.md).
  const sectionOf = new Map<string, SectionHit>();
  for (const section of sections) {
    for (const { id } of subtree.all(section.sectionId) as { id: string }[]) if (!sectionOf.has(id)) sectionOf.set(id, section);
  }
  const ids = [...sectionOf.keys()];
  const filter = filterSql(options.filters, 'c');
  const candidates = store
    .statement(`SELECT ${CHUNK_FIELDS}, 0 AS bm FROM chunks c WHERE c.section_id IN (SELECT value FROM json_each(?))${filter.sql} ORDER BY c.id`)
    .all(JSON.stringify(ids), ...filter.params) as ChunkRow[];
  const own = new Map(keywordChunks(store, match, options, candidates.length, ids).map((r) => [r.id, -r.bm]));
  const best = (values: Iterable<number>) => Math.max(Number.MIN_VALUE, ...values);
  const topSection = best(sections.map((x) => x.score));
  const topChunk = best(own.values());
  const scored = candidates.map((row, order) => {
    const via = sectionOf.get(row.section_id!)!;
    return { row, via, order, score: via.score / topSection + (own.get(row.id) ?? 0) / topChunk };
  });
  scored.sort((a, b) => b.score - a.score || a.via.rank - b.via.rank || a.order - b.order);
  const top = scored.slice(0, options.k);
  const hits = explained(store, top.map((e, i) => ({ ...hitOf(e.row, i + 1, e.score), via: e.via })), top.map((e) => e.row), match, options);
  return { terms, hits, sections, reached: ids };
}

function hybrid(store: IndexStore, terms: string[], match: string, options: SearchOptions): SearchResult {
  const info = store.embeddingOf('chunk');
  if (info === null) throw new SearchError('the index holds no chunk vectors: hybrid search needs chunks embedded with rca-embed (flat and hierarchical search need none)');
  if (!store.vectorsLoaded) throw new SearchError(`${store.vectorProblem ?? 'sqlite-vec is not loaded'}; hybrid search needs it (flat and hierarchical search do not)`);
  const vector = options.queryVector;
  if (vector === undefined || vector === null) throw new SearchError('hybrid search needs the vector of the question');
  if (vector.length !== info.dims) throw new SearchError(`the question's vector has ${vector.length} dimensions, the index's ${info.dims}`);
  const keyword = match === '' ? [] : keywordChunks(store, match, options, RRF_DEPTH);
  const filter = filterSql(options.filters, 'v');
  const nearest = store
    .statement(
      `SELECT ${CHUNK_FIELDS}, v.distance AS distance FROM chunk_vec v JOIN chunks c ON c.id = v.rowid
       WHERE v.embedding MATCH ? AND k = ?${filter.sql} ORDER BY v.distance, c.doc_id, c.chunk_id`,
    )
    .all(new Float32Array(vector), RRF_DEPTH, ...filter.params) as (ChunkRow & { distance: number })[];
  const fused = new Map<number, { row: ChunkRow; score: number; keyword: Hit['keyword']; vector: Hit['vector'] }>();
  const entry = (row: ChunkRow) => {
    let e = fused.get(row.id);
    if (e === undefined) {
      e = { row, score: 0, keyword: null, vector: null };
      fused.set(row.id, e);
    }
    return e;
  };
  keyword.forEach((row, i) => {
    const e = entry(row);
    e.score += 1 / (RRF_K + i + 1);
    e.keyword = { rank: i + 1, score: -row.bm };
  });
  nearest.forEach((row, i) => {
    const e = entry(row);
    e.score += 1 / (RRF_K + i + 1);
    e.vector = { rank: i + 1, distance: row.distance };
  });
  const order = [...fused.values()].sort((a, b) => b.score - a.score || (a.keyword?.rank ?? Infinity) - (b.keyword?.rank ?? Infinity) || (a.vector?.rank ?? Infinity) - (b.vector?.rank ?? Infinity));
  const top = order.slice(0, options.k);
  const hits = explained(store, top.map((e, i) => ({ ...hitOf(e.row, i + 1, e.score), keyword: e.keyword, vector: e.vector })), top.map((e) => e.row), match, options);
  return { terms, hits, sections: [], reached: [] };
}

function hitOf(row: ChunkRow, rank: number, score: number): Hit {
  return {
    rank,
    score,
    chunkId: row.chunk_id,
    docId: row.doc_id,
    sectionId: row.section_id,
    sectionPath: row.section_path,
    docType: row.doc_type,
    sectionRole: row.section_role,
    authority: row.authority,
    matched: {},
    via: null,
  };
}

/** The hits with the words that matched in each (with explain): one query for them all. */
function explained(store: IndexStore, hits: Hit[], rows: readonly ChunkRow[], match: string, options: SearchOptions): Hit[] {
  if (!options.explain || match === '' || hits.length === 0) return hits;
  const { table, columns } = FTS[options.text];
  const words = marked(store, table, columns, rows.map((r) => r.id), match);
  return hits.map((h, i) => ({ ...h, matched: words.get(rows[i]!.id) ?? {} }));
}

// The words FTS5 itself matched, per row and column: highlight() marks them in the column's text.
// One query for all the rows (`+rowid`: given both MATCH and a rowid constraint, FTS5 in SQLite
// 3.53 answers every matching row, so SQLite must filter them itself).
function marked(store: IndexStore, table: string, columns: readonly string[], rowids: readonly number[], match: string): Map<number, Record<string, string[]>> {
  const selects = columns.map((c, i) => `highlight(${table}, ${i}, char(1), char(2)) AS "${c}"`).join(', ');
  const rows = store.statement(`SELECT rowid AS id, ${selects} FROM ${table} WHERE ${table} MATCH ? AND +rowid IN (SELECT value FROM json_each(?))`).all(match, JSON.stringify(rowids)) as (Record<string, string> & { id: number })[];
  const out = new Map<number, Record<string, string[]>>();
  for (const row of rows) {
    const found: Record<string, string[]> = {};
    for (const column of columns) {
      const words: string[] = [];
      for (const [, word] of (row[column] ?? '').matchAll(MARKED)) {
        const w = word!.toLowerCase();
        if (!words.includes(w) && words.length < MAX_MATCHED) words.push(w);
      }
      if (words.length > 0) found[column] = words;
    }
    out.set(row.id, found);
  }
  return out;
}
