import { parseCsvRecords } from './lexicon.js';
import type { ScopeIndex } from './negation.js';
import { buildPhraseLists, TokenBuffer, type PhraseList, type PhraseListsMatcher } from './phrase-matcher.js';

export interface KeywordSpans {
  temporal_relations: { text: string; sub_label: string }[];
  temporal_qualifiers: string[];
  locations: { text: string; sub_label: string }[];
  conjectures: string[];
}

export interface KeywordLists {
  match(text: string): KeywordSpans;
  /** The same for a text already tokenized (the tag stage shares one TokenBuffer per record). */
  /** With `negation`, a match inside a negation cue ("consistent with" in "not consistent with") is dropped. */
  matchTokens(tokens: TokenBuffer, negation?: ScopeIndex | null): KeywordSpans;
  /** The four lists (relations, qualifiers, locations, conjectures), to share one matcher with others. */
  readonly phraseLists: readonly PhraseList<string>[];
  /** matchTokens in parts: the handler for the matches of `phraseLists` (list = index), then the spans. */
  begin(tokens: TokenBuffer, negation?: ScopeIndex | null): KeywordScan;
}

/** One scan of the keyword lists: their matches, list by list in text order, then the spans. */
export interface KeywordScan {
  onMatch(list: number, start: number, end: number, subLabels: readonly string[], first: number, last: number): void;
  finish(): KeywordSpans;
}

interface KeywordTerm {
  term: string;
  subLabel: string;
}

/** Columns of a keyword list: the first row names them (the sub_labels), each cell below is a term. */
function parseColumns(text: string, sourceName: string): KeywordTerm[] {
  const [header, ...rows] = parseCsvRecords(text, sourceName);
  if (header === undefined) return [];
  const subLabels = header.cells.map((cell) => cell.trim());
  const terms: KeywordTerm[] = [];
  for (const row of rows) {
    for (const [k, cell] of row.cells.entries()) {
      const term = cell.trim();
      if (term === '') continue;
      const subLabel = subLabels[k] ?? '';
      if (subLabel === '') throw new Error(`${sourceName}:${row.line}: term ${JSON.stringify(term)} in column ${k + 1}, which has no header`);
      terms.push({ term, subLabel });
    }
  }
  return terms;
}

// The reference hedge list has no header row; ours names its one column. Any other first cell is a term.
const CONJECTURE_HEADERS = new Set(['hedge', 'hedges', 'conjecture', 'conjectures']);

function parseConjectures(text: string, sourceName: string): string[] {
  const records = parseCsvRecords(text, sourceName);
  const first = records[0];
  if (first !== undefined && first.cells.length === 1 && CONJECTURE_HEADERS.has((first.cells[0] ?? '').trim().toLowerCase())) {
    records.shift();
  }
  const terms: string[] = [];
  for (const record of records) {
    for (const cell of record.cells) {
      if (cell.trim() !== '') terms.push(cell.trim());
    }
  }
  return terms;
}

// The shipped lists (data/keywords/) keep the reference column layout. Their relation columns:
// `order` marks a later event (after, then, subsequently), `reverse-order` points back (before,
// prior to, previously), `concurrency-coincidence` marks overlap (during, while, concurrent with).

// Qualifiers that compare or approximate ("within", "more than", "estimated") qualify a time only
// when one follows: "within 2 minutes", not "within normal range" or "less than 10 ppb".
const NEEDS_TIME = new Set([
  'approximately', 'approx.', 'approx', 'about', 'near', 'around', 'roughly', 'nearly', 'almost', 'circa', 'close to', 'more or less',
  'plus or minus', 'on the order of', 'in the range of', 'an estimated', 'estimated', 'nominally', '~', 'within', 'up to',
  'at least', 'at most', 'no more than', 'no less than', 'more than', 'less than', 'for about', 'for approximately', 'over a period of',
]);
// Built on the first qualifier that needs it: a case-insensitive Unicode-aware regex costs a
// fraction of a millisecond to parse.
let timeAfterRe: RegExp | undefined;
const timeAfterRegex = (): RegExp =>
  (timeAfterRe ??=
    /^[ \t]*(?:(?:the|a|an|few|several|next|last|past|first|one|two|three|\d[\d.,]*(?:[ \t]*(?:to|-|\u2013)[ \t]*\d[\d.,]*)?)[ \t]+){0,3}(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|shifts?|cycles?|outages?)(?![\p{L}])|^[ \t]*\d{1,2}:\d{2}/iu);
