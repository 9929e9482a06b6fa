// The extractive baseline of the section_summary view, with no model: deterministic, and every
// part taken from the section's sources, so grounding holds by construction.
// - summary: the leading sentences (and table rows) of the section's own text, whole, while they
//   stay within 150 words; a summary still under 100 words takes the next sentence too, cut at a
//   word at 150 (and marked "…"). A shorter text is taken whole. With --bottom-up, the leading
//   sentences of the children's summaries fill what is left of the 150 words, every child's first
//   sentence before any child's second, so a heading with no text of its own is summarised from
//   all its subsections; a child whose first sentence is too long is heard by the first of its
//   sentences that fits. A table row is read as its cells ("VB-101A peak, 6.2, mils, Alarm
//   setpoint 5.0 mils."), a unit of its own; other units without end punctuation get a ";".
// - concepts: lexicon terms (the built-in lexicon tag uses) and identifiers (equipment ids,
//   failure-mode ids, alarm ids, document references) found in the sources, ranked by how often
//   they occur, then by first occurrence; at most 10. Action and event verbs ("inspect",
//   "replaced", "tripped") are poor concepts: they only fill a list that would otherwise hold
//   fewer than 5.
// The sources are those the validator grounds in: the text, the title, and the children's titles
// and summaries.
import type { SectionSummary } from '../contracts/sections.js';
import { extractPatterns } from '../tagging/extractors.js';
import { CONTEXT_OUTCOME_NOUNS, phraseSpecs } from '../tagging/gazetteer.js';
import { normaliseLabel, routeLabel, type LexiconEntry } from '../tagging/lexicon.js';
import { buildPhraseMatcher, TokenBuffer, type PhraseMatcher } from '../tagging/phrase-matcher.js';
import { SECTION_QUALITY } from './kinds/section-summary.js';
import { countWords } from './section-validate.js';
import { emptySectionSummary, type ChildSummary, type SectionInput } from './section-view.js';
import { cellsOf, splitUnits } from './extractive.js';

export const TARGET_SUMMARY_WORDS = 150;
const MIN_SUMMARY_WORDS = SECTION_QUALITY.targetWords.min;
const MAX_CONCEPTS = SECTION_QUALITY.targetConcepts.max;
const MIN_CONCEPTS = SECTION_QUALITY.targetConcepts.min;

// Lower ranks go first; a rank-2 term (a verb, or a generic check such as "inspection") is used
// only to reach MIN_CONCEPTS. Terms of labels tag does not route (materials, chemistry...) still
// win their span, as in the gazetteer, but are not concepts.
const CONCEPT_RANK = 1;
const FILL_RANK = 2;
const NOT_A_CONCEPT = -1;
const FILL_LABELS = new Set(['fail_type_v']);
// An event verb is an outcome only by its subject (gazetteer.ts EVENT_VERB), which a concept list
// does not read: "stopped" alone is no concept.
const NO_CONCEPT_LABELS = new Set(['event_v']);
const FILL_FIELDS = new Set(['maintenance_actions', 'surveillance_actions']);

// Likewise the outcome nouns the gazetteer reads in context ("alert" limit, "at initiation").
function rankOf(label: string, term: string): number {
  const field = routeLabel(label);
  if (field === null || NO_CONCEPT_LABELS.has(normaliseLabel(label)) || CONTEXT_OUTCOME_NOUNS.has(term.toLowerCase())) return NOT_A_CONCEPT;
  return FILL_FIELDS.has(field) || FILL_LABELS.has(normaliseLabel(label)) ? FILL_RANK : CONCEPT_RANK;
}
const WORD_RE = /\S+/g;
const WHITESPACE_RE = /\s+/g;

export interface ExtractiveSectionInput {
  section: SectionInput;
  /** The section's own text as the attempt uses it (cut by --max-chars). */
  text: string;
  children: readonly ChildSummary[];
}

/** Finds the concepts of a section; built once per run from the lexicon. */
export class ConceptFinder {
  private readonly matcher: PhraseMatcher<number>;
  private readonly tokens = new TokenBuffer();

