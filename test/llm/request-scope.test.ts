import { describe, expect, it } from 'vitest';
import { RequestScope } from '../../src/llm/request-scope.js';

describe('RequestScope', () => {
  it('aborts on dispose a request whose reply was not read to its end, to release its socket', () => {
    const scope = new RequestScope(undefined, 10_000);
    scope.dispose();
    expect(scope.signal.aborted).toBe(true);
    expect(scope.cause).toBe('finished');
  });

  it('leaves a reply read to its end alone: no abort, no listener run', () => {
    const scope = new RequestScope(undefined, 10_000);
    let fired = 0;
    scope.signal.addEventListener('abort', () => fired++);
    scope.ended();
    scope.dispose();
    expect(scope.signal.aborted).toBe(false);
    expect(scope.cause).toBeNull();
    expect(fired).toBe(0);
  });

  it('carries the caller signal and keeps the first cause', () => {
    const caller = new AbortController();
    const scope = new RequestScope(caller.signal, 10_000);
    scope.abort('tooLarge');
    scope.abort('finished');
    expect(scope.cause).toBe('tooLarge');
    const other = new RequestScope(caller.signal, 10_000);
    caller.abort();
    expect(other.callerAborted).toBe(true);
    expect(other.signal.aborted).toBe(true);
    other.dispose();
    scope.dispose();
  });

  it('times out on its own deadline', async () => {
    const scope = new RequestScope(undefined, 5);
    await new Promise((resolve) => scope.signal.addEventListener('abort', resolve));
    expect(scope.cause).toBe('timeout');
    scope.dispose();
  });

  it('a caller abort reaches every scope in flight under it, with its reason, through one listener', () => {
    const caller = new AbortController();
    let added = 0;
    const add = caller.signal.addEventListener.bind(caller.signal);
    caller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added += 1;
      add(...args);
    }) as typeof add;
    const scopes = Array.from({ length: 50 }, () => new RequestScope(caller.signal, 10_000));
    const hooked: unknown[] = [];
    scopes[0]!.onAbort((reason) => hooked.push(reason));
    const done = scopes.pop()!;
    done.ended();
    done.dispose();
    const reason = new Error('stop');
    caller.abort(reason);
    expect(added).toBe(1);
    expect(hooked).toEqual([reason]);
    expect(scopes.every((s) => s.callerAborted && s.signal.aborted && s.signal.reason === reason && s.cause === null)).toBe(true);
    expect(done.signal.aborted).toBe(false);
    for (const s of scopes) s.dispose();
  });

  it('a scope made under an already aborted caller is aborted at once, its hook called when set', () => {
    const caller = new AbortController();
    caller.abort();
    const scope = new RequestScope(caller.signal, 10_000);
    let hooked = 0;
    scope.onAbort(() => hooked++);
    expect(hooked).toBe(1);
    expect(scope.signal.aborted).toBe(true);
    scope.dispose();
  });
});
