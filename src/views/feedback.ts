// The note a retry prompt starts with: it names exactly what was wrong with the previous reply
// (a parse error or the validator's flags), so the model can fix that and nothing else. The
// flags of the checks every view gets are explained here; a view's own quality flags by its kind.
import { VIEW_KINDS } from './kinds/index.js';

export type ReplyProblem = { parseError: string } | { flags: readonly string[] };

// `source` names the text the reply must be grounded in, as the prompt names it (CHUNK_TEXT, SECTION_TEXT, ...).
const RULES: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray, source: string) => string]> = [
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
  [/^ungrounded_number:(\S+) in "(.+)"$/, (m, source) => `the number ${m[1]} in "${m[2]}" does not occur in ${source}`],
  [/^ungrounded_number:(.+)$/, (m, source) => `the number ${m[1]} does not occur in ${source}`],
  [/^ungrounded_id:(.+)$/, (m, source) => `the identifier ${m[1]} does not occur in ${source}`],
  [/^unsupported_item:(.+)$/, (m, source) => `${m[1]} says something no sentence of ${source} states; keep to what it says`],
  [/^wrong_unit:(.+)$/, (m, source) => `"${m[1]}" has a unit ${source} does not give that number; copy the value with its own unit`],
  [/^contradicted_comparator:(.+)$/, (m, source) => `"${m[1]}" turns round the limit ${source} states (above/below, at least/at most)`],
  [/^contradicted_copy:(.+)$/, (m, source) => nearCopyNote(m[1]!, source)],
  [/^negation_mismatch:(.+)$/, (m, source) => `"${m[1]}" reverses ${source}: it states what the text rules out, or denies what it states`],
  [/^ruled_out:(.+)$/, (m, source) => `${source} rules out "${m[1]}"; do not list it as a fact`],
  [/^novel_entity:(.+)$/, (m, source) => `"${m[1]}" is not named in ${source}; name only its systems and components`],
  [/^weak_grounding:(.+)$/, (_m, source) => `too few items are in the words of ${source}; copy facts as written`],
  [/^ungrounded_equipment_id:(.+)$/, (m, source) => `the equipment id ${m[1]} does not occur in ${source}`],
  [/^ungrounded_quote:(.+)$/, (m, source) => `the quoted phrase "${m[1]}" does not occur in ${source}`],
  [/^ungrounded_concept:(.+)$/, (m, source) => `the concept "${m[1]}" does not occur in ${source}; copy each concept exactly as written there`],
];

// The kinds' own flags, by name: a flag has one wording whichever view raised it.
const VIEW_FLAGS = new Map<string, (source: string) => string>();
for (const kind of Object.values(VIEW_KINDS)) {
  for (const [flag, say] of Object.entries(kind.feedback)) {
    if (VIEW_FLAGS.has(flag)) throw new Error(`two views explain the flag ${flag}`);
    VIEW_FLAGS.set(flag, say);
  }
}

export function feedbackFor(problem: ReplyProblem, source = 'CHUNK_TEXT'): string {
  if ('parseError' in problem) {
    return `Your previous reply could not be used: ${problem.parseError}. Reply with one JSON object shaped exactly like OUTPUT JSON, and nothing else.`;
  }
  const reasons = problem.flags.map((flag) => explain(flag, source));
  return `Your previous reply failed these checks: ${reasons.join('; ')}. Reply with the whole corrected JSON object, shaped exactly like OUTPUT JSON, and nothing else.`;
}

function explain(flag: string, source: string): string {
  const own = VIEW_FLAGS.get(flag);
  if (own !== undefined) return own(source);
  for (const [pattern, say] of RULES) {
    const m = pattern.exec(flag);
    if (m) return say(m, source);
  }
  return flag;
}

// "<words> in "<item>"": split by hand at the first ' in "' (a lazy group before a greedy one backtracks).
function nearCopyNote(value: string, source: string): string {
  const at = value.indexOf(' in "');
  const words = at < 0 ? value : value.slice(0, at);
  const item = at < 0 ? value : value.slice(at + 5, value.endsWith('"') ? -1 : undefined);
  return `"${item}" copies ${source} with "${words}" turned to its opposite (a negation, a direction, a limit or a state); copy it as written`;
}
