// rca index, rca search and rca eval-retrieval over the sample corpus as make demo builds it:
// what the index holds, idempotence, two writers at once, an index without sqlite-vec, the three
// searches and why they say each hit was returned, and the evaluation's table.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IndexError, IndexStore } from '../../src/retrieval/index-store.js';
import { indexedOf } from '../../src/retrieval/index-records.js';
import { search } from '../../src/retrieval/search.js';
import { queryTerms } from '../../src/retrieval/query.js';
import { scoreRanking, summarise } from '../../src/retrieval/metrics.js';
import { parseQuestions } from '../../src/retrieval/questions.js';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';
import { spawnBin, spawnShell } from '../generation/support/spawn.js';

const work = mkdtempSync(join(tmpdir(), 'rca-retrieval-'));
const CHUNKS = join(work, 'summarized.jsonl');
const SECTIONS = join(work, 'sections.jsonl');
const QUESTIONS = 'test/fixtures/retrieval/sample.questions.jsonl';

async function rca(args: string[], input?: string) {
  const run = spawnBin('rca', args, input === undefined ? {} : { input });
  const code = await run.done;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

beforeAll(async () => {
  const built = await spawnShell(
    `./bin/rca-tag examples/sample-corpus.jsonl > ${work}/tagged.jsonl && ./bin/rca-summarize --backend extractive --flags-ok --combined ${work}/tagged.jsonl > ${CHUNKS} && ./bin/rca-count-sections ${work}/tagged.jsonl | ./bin/rca-summarize --view section_summary --bottom-up --backend extractive --flags-ok > ${SECTIONS}`,
  );
  expect(built.code, built.stderr).toBe(0);
}, 60_000);

describe('rca index', () => {
  it('indexes chunks and sections, and indexing again replaces rather than duplicates', async () => {
    const db = join(work, 'idempotent.sqlite');
    const first = await rca(['index', '--db', db, CHUNKS, SECTIONS]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('');
    expect(first.stderr).toContain('32 chunks and 33 sections indexed (65 new, 0 replaced)');
    const again = await rca(['index', '--db', db, SECTIONS, CHUNKS]);
    expect(again.stderr).toContain('(0 new, 65 replaced)');
    expect(again.stderr).toContain('now holds 32 chunks, 33 sections (33 summarised)');
    const store = IndexStore.open(db, { create: false });
    const n = (sql: string) => (store.db.prepare(sql).get() as { n: number }).n;
    expect(n('SELECT count(*) AS n FROM section_fts')).toBe(33);
    // Each text index agrees with the texts it was made from (FTS5 checks every entry).
    for (const table of ['fts_text', 'fts_views', 'fts_both']) store.db.prepare(`INSERT INTO ${table} (${table}) VALUES ('integrity-check')`).run();
    expect(n(`SELECT count(*) AS n FROM fts_text WHERE fts_text MATCH 'pump'`)).toBe(n(`SELECT count(*) AS n FROM chunks WHERE text LIKE '%pump%'`));
    store.close();
  });

  it('takes two writers at once into one file: the union of their shards, each record once', async () => {
    const db = join(work, 'two-writers.sqlite');
    const records = readFileSync(CHUNKS, 'utf8').trim().split('\n');
    // Overlapping shards, each repeated so the runs take long enough to meet.
    const a = join(work, 'shard-a.jsonl');
    const b = join(work, 'shard-b.jsonl');
    writeFileSync(a, `${Array.from({ length: 40 }, () => records.slice(0, 20)).flat().join('\n')}\n`);
    writeFileSync(b, `${Array.from({ length: 40 }, () => records.slice(12)).flat().join('\n')}\n`);
    const [ra, rb] = await Promise.all([rca(['index', '--db', db, a]), rca(['index', '--db', db, b])]);
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    const store = IndexStore.open(db, { create: false });
    expect(store.counts().chunks).toBe(32);
    for (const table of ['fts_text', 'fts_views', 'fts_both']) store.db.prepare(`INSERT INTO ${table} (${table}) VALUES ('integrity-check')`).run();
    store.close();
  });

  it('refuses records it cannot index, each with its line, and goes on', async () => {
    const db = join(work, 'rejects.sqlite');
    const input = ['{"text": "no id"}', 'not json', JSON.stringify({ chunk_id: 'c1', doc_id: 'd', text: 'kept' }), JSON.stringify({ kind: 'section', doc_id: 'd' })].join('\n');
    const r = await rca(['index', '--db', db], input);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('stdin:1: MISSING_CHUNK_ID');
    expect(r.stderr).toContain('stdin:2: BAD_JSON');
    expect(r.stderr).toContain('stdin:4: BAD_SECTION');
    expect(r.stderr).toContain('1 chunks and 0 sections indexed');
  });

  it('without sqlite-vec: one line, no vectors, keyword search as before; an index with vectors is not written', () => {
    const db = join(work, 'no-vec.sqlite');
    const fail = () => {
      throw new Error('cannot open shared object file vec0.so');
    };
    const store = IndexStore.open(db, { create: true, loadExtension: fail });
    expect(store.vectorProblem).toMatch(/^sqlite-vec could not be loaded \(cannot open shared object file vec0.so\): vectors are neither stored nor searched, keyword search works$/);
    const item = indexedOf({ chunk_id: 'c', doc_id: 'd', text: 'feedwater pump', embedding: { model: 'm', dims: 2, vector: [0.6, 0.8], input: { field: 'text' } } });
    expect('reject' in item).toBe(false);
    expect(store.put(item as never)).toEqual({ added: true, vector: false });
    store.commit();
    expect(search(store, 'pump', { mode: 'flat', text: 'text', k: 5, sections: 5, filters: {}, explain: true }).hits.map((h) => h.chunkId)).toEqual(['c']);
    store.close();
    const withVectors = join(work, 'with-vec.sqlite');
    const full = IndexStore.open(withVectors, { create: true });
    full.put(item as never);
    full.close();
    expect(() => IndexStore.open(withVectors, { create: true, loadExtension: fail })).toThrow(IndexError);
    const reader = IndexStore.open(withVectors, { create: false, loadExtension: fail });
    expect(search(reader, 'feedwater', { mode: 'flat', text: 'text', k: 5, sections: 5, filters: {}, explain: false }).hits).toHaveLength(1);
    reader.close();
  });

  it('refuses a vector of another model than the index holds (EMBEDDING_MISMATCH)', () => {
    const store = IndexStore.open(join(work, 'mismatch.sqlite'), { create: true });
    const rec = (model: string, dims: number) => indexedOf({ chunk_id: `c-${model}`, doc_id: 'd', text: 't', embedding: { model, dims, vector: Array.from({ length: dims }, () => 0.5), input: { field: 'text' } } }) as never;
    expect(store.put(rec('a', 4))).toEqual({ added: true, vector: true });
    expect(store.put(rec('b', 4))).toMatchObject({ reject: { code: 'EMBEDDING_MISMATCH' } });
    store.close();
  });
});

describe('rca search', () => {
  const db = join(work, 'search.sqlite');
  beforeAll(async () => {
    const r = await rca(['index', '--db', db, CHUNKS, SECTIONS]);
    expect(r.code, r.stderr).toBe(0);
  });

  it('flat: BM25 over the chunk text, the words that matched per field', async () => {
    const r = await rca(['search', '--db', db, '--mode', 'flat', '--json', '-k', '2', 'what torque for the hold-down bolts?']);
    expect(r.code, r.stderr).toBe(0);
    const hits = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(hits.map((h) => [h.rank, h.chunk_id])).toEqual([[1, 'wo-2026-04567-02'], [2, 'wo-2026-04567-05']]);
    expect(hits[0]).toMatchObject({ section_id: 'sec_cdb33197ec400717', doc_id: 'WO-2026-04567', doc_type: 'WO', section_role: 'work_performed', matched: { text: ['torqued', 'hold-down', 'bolts', 'torque'] } });
    expect(hits[1].matched).toEqual({ text: ['torque'] });
  });

  it('hierarchical: sections first; each hit names the section that led to it, by section id', async () => {
    const r = await rca(['search', '--db', db, '--json', 'How full must the condensate storage tank be?']);
    const hits = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(hits[0].chunk_id).toBe('chunk:sop-afw-012:sec5');
    expect(hits[0].via).toMatchObject({ section_id: 'sec_8ebdc8431fea385e', section_rank: 1 });
    // A hit's section holds it: its own, or an ancestor of its own.
    const store = IndexStore.open(db, { create: false });
    const parent = store.db.prepare('SELECT parent_id FROM sections WHERE section_id = ?');
    for (const h of hits) {
      const chain: string[] = [];
      for (let s: string | null = h.section_id; s !== null; s = (parent.get(s) as { parent_id: string | null } | undefined)?.parent_id ?? null) chain.push(s);
      expect(chain).toContain(h.via.section_id);
    }
    store.close();
  });

  it('filters by doc type, role, authority and document', async () => {
    const r = await rca(['search', '--db', db, '--mode', 'flat', '--json', '--doc-type', 'SOP', '--role', 'steps', 'pump vibration pressure']);
    const hits = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.doc_type === 'SOP' && h.section_role === 'steps')).toBe(true);
    const doc = await rca(['search', '--db', db, '--json', '--doc', 'eca-2026-0007', 'pump vibration pressure']);
    expect(doc.stdout.trim().split('\n').map((l) => JSON.parse(l)).every((h) => h.doc_id === 'eca-2026-0007')).toBe(true);
  });

  it('the text form says what matched and why; usage errors and unservable modes exit 2', async () => {
    const r = await rca(['search', '--db', db, '-k', '1', 'operator stopped the pump']);
    expect(r.stdout).toMatch(/^ 1\. chunk:ad61d26ecf6e:sec3 {2}\(ad61d26ecf6e, CR immediate_actions\) {2}score [\d.]+\n {4}Condition Report .*\n {4}matched text: .*\n {4}via section sec_9a16afc679340d99 \(section rank \d+, matched .*\)\n$/);
    expect((await rca(['search', '--db', db])).code).toBe(2);
    const hybrid = await rca(['search', '--db', db, '--mode', 'hybrid', 'pump']);
    expect(hybrid.code).toBe(2);
    expect(hybrid.stderr).toContain('the index holds no chunk vectors');
    const chunksOnly = join(work, 'chunks-only.sqlite');
    await rca(['index', '--db', chunksOnly, CHUNKS]);
    const hier = await rca(['search', '--db', chunksOnly, 'pump']);
    expect(hier.code).toBe(2);
    expect(hier.stderr).toContain('the index holds no sections');
    expect((await rca(['search', '--db', join(work, 'none.sqlite'), 'pump'])).code).toBe(3);
  });
});

