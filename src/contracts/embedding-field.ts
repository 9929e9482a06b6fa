// The `embedding` field rca-embed adds to a chunk or section record, read without zod (the index
// and the exports read it on every record): its provenance, and the vector when there is one.
import { isPlainObject, type JsonObject } from './json.js';

/** What `embedding` says about how its vector was made (every field but the vector itself). */
export interface EmbeddingInfo {
  backend: string;
  model: string;
  digest: string | null;
  dims: number;
  normalized: boolean;
  prefix: string;
  /** Which text of the record was embedded: text, embedding_text.<view>. */
  field: string;
}

export type VectorRead = { value: { info: EmbeddingInfo; vector: number[] } | null } | { reject: { code: string; message: string } };

const bad = (message: string): VectorRead => ({ reject: { code: 'BAD_EMBEDDING', message } });

/**
 * The record's vector: null when it has no `embedding` or rca-embed failed on it (`vector` null,
 * `error` set); a reject when the field is not rca-embed's shape (a vector of another length
 * than `dims`, a value that is not a finite number).
 */
export function vectorOf(record: JsonObject): VectorRead {
  const embedding = record.embedding;
  if (embedding === undefined || embedding === null) return { value: null };
  if (!isPlainObject(embedding)) return bad('embedding is not an object (rca-embed writes {model, digest, dims, normalized, prefix, input, vector, error})');
  if (embedding.vector === null) return { value: null };
  const { vector, model, dims } = embedding;
  if (!Array.isArray(vector) || typeof model !== 'string' || typeof dims !== 'number') return bad('embedding needs model, dims and vector (as rca-embed writes them)');
  if (vector.length !== dims || dims === 0) return bad(`embedding.vector has ${vector.length} numbers but dims says ${dims}`);
  for (const x of vector) if (typeof x !== 'number' || !Number.isFinite(x)) return bad('embedding.vector holds a value that is not a finite number');
  const input = isPlainObject(embedding.input) ? embedding.input : {};
  return {
    value: {
      info: {
        backend: typeof embedding.backend === 'string' ? embedding.backend : '',
        model,
        digest: typeof embedding.digest === 'string' ? embedding.digest : null,
        dims,
        normalized: embedding.normalized === true,
        prefix: typeof embedding.prefix === 'string' ? embedding.prefix : '',
        field: typeof input.field === 'string' ? input.field : '',
      },
      vector: vector as number[],
    },
  };
}
