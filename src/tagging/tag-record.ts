// The per-record pieces of the tag stage, shared by the in-process tagger and the worker threads
// of `rca-tag --jobs N`, so both paths write the same bytes: the NER seed of a text, the evidence
// the (stateful) ContextBuilder reads, and how the four fields are added to a record.

import type { NegatedMention, NerSeed } from '../contracts/chunk.js';
import type { NegationScope } from './negation.js';
import { appendMembers, type JsonObject } from '../runtime/stage.js';
import { chunkTextOf, docIdOf, sectionPathOf } from './chunk-fields.js';
import type { ChunkFacts, ContextOptions } from './context.js';
import { extractPatterns } from './extractors.js';
import { acronymDefinitions, acronymItems, type AcronymItem } from './acronyms.js';
import { routeFields, type Gazetteer, type GazetteerScan } from './gazetteer.js';
import type { KeywordLists } from './keyword-lists.js';
import { labelSpans, negationScopesOfTokens, notDoneActions, ruledOutPhrases, ScopeIndex, sparedStates, WORD_CHAR_RE, WORK_DONE } from './negation.js';
import { buildPhraseLists, TokenBuffer, type PhraseListsMatcher } from './phrase-matcher.js';
import { contextJson, jsonString, stringArrayJson } from './seed-json.js';

export class NerSeeder {
  // One tokenization per record, and one scan of its tokens, serve the gazetteer and all four
  // keyword lists: their phrase lists share one matcher (list 0 the gazetteer's, 1-4 the keywords').
  private readonly tokens = new TokenBuffer();
  private readonly matcher: PhraseListsMatcher<unknown>;

  constructor(
    private readonly gazetteer: Gazetteer,
    private readonly keywords: KeywordLists,
  ) {
    this.matcher = buildPhraseLists<unknown>([gazetteer.phraseList, ...keywords.phraseLists]);
  }

  /**
   * The seed of a reader's text (layout.ts readingOf: wrapped lines joined, so a term or a
   * reference cut by a line break is found whole). `formLabels` ([start, end) pairs in order) are
   * the labels and captions of field blocks: no lexicon or keyword term is taken from them.
   */
  seed(text: string, formLabels: readonly number[] = NO_SPANS): NerSeed {
    const tokens = this.tokens.load(text);
    const scopes = negationScopesOfTokens(tokens);
    const labels = labelSpans(text);
    const marks = scopes.length === 0 && labels.length === 0 ? null : new ScopeIndex(scopes, labels);
    const extras = { negated: [] as NegatedMention[], places: [] as string[] };
    const lexicalScan = this.gazetteer.begin(tokens, marks, extras);
    const keywordScan = this.keywords.begin(tokens, marks);
    // A text that defines acronyms has its lexicon matches held back until the definitions' classes
    // are known (they are read from those matches), then given in text order with the acronyms' items.
    const definitions = acronymDefinitions(tokens).filter((d) => formLabels.length === 0 || !insideSpan(formLabels, tokens.starts[d.first]!, tokens.ends[d.acronym]!));
    const held: HeldMatch[] | null = definitions.length === 0 ? null : [];
    this.matcher.scan(tokens, (list, start, end, payloads, first, last, phrase) => {
      if (formLabels.length > 0 && insideSpan(formLabels, start, end)) return;
      if (list !== 0) keywordScan.onMatch(list - 1, start, end, payloads as readonly string[], first, last);
      else if (held !== null) held.push({ start, end, routes: payloads as readonly number[], first, last, phrase });
      else lexicalScan.onMatch(start, end, payloads as readonly number[], first, last, phrase);
    });
    if (held !== null) {
      const terms = held.map((m) => ({ first: m.first, last: m.last, fields: routeFields(m.routes) }));
      const items = acronymItems(tokens, definitions, (d) => this.gazetteer.acronymClass(d, terms, tokens));
      const kept = formLabels.length === 0 ? items : items.filter((item) => !insideSpan(formLabels, tokens.starts[item.first]!, tokens.ends[item.last]!));
      replayWithAcronyms(held, kept, lexicalScan);
    }
    const lexical = lexicalScan.finish();
    for (const spared of sparedStates(text)) {
      const key = spared.text.toLowerCase();
      if (lexical.outcomes.some((o) => o.toLowerCase() === key) || extras.negated.some((n) => n.text.toLowerCase() === key)) continue;
      extras.negated.push({ text: spared.text, kind: 'outcomes', cue: spared.cue });
    }
    addNotDone(text, lexical, extras.negated);
    if (scopes.length > 0) addRuledOutPhrases(text, scopes, lexical, extras.negated, formLabels);
    const patterns = extractPatterns(text);
    const keywords = keywordScan.finish();
    const locations = extras.places.length === 0 ? keywords.locations : withPlaces(keywords.locations, extras.places);
    return {
      systems: lexical.systems,
      equipment_ids: patterns.equipment_ids,
      components: lexical.components,
      mechanisms: lexical.mechanisms,
      outcomes: lexical.outcomes,
      surveillance_actions: lexical.surveillance_actions,
      maintenance_actions: lexical.maintenance_actions,
      properties: lexical.properties,
      tools: lexical.tools,
      fm_ids: patterns.fm_ids,
      doc_refs: patterns.doc_refs,
      alarm_ids: patterns.alarm_ids,
      measurements: patterns.measurements,
      temporal_refs: patterns.temporal_refs,
      temporal_relations: keywords.temporal_relations,
      temporal_qualifiers: keywords.temporal_qualifiers,
      locations,
      conjectures: keywords.conjectures,
      negated: extras.negated,
    };
  }
}