describe('hybrid search over vectors from rca-embed', () => {
  let server: FakeOllama;
  afterAll(() => server?.close());

  it('fuses keyword and vector ranks; the question is embedded by the index model', async () => {
    server = await startFakeOllama({ models: [{ name: 'nomic-embed-text:latest', digest: 'e'.repeat(64), capabilities: ['embedding'], dims: 48 }] });
    const db = join(work, 'hybrid.sqlite');
    const embedded = await spawnShell(`./bin/rca-embed --host ${server.url} --no-cache --text text ${CHUNKS} | ./bin/rca index --db ${db} && ./bin/rca index --db ${db} ${SECTIONS}`);
    expect(embedded.code, embedded.stderr).toBe(0);
    expect(embedded.stderr).toContain('32 with vectors');
    const r = await rca(['search', '--db', db, '--mode', 'hybrid', '--host', server.url, '--no-cache', '--json', 'torque of the hold-down bolts']);
    expect(r.code, r.stderr).toBe(0);
    const hits = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(hits[0].chunk_id).toBe('wo-2026-04567-02');
    expect(hits[0].keyword.rank).toBe(1);
    expect(hits[0].vector.rank).toBeGreaterThan(0);
    const evaluated = await rca(['eval-retrieval', '--db', db, '--questions', QUESTIONS, '--hybrid', '--host', server.url, '--no-cache', '--json']);
    expect(evaluated.code, evaluated.stderr).toBe(0);
    const rows = evaluated.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.filter((row) => row.mode === 'hybrid')).toHaveLength(6);
    expect(rows.every((row) => row.vectors.startsWith('vectors: nomic-embed-text'))).toBe(true);
  });
});