// Directions that also compare a value: "above 20 ppb", "23 times above the normal limit", "Near
// lower bound of typical range" state a threshold, not a place.
const COMPARATIVE_PLACES = new Set(['above', 'below', 'upper', 'lower', 'near', 'over', 'under', 'higher than', 'lower than', 'elevated above', 'beneath', 'underneath', 'close to']);
const THRESHOLD_AFTER_RE =
  /^[ \t]*(?:(?:the|its|their|a|an|normal|typical|expected|nominal|rated|design|lower|upper|acceptable|allowable)[ \t]+){0,3}(?:[-+\u2212]?\.?\d|limits?\b|bounds?\b|ranges?\b|setpoints?\b|set points?\b|baselines?\b|thresholds?\b|criteri(?:a|on)\b|normal\b|typical\b|nominal\b|values?\b|levels?\b|targets?\b|expected\b)/i;
const LOOKAHEAD_CHARS = 48;

// Indexes of the four lists in the shared matcher.
const RELATIONS = 0;
const QUALIFIERS = 1;
const LOCATIONS = 2;
const CONJECTURES = 3;

/** The word before `start` (letters only, lowercased; '' when none), read back over blanks and at most 24 characters. */
function wordBefore(text: string, start: number): string {
  let end = start;
  while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\t' || text[end - 1] === '\n')) end--;
  let begin = end;
  while (begin > 0 && end - begin < 24 && /[A-Za-z]/.test(text[begin - 1]!)) begin--;
  return text.slice(begin, end).toLowerCase();
}

// Words that are a list's term only in some uses, by the grammar around them:
// - "the following information", "not following the procedure": a determiner or a verb, not the
//   temporal relation of "following the trip";
// - "May 8, 2019": the month, not the hedge;
// - "responded as expected", "the expected actuation", "It is expected that recipients will
//   review", the step tables' "ACTION/EXPECTED RESPONSE": a fact, a request or a heading, not a hedge.
function notTheTerm(list: number, key: string, surface: string, text: string, start: number, end: number): boolean {
  if (list === LOCATIONS) return notAPlace(key, text, start, end);
  if (list === RELATIONS && key === 'following') {
    const before = wordBefore(text, start);
    return before === 'the' || before === 'not';
  }
  if (list !== CONJECTURES) return false;
  if (key === 'may') return surface === 'May' && /^[ \t]+\d/.test(text.slice(end, end + 4));
  if (key === 'expected') {
    if (surface === 'EXPECTED') return true;
    const before = wordBefore(text, start);
    if (before === 'as' || before === 'the') return true;
    return before === 'is' && wordBefore(text, start - 3).endsWith('it') && /^[ \t\n]+that\b/.test(text.slice(end, end + 8));
  }
  return false;
}

/** Where the word after `end` ends, read over blanks and one line break (letters only; at most 24). */
function wordAfterEnd(text: string, end: number): [start: number, stop: number] {
  let begin = end;
  while (begin < text.length && begin - end < 8 && (text[begin] === ' ' || text[begin] === '\t' || text[begin] === '\n')) begin++;
  let stop = begin;
  while (stop < text.length && stop - begin < 24 && /[A-Za-z]/.test(text[stop]!)) stop++;
  return [begin, stop];
}

/** The word after `end`, lowercased; '' when a digit or a mark comes first. */
function wordAfter(text: string, end: number): string {
  const [begin, stop] = wordAfterEnd(text, end);
  return text.slice(begin, stop).toLowerCase();
}

// "listed below", "the above", "please sign below,", "the address above (": the document's own
// layout, not a place.
const LAYOUT_WORDS = new Set(['the', 'listed', 'shown', 'described', 'mentioned', 'noted', 'given', 'sign', 'stated', 'discussed', 'provided', 'see', 'outlined', 'identified', 'referenced', 'indicated']);
const LAYOUT_AFTER = new Set(['mentioned', 'listed', 'referenced', 'noted', 'are', 'is']);
// What only a place follows "under" with: an article or a determiner ("under the vessel"); "under
// ASME Section XI", "under low flow conditions", "under certain accident sequences" are a rule or
// a condition.
const DETERMINERS = new Set(['the', 'a', 'an', 'each', 'this', 'that', 'these', 'those', 'its', 'their']);
const MONTHS = new Set(['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december', 'late', 'early', 'mid']);

/**
 * Location words in their other uses: the text's own layout ("listed below"), a rule or condition
 * ("under 10 CFR 50.59", "outside design basis"), a time or a range ("between late November and ...",
 * "between 1150 and 1200 psig").
 */