const NO_SPANS: readonly number[] = [];

interface HeldMatch {
  start: number;
  end: number;
  routes: readonly number[];
  first: number;
  last: number;
  phrase: number;
}

/**
 * The held lexicon matches given to `scan` with the acronym items between them, in text order. A
 * match inside an item's tokens gives way to it ("core spray" inside "high pressure core spray",
 * "pressure" too), but one that is the item, in its field, stands for it (the lexicon's "RCIC").
 */
function replayWithAcronyms(held: readonly HeldMatch[], items: readonly AcronymItem[], scan: GazetteerScan): void {
  const done = new Uint8Array(items.length);
  // The next item to give, and the first that may still hold a match (items do not overlap).
  let next = 0;
  let open = 0;
  const emitBefore = (token: number): void => {
    for (; next < items.length && items[next]!.first <= token; next++) {
      const item = items[next]!;
      if (done[next] === 0) scan.addItem(item.field, item.first, item.last);
    }
  };
  for (const m of held) {
    let covered = false;
    while (open < items.length && items[open]!.last < m.first) open++;
    for (let k = open; k < items.length && items[k]!.first <= m.first; k++) {
      const item = items[k]!;
      if (m.last > item.last) continue;
      if (item.first === m.first && item.last === m.last && (routeFields(m.routes) & (1 << item.field)) !== 0) done[k] = 1;
      else covered = true;
    }
    emitBefore(m.first);
    if (!covered) scan.onMatch(m.start, m.end, m.routes, m.first, m.last, m.phrase);
  }
  emitBefore(Number.MAX_SAFE_INTEGER);
}

/**
 * Work the text says was not done ("had not been worked", "was not replaced"): the participle is
 * ruled out as the action it is, a maintenance or surveillance action of the lexicon or a verb of
 * doing work (WORK_DONE, read as maintenance). Written nowhere else in the text, it leaves the
 * action's list; written elsewhere too, it stays there as well.
 */
function addNotDone(text: string, lexical: Record<string, string[]>, negated: NegatedMention[]): void {
  const actions = notDoneActions(text);
  if (actions.length === 0) return;
  const lower = text.toLowerCase();
  for (const action of actions) {
    const key = action.text.toLowerCase();
    const field = (['maintenance_actions', 'surveillance_actions'] as const).find((f) => lexical[f]!.some((t) => t.toLowerCase() === key)) ?? (WORK_DONE.has(key) ? 'maintenance_actions' : undefined);
    if (field === undefined || negated.some((n) => n.text.toLowerCase() === key)) continue;
    negated.push({ text: action.text, kind: field, cue: action.cue });
    const notDone = actions.filter((a) => a.text.toLowerCase() === key).length;
    if (wordCount(lower, key) <= notDone) lexical[field] = lexical[field]!.filter((t) => t.toLowerCase() !== key);
  }
}

