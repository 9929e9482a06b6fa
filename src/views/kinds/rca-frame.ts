// rca_frame: the root-cause-analysis reading of a chunk (contract: src/contracts/views.ts).
import type { JsonObject } from '../../contracts/json.js';
import { CITATIONS, ID, list } from './bounds.js';
import type { ChunkViewKind, ViewFields } from './kind.js';

const HAS_CONTENT_RE = /[\p{L}\p{N}]/u;

// A frame says something when one of its lists holds an item with a letter or digit.
function quality(obj: JsonObject, shape: ViewFields): string[] {
  const lists = [...shape.fields].filter(([, s]) => s.kind === 'list').map(([k]) => obj[k]);
  return lists.some((list) => Array.isArray(list) && list.some((item) => typeof item === 'string' && HAS_CONTENT_RE.test(item))) ? [] : ['empty_frame'];
}

const CONSERVATIVE = 'Be extractive and conservative: record only what CHUNK_TEXT states and leave a list empty rather than guess.';

export const rcaFrame: ChunkViewKind = {
  name: 'rca_frame',
  reads: 'chunk',
  task: {
    article: 'an',
    focus: {
      SOP: 'observed: what the step or section requires; tests_to_confirm: the checks and measurements it prescribes; candidate_actions: the steps it allows or directs; constraints: holds, cautions, prerequisites and limits. Leave hypotheses empty unless the text states a possible cause.',
      CR: 'observed: what happened and the evidence reported; hypotheses: possible causes only where CHUNK_TEXT states them; tests_to_confirm: checks suggested or already performed; candidate_actions: immediate and corrective actions taken or planned; constraints: stated conditions, limits or operability restrictions.',
      WO: 'observed: the reported problem and the as-found condition; hypotheses: causes only where stated; tests_to_confirm: checks and post-maintenance tests performed, with their results; candidate_actions: the work steps performed; constraints: prerequisites, holds and acceptance limits mentioned.',
      ECA: 'observed: the event and the evidence cited; hypotheses: the causal hypotheses and causal factors as the evaluation states them; tests_to_confirm: the verification steps it proposes; candidate_actions: the recommended actions; constraints: the assumptions and limitations of the analysis.',
      OTHER: CONSERVATIVE,
    },
    rules: 'Your reply is checked: every list holds plain strings; observed holds at least one fact stated in CHUNK_TEXT; a phrase in double quotes is copied exactly from CHUNK_TEXT.',
  },
  quality,
  feedback: {
    empty_frame: (source) => `every list is empty; put at least one fact stated in ${source} in observed`,
  },
  roles: {},
  polarity: ['observed', 'hypotheses', 'candidate_actions'],
  identifiers: [],
  // observed ≥ 1 item: the prompt asks for one, and a frame with every list empty is flagged empty_frame.
  bounds: {
    chunk_id: ID,
    observed: list(8, 200, 1),
    hypotheses: list(5, 200),
    tests_to_confirm: list(6, 200),
    candidate_actions: list(6, 200),
    constraints: list(6, 200),
    ...CITATIONS,
  },
  flatten: {
    separator: '; ',
    fields: [
      ['OBSERVED', 'observed'],
      ['HYPOTHESES', 'hypotheses'],
      ['TESTS', 'tests_to_confirm'],
      ['ACTIONS', 'candidate_actions'],
      ['CONSTRAINTS', 'constraints'],
    ],
  },
  extractive: true,
};
