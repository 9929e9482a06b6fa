import { describe, expect, it } from 'vitest';
import { httpStatusError, newModelError, transportError, type ServerWording } from '../../src/llm/http-errors.js';
import { RequestScope } from '../../src/llm/request-scope.js';

const wording: ServerWording = {
  server: 'S at h',
  unreachable: 'nobody at h',
  notFound: (model, detail) => `no ${model} ${detail}`,
  promptTooLong: (detail) => `too long ${detail}`,
  fail: newModelError,
};

describe('httpStatusError: one reading of a status for every client', () => {
  it.each([
    [404, 'gone', 'HTTP_404', 'no m (404): gone', false],
    [429, 'slow down', 'HTTP_429', 'S at h is rate limiting (429): slow down', true],
    [503, 'loading', 'SERVER_BUSY', 'S at h is busy (503): loading', true],
    [408, 'late', 'TIMEOUT', 'S at h timed out (408): late', true],
    [500, 'panic', 'HTTP_5XX', 'S at h failed (500): panic', true],
    [501, 'no', 'HTTP_5XX', 'S at h failed (501): no', false],
    [400, 'the input exceeds the context length', 'PROMPT_TOO_LONG', 'too long (400): the input exceeds the context length', false],
    [422, 'bad', 'HTTP_400', 'S at h rejected the request (422): bad', false],
    [302, 'moved', 'BAD_RESPONSE', 'unexpected status from S at h (302): moved', false],
  ])('%i → %s', (status, said, code, message, retryable) => {
    const err = httpStatusError(status, said, 'm', 2000, wording);
    expect({ code: err.code, message: err.message, status: err.status, retryable: err.retryable }).toEqual({ code, message, status, retryable });
    expect(err.retryAfterMs).toBe(status === 429 || status === 503 ? 2000 : null);
  });
});

describe('transportError', () => {
  const scope = () => new RequestScope(undefined, 1000);
  const withCode = (code: string) => Object.assign(new Error('x'), { cause: { code } });
  it.each([
    [withCode('ECONNREFUSED'), 'UNREACHABLE', 'nobody at h'],
    [new AggregateError([withCode('EHOSTUNREACH')]), 'UNREACHABLE', 'nobody at h'],
    [withCode('ECONNRESET'), 'CONNECTION_RESET', 'connection to S at h was reset (ECONNRESET)'],
    [withCode('UND_ERR_BODY_TIMEOUT'), 'TIMEOUT', 'S at h timed out (UND_ERR_BODY_TIMEOUT)'],
    [new TypeError('terminated'), 'CONNECTION_RESET', 'connection to S at h was cut mid-reply'],
    [Object.assign(new Error('a'), { name: 'AbortError' }), 'ABORTED', 'request to S at h was cancelled'],
  ])('%s → %s', (err, code, message) => {
    const s = scope();
    const got = transportError(err, s, wording);
    s.dispose();
    expect({ code: got?.code, message: got?.message }).toEqual({ code, message });
  });

  it('says TIMEOUT with the deadline when the call ran out of time, and leaves anything else to the client', () => {
    const s = scope();
    s.abort('timeout');
    expect(transportError(new Error('whatever'), s, wording)?.message).toBe('S at h did not finish within 1000 ms');
    const t = scope();
    expect(transportError(new Error('odd'), t, wording)).toBeNull();
    t.dispose();
  });
});
