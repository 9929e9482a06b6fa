// Retrieval measures over one ranked list (pure), binary relevance: a chunk answers the question
// or does not. recall@k is the share of questions with at least one answering chunk in the top k
// (the hit rate; a question's answer may sit in several copies of the same text), MRR@10 the mean
// of 1/rank of the first answering chunk in the top 10 (0 when none), nDCG@10 the DCG of the top 10
// over the DCG of the answering chunks ranked first.
export const RECALL_AT = [1, 5, 10] as const;
export const CUTOFF = 10;

export interface QuestionScore {
  /** Rank of the first answering chunk, null when none is in the list. */
  firstRank: number | null;
  ndcg: number;
}

export function scoreRanking(ranked: readonly string[], gold: ReadonlySet<string>): QuestionScore {
  let firstRank: number | null = null;
  let dcg = 0;
  ranked.slice(0, CUTOFF).forEach((id, i) => {
    if (!gold.has(id)) return;
    firstRank ??= i + 1;
    dcg += 1 / Math.log2(i + 2);
  });
  if (firstRank === null) firstRank = firstHit(ranked, gold);
  let ideal = 0;
  for (let i = 0; i < Math.min(gold.size, CUTOFF); i++) ideal += 1 / Math.log2(i + 2);
  return { firstRank, ndcg: ideal === 0 ? 0 : dcg / ideal };
}

function firstHit(ranked: readonly string[], gold: ReadonlySet<string>): number | null {
  const at = ranked.findIndex((id) => gold.has(id));
  return at < 0 ? null : at + 1;
}

export interface Summary {
  questions: number;
  recall: Record<(typeof RECALL_AT)[number], number>;
  mrr: number;
  ndcg: number;
}

export function summarise(scores: readonly QuestionScore[]): Summary {
  const n = scores.length;
  const mean = (f: (s: QuestionScore) => number) => (n === 0 ? 0 : scores.reduce((sum, s) => sum + f(s), 0) / n);
  const recall = Object.fromEntries(RECALL_AT.map((k) => [k, mean((s) => (s.firstRank !== null && s.firstRank <= k ? 1 : 0))])) as Summary['recall'];
  return { questions: n, recall, mrr: mean((s) => (s.firstRank !== null && s.firstRank <= CUTOFF ? 1 / s.firstRank : 0)), ndcg: mean((s) => s.ndcg) };
}
