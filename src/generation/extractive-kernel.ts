// A large record's views by the extractive backend, made on the run's worker thread
// (runtime/off-thread.ts): the grounding text, each view built and checked (builtResult) is the
// part that grows with the text. Counting, input order and placing the views on the record stay
// with the main thread's generator.
import type { ViewName } from '../contracts/vocabulary.js';
import type { LexiconEntry } from '../tagging/lexicon.js';
import { VIEW_KINDS } from '../views/kinds/index.js';
import { recordKindOf } from '../views/records/records.js';
import { jobOf } from './backend.js';
import { createExtractiveBackend } from './extractive-backend.js';
import { builtResult, type LadderPolicy, type ViewResult } from './ladder.js';

/** What the worker builds the backend from: plain data (the lexicon as its entries). */
export interface ExtractiveKernelSetup {
  /** Every view of the run (the backend is set up for them). */
  views: ViewName[];
  policy: LadderPolicy;
  /** The lexicon the extractive rules read; read on the main thread when first needed. */
  readonly lexicon: LexiconEntry[];
}

/** A record's jobs: its input (the record kind's), the views to make, its job number. */
export interface ExtractiveKernelInput {
  input: unknown;
  views: ViewName[];
  seq: number;
}

/** The kernel: the backend set up once, then each record's results as the generator makes them on its thread. */
export async function extractiveViews(setup: ExtractiveKernelSetup): Promise<(job: ExtractiveKernelInput) => ViewResult[]> {
  const kinds = setup.views.map((view) => VIEW_KINDS[view]);
  const backend = await createExtractiveBackend(kinds, { lexicon: () => setup.lexicon });
  const records = recordKindOf(kinds[0]!);
  return ({ input, views, seq }) => {
    const grounding = records.grounding(input as never);
    return views.map((view) => builtResult(jobOf(VIEW_KINDS[view], input, seq), grounding, backend, setup.policy));
  };
}
