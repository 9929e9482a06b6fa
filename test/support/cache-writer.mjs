// A separate process writing to a response cache, for the concurrency and crash tests.
// node test/support/cache-writer.mjs CACHE WRITER COUNT|forever PAYLOAD_BYTES START_AT_MS
// Entries are self-describing (see cache-entries.ts), so the test can check every one is whole.
import { cacheKey } from '../../dist/cache/cache-key.js';
import { openResponseCache } from '../../dist/cache/response-cache.js';

const [path, writer, countArg, payloadArg, startAtArg] = process.argv.slice(2);
const payload = Number(payloadArg);
const forever = countArg === 'forever';
const count = forever ? Infinity : Number(countArg);

// Every writer opens and writes at the same moment, so the schema creation races too.
const startAt = Number(startAtArg);
while (Date.now() < startAt) await new Promise((resolve) => setTimeout(resolve, 2));

const cache = openResponseCache(path);
for (let i = 0; i < count; i++) {
  const key = cacheKey({ backend: 'test', model: `writer-${writer}`, modelDigest: null, options: { i }, schema: { writer }, prompt: `${writer}:${i}` });
  const content = JSON.stringify({ writer, i, pad: 'x'.repeat(payload) });
  cache.put(key, { content, doneReason: 'stop', promptTokens: i, outputTokens: payload }, { backend: 'test', model: `writer-${writer}` });
  if (i === 0) process.stdout.write('writing\n');
}
cache.close();
