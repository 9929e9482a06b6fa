import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSource, sniff, type SourceEvent } from '../../src/runtime/sources/index.js';
import { documentIdOf } from '../../src/runtime/sources/doc-id.js';
import { echoStage } from '../support/stages.js';
import { runInProcess } from '../support/run-in-process.js';

const EXAMPLE = 'test/fixtures/library_rag/EXAMPLE_CHUNK_JSON_FORMAT.json';
const lines = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

function events(text: string | Buffer, opts: { name?: string; recordsAt?: string; format?: 'auto' | 'document' | 'jsonl'; chunk?: number; max?: number } = {}): SourceEvent[] {
  const source = createSource({ name: opts.name ?? 'stdin', format: opts.format ?? 'auto', recordsAt: opts.recordsAt, maxRecordBytes: opts.max ?? 1 << 20 });
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const out: SourceEvent[] = [];
  const size = opts.chunk ?? bytes.length;
  for (let i = 0; i < bytes.length; i += size) source.push(bytes.subarray(i, i + size), out);
  source.end(out);
  return out;
}

describe('sniff: which format the first bytes show', () => {
  it.each([
    ['{"a":1}\n{"a":2}\n', 'jsonl'],
    ['{\n  "chunks": []\n}', 'object'],
    ['\uFEFF  {\r\n "metadata": {', 'object'],
    ['{"metadata": {\n', 'jsonl'],
    ['{"id":\n', 'jsonl'],
    ['{', 'jsonl'],
    ['{\n{"a":1}\n', 'jsonl'],
    ['{\n"x"\n', 'jsonl'],
    ['{\n  "chunks": []\n}', 'object'],
    ['{\n  "metadata": {"title": "T"},\n', 'object'],
    ['[\n]\n', 'array'],
    ['[\n  {\n    "chunk_id": "c",\n', 'array'],
    ['[\n{\n{"a":1}\n', 'jsonl'],
    ['[\n{"a":1}\n', 'jsonl'],
    ['[\n{"a":1},\n{"a":2}\n]', 'array'],
    ['[\n{"a":1}\n]', 'jsonl'],
    ['[1, 2]\n', 'jsonl'],
    ['{"a": 1, "b"\n', 'jsonl'],
    ['not json\n', 'jsonl'],
    ['', 'jsonl'],
  ])('%j → %s', (text, kind) => {
    expect(sniff(Buffer.from(text), true)).toBe(kind);
  });

  it('waits for the end of the first line', () => {
    expect(sniff(Buffer.from('{  '), false)).toBeNull();
    expect(sniff(Buffer.from('{\n  "meta'), false)).toBeNull();
    expect(sniff(Buffer.from('[\n  {\n'), false)).toBeNull();
    expect(sniff(Buffer.from('   '), false)).toBeNull();
  });
});