function notAPlace(key: string, text: string, start: number, end: number): boolean {
  if (key === 'above' || key === 'below') {
    const after = wordAfter(text, end);
    return LAYOUT_WORDS.has(wordBefore(text, start)) || after === '' || LAYOUT_AFTER.has(after);
  }
  if (key === 'under') return !DETERMINERS.has(wordAfter(text, end));
  if (key === 'outside') {
    const [begin, stop] = wordAfterEnd(text, end);
    const after = text.slice(begin, stop).toLowerCase();
    return after === 'design' || (after === 'the' && wordAfter(text, stop) === 'design');
  }
  if (key === 'between') return MONTHS.has(wordAfter(text, end)) || /^[ \t]*\d/.test(text.slice(end, end + 4));
  return false;
}

/** A hedge that opens a negated scope ("is NOT expected") is part of the negation, not a conjecture. */
function opensScope(negation: ScopeIndex, text: string, start: number, end: number): boolean {
  const scope = negation.scopeOf(start, end);
  return scope !== null && text.slice(scope.start, start).trim() === '';
}

/** Each list is matched on its own (longest-first within the list), so one span may be both, e.g., a qualifier and a location. */
export function buildKeywordLists(files: { temporalQualifiers: string; temporalRelations: string; locations: string; conjectures: string }): KeywordLists {
  // A term listed under two columns keeps the first column's sub_label ('keep-first'), so each
  // surface gets exactly one sub_label. Unlabelled lists carry '' as payload.
  const labelled = (terms: readonly KeywordTerm[]): PhraseList<string> => ({
    specs: terms.map(({ term, subLabel }) => ({ phrase: term, payload: subLabel })),
    onDuplicate: 'keep-first',
  });
  const plain = (terms: readonly string[]): PhraseList<string> => ({
    specs: terms.map((term) => ({ phrase: term, payload: '' })),
    onDuplicate: 'keep-first',
  });
  const lists: PhraseList<string>[] = [];
  lists[RELATIONS] = labelled(parseColumns(files.temporalRelations, 'temporal_relations'));
  lists[QUALIFIERS] = plain(parseColumns(files.temporalQualifiers, 'temporal_qualifiers').map(({ term }) => term));
  lists[LOCATIONS] = labelled(parseColumns(files.locations, 'locations'));
  lists[CONJECTURES] = plain(parseConjectures(files.conjectures, 'conjectures'));
  // One pass over the tokens serves all four lists (built on first use: the tag stage scans these
  // lists in the matcher it shares with the gazetteer).
  let matcher: PhraseListsMatcher<string> | null = null;
  const ownTokens = new TokenBuffer();

  function begin(tokens: TokenBuffer, negation: ScopeIndex | null = null): KeywordScan {
    const spans: KeywordSpans = { temporal_relations: [], temporal_qualifiers: [], locations: [], conjectures: [] };
    // First-seen order, one item per list, case-insensitive surface and sub_label (unlabelled
    // lists carry ''): per list, lowercased surface -> sub_labels kept. Keyed by the surface alone
    // so no key string is built per match.
    const seen: (Map<string, string[]> | null)[] = [null, null, null, null];
    const onMatch = (list: number, start: number, end: number, subLabels: readonly string[], first: number, last: number): void => {
      if (negation !== null && (negation.inCue(start, end) || (list === CONJECTURES && (negation.inLabel(start, end) || opensScope(negation, tokens.text, start, end))))) return;
      const surface = tokens.surface(first, last);
      const key = surface.toLowerCase();
      if (notTheTerm(list, key, surface, tokens.text, start, end)) return;
      if (list === QUALIFIERS && NEEDS_TIME.has(key) && !timeAfterRegex().test(tokens.text.slice(end, end + LOOKAHEAD_CHARS))) return;
      if (list === LOCATIONS && COMPARATIVE_PLACES.has(key) && THRESHOLD_AFTER_RE.test(tokens.text.slice(end, end + LOOKAHEAD_CHARS))) return;
      const subLabel = subLabels[0] ?? '';
      const listSeen = (seen[list] ??= new Map());
      const kept = listSeen.get(key);
      if (kept === undefined) listSeen.set(key, [subLabel]);
      else if (kept.includes(subLabel)) return;
      else kept.push(subLabel);
      if (list === RELATIONS) spans.temporal_relations.push({ text: surface, sub_label: subLabel });
      else if (list === QUALIFIERS) spans.temporal_qualifiers.push(surface);
      else if (list === LOCATIONS) spans.locations.push({ text: surface, sub_label: subLabel });
      else spans.conjectures.push(surface);
    };
    return { onMatch, finish: () => spans };
  }

  return {
    phraseLists: lists,
    begin,
    match(text: string): KeywordSpans {
      return this.matchTokens(ownTokens.load(text));
    },
    matchTokens(tokens: TokenBuffer, negation: ScopeIndex | null = null): KeywordSpans {
      const scan = begin(tokens, negation);
      (matcher ??= buildPhraseLists(lists)).scan(tokens, scan.onMatch);
      return scan.finish();
    },
  };
}
