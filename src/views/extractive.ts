// The extractive baseline: fills both views from the chunk text and its NER seed, with no model.
// Deterministic, so it is the embedded default for trying the toolkit without a server and the
// baseline that model output is compared with. It never stands in for a failed model call: its
// provenance always says backend "extractive".
//
// The text is read as a reader sees it (tagging/layout.ts): hard-wrapped lines joined into
// paragraphs and end-of-line hyphenation undone, and lines that are no prose (form fields,
// checkboxes, table borders, headings, reference lines, page headers and footers, addresses and
// signatures) left out, so that none becomes an item. Every list item is then a trimmed substring
// of that reader's text (a sentence, a table row or a seed term as written); an item cut at the
// length bound ends on a whole word and "…". Only `unknowns` holds fixed notes, and `scope` is
// leading prose with its whitespace collapsed. Nothing is invented: a chunk too poor for three
// keywords gets fewer, and the validator says so.
import type { ChunkContext, NerSeed } from '../contracts/chunk.js';
import type { RcaFrame, RetrievalSummary, View } from '../contracts/views.js';
import { negationScopes, type NegationScope } from '../tagging/negation.js';
import { collapseWhitespace } from '../tagging/spacing.js';
import { ACTION_VERBS, readingOf, readsAsProse, type Reading } from '../tagging/layout.js';
import { GroundingText, numbersIn } from './grounding.js';
import { isFormText } from './form-text.js';
import type { ExtractiveInput } from './kinds/kind.js';
import { QUALITY_GATES } from './kinds/retrieval-summary.js';
import { emptyView } from './view-skeleton.js';
import { literalPattern } from '../runtime/patterns.js';
import type { ViewType } from '../contracts/vocabulary.js';

export const EXTRACTIVE_BACKEND = 'extractive';
/** Names the rules in provenance; bump when the output for a given input changes. */
export const EXTRACTIVE_MODEL = 'rca-extractive/4';


/** Items per list: a view is a compact index of the chunk, not a copy of it. */
export const MAX_ITEMS = 8;
export const MAX_ITEM_CHARS = 300;
const MAX_SCOPE_CHARS = 300;
const MIN_KEYWORDS = QUALITY_GATES.minKeywords;
// Leading sentences are added to the scope until it says this much (one short sentence rarely does).
const SCOPE_TARGET_CHARS = 60;

/** The builder of each chunk view whose kind says `extractive: true` (test/views/kinds.test.ts holds the two to agree). */
export const EXTRACTIVE_BUILDERS: Partial<Record<ViewType, (input: ExtractiveInput) => View>> = {
  retrieval_summary: (input) => {
    const read = readInput(input);
    return retrievalSummary(input, read.reading, read.kept);
  },
  rca_frame: (input) => rcaFrame(input.context, classifiedUnits(input)),
};

export function extractiveView(view: 'retrieval_summary', input: ExtractiveInput): RetrievalSummary;
export function extractiveView(view: 'rca_frame', input: ExtractiveInput): RcaFrame;
export function extractiveView(view: ViewType, input: ExtractiveInput): View;
export function extractiveView(view: ViewType, input: ExtractiveInput): View {
  const build = EXTRACTIVE_BUILDERS[view];
  if (build === undefined) throw new Error(`no extractive rules for ${view}`);
  return build(input);
}

// Only the units a view can still use are kept (see NeededUnits): memory stays bounded by the
// item caps, not by the length of the text. A reference line ("Related evaluation:
// ECA-2026-0007") is no fact, action or scope: its ids are keywords, and it goes nowhere.
function classifiedUnits(input: ExtractiveInput): Classified[] {
  return readInput(input).kept;
}

/** The input's reader's text and the units the views can use: the same for every view of the input, made once. */
function readInput(input: ExtractiveInput): ReadInput {
  const { text } = input;
  const role = input.context.section_role;
  const known = classifiedOf.get(input);
  if (known !== undefined && known.text === text && known.role === role) return known;
  const reading = readingOf(text);
  const needed = new NeededUnits(reading.text, role);
  eachUnit(reading, needed);
  const read = { text, role, reading: reading.text, kept: needed.kept };
  classifiedOf.set(input, read);
  return read;
}

interface ReadInput {
  text: string;
  role: string;
  /** The reader's text: what units, items and seed terms are read from. */
  reading: string;
  kept: Classified[];
}
const classifiedOf = new WeakMap<ExtractiveInput, ReadInput>();

interface Classified {
  unit: TextUnit;
  classes: UnitClasses;
  /** The unit as an item (cut to MAX_ITEM_CHARS) and its dedupe key: made once, on first use. */
  item?: string;
  key?: string;
}

function itemOf(c: Classified): string {
  return (c.item ??= cutAtWord(c.unit.text, MAX_ITEM_CHARS));
}

function keyOf(c: Classified): string {
  return (c.key ??= itemKey(itemOf(c)));
}

// The groups whose units become items (items() of a filter by field, in the two views): each
// frame field, and the units already taken (observed, and corrective actions too).
const ITEM_CLASSES = ['observed', 'hypothesis', 'test', 'action', 'constraint', 'taken'] as const;

/**
 * The units of a chunk that can change a view, in text order, as they are split: the first unit
 * and the run from the first sentence that scopeOf reads, and for each item class the first
 * unit of each distinct item until the class has MAX_ITEMS of them (items() dedupes and stops
 * there, so the rest cannot change it). The views come out the same as from every unit.
 */
class NeededUnits {
  readonly kept: Classified[] = [];
  private readonly distinct = new Map<string, Set<string>>(ITEM_CLASSES.map((c) => [c, new Set<string>()]));
  private scope: 'before' | 'after-first-sentence' | 'done' = 'before';
  private scopeStart = 0;

