// The note a retry prompt starts with: it names exactly what was wrong with the previous reply
// (a parse error or the validator's flags), so the model can fix that and nothing else.
import { QUALITY_GATES } from './validate-view.js';

export type ReplyProblem = { parseError: string } | { flags: readonly string[] };

const RULES: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => string]> = [
  [/^view_not_object$/, () => 'the reply must be one JSON object'],
  [/^bad_(.+)$/, (m) => `${m[1]} must be exactly as in OUTPUT JSON`],
  [/^missing_(.+)$/, (m) => `key "${m[1]}" is missing`],
  [/^(.+)_wrong_type$/, (m) => `${m[1]} has the wrong type`],
  [/^(.+)_missing_or_not_list$/, (m) => `${m[1]} must be a list of strings`],
  [/^(.+)_not_list$/, (m) => `${m[1]} must be a list of strings`],
  [/^(.+)_not_str$/, (m) => `${m[1]} must be a string`],
  [/^(.+)_not_object$/, (m) => `${m[1]} must be an object`],
  [/^(.+)_missing$/, (m) => `${m[1]} is missing`],
  [/^(.+)_item_not_string$/, (m) => `${m[1]} must hold only strings`],
  [/^(.+)_item_blank$/, (m) => `${m[1]} holds items with no letter or digit`],
  [/^(.+)_item_duplicate$/, (m) => `${m[1]} repeats an item; list each item once`],
  [/^(.+)_item_stringified$/, (m) => `${m[1]} holds lists or objects written as strings; write each item as plain text`],
  [/^unexpected_key_(.+)$/, (m) => `remove key "${m[1]}", which is not in OUTPUT JSON`],
  [/^scope_too_short$/, () => `scope must say what the chunk covers in at least ${QUALITY_GATES.minScopeChars} characters`],
  [/^few_keywords$/, () => `keywords_synonyms needs at least ${QUALITY_GATES.minKeywords} distinct terms`],
  [/^boilerplate$/, () => 'scope must describe the chunk, not the assistant'],
  [/^empty_frame$/, () => 'every list is empty; put at least one fact stated in CHUNK_TEXT in observed'],
  [/^ungrounded_number:(.+)$/, (m) => `the number ${m[1]} does not occur in CHUNK_TEXT`],
  [/^ungrounded_equipment_id:(.+)$/, (m) => `the equipment id ${m[1]} does not occur in CHUNK_TEXT`],
  [/^ungrounded_quote:(.+)$/, (m) => `the quoted phrase "${m[1]}" does not occur in CHUNK_TEXT`],
];

export function feedbackFor(problem: ReplyProblem): string {
  if ('parseError' in problem) {
    return `Your previous reply could not be used: ${problem.parseError}. Reply with one JSON object shaped exactly like OUTPUT JSON, and nothing else.`;
  }
  const reasons = problem.flags.map(explain);
  return `Your previous reply failed these checks: ${reasons.join('; ')}. Reply with the whole corrected JSON object, shaped exactly like OUTPUT JSON, and nothing else.`;
}

function explain(flag: string): string {
  for (const [pattern, say] of RULES) {
    const m = pattern.exec(flag);
    if (m) return say(m);
  }
  return flag;
}