describe('document source', () => {
  const doc = JSON.stringify({ metadata: { title: 'T', sourceId: 'peirce_cp' }, toc: [{ title: 'A', level: 1 }], chunks: [{ chunk_id: 'c0', text: 'é中😀' }, { chunk_id: 'c1', doc_id: 'own' }] }, null, 2);

  it('names each record by its index, gives the metadata id and keeps the other fields', () => {
    const out = events(doc, { name: 'x_chunks.json' });
    const records = out.filter((e) => e.kind === 'record');
    expect(records.map((e) => [e.at, e.line, e.record])).toEqual([
      ['chunks[0]', 1, { chunk_id: 'c0', text: 'é中😀', doc_id: 'peirce_cp', doc_id_from: 'metadata.sourceId' }],
      ['chunks[1]', 2, { chunk_id: 'c1', doc_id: 'own' }],
    ]);
    const first = records[0]!;
    expect(first.document.fields).toEqual({ metadata: { title: 'T', sourceId: 'peirce_cp' }, toc: [{ title: 'A', level: 1 }] });
    expect(JSON.parse(first.raw)).toEqual(first.record);
    expect(out.at(-1)).toEqual({ kind: 'note', text: expect.stringContaining('2 records at \'chunks\'') });
  });

  it('gives the same events fed one byte at a time (UTF-8 split across chunks)', () => {
    const strip = (es: SourceEvent[]) => es.map((e) => (e.kind === 'record' ? { ...e, document: null } : e));
    expect(strip(events(doc, { chunk: 1 }))).toEqual(strip(events(doc)));
  });

  it('takes the id from the file name when the metadata has none, and says so', () => {
    const out = events('{\n"metadata": {"title": "T"},\n"chunks": [{"chunk_id": "c"}]}', { name: '/data/peirce_collected_papers_fixed_chunks.json' });
    expect(out[0]).toMatchObject({ kind: 'record', record: { doc_id: 'peirce_collected_papers_fixed', doc_id_from: 'file_name' } });
  });

  it.each([
    [{ metadata: { doc_id: 'd' } }, 'x.json', { docId: 'd', from: 'metadata.doc_id' }],
    [{ metadata: { title: 't' } }, 'dir/peirce_chunks.json', { docId: 'peirce', from: 'file_name' }],
    [{ metadata: null }, 'a.b.json', { docId: 'a.b', from: 'file_name' }],
    // library_rag's own name of the document (its ingest's document.sourceId) before anything else.
    [{ document: 'example_CR_2026_00123', metadata: { doc_id: 'd' } }, 'renamed_chunks.json', { docId: 'example_CR_2026_00123', from: 'document' }],
  ])('documentIdOf(%j, %s)', (fields, name, expected) => {
    expect(documentIdOf(fields as Record<string, unknown>, name, false)).toEqual(expected);
  });

  it("takes the id from the document's own `document` field (library_rag), not the file name", () => {
    const out = events('{\n"document": "example_CR_2026_00123",\n"metadata": {"title": "T"},\n"chunks": [{"chunk_id": "c"}]}', { name: '/data/copy_chunks.json' });
    expect(out[0]).toMatchObject({ kind: 'record', record: { doc_id: 'example_CR_2026_00123', doc_id_from: 'document' } });
  });

  it('keeps only the fields asked for (and metadata), stepping over the others', () => {
    const source = createSource({ name: 'stdin', format: 'document', recordsAt: undefined, maxRecordBytes: 1 << 20, keepFields: ['toc'] });
    const out: SourceEvent[] = [];
    source.push(Buffer.from('{\n"big": {"deep": [1, [2, {"x": 3}]]}, "toc": [1], "metadata": {"id": "m"}, "chunks": [{"a": 1}], "after": "z"}'), out);
    source.end(out);
    const record = out.find((e) => e.kind === 'record')!;
    expect(record.kind === 'record' && record.document.fields).toEqual({ toc: [1], metadata: { id: 'm' } });
    expect(out.at(-1)).toEqual({ kind: 'note', text: expect.stringContaining('kept beside the records: toc, metadata; not read by this stage: big, after') });
  });

  it('reads records at a dotted path, and from a top-level array', () => {
    const nested = events('{\n"data": {"n": 1, "items": [{"i": 0}], "after": true}}', { recordsAt: 'data.items' });
    expect(nested.filter((e) => e.kind === 'record').map((e) => e.at)).toEqual(['data.items[0]']);
    expect((nested.find((e) => e.kind === 'record') as { document: { fields: unknown } }).document.fields).toEqual({ 'data.n': 1, 'data.after': true });
    const array = events('[\n{"i": 0},\n{"i": 1}\n]');
    expect(array.filter((e) => e.kind === 'record').map((e) => e.at)).toEqual(['[0]', '[1]']);
  });

  it('refuses elements that are not objects, and records over the size limit, by index', () => {
    const out = events('{\n"chunks": [{"a": 1}, 3, null, {"big": "' + 'x'.repeat(500) + '"}, {"b": 2}]}', { max: 100 });
    expect(out.flatMap((e) => (e.kind === 'record' ? [[e.kind, e.at, '']] : e.kind === 'reject' ? [[e.kind, e.at, e.code]] : []))).toEqual([
      ['record', 'chunks[0]', ''],
      ['reject', 'chunks[1]', 'NOT_OBJECT'],
      ['reject', 'chunks[2]', 'NOT_OBJECT'],
      ['reject', 'chunks[3]', 'RECORD_TOO_LONG'],
      ['record', 'chunks[4]', ''],
    ]);
  });

  it('stops at a syntax error, naming where, and reports a missing records array', () => {
    const broken = events('{\n"chunks": [{"a": 1},\n {"b": }]}');
    expect(broken.filter((e) => e.kind !== 'note')).toEqual([
      expect.objectContaining({ kind: 'record', at: 'chunks[0]' }),
      expect.objectContaining({ kind: 'reject', at: 'chunks[1]', code: 'BAD_JSON' }),
    ]);
    const truncated = events('{\n"chunks": [{"a": 1},\n {"b": 2');
    expect(truncated.filter((e) => e.kind === 'reject')).toEqual([expect.objectContaining({ at: 'chunks[1]', code: 'BAD_JSON' })]);
    const none = events('{\n"metadata": {}, "toc": []}');
    expect(none.filter((e) => e.kind === 'reject')).toEqual([expect.objectContaining({ code: 'NO_RECORDS', message: expect.stringContaining('metadata, toc') })]);
    const notObject = events('"x"', { format: 'document' });
    expect(notObject.filter((e) => e.kind === 'reject')).toEqual([expect.objectContaining({ code: 'NOT_DOCUMENT' })]);
  });
});

