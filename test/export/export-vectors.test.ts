// rca export carries the vectors of rca-embed, so a store without a vectoriser takes rca's:
// Weaviate batch objects get `vector`, Chroma records `embeddings` (only when the vector is of the
// very text exported), each still valid against its contract.
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../src/contracts/json.js';
import { compileChecker } from '../../src/contracts/json-schema-check.js';
import { JSON_SCHEMAS } from '../../src/contracts/json-schemas.generated.js';
import { chromaRecord, weaviateChunk, weaviateSummary } from '../../src/export/objects.js';

const embedding = (field: string) => ({ backend: 'ollama', model: 'nomic-embed-text', digest: null, dims: 3, normalized: true, prefix: '', input: { field, chars: 10, pieces: 1 }, vector: [0.6, 0.8, 0], error: null });
const chunk = (field: string) => ({
  chunk_id: 'c1',
  doc_id: 'd',
  text: 'pump vibration',
  section_path: 'A > B',
  context: { doc_id: 'd', chunk_id: 'c1', doc_type: 'CR', section_path: 'A > B', page_start: null, page_end: null, authority_level: 'informational', section_role: 'description' },
  embedding_text: { combined: 'SCOPE: pump vibration' },
  embedding: embedding(field),
});
const section = { kind: 'section', section_id: 's1', doc_id: 'd', section_path: 'A > B', title: 'B', level: 2, total_count: 1, section_summary: { summary: 'x', concepts: [] }, embedding_text: { section_summary: 'x' }, embedding: embedding('embedding_text.section_summary') };
const valid = (kind: keyof typeof JSON_SCHEMAS, value: unknown) => expect(compileChecker(JSON_SCHEMAS[kind] as JsonSchema)(value)).toBeNull();

describe('exports with vectors', () => {
  it('a Weaviate Chunk or Summary object carries the record\'s vector', () => {
    const c = weaviateChunk(chunk('text'), {}, 0);
    expect('object' in c && c.object.vector).toEqual([0.6, 0.8, 0]);
    valid('weaviate_chunk', 'object' in c ? c.object : null);
    const s = weaviateSummary(section);
    expect('object' in s && s.object.vector).toEqual([0.6, 0.8, 0]);
    valid('weaviate_summary', 'object' in s ? s.object : null);
    const bare = weaviateChunk({ ...chunk('text'), embedding: undefined }, {}, 0);
    expect('object' in bare && 'vector' in bare.object).toBe(false);
  });

  it('a Chroma record carries embeddings only when they are of its document text', () => {
    const same = chromaRecord(chunk('embedding_text.combined'), undefined);
    expect('object' in same && same.object.embeddings).toEqual([0.6, 0.8, 0]);
    expect('object' in same && (same.object.metadata as Record<string, unknown>).embedding_model).toBe('nomic-embed-text');
    valid('chroma_record', 'object' in same ? same.object : null);
    const other = chromaRecord(chunk('text'), undefined);
    expect('object' in other && 'embeddings' in other.object).toBe(false);
    const s = chromaRecord(section, undefined);
    expect('object' in s && s.object.embeddings).toEqual([0.6, 0.8, 0]);
    valid('chroma_record', 'object' in s ? s.object : null);
  });
});
