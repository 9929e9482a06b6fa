// One run control carries the cancellation of every request (Ctrl-C, giving up) and watches for a
// server that has stopped answering altogether. Apart from the request gate (request-gate.ts) so that
// a run that sends no request (the extractive backend) never loads p-queue.
import { ModelError } from '../llm/model-client.js';

export type Clock = () => number;

export type StopReason = { kind: 'interrupted' } | { kind: 'fatal'; message: string };

export class RunControl {
  private readonly controller = new AbortController();
  private failingSince: number | null = null;
  private answers = 0;
  reason: StopReason | null = null;

  constructor(
    private readonly now: Clock,
    private readonly giveUpAfterMs: number,
    private readonly describeServer: string,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get stopped(): boolean {
    return this.reason !== null;
  }

  interrupt(): void {
    this.stop({ kind: 'interrupted' });
  }

  fail(message: string): void {
    this.stop({ kind: 'fatal', message });
  }

  /** Any answer from the server, even a refusal, shows it is alive. */
  serverAnswered(): void {
    this.failingSince = null;
    this.answers++;
  }

  /** A mark to ask later whether the server answered anyone since. */
  answerMark(): number {
    return this.answers;
  }

  answeredSince(mark: number): boolean {
    return this.answers > mark;
  }

  /** A request failed in transport. Gives up the run once every request has failed for giveUpAfterMs. */
  serverFailed(error: ModelError): void {
    if (error.code === 'ABORTED') return;
    const at = this.now();
    this.failingSince ??= at;
    if (this.giveUpAfterMs > 0 && at - this.failingSince >= this.giveUpAfterMs) {
      this.fail(`${this.describeServer} has failed every request for ${seconds(at - this.failingSince)} (last: ${error.code}: ${error.message})`);
    }
  }

  /**
   * What a request's failure says of the run: a model removed mid-run or a key revoked (404, AUTH)
   * would fail every later request alike, so the run stops; a transport failure counts toward
   * giving up; any other answer, even a refusal, shows the server alive.
   */
  requestFailed(err: unknown): void {
    if (!(err instanceof ModelError)) return;
    if (err.code === 'HTTP_404' || err.code === 'AUTH') this.fail(err.message);
    else if (err.retryable) this.serverFailed(err);
    else if (err.code !== 'ABORTED') this.serverAnswered();
  }

  private stop(reason: StopReason): void {
    if (this.reason !== null) return;
    this.reason = reason;
    this.controller.abort(new ModelError('ABORTED', reason.kind === 'interrupted' ? 'interrupted' : reason.message));
  }
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
}