  constructor(entries: readonly LexiconEntry[]) {
    // The gazetteer's phrases (long forms and acronyms included), each carrying its label's rank.
    this.matcher = buildPhraseMatcher(entries.flatMap((entry) => phraseSpecs([entry]).map(({ pluralPayload: _bare, ...spec }) => ({ ...spec, payload: rankOf(entry.label, entry.term) }))));
  }

  /** At most 10 concepts, most frequent first (ties: first seen), each a phrase of one of `sources`. */
  find(sources: readonly string[]): string[] {
    const candidates = new Map<string, Candidate>();
    let position = 0;
    const note = (surface: string, rank: number, at: number) => {
      const key = surface.replace(WHITESPACE_RE, ' ').toLowerCase();
      const seen = candidates.get(key);
      if (seen === undefined) candidates.set(key, { surface, rank, count: 1, first: at });
      else {
        seen.count++;
        seen.rank = Math.min(seen.rank, rank);
      }
    };
    for (const source of sources) {
      if (source.trim() === '') continue;
      this.matcher.scan(this.tokens.load(source), (start, _end, ranks, first, last) => {
        const rank = Math.min(...ranks.filter((r) => r !== NOT_A_CONCEPT));
        if (Number.isFinite(rank)) note(this.tokens.surface(first, last), rank, position + start);
      });
      const ids = extractPatterns(source);
      for (const id of [...ids.equipment_ids, ...ids.fm_ids, ...ids.alarm_ids, ...ids.doc_refs]) {
        for (let at = source.indexOf(id); at >= 0; at = source.indexOf(id, at + id.length)) note(id, CONCEPT_RANK, position + at);
      }
      position += source.length + 1;
    }
    const ranked = [...candidates.values()].sort((a, b) => a.rank - b.rank || b.count - a.count || a.first - b.first);
    const primary = ranked.filter((c) => c.rank === CONCEPT_RANK).slice(0, MAX_CONCEPTS);
    const fill = primary.length >= MIN_CONCEPTS ? [] : ranked.filter((c) => c.rank === FILL_RANK).slice(0, MIN_CONCEPTS - primary.length);
    return [...primary, ...fill].map((c) => c.surface);
  }
}

interface Candidate {
  surface: string;
  rank: number;
  count: number;
  first: number;
}

export function extractiveSectionSummary(input: ExtractiveSectionInput, finder: ConceptFinder): SectionSummary {
  const { section, text, children } = input;
  const view = emptySectionSummary(section);
  // A sentence two chunks share (a paragraph chunk repeating its section, a table parsed twice) is said once.
  const said = new RepeatFilter();
  const own = leadingSentences(unitTexts(text), said);
  const fromChildren = childSentences(children.map((c) => unitTexts(c.summary).filter((u) => said.first(u))), own.words);
  view.summary = [...own.parts, ...fromChildren].join(' ').replace(WHITESPACE_RE, ' ').trim();
  view.concepts = finder.find([text, section.title, ...children.flatMap((c) => [c.title, c.summary])]);
  return view;
}

