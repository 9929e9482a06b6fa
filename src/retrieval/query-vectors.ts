// The vectors of questions, for hybrid search and its evaluation: embedded with the model that
// made the index's vectors, through the same client, batching and cache as rca-embed.
import type { EmbeddingInfo } from '../contracts/embedding-field.js';
import type { Env, OptionsSpec } from '../runtime/stage.js';

export const QUERY_OPTIONS = {} as const satisfies OptionsSpec;

export class QueryVectorError extends Error {
  override readonly name = 'QueryVectorError';
}

export async function queryVectors(_info: EmbeddingInfo, _questions: readonly string[], _values: Record<string, unknown>, _env: Env): Promise<number[][]> {
  throw new QueryVectorError('hybrid search needs the question embedded, and this build of rca has no embedding client yet');
}
