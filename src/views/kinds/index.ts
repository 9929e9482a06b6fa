// The view kinds, by name. A view name (contracts/vocabulary.ts) without a kind here fails to compile.
import { VIEW_TYPES } from '../../contracts/vocabulary.js';
import type { ChunkViewKind, ViewKinds } from './kind.js';
import { rcaFrame } from './rca-frame.js';
import { retrievalSummary } from './retrieval-summary.js';
import { sectionSummary } from './section-summary.js';

export const VIEW_KINDS: ViewKinds = {
  retrieval_summary: retrievalSummary,
  rca_frame: rcaFrame,
  section_summary: sectionSummary,
};

/** The chunk views' kinds in canonical order. */
export const CHUNK_VIEW_KINDS: readonly ChunkViewKind[] = VIEW_TYPES.map((name) => VIEW_KINDS[name]);