describe('rca eval-retrieval', () => {
  it('one table per set and split, the flat raw-text baseline first', async () => {
    const db = join(work, 'eval.sqlite');
    await rca(['index', '--db', db, CHUNKS, SECTIONS]);
    const r = await rca(['eval-retrieval', '--db', db, '--questions', QUESTIONS]);
    expect(r.code, r.stderr).toBe(0);
    const tables = r.stdout.trim().split('\n\n');
    expect(tables.map((t) => t.split('\n')[0])).toEqual(['sample, written questions, dev (26); vectors: none (keyword search)', 'sample, written questions, test (23); vectors: none (keyword search)']);
    for (const t of tables) {
      const rows = t.split('\n').slice(2);
      expect(rows[0]).toMatch(/^flat {10}text .* baseline$/);
      expect(rows).toHaveLength(6);
    }
    const json = await rca(['eval-retrieval', '--db', db, '--questions', QUESTIONS, '--split', 'dev', '--json']);
    const rows = json.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.every((row) => row.split === 'dev' && row.questions === 26)).toBe(true);
    expect(rows.find((row) => row.mode === 'hierarchical')).toHaveProperty('stage1_miss');
  });

  it('reports each question set on its own, and names refused question lines', async () => {
    const db = join(work, 'eval.sqlite');
    const other = join(work, 'other.questions.jsonl');
    writeFileSync(other, [JSON.stringify({ id: 'x1', split: 'test', question: 'torque wrench', gold: ['wo-2026-04567-05'] }), '{"id": "x2", "split": "train", "question": "q", "gold": ["a"]}'].join('\n'));
    const r = await rca(['eval-retrieval', '--db', db, '--questions', QUESTIONS, '--questions', other, '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${other}:2: x2: split must be dev or test`);
    const sets = new Set(r.stdout.trim().split('\n').map((l) => JSON.parse(l).set));
    expect([...sets]).toEqual(['sample', 'other']);
  });
});

describe('make corpus INDEX=1 QUESTIONS=FILE', () => {
  it('indexes the build, measures it into OUT/retrieval.jsonl, and the report shows the table; a re-run indexes only newer files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rca-corpus-index-'));
    const inDir = join(dir, 'in');
    const outDir = join(dir, 'out');
    await spawnShell(`mkdir -p ${inDir} && cp examples/sample-corpus.jsonl ${inDir}/sample.chunks.jsonl`);
    const make = () => spawnShell(`make -s -o dist/.built corpus IN=${inDir} OUT=${outDir} BACKEND=extractive QUESTIONS=${QUESTIONS}`);
    const first = await make();
    expect(first.code, first.stderr).toBe(0);
    const store = IndexStore.open(join(outDir, 'index.sqlite'), { create: false });
    expect(store.counts().chunks).toBe(32);
    store.close();
    const rows = readFileSync(join(outDir, 'retrieval.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.filter((r) => r.baseline).map((r) => r.split)).toEqual(['dev', 'test']);
    const page = readFileSync(join(outDir, 'report.html'), 'utf8');
    expect(page).toContain('<h2>Retrieval</h2>');
    expect(page).toContain('vectors: none (keyword search)');
    const again = await make();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout + again.stderr).not.toContain('rca index --db');
  }, 120_000);
});

