// The response cache as generate uses it. An entry is the outcome of one view's whole retry
// ladder, addressed by the request of its first attempt (backend, model and digest, options, the
// view's JSON Schema, the exact prompt) plus the ladder setting that shapes later attempts
// (--truncate-chars). Keying the first attempt, not the one whose reply was kept, is what makes a
// re-run free: a view that needed a second try is found without sending the first one again.
// - An outcome that passed validation is stored, and so is one that ran out of tries with a reply
//   kept under quality flags (with its flags and the attempt kept): asking again would cost every
//   try once more and, the model being deterministic, bring back the same. --retry-flagged asks
//   such views again on purpose (and stores what comes back). A failed view (null) is never stored:
//   it is asked again next time.
// - A hit is checked again as a fresh reply would be (today's validator, this chunk's text) and
//   ignored when the verdict changed (flags where there were none, or other flags).
// - --refresh skips lookups and stores what the run gets, replacing older entries.
// - The store failing mid-run (disk full, a lock held past the busy timeout) does not stop the
//   run: the views are still generated, the cache is left alone from then on, and one warning says so.
import { cacheKey } from '../cache/cache-key.js';
import type { CachedReply, CacheEntryMeta } from '../cache/response-cache.js';
import type { GroundingText } from '../views/grounding.js';
import type { Backend, Job } from './backend.js';
import { attemptInput, ladderOutcome, replayOutcome, type LadderOutcome, type LadderPolicy, type ViewResult } from './ladder.js';

/** The part of ResponseCache generate needs (tests pass an in-memory one). */
export interface ReplyStore {
  readonly path: string;
  get(key: string): LadderOutcome | null;
  put(key: string, reply: CachedReply, meta: CacheEntryMeta): void;
  close(): void;
}

export class ViewCache {
  hits = 0;
  stored = 0;
  /** Set once the store has failed; the cache is not used after that. */
  failure: string | null = null;
  private failureReported = false;

  constructor(
    private readonly store: ReplyStore,
    private readonly backend: Backend,
    private readonly policy: LadderPolicy,
    private readonly refresh: boolean,
    private readonly retryFlagged = false,
  ) {}

  get path(): string {
    return this.store.path;
  }

  /** The key of a view, or null when its backend's replies are not cached. */
  keyOf(job: Job, pair?: readonly Job[]): string | null {
    const parts = this.backend.cacheKeyParts?.(job, attemptInput(job, this.policy, 1, null), pair);
    if (parts === undefined) return null;
    return cacheKey({ ...parts, options: { ...parts.options, truncate_chars: this.policy.truncateChars } });
  }

  lookup(key: string, job: Job, grounding: GroundingText): ViewResult | null {
    if (this.refresh || this.failure !== null) return null;
    let found;
    try {
      found = this.store.get(key);
    } catch (err) {
      this.fail(err);
      return null;
    }
    if (found === null || (this.retryFlagged && found.flagged !== undefined)) return null;
    const result = replayOutcome(job, grounding, this.backend.info, this.policy, found, this.backend.cuts?.bind(this.backend));
    if (result !== null) this.hits++;
    return result;
  }

  /** Keeps a view's outcome, passed or flagged (unless it was itself a hit); never a failed one. */
  keep(key: string, result: ViewResult): void {
    if (result.status === 'failed' || result.generation.cached || this.failure !== null) return;
    const { generation } = result;
    try {
      this.store.put(key, ladderOutcome(result), { backend: generation.backend, model: generation.model ?? generation.backend });
      this.stored++;
    } catch (err) {
      this.fail(err);
    }
  }

  /** The one warning about a failed store, the first time it is asked for. */
  takeWarning(): string | null {
    if (this.failure === null || this.failureReported) return null;
    this.failureReported = true;
    return `response cache: ${this.failure}; going on without it`;
  }

  close(): void {
    try {
      this.store.close();
    } catch {
      // Closing only checkpoints the log; a failure here loses nothing that was committed.
    }
  }

  private fail(err: unknown): void {
    this.failure ??= (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
  }
}
