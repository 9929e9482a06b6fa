// The view kinds, by name. A view name (contracts/vocabulary.ts) without a kind here fails to compile.
import type { ViewKinds } from './kind.js';
import { rcaFrame } from './rca-frame.js';
import { retrievalSummary } from './retrieval-summary.js';
import { sectionSummary } from './section-summary.js';

export const VIEW_KINDS: ViewKinds = {
  retrieval_summary: retrievalSummary,
  rca_frame: rcaFrame,
  section_summary: sectionSummary,
};