  constructor(
    private readonly text: string,
    private readonly sectionRole: string,
  ) {}

  push(unit: TextUnit): void {
    if (unit.kind === 'header') return;
    const classes = classifyUnit(unit, this.sectionRole);
    if (classes.field === null) return;
    // forScope first: it follows every unit, the first one included.
    let keep = this.forScope(unit) || this.kept.length === 0;
    const classified: Classified = { unit, classes };
    // A unit is an item of its one field; one already taken is also a corrective action.
    for (const name of classes.taken && classes.field === 'observed' ? [classes.field, 'taken' as const] : [classes.field]) {
      const seen = this.distinct.get(name)!;
      if (seen.size >= MAX_ITEMS) continue;
      const key = keyOf(classified);
      if (seen.has(key)) continue;
      seen.add(key);
      keep = true;
    }
    if (keep) this.kept.push(classified);
  }


  // The first sentence and the units after it while scopeOf may still extend the scope over them.
  private forScope(unit: TextUnit): boolean {
    if (this.scope === 'done') return false;
    if (this.scope === 'before') {
      if (unit.kind !== 'sentence') return false;
      this.scope = 'after-first-sentence';
      this.scopeStart = unit.start;
      return true;
    }
    if (unit.kind !== 'sentence' || collapse(this.text.slice(this.scopeStart, unit.start + unit.text.length)).length > MAX_SCOPE_CHARS) this.scope = 'done';
    return true;
  }
}

function retrievalSummary(input: ExtractiveInput, text: string, classified: Classified[]): RetrievalSummary {
  const { context, nerSeed: seed } = input;
  const terms = new SeedTerms(text);
  const view = emptyView('retrieval_summary', context) as RetrievalSummary;
  view.scope = scopeOf(text, classified.map((c) => c.unit));
  view.entities.systems = terms.phrases(seed.systems);
  view.entities.equipment_ids = terms.identifiers(seed.equipment_ids);
  view.entities.components = terms.phrases(seed.components);
  // What the text rules out is never a symptom or a mechanism, whoever wrote the seed.
  view.symptoms_outcomes = terms.stated(seed.outcomes, ruledOut(seed, 'outcomes'));
  view.mechanisms = terms.stated(seed.mechanisms, ruledOut(seed, 'mechanisms'));
  // Each unit in one list: a check is a diagnostic; an action, planned or already taken, a corrective action.
  view.diagnostics = items(classified.filter((c) => c.classes.field === 'test'));
  view.corrective_actions = items(classified.filter((c) => c.classes.field === 'action' || (c.classes.taken && c.classes.field === 'observed')));
  view.numbers_limits = terms.measurements(seed.measurements.map((m) => m.text));
  const primary = dedupe(
    [
      view.entities.equipment_ids,
      view.entities.systems,
      view.entities.components,
      view.mechanisms,
      view.symptoms_outcomes,
      terms.identifiers(seed.fm_ids),
      terms.identifiers(seed.alarm_ids),
      terms.phrases(seed.properties),
      terms.phrases(seed.tools),
      terms.identifiers(seed.doc_refs),
    ].flat(),
  );
  // Generic verbs ("inspect", "test") make poor search terms: used only to reach the minimum.
  view.keywords_synonyms =
    primary.length >= MIN_KEYWORDS ? primary : dedupe([...primary, ...terms.phrases(seed.maintenance_actions), ...terms.phrases(seed.surveillance_actions)]).slice(0, MIN_KEYWORDS);
  view.unknowns = unknownNotes(view);
  return view;
}

function rcaFrame(context: ChunkContext, classified: Classified[]): RcaFrame {
  const view = emptyView('rca_frame', context) as RcaFrame;
  // Each unit goes to its one best field; an action already taken is observed, not a candidate.
  const field = (name: FrameField) => items(classified.filter((c) => c.classes.field === name));
  view.observed = field('observed');
  view.hypotheses = field('hypothesis');
  view.tests_to_confirm = field('test');
  view.candidate_actions = field('action');
  view.constraints = field('constraint');
  return view;
}

// The one free-text list: fixed phrases, so baseline views compare byte for byte.
export const UNKNOWN_NOTES = {
  scope: 'chunk has no text',
  entities: 'no system, equipment or component named',
  symptoms_outcomes: 'no symptom or outcome stated',
  mechanisms: 'no mechanism stated',
  diagnostics: 'no check, test or measurement described',
  corrective_actions: 'no action stated',
  numbers_limits: 'no value or limit stated',
  keywords_synonyms: 'no search terms found',
} as const satisfies Partial<Record<keyof RetrievalSummary, string>>;

function unknownNotes(view: RetrievalSummary): string[] {
  const notes: string[] = [];
  if (view.scope === '') notes.push(UNKNOWN_NOTES.scope);
  if (Object.values(view.entities).every((list) => list.length === 0)) notes.push(UNKNOWN_NOTES.entities);
  for (const key of ['symptoms_outcomes', 'mechanisms', 'diagnostics', 'corrective_actions', 'numbers_limits', 'keywords_synonyms'] as const) {
    if (view[key].length === 0) notes.push(UNKNOWN_NOTES[key]);
  }
  return notes;
}

/** dedupe() of the units' items, by the keys the units keep. */
function items(selected: Classified[]): string[] {
  return firstSeen(selected, keyOf, itemOf);
}

/** What makes two items the same for dedupe: case and spacing do not count. */
function itemKey(value: string): string {
  return collapseWhitespace(value).toLowerCase();
}

