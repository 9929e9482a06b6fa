// One model call's cancellation, shared by the clients: the caller's signal, the call's own
// deadline and the size cap combine into one signal that the call's fetch carries.

export type AbortCause = 'timeout' | 'tooLarge' | 'finished';

export class RequestScope {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private bodyEnded = false;
  readonly signal: AbortSignal;
  cause: AbortCause | null = null;

  constructor(
    readonly callerSignal: AbortSignal | undefined,
    readonly timeoutMs: number,
  ) {
    this.timer = setTimeout(() => this.abort('timeout'), timeoutMs);
    // AbortSignal.any rather than a listener on the caller's signal: one run-wide signal shared by
    // dozens of in-flight requests would otherwise trip Node's MaxListeners warning.
    this.signal = callerSignal ? AbortSignal.any([this.controller.signal, callerSignal]) : this.controller.signal;
  }

  get callerAborted(): boolean {
    return this.callerSignal?.aborted === true;
  }

  abort(cause: AbortCause): void {
    if (this.controller.signal.aborted) return;
    this.cause = cause;
    this.controller.abort();
  }

  /** The reply body was read to its end: nothing is left to release, dispose need not abort. */
  ended(): void {
    this.bodyEnded = true;
  }

  dispose(): void {
    clearTimeout(this.timer);
    // Releases the socket if we stopped reading early. A reply read to its end is left alone:
    // aborting it anyway builds a DOMException and runs the fetch's abort listeners for nothing,
    // which cost ~5 % of rca-generate's CPU at a fast server (BENCHMARKS.md, the model path).
    if (!this.bodyEnded) this.abort('finished');
  }
}
