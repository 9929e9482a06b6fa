// rca eval-retrieval's measurement (pure over an open index): every question of every set run
// through each search configuration, scored against its gold chunks, summarised per set, kind
// (written or synthetic) and split. Flat BM25 over the raw chunk text is the baseline every row
// is shown against; for hierarchical search it also counts how often the first stage missed:
// none of its sections' subtrees holds a gold chunk, so the second stage could not find it.
import type { IndexStore } from './index-store.js';
import { CUTOFF, scoreRanking, summarise, type QuestionScore, type Summary } from './metrics.js';
import type { Question, QuestionSet, Split } from './questions.js';
import { search, type ChunkText, type SearchMode } from './search.js';

export interface EvalConfig {
  mode: SearchMode;
  text: ChunkText;
}

export const BASELINE: EvalConfig = { mode: 'flat', text: 'text' };

export interface EvalRow extends Summary, EvalConfig {
  set: string;
  kind: Question['kind'];
  split: Split;
  /** hierarchical: the share of questions whose gold sections the first stage did not reach. */
  stageMiss: number | null;
  /** Questions none of whose gold chunks is in the index (scored 0 everywhere). */
  goldMissing: number;
  baseline: boolean;
}

export interface EvalOptions {
  /** hierarchical: sections the first stage keeps. */
  sections: number;
  /** hybrid: each question's vector, by question id. */
  vectors?: ReadonlyMap<string, readonly number[]>;
}

export function evaluate(store: IndexStore, sets: readonly QuestionSet[], configs: readonly EvalConfig[], options: EvalOptions): EvalRow[] {
  const sectionOf = store.statement('SELECT section_id FROM chunks WHERE chunk_id = ?');
  const rows: EvalRow[] = [];
  for (const set of sets) {
    for (const kind of ['written', 'synthetic'] as const) {
      for (const split of ['dev', 'test'] as const) {
        const questions = set.questions.filter((q) => q.kind === kind && q.split === split);
        if (questions.length === 0) continue;
        const goldSections = questions.map((q) => new Set(q.gold.flatMap((id) => (sectionOf.all(id) as { section_id: string | null }[]).map((r) => r.section_id).filter((s): s is string => s !== null))));
        const goldMissing = questions.filter((q) => q.gold.every((id) => sectionOf.get(id) === undefined)).length;
        for (const config of configs) {
          const scores: QuestionScore[] = [];
          let misses = 0;
          questions.forEach((q, i) => {
            const result = search(store, q.question, { ...config, k: CUTOFF, sections: options.sections, filters: {}, queryVector: options.vectors?.get(q.id) ?? null, explain: false });
            scores.push(scoreRanking(result.hits.map((h) => h.chunkId), new Set(q.gold)));
            if (config.mode === 'hierarchical' && ![...goldSections[i]!].some((s) => result.reached.includes(s))) misses++;
          });
          rows.push({
            set: set.name,
            kind,
            split,
            ...config,
            ...summarise(scores),
            stageMiss: config.mode === 'hierarchical' ? misses / questions.length : null,
            goldMissing,
            baseline: config.mode === BASELINE.mode && config.text === BASELINE.text,
          });
        }
      }
    }
  }
  return rows;
}
