// One model call's cancellation, shared by the clients: the caller's signal, the call's own
// deadline and the size cap combine into one signal that the call's fetch carries, or into the
// abort hook of a request sent without fetch (the Ollama client's chat).

export type AbortCause = 'timeout' | 'tooLarge' | 'finished';

// One listener per caller signal, fanning out to the scopes in flight under it. Neither a listener
// per request (one run-wide signal shared by dozens of in-flight requests would trip Node's
// MaxListeners warning) nor AbortSignal.any per request (a signal, weak references and their
// bookkeeping each time: ~2 % of rca-generate's CPU at a fast server).
const followers = new WeakMap<AbortSignal, Set<RequestScope>>();

function follow(caller: AbortSignal, scope: RequestScope): void {
  let scopes = followers.get(caller);
  if (scopes === undefined) {
    const set = new Set<RequestScope>();
    scopes = set;
    followers.set(caller, set);
    caller.addEventListener('abort', () => {
      for (const s of [...set]) s.callerAbort();
      set.clear();
    }, { once: true });
  }
  scopes.add(scope);
}

export class RequestScope {
  private controller: AbortController | undefined;
  private readonly timer: ReturnType<typeof setTimeout>;
  private bodyEnded = false;
  private ownAborted = false;
  private fired = false;
  private firedReason: unknown = undefined;
  private hook: ((reason: unknown) => void) | undefined;
  cause: AbortCause | null = null;

  constructor(
    readonly callerSignal: AbortSignal | undefined,
    readonly timeoutMs: number,
  ) {
    this.timer = setTimeout(() => this.abort('timeout'), timeoutMs);
    if (callerSignal !== undefined) {
      if (callerSignal.aborted) this.callerAbort();
      else follow(callerSignal, this);
    }
  }

  /** The signal a fetch carries; made on first use (a request sent without fetch needs none). */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.fired) this.controller.abort(this.firedReason);
    }
    return this.controller.signal;
  }

  /** Calls `hook` when the scope is aborted (at once if it already is). */
  onAbort(hook: (reason: unknown) => void): void {
    this.hook = hook;
    if (this.fired) hook(this.firedReason);
  }

  get callerAborted(): boolean {
    return this.callerSignal?.aborted === true;
  }

  abort(cause: AbortCause): void {
    if (this.ownAborted) return;
    this.ownAborted = true;
    this.cause = cause;
    this.fire(undefined);
  }

  /** @internal The caller's signal was aborted: the call stops with its reason, `cause` untouched. */
  callerAbort(): void {
    this.fire(this.callerSignal?.reason);
  }

  private fire(reason: unknown): void {
    if (this.fired) return;
    this.fired = true;
    this.firedReason = reason;
    this.controller?.abort(reason);
    this.hook?.(reason);
  }

  /** The reply body was read to its end: nothing is left to release, dispose need not abort. */
  ended(): void {
    this.bodyEnded = true;
  }

  dispose(): void {
    clearTimeout(this.timer);
    if (this.callerSignal !== undefined) followers.get(this.callerSignal)?.delete(this);
    // Releases the socket if we stopped reading early. A reply read to its end is left alone:
    // aborting it anyway builds a DOMException and runs the fetch's abort listeners for nothing,
    // which cost ~5 % of rca-generate's CPU at a fast server (docs/design/benchmarks-history.md, "The model path").
    if (!this.bodyEnded) this.abort('finished');
  }
}
