import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MODEL_AGENT_OPTIONS, modelFetch, requestIdHeaders } from '../../src/llm/model-fetch.js';

describe('modelFetch', () => {
  it('has no headers or body timeout of its own (a queued request may wait > 300 s for headers)', () => {
    expect(MODEL_AGENT_OPTIONS).toEqual({ headersTimeout: 0, bodyTimeout: 0 });
  });

  it('fetches, streams and honours the caller signal', async () => {
    const server = createServer((_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.write('{"a":1}\n');
        setTimeout(() => res.end('{"b":2}\n'), 50);
      }, 100);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const res = await modelFetch(url, { method: 'POST', body: '{}' });
      expect(await res.text()).toBe('{"a":1}\n{"b":2}\n');
      const aborted = modelFetch(url, { signal: AbortSignal.timeout(20) });
      await expect(aborted).rejects.toThrow();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('requestIdHeaders: what a request is for, as X-Request-Id', () => {
  it.each([
    ['none without an id', undefined, {}],
    ['printable ASCII as it is', 'chunk:cr1:sec2 rca_frame', { 'X-Request-Id': 'chunk:cr1:sec2 rca_frame' }],
    ['any other character and % as UTF-8 bytes in %XX form', 'Pompe Ä 5%\tx', { 'X-Request-Id': 'Pompe %C3%84 5%25%09x' }],
    ['a lone surrogate as U+FFFD', 'c\ud800 retrieval_summary', { 'X-Request-Id': 'c%EF%BF%BD retrieval_summary' }],
  ])('%s', (_name, id, expected) => {
    expect(requestIdHeaders(id)).toEqual(expected);
    // What the header carries decodes back to the id (a lone surrogate aside).
    if (id !== undefined && !id.includes('\ud800')) expect(decodeURIComponent(requestIdHeaders(id)['X-Request-Id']!)).toBe(id);
  });
});
