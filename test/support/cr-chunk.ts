// One tagged condition-report chunk's trusted context and an empty NER seed, for the unit tests of
// generation that build jobs by hand.
import type { ChunkContext, NerSeed } from '../../src/contracts/chunk.js';
import { NER_SEED_KEYS } from '../../src/contracts/vocabulary.js';

export const CR_CONTEXT: ChunkContext = {
  doc_id: 'cr1',
  doc_type: 'CR',
  chunk_id: 'chunk:cr1:sec2',
  section_path: 'Condition Report > Description',
  page_start: 3,
  page_end: 3,
  authority_level: 'informational',
  section_role: 'description',
};

export const EMPTY_SEED = Object.fromEntries(NER_SEED_KEYS.map((k) => [k, []])) as unknown as NerSeed;