/** How often `word` (lower case) stands as a whole word in `lower`. */
function wordCount(lower: string, word: string): number {
  let n = 0;
  for (let at = lower.indexOf(word); at >= 0; at = lower.indexOf(word, at + word.length)) {
    const before = at === 0 ? '' : lower[at - 1]!;
    const after = lower[at + word.length] ?? '';
    if (!WORD_CHAR_RE.test(before) && !WORD_CHAR_RE.test(after)) n++;
  }
  return n;
}

/**
 * The phrases the text's cues rule out (negation.ts ruledOutPhrases), beside what the lexicon
 * found: a phrase that holds a ruled-out lexicon term, or is held in one, adds nothing, nor one
 * before such a term in its scope (its subject: "no safety systems out of service"); one the text
 * states as an outcome or mechanism stays positive (as lexicon terms do); a property is a value
 * stated, not a thing ruled out ("ran with no flow"); a phrase in a form's label or caption is
 * none. Its kind is the lexicon's when the phrase is a component or a system the chunk names,
 * else an outcome: what an event report rules out. A phrase the lexicon reads in part stays the
 * lexicon's.
 */
function addRuledOutPhrases(text: string, scopes: readonly NegationScope[], lexical: Record<string, string[]>, negated: NegatedMention[], formLabels: readonly number[]): void {
  const phrases = ruledOutPhrases(text, scopes);
  if (phrases.length === 0) return;
  const ruledOut = new TermIndex(negated.map((n) => n.text));
  const asserted = new TermIndex([...lexical.outcomes!, ...lexical.mechanisms!]);
  const known = new TermIndex(KNOWN_FIELDS.flatMap((f) => lexical[f]!));
  const equipment = { components: new TermIndex(lexical.components!), systems: new TermIndex(lexical.systems!) };
  const actions = { surveillance_actions: new TermIndex(lexical.surveillance_actions!), maintenance_actions: new TermIndex(lexical.maintenance_actions!) };
  const exact = (list: readonly string[]) => new Set(list.map((t) => wordKey(t)));
  const properties = exact(lexical.properties!);
  const components = exact(lexical.components!);
  const systems = exact(lexical.systems!);
  const added = new Set<string>();
  const kinds = new Map<string, string>();
  for (const phrase of phrases) {
    if (formLabels.length > 0 && insideSpan(formLabels, phrase.start, phrase.end)) continue;
    // The lexicon is asked about the phrase without its anaphor ("such a set screw": a set screw).
    const key = wordKey(phrase.bare ?? phrase.text);
    if (added.has(key) || ruledOut.overlaps(key)) continue;
    // A lexicon term ruled out after it in its scope: the phrase is that term's subject.
    if (!phrase.state && ruledOut.holdsAnyIn(wordKey(text.slice(phrase.end, Math.min(phrase.scopeEnd, phrase.end + FOLLOWING_CHARS))))) continue;
    if (asserted.heldIn(key) || properties.has(key)) continue;
    // Where the lexicon reads the phrase's words (a component, a property … in or around it), its
    // reading stands: the phrase fills in only what it does not know, or names a component or
    // system whole ("did not contain such a set screw").
    const whole = components.has(key) || systems.has(key);
    // Two readings the lexicon's words do not overrule: the subject of a clause that says it did
    // not act holds equipment ("No safety relief valves lifted": the valves did not lift), and an
    // action ruled out holds the action ("had not had their scheduled surveillance").
    let held: string | undefined;
    if (!whole && known.overlaps(key)) {
      if (phrase.subject) held = (['components', 'systems'] as const).find((f) => equipment[f].holdsAnyIn(key));
      held ??= (['surveillance_actions', 'maintenance_actions'] as const).find((f) => actions[f].holdsAnyIn(key));
      if (held === undefined) continue;
    }
    added.add(key);
    const kind =
      (phrase.abbreviates !== undefined ? kinds.get(phrase.abbreviates) : undefined) ??
      (phrase.state ? 'outcomes' : components.has(key) ? 'components' : systems.has(key) ? 'systems' : (held ?? 'outcomes'));
    kinds.set(phrase.text, kind);
    negated.push({ text: phrase.text, kind, cue: phrase.cue });
  }
}