describe('the pure parts', () => {
  it('question words: function words out, identifiers kept whole, nothing read as FTS5 syntax', () => {
    expect(queryTerms('What did the operator do after P-101A tripped?').terms).toEqual(['operator', 'p 101a', 'tripped']);
    expect(queryTerms('NEAR(a b) OR "x" AND -y*').match).toBe('"near" OR "b" OR "x" OR "y"');
    expect(queryTerms("Why didn't the alarm warn them?").terms).toEqual(['alarm', 'warn']);
    expect(queryTerms('what is it').match).toBe('');
  });

  it('recall@k, MRR and nDCG@10 of ranked lists', () => {
    const gold = new Set(['a', 'b']);
    expect(scoreRanking(['x', 'a', 'y', 'b'], gold)).toEqual({ firstRank: 2, ndcg: (1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3)) });
    const s = summarise([scoreRanking(['a'], gold), scoreRanking(['x', 'x', 'x', 'x', 'x', 'b'], gold), scoreRanking([], gold)]);
    expect(s.recall).toEqual({ 1: 1 / 3, 5: 1 / 3, 10: 2 / 3 });
    expect(s.mrr).toBeCloseTo((1 + 1 / 6) / 3, 10);
  });

  it('question files: each line checked, the set named after its file', () => {
    const set = parseQuestions('dir/real.questions.jsonl', '{"id":"a","split":"dev","question":"q","gold":["c"]}\n{"id":"a","split":"dev","question":"q","gold":["c"]}\n');
    expect(set.name).toBe('real');
    expect(set.questions).toHaveLength(1);
    expect(set.problems).toEqual(['dir/real.questions.jsonl:2: id a is given twice']);
  });
});
