// The vectors of questions, for hybrid search and its evaluation: embedded with the model that
// made the index's vectors (its backend, name and digest, from the index), through the same
// client, batching, retries and response cache as rca-embed, after --query-prefix.
import type { EmbeddingInfo } from '../contracts/embedding-field.js';
import { ConfigError } from '../generation/config.js';
import { FatalError } from '../runtime/exit-codes.js';
import type { Env, OptionsSpec } from '../runtime/stage.js';
import { resolveServerConfig, SERVER_OPTIONS, type EmbedBackend } from './embed-config.js';
import { connect, Embedder, openCache } from './embedder.js';

const { backend: _chosenByTheIndex, ...server } = SERVER_OPTIONS;
export const QUERY_OPTIONS = {
  ...server,
  'query-prefix': { type: 'string', placeholder: 'TEXT', default: '', help: 'hybrid: put before the question when it is embedded (e5, bge and nomic models want another prefix for questions than for passages, e.g. "query: ")' },
} as const satisfies OptionsSpec;

export class QueryVectorError extends Error {
  override readonly name = 'QueryVectorError';
}

export async function queryVectors(info: EmbeddingInfo, questions: readonly string[], values: Record<string, unknown>, env: Env): Promise<number[][]> {
  let config;
  try {
    config = resolveServerConfig({ ...values, backend: (info.backend || 'ollama') as EmbedBackend, concurrency: 2 } as unknown as Parameters<typeof resolveServerConfig>[0], env);
  } catch (err) {
    throw new QueryVectorError(err instanceof ConfigError || err instanceof Error ? err.message : String(err));
  }
  const now = () => performance.now();
  try {
    const connected = await connect(config, info.model, now);
    if (info.digest !== null && connected.info.digest !== null && connected.info.digest !== info.digest) {
      throw new QueryVectorError(`the server's ${info.model} (digest ${connected.info.digest.slice(0, 12)}) is not the one that made the index's vectors (${info.digest.slice(0, 12)})`);
    }
    const cache = await openCache(config);
    const embedder = new Embedder(config, { model: info.model, dimensions: null, numCtx: null, batch: 16 }, connected, cache, now);
    try {
      const prefix = String(values['query-prefix'] ?? '');
      return await Promise.all(questions.map((q, i) => embedder.embed(prefix + q, i)));
    } finally {
      cache?.close();
    }
  } catch (err) {
    if (err instanceof QueryVectorError) throw err;
    throw new QueryVectorError(`cannot embed the question${questions.length === 1 ? '' : 's'}: ${err instanceof FatalError || err instanceof Error ? err.message : String(err)}`);
  }
}