/** First-seen order, case- and spacing-insensitive, capped. */
/** The non-empty cells of a table row's text ("VB-101A peak | 6.2 | mils" → three cells), trimmed. */
export function cellsOf(row: string): string[] {
  return row.split('|').map((c) => c.trim()).filter((c) => c !== '');
}

function dedupe(values: string[]): string[] {
  return firstSeen(values, itemKey, (value) => value);
}

/** The items of the values in first-seen order of their keys, at most MAX_ITEMS. */
function firstSeen<T>(values: readonly T[], keyOf: (value: T) => string, itemOf: (value: T) => string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const value of values) {
    const key = keyOf(value);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(itemOf(value));
    if (out.length === MAX_ITEMS) break;
  }
  return out;
}

/** The leading prose of the chunk (its first table row when there is no prose), whitespace collapsed. */
function scopeOf(text: string, units: TextUnit[]): string {
  const first = units.find((u) => u.kind === 'sentence') ?? units[0];
  if (first === undefined) return '';
  let end = first.start + first.text.length;
  // Rows are not joined: the text between them holds pipes and "Row N:" labels.
  if (first.kind === 'sentence') {
    // Only the sentences that follow it directly: the scope stays one stretch of the text.
    for (let i = units.indexOf(first) + 1; i < units.length; i++) {
      const next = units[i]!;
      if (next.kind !== 'sentence' || collapse(text.slice(first.start, end)).length >= SCOPE_TARGET_CHARS) break;
      const extended = next.start + next.text.length;
      if (collapse(text.slice(first.start, extended)).length > MAX_SCOPE_CHARS) break;
      end = extended;
    }
  }
  return cutAtWord(collapse(text.slice(first.start, end)), MAX_SCOPE_CHARS);
}

function collapse(value: string): string {
  return collapseWhitespace(value).trim();
}

/** At most `max` characters: the value, or its leading words (no word or number split) and "…". */
export function cutAtWord(value: string, max: number): string {
  if (value.length <= max) return value;
  const room = max - ELLIPSIS.length;
  const space = value.lastIndexOf(' ', room);
  if (space > 0) return `${value.slice(0, space).trimEnd()}${ELLIPSIS}`;
  const code = value.charCodeAt(room - 1);
  return `${value.slice(0, code >= 0xd800 && code <= 0xdbff ? room - 1 : room)}${ELLIPSIS}`;
}
const ELLIPSIS = '…';

// Seed terms recur from chunk to chunk (the lexicon's): their patterns are made once, a bounded number kept.
const TERM_PATTERNS = new Map<string, RegExp>();
const MAX_TERM_PATTERNS = 4096;

/** A case-insensitive global pattern of the term as written, lastIndex 0. */
function termPattern(term: string): RegExp {
  let pattern = TERM_PATTERNS.get(term);
  if (pattern === undefined) {
    if (TERM_PATTERNS.size >= MAX_TERM_PATTERNS) TERM_PATTERNS.clear();
    pattern = literalPattern(term, 'gi');
    TERM_PATTERNS.set(term, pattern);
  }
  pattern.lastIndex = 0;
  return pattern;
}

function ruledOut(seed: NerSeed, kind: string): Set<string> {
  return new Set((seed.negated ?? []).filter((m) => m.kind === kind).map((m) => m.text.toLowerCase()));
}

const WORD_CHAR_AT = /[\p{L}\p{N}_]/u;
const LINE_BREAK_IN_RE = /[\r\n]/;
const SPACED_NUMBER_RE = /\d\s/;
const HAS_LETTER_RE = /\p{L}/u;

/** Seed terms kept only where they occur in the text, in the spelling the text uses. */
class SeedTerms {
  private readonly grounding: GroundingText;
  private scopes: NegationScope[] | null = null;

  constructor(private readonly text: string) {
    this.grounding = GroundingText.of(text);
  }

  phrases(terms: readonly string[]): string[] {
    return this.keep(terms, (t) => this.grounding.hasPhrase(t));
  }

  /** Phrases the text states at least once outside a negated scope, and that the seed does not list as ruled out. */
  stated(terms: readonly string[], excluded: ReadonlySet<string>): string[] {
    return this.keep(terms, (t) => !excluded.has(t.toLowerCase()) && this.grounding.hasPhrase(t) && this.occursUnnegated(t));
  }

  private occursUnnegated(term: string): boolean {
    const scopes = (this.scopes ??= negationScopes(this.text));
    // Searched case-insensitively in place, as asWritten does: a lower-cased copy would be as large as the text.
    const lower = term.toLowerCase();
    const found = termPattern(term);
    for (let m = found.exec(this.text); m !== null; m = found.exec(this.text)) {
      const at = m.index;
      found.lastIndex = at + 1;
      if (m[0].length !== term.length || m[0].toLowerCase() !== lower) continue;
      const end = at + term.length;
      // Whole words only: "leak" in "leakage" is another mention.
      if (at > 0 && WORD_CHAR_AT.test(this.text[at - 1]!)) continue;
      if (end < this.text.length && WORD_CHAR_AT.test(this.text[end]!)) continue;
      if (!scopes.some((sc) => (at >= sc.start && end <= sc.end) || (at < sc.cueEnd && end > sc.cueStart))) return true;
    }
    return false;
  }


  // A number with no letter and blanks in it ("2016 - 002 - 00") is a form's spaced field value, not
  // a search term as anyone writes one; its reference keeps its family word where the text has one.
  identifiers(terms: readonly string[]): string[] {
    return this.keep(terms, (t) => this.grounding.hasIdentifier(t) && !(SPACED_NUMBER_RE.test(t) && !HAS_LETTER_RE.test(t)));
  }