/** How far after a phrase its scope is read for a lexicon term it is the subject of. */
const FOLLOWING_CHARS = 120;
const NOT_WORD_RUN = /[^\p{L}\p{N}]+/gu;
/** A phrase as its lower-case words joined by single spaces. */
const wordKey = (phrase: string): string => phrase.toLowerCase().replace(NOT_WORD_RUN, ' ').trim();
/** At most this many words of a term are indexed (a lexicon term, a phrase: a few words). */
const TERM_WORDS = 8;

/** Terms (by wordKey), and every run of their words: which phrases hold one, or are held in one. */
class TermIndex {
  private readonly terms = new Set<string>();
  private readonly parts = new Set<string>();

  constructor(terms: readonly string[]) {
    for (const term of terms) {
      const words = wordKey(term).split(' ').slice(0, TERM_WORDS);
      if (words[0] === '') continue;
      this.terms.add(words.join(' '));
      for (const run of runsOf(words)) this.parts.add(run);
    }
  }

  /** The phrase (a wordKey) is a term or part of one. */
  heldIn(key: string): boolean {
    return this.parts.has(key);
  }

  /** The phrase holds a term, or is part of one. */
  overlaps(key: string): boolean {
    return this.parts.has(key) || this.holdsAnyIn(key);
  }

  /** Some run of the words of `key` is a term. */
  holdsAnyIn(key: string): boolean {
    if (key === '' || this.terms.size === 0) return false;
    for (const run of runsOf(key.split(' '), TERM_WORDS)) if (this.terms.has(run)) return true;
    return false;
  }
}

/** Every contiguous run of `words`, at most `longest` words long. */
function* runsOf(words: readonly string[], longest = words.length): Generator<string> {
  for (let i = 0; i < words.length; i++) {
    let run = '';
    for (let k = i; k < words.length && k - i < longest; k++) {
      run = run === '' ? words[k]! : `${run} ${words[k]!}`;
      yield run;
    }
  }
}

const KNOWN_FIELDS = ['systems', 'components', 'properties', 'surveillance_actions', 'maintenance_actions', 'tools'];


/** Whether [start, end) lies inside one of `spans` ([start, end) pairs in order, not overlapping). */
function insideSpan(spans: readonly number[], start: number, end: number): boolean {
  let lo = 0;
  let hi = spans.length / 2 - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (spans[mid * 2]! <= start) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found >= 0 && end <= spans[found * 2 + 1]!;
}

export { ADDED_KEYS, hasAddedKeys } from './added-fields.js';
/** Places named by the lexicon join the keyword lists' locations, sub_label "area", once each. */
function withPlaces(locations: NerSeed['locations'], places: readonly string[]): NerSeed['locations'] {
  const out = [...locations];
  for (const text of places) {
    const key = text.toLowerCase();
    if (!out.some((l) => l.sub_label === 'area' && l.text.toLowerCase() === key)) out.push({ text, sub_label: 'area' });
  }
  return out;
}

/**
 * The four fields as JSON members, to append to the line as read (AppendedJson): every input byte
 * is kept and the record is not re-serialised. Only for records without any of ADDED_KEYS.
 */
export function tagMembers(facts: ChunkFacts, nerSeedJson: string): string {
  return tagFieldsJson(contextFieldsJson(facts), nerSeedJson, stringArrayJson(facts.flags));
}

