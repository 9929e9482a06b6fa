// retrieval_summary: the search-oriented view of a chunk (contract: src/contracts/views.ts).
import type { JsonObject } from '../../contracts/json.js';
import { CITATIONS, ID, list } from './bounds.js';
import type { ChunkViewKind } from './kind.js';

/** What its quality check holds a reply to; the prompt, the feedback, the format bounds and the extractive rules say the same numbers. */
export const QUALITY_GATES = {
  minScopeChars: 15,
  minKeywords: 3,
  boilerplate: ['as an ai', 'i cannot', 'not provided'],
} as const;

// An item with no letter or digit ("", "  ", "----------") says nothing.
const HAS_CONTENT_RE = /[\p{L}\p{N}]/u;

function quality(obj: JsonObject): string[] {
  const flags: string[] = [];
  if (typeof obj.scope === 'string') {
    const scope = obj.scope.trim();
    if (scope.length < QUALITY_GATES.minScopeChars) flags.push('scope_too_short');
    const lower = scope.toLowerCase();
    if (QUALITY_GATES.boilerplate.some((phrase) => lower.includes(phrase))) flags.push('boilerplate');
  }
  const keywords = obj.keywords_synonyms;
  if (Array.isArray(keywords)) {
    // Distinct terms with content: ["", "--", "-"] or ["pump", "Pump", "PUMP"] is not three keywords.
    const distinct = new Set(keywords.filter((k): k is string => typeof k === 'string' && HAS_CONTENT_RE.test(k)).map((k) => k.trim().toLowerCase()));
    if (distinct.size < QUALITY_GATES.minKeywords) flags.push('few_keywords');
  }
  return flags;
}

export const retrievalSummary: ChunkViewKind = {
  name: 'retrieval_summary',
  reads: 'chunk',
  task: {
    article: 'a',
    // What each doc type should emphasise; the field names are the view's own keys.
    focus: {
      SOP: 'Say what the procedure or step is for, which holds, cautions and limits apply, and which checks, measurements and actions its steps call for: checks and measurements go in diagnostics, required actions in corrective_actions, limits and acceptance values in numbers_limits.',
      CR: 'Capture what happened (symptoms and outcomes), the equipment and conditions involved, the evidence and readings reported, and any immediate or corrective actions described.',
      WO: 'Capture the work performed, the as-found and as-left condition, the parts and tools used, test results, and measurements with their acceptance criteria.',
      ECA: "Capture the evidence, the analysis claims, the causal factors the evaluation states, and the recommended corrective or preventive actions, keeping the evaluation's own wording.",
      OTHER: 'Be extractive and conservative: record only what CHUNK_TEXT states and leave a list empty rather than guess.',
    },
    // What the validator will check, said up front so a first reply can pass.
    rules:
      `Your reply is checked: scope is one or two sentences (at least ${QUALITY_GATES.minScopeChars} characters) on what the chunk covers; ` +
      `keywords_synonyms holds at least ${QUALITY_GATES.minKeywords} distinct search terms; equipment ids and every number in numbers_limits ` +
      'are copied exactly as written in CHUNK_TEXT; a phrase in double quotes is copied exactly from CHUNK_TEXT.',
  },
  quality,
  feedback: {
    scope_too_short: () => `scope must say what the chunk covers in at least ${QUALITY_GATES.minScopeChars} characters`,
    few_keywords: () => `keywords_synonyms needs at least ${QUALITY_GATES.minKeywords} distinct terms`,
    boilerplate: () => 'scope must describe the chunk, not the assistant',
  },
  roles: {
    scope: 'summary',
    'entities.systems': 'entity',
    'entities.components': 'entity',
    'entities.equipment_ids': 'id',
    keywords_synonyms: 'free',
    unknowns: 'free',
  },
  polarity: ['scope', 'symptoms_outcomes', 'mechanisms', 'corrective_actions'],
  identifiers: ['entities.equipment_ids'],
  bounds: {
    chunk_id: ID,
    scope: { minLength: QUALITY_GATES.minScopeChars, maxLength: 400 },
    'entities.systems': list(6, 60),
    'entities.equipment_ids': list(10, 32),
    'entities.components': list(8, 60),
    symptoms_outcomes: list(6, 160),
    mechanisms: list(4, 120),
    diagnostics: list(6, 160),
    corrective_actions: list(6, 160),
    numbers_limits: list(8, 100),
    keywords_synonyms: list(10, 40, QUALITY_GATES.minKeywords),
    unknowns: list(4, 120),
    ...CITATIONS,
  },
  flatten: {
    separator: ', ',
    fields: [
      ['SCOPE', 'scope'],
      ['SYSTEMS', 'entities.systems'],
      ['EQUIPMENT', 'entities.equipment_ids'],
      ['COMPONENTS', 'entities.components'],
      ['SYMPTOMS/OUTCOMES', 'symptoms_outcomes'],
      ['MECHANISMS', 'mechanisms'],
      ['DIAGNOSTICS', 'diagnostics'],
      ['ACTIONS', 'corrective_actions'],
      ['NUMBERS/LIMITS', 'numbers_limits'],
      ['KEYWORDS', 'keywords_synonyms'],
    ],
  },
  extractive: true,
};