// Table rows and headings carry no end punctuation: one is added so that joined units stay apart.
const UNIT_END_RE = /[.!?:;…]["'\u201d\u2019)\]]*$/u;

/**
 * The text's sentences and rows, each once (a table repeated by the parser is not repeated here).
 * A row is read as its cells, joined with commas and ended with a period: a unit of its own,
 * with no table pipes, so a summary holding it splits back into the same units.
 */
function unitTexts(text: string): string[] {
  const units = splitUnits(text)
    .filter((u) => u.kind !== 'header')
    .map((u) => (u.kind === 'row' ? rowSentence(u.text) : UNIT_END_RE.test(u.text) ? u.text : `${u.text};`));
  return [...new Set(units.filter((u) => u !== ''))];
}

function rowSentence(row: string): string {
  const cells = cellsOf(row).map(withoutEndStop).filter((c) => c !== '');
  return cells.length === 0 ? '' : `${cells.join(', ')}.`;
}

/** A cell without the period or semicolon it ends with: the row's own period ends the unit. */
function withoutEndStop(cell: string): string {
  let end = cell.length;
  while (end > 0 && (cell[end - 1] === '.' || cell[end - 1] === ';')) end--;
  return cell.slice(0, end).trimEnd();
}

const REPEAT_SHARE = 0.8;
const MIN_REPEAT_WORDS = 4;
// Near repeats are looked for among the last units said only, so a section of many children stays linear.
const NEAR_REPEAT_WINDOW = 64;

/**
 * Remembers the units said so far; `first` is false for a unit that repeats one of them: the same
 * words whatever the punctuation and table pipes, or, for units of 4 words or more, 80% of the
 * shorter's words in the longer ("… condition. Maintenance | |" and "… condition | Maintenance |").
 */
class RepeatFilter {
  private readonly said: Array<Set<string>> = [];
  private readonly keys = new Set<string>();

  first(unit: string): boolean {
    const words = unit.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const key = words.join(' ');
    if (this.keys.has(key)) return false;
    const set = new Set(words);
    if (set.size >= MIN_REPEAT_WORDS) {
      for (let k = Math.max(0, this.said.length - NEAR_REPEAT_WINDOW); k < this.said.length; k++) {
        const other = this.said[k]!;
        const [small, large] = set.size <= other.size ? [set, other] : [other, set];
        if (small.size < MIN_REPEAT_WORDS) continue;
        let shared = 0;
        for (const w of small) if (large.has(w)) shared++;
        if (shared >= REPEAT_SHARE * small.size) return false;
      }
    }
    this.keys.add(key);
    this.said.push(set);
    return true;
  }
}

/** Whole leading sentences within TARGET_SUMMARY_WORDS; under MIN_SUMMARY_WORDS, the next one too, cut at a word. */
function leadingSentences(sentences: readonly string[], said: RepeatFilter): { parts: string[]; words: number } {
  const parts: string[] = [];
  let words = 0;
  for (const sentence of sentences) {
    if (!said.first(sentence)) continue;
    const n = countWords(sentence);
    if (words + n <= TARGET_SUMMARY_WORDS) {
      parts.push(sentence);
      words += n;
      continue;
    }
    if (words < MIN_SUMMARY_WORDS) {
      parts.push(`${leadingWords(sentence, TARGET_SUMMARY_WORDS - words)} …`);
      words = TARGET_SUMMARY_WORDS;
    }
    break;
  }
  return { parts, words };
}

/**
 * What the children's summaries add after `ownWords` words of the section's own text. Sentences
 * are chosen round by round (every child's first sentence, then every second one...) while they
 * fit in the budget, so every child is heard before any says more; they are written child by
 * child, in order. A child whose first sentence does not fit is heard by the first of its
 * sentences that does (a long table row must not silence its section); a child that has spoken
 * says no more once its next sentence does not fit, so what it says stays a leading run. A
 * summary still under MIN_SUMMARY_WORDS takes the next sentence cut at a word.
 */
function childSentences(lists: readonly string[][], ownWords: number): string[] {
  const budget = TARGET_SUMMARY_WORDS - ownWords;
  const picked: number[][] = lists.map(() => []);
  const next = lists.map(() => 0);
  const open = lists.map((list) => list.length > 0);
  let used = 0;
  for (let progress = true; progress; ) {
    progress = false;
    lists.forEach((list, i) => {
      if (!open[i]) return;
      let at = next[i]!;
      if (picked[i]!.length === 0) while (at < list.length && used + countWords(list[at]!) > budget) at++;
      const sentence = list[at];
      if (sentence === undefined || used + countWords(sentence) > budget) {
        open[i] = false;
        return;
      }
      picked[i]!.push(at);
      next[i] = at + 1;
      used += countWords(sentence);
      progress = true;
    });
  }
  const parts = lists.map((list, i) => picked[i]!.map((k) => list[k]!));
  if (ownWords + used < MIN_SUMMARY_WORDS) {
    const more = lists.findIndex((list, i) => next[i]! < list.length);
    if (more >= 0) parts[more]!.push(`${leadingWords(lists[more]![next[more]!]!, budget - used)} …`);
  }
  return parts.flat();
}

/** The first `n` whitespace-separated tokens of a text, as written. */
function leadingWords(text: string, n: number): string {
  let end = 0;
  let count = 0;
  for (const m of text.matchAll(WORD_RE)) {
    if (count === n) break;
    end = m.index + m[0].length;
    count++;
  }
  return text.slice(0, end);
}