describe('runner: documents as input', () => {
  const example = readFileSync(EXAMPLE);

  it('reads the example document as its chunks, the same as their JSON Lines plus the document id', async () => {
    const doc = await runInProcess(echoStage, [example]);
    const chunks = (JSON.parse(example.toString()) as { chunks: object[] }).chunks;
    const jsonl = await runInProcess(echoStage, [chunks.map((c) => JSON.stringify(c)).join('\n')]);
    expect(doc.code).toBe(0);
    // stdin has no file name and the metadata names no id: the records keep their own (none).
    expect(lines(doc.stdout)).toEqual(lines(jsonl.stdout));
    expect(doc.stderr).toContain("stdin: document: 3 records at 'chunks' (chunks_count says 5180)");
    // The stage reads no document field: only metadata (for the id) is held, the rest is named.
    expect(doc.stderr).toContain('document fields kept beside the records: metadata, chunks_count; not read by this stage: toc, hierarchy, pages, cost_ocr, cost_llm, cost_total');
  });

  it('names rejects by array index on stderr and in --rejects', async () => {
    const r = await runInProcess(echoStage, ['{\n "chunks": [{"id": 1}, "x", {"id": 3}]\n}\n']);
    expect(r.code).toBe(1);
    expect(lines(r.stdout).map((x) => x.id)).toEqual([1, 3]);
    expect(r.stderr).toContain('rca-echo: stdin:chunks[1]: NOT_OBJECT: expected a JSON object, got string\n');
  });

  it('--input-format jsonl keeps a document read as lines; --records-at implies a document', async () => {
    const asLines = await runInProcess(echoStage, [example], ['--input-format', 'jsonl']);
    expect(asLines.code).toBe(1);
    expect(asLines.stderr).toContain('BAD_JSON');
    const oneLine = JSON.stringify({ items: [{ id: 1 }, { id: 2 }] });
    const r = await runInProcess(echoStage, [oneLine], ['--records-at', 'items']);
    expect(lines(r.stdout).map((x) => x.id)).toEqual([1, 2]);
    const both = await runInProcess(echoStage, [oneLine], ['--records-at', 'items', '--input-format', 'jsonl']);
    expect(both.code).toBe(2);
  });
});