  /**
   * Measurements as written; every number in one must be a number of the text. A value and its
   * unit in two table cells ("| 6.2 | mils |") are read as cells: "6.2 mils", not the pipe between.
   */
  measurements(spans: readonly string[]): string[] {
    const kept = this.keep(spans, (t) => this.grounding.hasPhrase(t) && numbersIn(t).every((n) => this.grounding.hasNumber(n)));
    return dedupe(kept.map((t) => (t.includes('|') ? cellsOf(t).join(' ') : t)));
  }

  private keep(terms: readonly string[], grounded: (term: string) => boolean): string[] {
    const out: string[] = [];
    for (const term of terms) {
      const written = this.asWritten(term.trim());
      // A term across a line break of the reader's text joins two lines that are not one sentence (a label and the next field).
      if (written !== null && !LINE_BREAK_IN_RE.test(written) && grounded(written)) out.push(written);
    }
    return dedupe(out);
  }

  // A seed from elsewhere may differ in case from the text; the item takes the text's spelling.
  private asWritten(term: string): string | null {
    if (term === '') return null;
    if (this.text.includes(term)) return term;
    // Searched case-insensitively in place: a lower-cased copy would be as large as the text.
    const lower = term.toLowerCase();
    const found = termPattern(term);
    for (let m = found.exec(this.text); m !== null; m = found.exec(this.text)) {
      if (m[0].length === term.length && m[0].toLowerCase() === lower) return m[0];
      found.lastIndex = m.index + 1;
    }
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Units: sentences of prose, rows of tables.

export interface TextUnit {
  /** Trimmed, an exact substring of the reader's text (tagging/layout.ts readingOf). */
  text: string;
  /** UTF-16 offset of `text` in the reader's text. */
  start: number;
  /** A table's header row says what the columns are, not what happened; it is never an item. */
  kind: 'sentence' | 'row' | 'header';
}

const LINE_BREAK_RE = /\r\n|\r|\n/g;
const HAS_CONTENT_RE = /[\p{L}\p{N}]/u;
// GFM delimiter cells: hyphens with optional alignment colons. Three or more, so a "-" that
// stands for an empty value in a data cell is not taken for one.
const DELIMITER_CELL_RE = /^\s*:?-{3,}:?\s*$/;
const BULLET_RE = /^(?:[-*+•]|#{1,6})\s+/;
const TABLE_CAPTION_RE = /^columns:\s/i;
const TABLE_ROW_LABEL_RE = /^row\s+\d+:\s*/i;

/**
 * Splits chunk text, as a reader reads it (wrapped lines joined, non-prose lines left out), into
 * sentences and table rows. Lines are units of their own; markdown table rows (one per line, or
 * several flattened onto one line as PDF converters write them) and "Row N: a | b" lines are
 * whole units; prose lines are split into sentences, and a sentence that is no prose is left out.
 */
export function splitUnits(text: string): TextUnit[] {
  const units: TextUnit[] = [];
  eachUnit(readingOf(text), units);
  return units;
}

/** Where units go as they are split: an array, or a consumer that keeps only some (NeededUnits). */
interface UnitSink {
  push(unit: TextUnit): unknown;
}

/**
 * splitUnits over a reader's text, handing each unit to `units` as it is found; lines are read one
 * ahead, never all at once. The reading's non-prose lines give no unit.
 */
function eachUnit(reading: Reading, units: UnitSink): void {
  const { text, nonProse } = reading;
  const lines = linesOf(text);
  let next = lines.next();
  let columns = 0;
  let skip = 0; // the next non-prose line, as an index into its pairs
  while (!next.done) {
    const line = next.value;
    next = lines.next();
    while (skip < nonProse.length && nonProse[skip]! < line.start) skip += 2;
    if (skip < nonProse.length && nonProse[skip] === line.start) {
      columns = 0;
      continue;
    }
    const lead = line.text.length - line.text.trimStart().length;
    const body = line.text.trim();
    if (body === '') {
      columns = 0;
      continue;
    }
    const bodyStart = line.start + lead;
    if (body.startsWith('|') && countPipes(body) >= 2) {
      const nextIsDelimiter = isDelimiterLine(next.done ? undefined : next.value.text);
      columns = tableLine(text, bodyStart, body, columns, nextIsDelimiter, units);
      continue;
    }
    columns = 0;
    if (TABLE_CAPTION_RE.test(body)) {
      push(units, text, bodyStart, bodyStart + body.length, 'header');
    } else if (countPipes(body) >= 2) {
      const label = TABLE_ROW_LABEL_RE.exec(body)?.[0].length ?? 0;
      push(units, text, bodyStart + label, bodyStart + body.length, 'row');
    } else {
      const bullet = BULLET_RE.exec(body)?.[0].length ?? 0;
      sentences(text, bodyStart + bullet, bodyStart + body.length, units);
    }
  }
}

// Blank lines are kept: they end a table.
function* linesOf(text: string): Generator<{ text: string; start: number }> {
  let start = 0;
  for (const m of text.matchAll(LINE_BREAK_RE)) {
    yield { text: text.slice(start, m.index), start };
    start = m.index + m[0].length;
  }
  yield { text: text.slice(start), start };
}

function countPipes(line: string): number {
  let n = 0;
  for (let i = 0; i < line.length; i++) if (line.charCodeAt(i) === 124 && line[i - 1] !== '\\') n++;
  return n;
}

function isDelimiterLine(line: string | undefined): boolean {
  if (line === undefined) return false;
  const cells = line.trim().split('|').slice(1, -1);
  return cells.length > 0 && cells.every((c) => DELIMITER_CELL_RE.test(c));
}

interface Cell {
  start: number;
  end: number;
  empty: boolean;
  delimiter: boolean;
}

/** One table line → header and row units; returns the column count known after it. */
function tableLine(text: string, at: number, line: string, known: number, isHeader: boolean, units: UnitSink): number {
  const cells: Cell[] = [];
  let from = -1;
  for (let i = 0; i < line.length; i++) {
    if (line.charCodeAt(i) !== 124 || line[i - 1] === '\\') continue;
    if (from >= 0) cells.push(cell(line, at, from, i));
    from = i + 1;
  }
  if (from < line.length && line.slice(from).trim() !== '') cells.push(cell(line, at, from, line.length));

  const delimiterAt = cells.findIndex((c) => c.delimiter);
  let columns = known;
  let rowsFrom = 0;
  if (delimiterAt >= 0) {
    let width = 0;
    while (cells[delimiterAt + width]?.delimiter) width++;
    columns = width;
    // What precedes the delimiter on the same line is the header (a flattened table).
    const header = cells.slice(0, delimiterAt);
    if (header.at(-1)?.empty) header.pop();
    emitCells(text, header, 'header', units);
    rowsFrom = delimiterAt + width;
  } else if (isHeader) {
    emitCells(text, cells, 'header', units);
    return cells.length;
  }
  if (columns <= 0) {
    emitCells(text, cells, 'row', units);
    return 0;
  }
  // Flattened rows are `| a | b | | c | d |`: `columns` cells, then one blank cell between rows.
  // A blank cell at a row boundary is such a gap when what is left is whole (gap + row) groups;
  // otherwise it is the first, empty, cell of a row (`| | b |` on its own line).
  let i = rowsFrom;
  while (i < cells.length) {
    if (cells[i]!.empty && (cells.length - i) % (columns + 1) === 0) {
      i++;
      continue;
    }
    emitCells(text, cells.slice(i, i + columns), 'row', units);
    i += columns;
  }
  return columns;
}

function cell(line: string, at: number, from: number, to: number): Cell {
  const raw = line.slice(from, to);
  return { start: at + from, end: at + to, empty: raw.trim() === '', delimiter: DELIMITER_CELL_RE.test(raw) };
}

function emitCells(text: string, cells: Cell[], kind: TextUnit['kind'], units: UnitSink): void {
  if (cells.length === 0 || cells.every((c) => c.empty)) return;
  // The row's span from its first to its last cell, without the outer pipes and spaces.
  let start = cells[0]!.start;
  let end = cells.at(-1)!.end;
  while (start < end && isPipeOrSpace(text.charCodeAt(start))) start++;
  while (end > start && isPipeOrSpace(text.charCodeAt(end - 1))) end--;
  push(units, text, start, end, kind);
}

function isPipeOrSpace(code: number): boolean {
  return code === 124 || code === 32 || code === 9 || code === 160;
}

function push(units: UnitSink, text: string, start: number, end: number, kind: TextUnit['kind']): void {
  const raw = text.slice(start, end);
  const lead = raw.length - raw.trimStart().length;
  const body = raw.trim();
  if (!HAS_CONTENT_RE.test(body) || LIST_MARKER_ONLY_RE.test(body)) return;
  // A sentence that is no prose (a title, a name, an address run into a line of prose) is no item,
  // nor one a form prints on every copy, a list of people, or a line OCR garbled (views/form-text.ts).
  if (kind === 'sentence' && (!readsAsProse(body) || isFormText(body))) return;
  units.push({ text: body, start: start + lead, kind });
}

// Sentence ends: terminal punctuation (and closing quotes or brackets), then whitespace. Tried
// only where a run of marks starts: from inside a run the same end was reached from its start.
const SENTENCE_END_RE = /(?<![.!?])[.!?]+["'\u201d\u2019)\]]*(?=\s)/g;
// What may open the next sentence: a capital, a digit (step numbers), an opening quote or bracket, markdown emphasis.
const SENTENCE_START_RE = /[\p{Lu}\p{N}"'\u201c\u2018([*§]/u;
const WORD_CHAR_RE = /[\p{L}\p{N}.]/u;
const WHITESPACE_RE = /\s/;
const DIGIT_RE = /\p{N}/u;
const MAX_ABBREVIATION_CHARS = 12;
const MAX_LIST_MARKER_CHARS = 12;
const SINGLE_PERIOD_RE = /^\.(?!\.)/;
// Never a sentence end after these.
const ABBREVIATIONS = new Set(['e.g', 'i.e', 'cf', 'vs', 'viz', 'approx', 'ca', 'mr', 'mrs', 'ms', 'dr', 'al', 'incl', 'esp', 'resp', 'dept', 'est']);
// Not a sentence end when a number follows ("No. 2", "Elev. 468'", "Fig. 3", "Rev. 4", "Jan. 14").
const NUMBER_ABBREVIATIONS = new Set([
  'no', 'nos', 'elev', 'el', 'fig', 'figs', 'ref', 'refs', 'rev', 'sec', 'sect', 'para', 'vol', 'ch', 'eq', 'p', 'pp', 'pg', 'art', 'tab',
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
]);
const DOTTED_ACRONYM_RE = /^(?:\p{L}\.)+\p{L}$/u;
// "1." "6.1.2." "a)" "iv." alone: the number of the sentence that follows, not a sentence.
const LIST_MARKER_ONLY_RE = /^(?:\d+(?:\.\d+)*|[a-z]|[ivx]+)[.)]$/i;

function sentences(text: string, start: number, end: number, units: UnitSink): void {
  const line = text.slice(start, end);
  let from = 0;
  for (const m of line.matchAll(SENTENCE_END_RE)) {
    const stop = m.index + m[0].length;
    let next = stop;
    while (next < line.length && WHITESPACE_RE.test(line[next]!)) next++;
    const opener = line[next];
    if (opener === undefined || !SENTENCE_START_RE.test(opener)) continue;
    if (SINGLE_PERIOD_RE.test(m[0])) {
      const word = wordBefore(line, m.index).toLowerCase();
      if (ABBREVIATIONS.has(word) || DOTTED_ACRONYM_RE.test(word)) continue;
      if (NUMBER_ABBREVIATIONS.has(word) && DIGIT_RE.test(opener)) continue;
      if (m.index - from <= MAX_LIST_MARKER_CHARS && LIST_MARKER_ONLY_RE.test(`${line.slice(from, m.index).trim()}.`)) continue;
    }
    push(units, text, start + from, start + stop, 'sentence');
    from = stop;
  }
  push(units, text, start + from, end, 'sentence');
}

/** The letters, digits and dots just before `end` (abbreviations are short: looking further back is wasted). */
function wordBefore(line: string, end: number): string {
  let at = end;
  while (at > 0 && end - at < MAX_ABBREVIATION_CHARS && WORD_CHAR_RE.test(line[at - 1]!)) at--;
  return line.slice(at, end);
}

// ---------------------------------------------------------------------------------------------
// Classes of a unit. Each is one precompiled regex (or a word set), tested once per unit.

/** The one frame field a unit goes to. */
export type FrameField = 'observed' | 'hypothesis' | 'test' | 'action' | 'constraint';

export interface UnitClasses {
  /** Where the unit goes: its one best field, or null for a reference line, which goes nowhere. */
  field: FrameField | null;
  /** Reports an action already taken ("Operator stopped P-101A", "Replaced the bearing"). */
  taken: boolean;
  /** Only names documents: "Related evaluation: ECA-2026-0007 (if initiated)." */
  reference: boolean;
  /** Stated with doubt: likely, may, possible, suspected... */
  hedged: boolean;
  /** States or denies a cause: caused by, due to, root cause, resulted in... */
  causal: boolean;
  /** An instruction: starts (after a step number, label or leading clause) with a verb in the base form. */
  imperative: boolean;
  /** A caution, hold, prohibition, prerequisite, limitation or assumption. */
  normative: boolean;
  /** A stated limit with a value (setpoint, at least, not to exceed...). */
  limit: boolean;
  // What the unit could be; `field` picks one.
  observed: boolean;
  hypothesis: boolean;
  test: boolean;
  action: boolean;
  constraint: boolean;
}

const HEDGE_RE =
  /\b(?:likely|unlikely|probabl[ey]|possibl[ey]|possibility|potential(?:ly)?|suspect(?:s|ed)?|may(?!\s+(?:not\b|\d))|might|could(?!\s+not\b)|appears? to|appeared to|seems? to|suggest(?:s|ed|ing)?|hypothes[ie]s|hypothesi[sz]ed|presumed|believed|thought to|consistent with|not (?:yet )?(?:confirmed|determined|known))\b/i;
const CAUSAL_RE =
  /\b(?:caus(?:ed|es|ing)|(?:does|do|did) not cause|cause of|(?:root|apparent|direct|contributing|probable) causes?|causal factors?|due to|because|result(?:ed|s|ing)? (?:in|from)|as a result of|attribut(?:ed|able) to|led to|leads? to|contribut(?:ed|es|ing|ors?|ion)|consequence of|owing to)\b/i;
const TEST_RE =
  /\b(?:verif(?:y|ies|ied|ying|ication)|check(?:s|ed|ing)?(?!\s+valves?\b)|inspect(?:s|ed|ing|ions?)?|measur(?:e|es|ed|ing|ements?)|test(?:s|ed|ing)?|monitor(?:s|ed|ing)?|surveillances?|confirm(?:s|ed|ing|ation)?|trending|sampl(?:e|es|ed|ing)|analy[sz](?:e|es|ed|is|ing)|eddy current|spectrum|calibrat(?:e|es|ing|ion)|diagnos(?:e|ed|is|tic|tics)|troubleshoot(?:s|ed|ing)?|walkdowns?|readings?)\b/i;
// Past-tense and obligation forms that report or require an action. Participles that usually
// describe a state ("reduced margin", "elevated vibration", "calibrated gauge") are left out.
const ACTION_RE =
  /\b(?:replaced|repaired|realigned|aligned|performed|installed|removed|adjusted|stopped|started|restarted|notified|initiated|issued|uncoupled|recoupled|torqued|cleaned|lubricated|tightened|hydroblasted|flushed|reset|restored|isolated|submitted|generated|lowered|raised|rebuilt|overhauled|declared|entered|implemented|revised|retrained|reworked|welded|ran|shut down|shall(?!\s+not\b)|must(?!\s+not\b)|(?:is|are) required|requires?|recommend(?:s|ed|ations?)?|(?:corrective|compensatory|preventive) actions?)\b/i;
const NORMATIVE_RE =
  /\b(?:caution|warning|hold(?:\s+points?)?(?![-\w])|do not|does not apply|shall not|must not|may not|should not|never|not (?:to )?exceed|prerequisites?|preconditions?|initial conditions?|limitations?|required (?:before|prior to)|prior to|only (?:if|when|after|with)|unless|assum(?:e|es|ed|ing|ptions?))\b/i;
const LIMIT_RE =
  /\b(?:(?<!within normal )limits?|setpoints?|set points?|acceptance criteri(?:a|on)|tolerances?|at least|at most|no (?:more|less) than|not (?:more|less) than|(?:greater|less|lower|higher) than|exceed(?:s|ed|ing)?|maximum|minimum)\b/i;

const IMPERATIVE_VERBS = new Set(ACTION_VERBS);
// "Check valve CV-1 failed", "Test results show", "Review of the data": a noun, not an instruction.
const NOT_AFTER_IMPERATIVE = new Set(['of', 'was', 'were', 'is', 'are', 'has', 'had', 'have', 'results', 'result', 'valve', 'valves', 'point', 'points', 'data']);
// Step numbers, list markers, "LABEL:" prefixes and dashes that may precede the verb.
const INSTRUCTION_PREFIX_RE = /^(?:(?:[Ss]tep\s+)?\d+(?:\.\d+)*[.)]?\s+|(?:[a-zA-Z]|[ivxIVX]+)[.)]\s+|\p{Lu}[\p{L}\p{N} /()&-]{0,40}:\s+|[\u2013\u2014-]\s*)+/u;
// "If vibration exceeds 0.325 in/s, notify..." / "Within 2 minutes, verify...": the verb comes after the clause.
const LEADING_CLAUSE_RE = /^(?:if|when|whenever|within|after|before|upon|once|while|during|following|prior to|as soon as|at|on|in|for)\b[^,]{0,150},\s*/i;
const FIRST_WORDS_RE = /^([\p{L}]+)(?:\s+([\p{L}]+))?/u;

const PROSE_CELL_WORDS = 3;
const ACTION_ROLES = new Set(['immediate_actions', 'corrective_actions', 'work_performed', 'actions', 'steps']);
const TEST_ROLES = new Set(['verification', 'acceptance']);
const CONSTRAINT_ROLES = new Set(['preconditions', 'constraints']);
const REPORT_ROLES = new Set(['header', 'description', 'impact', 'evidence', 'as_found', 'as_left', 'event_summary', 'timeline', 'evidence_items']);

export function classifyUnit(unit: Pick<TextUnit, 'text' | 'kind'>, sectionRole = 'unknown'): UnitClasses {
  // In a row, short cells are labels and values ("Date Initiated", "6.2"): only cells that read
  // like prose are classified, each may open an instruction.
  const cells = unit.kind === 'row' ? unit.text.split('|').map((c) => c.trim()).filter((c) => c.split(/\s+/).length >= PROSE_CELL_WORDS) : [unit.text];
  const text = cells.join(' | ');
  const hedged = HEDGE_RE.test(text);
  const causal = CAUSAL_RE.test(text);
  const imperative = cells.some(isImperative);
  const normative = NORMATIVE_RE.test(text);
  const limit = LIMIT_RE.test(text) && numbersIn(text).length > 0;
  const doubtful = hedged || causal;
  const reference = isReference(text);
  const obligation = OBLIGATION_RE.test(text);
  const taken = !imperative && !obligation && !doubtful && TAKEN_RE.test(text);
  const testFirst = imperative ? cells.some(startsWithTestVerb) : TEST_RE.test(leadingWords(text));
  const mentionsTest = TEST_RE.test(text);
  const field = reference ? null : bestField({ doubtful, imperative, normative, limit, obligation, taken, testFirst, sectionRole, test: mentionsTest });
  return {
    field,
    taken,
    reference,
    hedged,
    causal,
    imperative,
    normative,
    limit,
    observed: !doubtful && !imperative && !normative,
    hypothesis: doubtful && !imperative,
    // A causal claim that mentions an inspection is a hypothesis, not a test to run.
    test: (mentionsTest || TEST_ROLES.has(sectionRole)) && !(doubtful && !imperative),
    action: imperative || ACTION_RE.test(text) || (ACTION_ROLES.has(sectionRole) && !doubtful),
    constraint: normative || limit || CONSTRAINT_ROLES.has(sectionRole),
  };
}

const OBLIGATION_RE = /\b(?:shall(?!\s+not\b)|must(?!\s+not\b)|should(?!\s+not\b)|(?:is|are) required|requires?|recommend(?:s|ed|ations?)?)\b/i;
// Past forms that report an action done; states ("reduced margin") are not among them.
const TAKEN_RE =
  /\b(?:replaced|repaired|realigned|aligned|performed|installed|removed|adjusted|stopped|started|restarted|notified|initiated|issued|uncoupled|recoupled|torqued|cleaned|lubricated|tightened|hydroblasted|flushed|restored|isolated|submitted|generated|lowered|raised|rebuilt|overhauled|declared|entered|implemented|revised|retrained|reworked|welded|ran|shut down|opened|closed)\b/i;
const TEST_VERBS = new Set(['verify', 'check', 'inspect', 'measure', 'test', 'monitor', 'confirm', 'trend', 'sample', 'analyze', 'analyse', 'observe', 'capture', 'read', 'calibrate', 'walk', 'discriminate']);
const LABEL_PREFIX_RE = /^[\p{L}][\p{L} /&-]{0,40}:\s*/u;

interface Evidence {
  doubtful: boolean;
  imperative: boolean;
  normative: boolean;
  limit: boolean;
  obligation: boolean;
  taken: boolean;
  testFirst: boolean;
  test: boolean;
  sectionRole: string;
}

/** The one field a unit goes to, most specific reading first. */
function bestField(e: Evidence): FrameField {
  if (e.doubtful && !e.imperative) return 'hypothesis';
  if (e.normative || CONSTRAINT_ROLES.has(e.sectionRole)) return 'constraint';
  if (e.imperative) return e.testFirst ? 'test' : 'action';
  if (e.obligation) return e.limit ? 'constraint' : e.test ? 'test' : 'action';
  // A value against its limit in a report ("peaked at 6.2 mils (alarm setpoint 5.0 mils)") is what was seen.
  if (e.limit) return REPORT_ROLES.has(e.sectionRole) ? 'observed' : 'constraint';
  if (e.taken) return e.testFirst ? 'test' : 'observed';
  if (e.testFirst || TEST_ROLES.has(e.sectionRole)) return 'test';
  return ACTION_ROLES.has(e.sectionRole) ? 'action' : 'observed';
}

/** The first words of a sentence after a leading clause ("During routine surveillance, …" is about what follows). */
function leadingWords(text: string): string {
  let rest = text.trim().replace(INSTRUCTION_PREFIX_RE, '');
  const clause = LEADING_CLAUSE_RE.exec(rest);
  if (clause) rest = rest.slice(clause[0].length);
  return rest.split(/\s+/).slice(0, 5).join(' ');
}

// "Recommend condenser performance test", "Perform vibration spectrum capture": the thing to do is a check.
const TEST_CARRIERS = new Set(['recommend', 'perform', 'conduct', 'schedule', 'consider', 'complete']);

function startsWithTestVerb(cell: string): boolean {
  let rest = cell.trim().replace(INSTRUCTION_PREFIX_RE, '');
  const clause = LEADING_CLAUSE_RE.exec(rest);
  if (clause) rest = rest.slice(clause[0].length);
  const first = FIRST_WORDS_RE.exec(rest)?.[1]?.toLowerCase();
  if (first === undefined) return false;
  if (TEST_VERBS.has(first)) return true;
  return TEST_CARRIERS.has(first) && TEST_RE.test(rest.split(/\s+/).slice(1, 6).join(' '));
}

/** A unit that only names documents, after its labels: "Related: CR-2026-00418, PM-20417." */
export function isReference(text: string): boolean {
  let rest = text.replace(/[*_]+/g, '').replace(/\brev(?:ision)?\.?\s*\d+[A-Z]?\b/gi, ' ').trim();
  for (let label = LABEL_PREFIX_RE.exec(rest); label !== null; label = LABEL_PREFIX_RE.exec(rest)) rest = rest.slice(label[0].length);
  const ids = docIdSpans(rest);
  if (ids.length === 0) return false;
  let left = '';
  let from = 0;
  for (const [start, end] of ids) {
    left += `${rest.slice(from, start)} `;
    from = end;
  }
  left = (left + rest.slice(from)).replace(/\([^()]*\)/g, ' ').replace(/\b(?:and|or|per|see)\b/gi, ' ');
  return !/[\p{L}\p{N}]/u.test(left);
}

/**
 * The document ids of a text as plant text writes them (CR-2026-00123, WO 12345678,
 * SOP-U2-CND-001), as [start, end) spans in order: at a word start, a capital, then capitals,
 * digits and single separators ("-", "_", " ", each before a capital or digit) up to the last
 * digit of that run, then the letters, digits, "_", "." and "-" that follow it.
 *
 * A hand scan, not the regex it replaces (`\b[A-Z]{1,8}(?:[-_ ]?[A-Z0-9]+)*[-_ ]?\d[\w.-]*`,
 * kept equal by test/patterns/rewrites.property.test.ts): that regex splits a run of capitals
 * between its nested quantifiers in exponentially many ways before it gives up on a run with no
 * digit ("STEP ACTION/EXPECTED RESPONSE RESPONSE NOT OBTAINED …" took minutes), and retries the
 * run from every word in it. Here a run is read once: a run with no digit holds no id at any of
 * its words, since each later word sees a tail of the same run.
 */
export function docIdSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let i = 0;
  while (i < text.length) {
    if (!isUpperCode(text.charCodeAt(i)) || (i > 0 && isWordCode(text.charCodeAt(i - 1)))) {
      i++;
      continue;
    }
    let lastDigit = -1;
    let j = i + 1;
    while (j < text.length) {
      const code = text.charCodeAt(j);
      if (isDigitCode(code)) lastDigit = j;
      else if (!isUpperCode(code) && !(isIdSeparator(code) && j + 1 < text.length && isUpperOrDigit(text.charCodeAt(j + 1)))) break;
      j++;
    }
    if (lastDigit < 0) {
      i = j;
      continue;
    }
    let end = lastDigit + 1;
    while (end < text.length && isIdTailCode(text.charCodeAt(end))) end++;
    spans.push([i, end]);
    i = end;
  }
  return spans;
}

const isDigitCode = (code: number): boolean => code >= 48 && code <= 57;
const isUpperCode = (code: number): boolean => code >= 65 && code <= 90;
const isUpperOrDigit = (code: number): boolean => isUpperCode(code) || isDigitCode(code);
// "-", "_", " ".
const isIdSeparator = (code: number): boolean => code === 45 || code === 95 || code === 32;
// [\w.-]
const isIdTailCode = (code: number): boolean => isWordCode(code) || code === 46 || code === 45;

/** [A-Za-z0-9_]: a character of a regex word (\w). */
function isWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** Is this sentence (or table cell) an instruction? */
export function isImperative(sentence: string): boolean {
  let rest = sentence.trim().replace(INSTRUCTION_PREFIX_RE, '');
  if (startsWithVerb(rest)) return true;
  const clause = LEADING_CLAUSE_RE.exec(rest);
  if (!clause) return false;
  rest = rest.slice(clause[0].length);
  return startsWithVerb(rest);
}

// "Train A declared inoperable": a named train or unit reported on, not an instruction to train.
const NAMED_SUBJECT_RE = /^\p{L}+\s+[A-Z0-9]\s+\p{L}+ed\b/u;

function startsWithVerb(text: string): boolean {
  if (NAMED_SUBJECT_RE.test(text)) return false;
  const m = FIRST_WORDS_RE.exec(text);
  if (!m) return false;
  const first = m[1]!.toLowerCase();
  const second = m[2]?.toLowerCase();
  if (first === 'walk' && second === 'down') return true;
  if (!IMPERATIVE_VERBS.has(first)) return false;
  return second === undefined || !NOT_AFTER_IMPERATIVE.has(second);
}
