// --views-per-request: the first attempts of a chunk's views as one request. The reply holds each
// view's content under its name (requests.ts pairFormatOf); it is split into one reply per view,
// and each view's ladder takes its part as its first attempt's reply and checks it as its own. A
// part that cannot be used (cut, not JSON, flagged) goes on through that view's own attempts with
// feedback, one request per view: the retry ladder is per view, only the first try is shared.
import { recoverJson } from '../views/json-recovery.js';
import { isPlainObject } from '../contracts/json.js';
import type { BackendReply, Job } from './backend.js';

/** The lane and --dry-run name of a pair request: its views' names joined by +. */
export function pairLane(jobs: readonly Job[]): string {
  return jobs.map((j) => j.kind.name).join('+');
}

/**
 * One reply per view from the pair's reply. A part is the JSON of the view's member; where the
 * reply is no object or lacks the member, the whole reply (so the view's check names what is
 * wrong with it). The request's tokens are shared out so that the views' counts add up to the
 * request's: prompt and cached tokens evenly (the first view takes the remainder), output tokens
 * in proportion to the length of each part. Transport retries count once, on the first view.
 */
export function splitPairReply(reply: BackendReply, views: readonly string[]): BackendReply[] {
  const recovered = recoverJson(reply.content);
  const whole = recovered.ok && isPlainObject(recovered.value) ? recovered.value : null;
  const parts = views.map((view) => (whole !== null && isPlainObject(whole[view]) ? JSON.stringify(whole[view]) : reply.content));
  const lengths = parts.map((p) => p.length);
  const prompt = shareEvenly(reply.promptTokens, views.length);
  const cached = shareEvenly(reply.cachedTokens ?? null, views.length);
  const output = shareByWeight(reply.outputTokens, lengths);
  return views.map((_, i) => ({
    ...reply,
    content: parts[i]!,
    promptTokens: prompt[i]!,
    cachedTokens: cached[i]!,
    outputTokens: output[i]!,
    // The thinking, if any, was the request's: the first view reports it.
    thinkingChars: i === 0 ? (reply.thinkingChars ?? 0) : 0,
    transportRetries: i === 0 ? reply.transportRetries : 0,
  }));
}

function shareEvenly(total: number | null, n: number): (number | null)[] {
  if (total === null) return Array<null>(n).fill(null);
  const each = Math.floor(total / n);
  return Array.from({ length: n }, (_, i) => (i === 0 ? total - each * (n - 1) : each));
}

function shareByWeight(total: number | null, weights: readonly number[]): (number | null)[] {
  if (total === null) return weights.map(() => null);
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0) return shareEvenly(total, weights.length);
  const shares = weights.map((w) => Math.floor((total * w) / sum));
  shares[0]! += total - shares.reduce((a, b) => a + b, 0);
  return shares;
}