// Hand-written JSON of the known shapes (see seed-json.ts), key order as in ADDED_KEYS. The context
// part is apart: it is the only one that depends on the document's doc type.

/** `"context":…,"section_id":…` */
export function contextFieldsJson(facts: ChunkFacts): string {
  return `"context":${contextJson(facts.context)},"section_id":${jsonString(facts.section_id)}`;
}

export function tagFieldsJson(contextFields: string, nerSeedJson: string, tagFlagsJson: string): string {
  return `${contextFields},"ner_seed":${nerSeedJson},"tag_flags":${tagFlagsJson}`;
}

/** A JSON object's text with `fields` (JSON members, comma-separated) added before its closing brace. */
export const appendFields = appendMembers;

/**
 * The record with the four fields set: tag's own earlier values are replaced in place, upstream
 * fields of the same names keep their place under their new names (facts.renames), new keys go last.
 */
export function withTagFields(record: JsonObject, facts: ChunkFacts, seed: NerSeed): JsonObject {
  const added = { context: facts.context, section_id: facts.section_id, ner_seed: seed, tag_flags: facts.flags };
  if (facts.renames.length === 0) return { ...record, ...added };
  const renamed = new Map<string, string>(facts.renames);
  // fromEntries and spread define properties: a "__proto__" key stays a plain field.
  const entries = Object.entries(record).map(([k, v]) => [renamed.get(k) ?? k, v] as const);
  return { ...Object.fromEntries(entries), ...added };
}

/**
 * How much text doc-type detection reads (detectDocType's window, doc-type.ts). Evidence sent
 * between threads carries only this prefix; a test pins that detection agrees at the edge.
 */
export const DETECTION_TEXT_CHARS = 4000;

/**
 * Whether the record's doc form (type and subtype) depends on earlier records. The subtype is
 * always the form detected from the document's first chunk (ContextBuilder remembers it per
 * document), whatever fixes the type: only a form given whole (options.form) does not.
 */
export function docTypeDependsOnHistory(_record: JsonObject, options: ContextOptions): boolean {
  return options.form === undefined;
}

/**
 * What ContextBuilder reads to decide a doc form, copied onto `into`: built from these fields
 * alone, a ContextBuilder decides (and remembers) the same form as from the whole record. Values
 * it ignores (a number where it reads a string) are dropped, which it treats alike. The text, cut
 * to what detection reads, and the section path (the document's title) are left out when
 * `withText` is false: for a record whose other fields equal those of the record just before it,
 * the document's form is already decided.
 */
export function addDocTypeEvidence(into: DocTypeEvidenceFields, record: JsonObject, withText: boolean): void {
  if (typeof record.doc_type === 'string') into.doc_type = record.doc_type;
  if (typeof record.doc_name === 'string') into.doc_name = record.doc_name;
  if (typeof record.source_path === 'string') into.source_path = record.source_path;
  // The same readers as ContextBuilder: a numeric doc id is its string, text may be embedding_text.
  const docId = docIdOf(record);
  if (docId !== undefined) into.doc_id = docId;
  if (!withText) return;
  const text = chunkTextOf(record);
  if (text !== undefined) into.text = text.slice(0, DETECTION_TEXT_CHARS);
  const path = sectionPathOf(record);
  if (Array.isArray(path)) into.section_segments = path;
  else if (path !== undefined) into.section_path = path;
}

export type DocTypeEvidenceFields = {
  doc_id?: string;
  doc_type?: string;
  doc_name?: string;
  source_path?: string;
  text?: string;
  section_path?: string;
  section_segments?: string[];
};

/**
 * Whether `b` names the same document as `a` the same way (text aside): then, right after `a`,
 * ContextBuilder remembers the document's type. A record without any name is detected on its own.
 */
export function sameNamedDocument(a: DocTypeEvidenceFields, b: DocTypeEvidenceFields): boolean {
  if (a.doc_id === undefined && a.doc_name === undefined && a.source_path === undefined) return false;
  return a.doc_id === b.doc_id && a.doc_name === b.doc_name && a.source_path === b.source_path && a.doc_type === b.doc_type;
}
