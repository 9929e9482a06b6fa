// Types of extraction-core.mjs for the tests that import it.
export interface Counts {
  predicted: number;
  labelled: number;
  correct: number;
  found: number;
}
export interface ExtractionScore {
  chunks: number;
  tag: { fields: Record<string, Counts>; exact: Record<string, Counts>; perChunk: Array<{ chunk_id: string; wrong: Record<string, string[]>; missed: Record<string, string[]> }> };
  view: { fields: Record<string, Counts>; exact: Record<string, Counts> };
  negation: { labelled: number; found: number; leaked: string[]; falseNegations: string[]; viewLeaked: string[] };
  docType: { correct: number; total: number; wrong: string[] };
  role: { correct: number; total: number; wrong: string[] };
}
export const SEED_FIELDS: readonly string[];
export function scoreExtraction(options: { root: string; dist?: string }): Promise<ExtractionScore>;
export function overall(fields: Record<string, Counts>): Counts & { precision: number; recall: number };
export function ratio(n: number, d: number): number;
