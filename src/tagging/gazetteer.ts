import type { NegatedMention } from '../contracts/chunk.js';
import { LEXICON_FIELDS, type LexiconField } from '../contracts/vocabulary.js';
import { normaliseLabel, routeLabel, type LexiconEntry } from './lexicon.js';
import { NEGATABLE_FIELDS, type ScopeIndex, weakStatement } from './negation.js';
import { longFormClass, type AcronymDefinition, type TermSpan } from './acronyms.js';
import { buildPhraseLists, regularPlurals, TokenBuffer, type PhraseList, type PhraseListsMatcher, type PhraseSpec } from './phrase-matcher.js';

/** What the gazetteer found beside the seed lists. */
export interface GazetteerExtras {
  /** Mechanisms and outcomes the text rules out (never also in their positive list). */
  negated: NegatedMention[];
  /** Buildings, rooms and plant areas ("Turbine Building", "turbine bay"): locations, not components. */
  places: string[];
}

export interface Gazetteer {
  match(text: string): Record<LexiconField, string[]>;
  /**
   * The same for a text already tokenized (the tag stage shares one TokenBuffer per record). With
   * `marks`, a match inside a negation cue or a heading label ("Failure Mode:") is dropped, and a
   * mechanism or outcome inside a negated scope goes to `extras.negated` instead of its list, unless
   * the same term also occurs outside any scope.
   */
  matchTokens(tokens: TokenBuffer, marks?: ScopeIndex | null, extras?: GazetteerExtras): Record<LexiconField, string[]>;
  /** The gazetteer's phrases as one phrase list, to share one matcher (and one scan) with others. */
  readonly phraseList: PhraseList<number>;
  /** matchTokens in parts: the handler for the matches of `phraseList` in `tokens`, then the lists. */
  begin(tokens: TokenBuffer, marks?: ScopeIndex | null, extras?: GazetteerExtras): GazetteerScan;
  /** What the long form of an acronym the text defines names (acronyms.ts longFormClass): a field index or -1. */
  acronymClass(definition: AcronymDefinition, terms: readonly TermSpan[], tokens: TokenBuffer): number;
}

/** One scan of the gazetteer's phrase list: its matches in text order, then the lists they make. */
export interface GazetteerScan {
  /** `phrase`: as the shared matcher's ListMatchHandler gives it (-1 when unknown). */
  onMatch(start: number, end: number, routes: readonly number[], first: number, last: number, phrase?: number): void;
  /** Adds tokens first..last as an item of field `field` (an index into LEXICON_FIELDS), as a match would. */
  addItem(field: number, first: number, last: number): void;
  finish(): Record<LexiconField, string[]>;
}

/** The seed fields (a bit set of LEXICON_FIELDS indexes) a gazetteer match's payloads route to. */
export function routeFields(routes: readonly number[]): number {
  let fields = 0;
  for (const route of routes) {
    const field = fieldOfRoute(route);
    if (field >= 0) fields |= 1 << field;
  }
  return fields;
}

// `Auxiliary Feedwater System (AFW)`: text rarely repeats the whole form, so the long form and the
// acronym are matched on their own too. The acronym keeps its case: lowercased, `PUT`, `HR` or
// `CS` would fire on ordinary words and units.
const LONG_FORM_AND_ACRONYM = /^(.*\S)\s*\(([^()]*)\)$/s;

// Unrouted labels keep a NO_FIELD payload: their terms still win longest-match, so a material or
// chemical name does not leak its sub-words into a routed field. Routed payloads are indexes into
// LEXICON_FIELDS: a number compares and indexes faster than a field name on the hot path. Places
// (the lexicon's buildings and rooms) are locations: PLACE.
type Route = number;
const NO_FIELD = -1;
const PLACE = -2;
const PLACE_LABELS = new Set(['arch']);
// The plural of a one-word noun term ("foundations", "tests") is a route plus BARE_PLURAL: ordinary
// English has such words too ("to lay the foundations deep"), so they are kept only in a text the
// lexicon reads otherwise as well (a term as written, or a plural of several words).
const BARE_PLURAL = 16;
/** A route's field index (or its negative marker), whether or not it came from a bare plural. */
const fieldOfRoute = (route: number): number => (route >= BARE_PLURAL ? route - BARE_PLURAL : route);
// An `event_v` term ("isolated", "initiated", "shut down", "lost") states what happened to plant
// equipment where equipment is its subject ("the steam supply valve isolated", "condenser vacuum
// was lost") or a manner adverb says it happened of itself or by hand ("automatically started",
// "manually started", kept with the verb): then it is an outcome, and no maintenance action even
// where the lexicon also lists the word as one. Otherwise it is no outcome: "operators isolated the
// leak" stays a maintenance action, "a work order was initiated" is nothing, and after an article
// ("an isolated case") the word is an adjective and names nothing at all.
const EVENT_VERB = -3;
const MANNER_WORDS = new Set(['automatically', 'manually', 'spuriously', 'inadvertently', 'unexpectedly']);
// Between the subject and its verb: past auxiliaries and a few adverbs ("were also deenergized").
// An event report states what happened in the past; "If RCS is isolated" is a procedure's condition.
const VERB_GAP_WORDS = new Set(['was', 'were', 'has', 'have', 'had', 'been', 'also', 'then', 'subsequently', 'both', 'all']);
const VERB_GAP = 2;
const ARTICLES = new Set(['a', 'an', 'the']);
const THING_FIELDS: ReadonlySet<LexiconField | null> = new Set<LexiconField>(['systems', 'components', 'tools']);

// Names of document kinds and programmes claim their span and route nowhere, so a lexicon with
// "work" or "order" as terms does not find them in "Work Order".
const CLAIMED_NAMES = [
  'work order', 'work orders', 'work request', 'condition report', 'condition reports', 'corrective action program',
  'standard operating procedure', 'operating procedure', 'causal evaluation', 'event causal evaluation',
  'operating experience', 'action request', 'technical specification', 'technical specifications', 'tech spec',
  // Kinds of plant name the facility a text is about, not one of its systems (a system is a named
  // plant system or train); claimed, they leave no "power" behind in "nuclear power plant".
  'nuclear power plant', 'nuclear power plants', 'nuclear plant', 'nuclear plants', 'nuclear station', 'nuclear stations',
  'power plant', 'power plants', 'power station', 'power stations', 'generating station', 'generating stations',
  'power reactor', 'power reactors', 'nuclear power reactor', 'nuclear power reactors',
  'pressurized water reactor', 'pressurized water reactors', 'boiling water reactor', 'boiling water reactors', 'PWR', 'PWRs', 'BWR', 'BWRs',
  // Terms of the NRC's oversight process (findings, their significance, SALP): a licensee's
  // performance there is how it met a requirement, not a quantity of the plant.
  'performance deficiency', 'performance deficiencies', 'performance indicator', 'performance indicators', 'performance issue',
  'performance issues', 'performance area', 'performance areas', 'performance attribute', 'human performance',
  'licensee performance', 'cross-cutting aspect', 'cross-cutting area',
  // The industry, and the operational modes a plant is in (a state, not a quantity of it).
  'nuclear power', 'power operation', 'power operations', 'hot standby', 'hot shutdown', 'cold shutdown',
  // An NRC assessment programme and NRC Form 366's heading of an LER's safety assessment.
  'systematic assessment of licensee performance', 'assessment of safety consequences',
  // The title of 10 CFR Part 21 and the event category it gives an event notification.
  'reporting of defects and noncompliance', 'reporting of defects and non-compliance', 'defects and noncompliance',
  'defects and non-compliance',
];

const FIELD = (name: LexiconField): number => LEXICON_FIELDS.indexOf(name);
const NEGATABLE: readonly number[] = NEGATABLE_FIELDS.map((f) => FIELD(f));
const maskOf = (fields: readonly number[]): number => fields.reduce((mask, f) => mask | (1 << f), 0);
const ACTIONS: readonly number[] = [FIELD('surveillance_actions'), FIELD('maintenance_actions')];
// A heading label ("Failure Mode:", "Expected symptoms:", "Related evaluation:") names a field of a
// form, not a finding or an activity.
const NOT_IN_LABELS: readonly number[] = [FIELD('mechanisms'), FIELD('outcomes'), ...ACTIONS];
const NEGATABLE_MASK = maskOf(NEGATABLE);
const NOT_IN_LABELS_MASK = maskOf(NOT_IN_LABELS);
const ACTIONS_MASK = maskOf(ACTIONS);

const EQUIPMENT: readonly number[] = [FIELD('systems'), FIELD('components')];
const EQUIPMENT_MASK = maskOf(EQUIPMENT);
const PROPERTY = FIELD('properties');
const PROPERTY_MASK = 1 << PROPERTY;
const TOOLS_MASK = 1 << FIELD('tools');
const SYSTEMS_MASK = 1 << FIELD('systems');
const OUTCOMES_MASK = 1 << FIELD('outcomes');
// A system named as an unplanned actuation ("a spurious safety injection", "inadvertent
// containment spray"), or joined to an event by "or"/"and" ("reactor trip or safety injection"),
// is that event: an outcome, not the system.
const ACTUATION_WORDS = new Set(['spurious', 'inadvertent', 'unplanned', 'unexpected', 'invalid']);
const JOINING_WORDS = new Set(['or', 'and']);
const EVENT_MASK = maskOf([FIELD('outcomes'), FIELD('mechanisms')]);
const SYSTEM_HEADS = new Set(['system', 'systems']);
// Outcome nouns that are verbs after "to": "to break the seal" states no event; "a steam line break" does.
const VERB_AFTER_TO = new Set(['break']);
const TO = new Set(['to']);
// An emergency class is written capitalised ("declared an Alert", "the ALERT"); lower case the word
// is the verb ("to alert addressees") or a threshold ("the alert limit"), and so is a class before
// a threshold word ("Alert limits").
const CLASS_NOUNS = new Set(['alert']);
const THRESHOLD_WORDS = new Set(['limit', 'limits', 'level', 'levels', 'range', 'value', 'values', 'setpoint', 'setpoints']);
const THRESHOLD_HASHES = hashesOf(THRESHOLD_WORDS);
// Outcome nouns of a system's action ("initiation"): an outcome as the action of equipment, right
// after it ("HPI initiation") or with "of" ("initiation of standby gas treatment"); "unknown at
// initiation" (a record's opening) is none.
const ACTION_NOUNS = new Set(['initiation']);
const OF = new Set(['of']);
const OF_HASHES = hashesOf(OF);
/** One-word outcome terms that are outcomes only in context (read above): no concept on their own. */
export const CONTEXT_OUTCOME_NOUNS: ReadonlySet<string> = new Set([...VERB_AFTER_TO, ...CLASS_NOUNS, ...ACTION_NOUNS]);
// The fields a document's or an office's name may hold a term of.
const NAMED_MASK = ACTIONS_MASK | PROPERTY_MASK | maskOf([FIELD('outcomes'), FIELD('mechanisms')]);
// A system or component right before one of these names a place ("turbine bay", "pump room").
const AREA_HEADS = new Set(['building', 'buildings', 'room', 'rooms', 'bay', 'house', 'yard', 'vault', 'gallery', 'pit', 'area', 'elevation', 'elev', 'deck', 'corridor', 'enclosure']);
// "for training/test purposes": an activity named as a purpose is not one performed.
const PURPOSE_WORDS = new Set(['purpose', 'purposes', 'use', 'only']);
// An activity, finding or quantity right before one of these names a document, a form, an office
// or a person's role ("Inspection Report", "Deviation Report", "Surveillance Requirement", "Vendor
// Inspection Branch", "IST Coordinator", "test technician"), not something that happened.
// (A programme, plan or requirement of an activity still names the activity: "repair plan",
// "Surveillance Requirement", "power ascension test program".)
const DOCUMENT_HEADS = new Set([
  'report', 'reports', 'manual', 'chapter', 'branch', 'office', 'coordinator', 'technician', 'technicians', 'supervisor',
  'engineer', 'engineers', 'board',
]);
// A quantity right before one of these is what an instrument, a signal or a drive measures or
// works on ("temperature switch", "Over Voltage Relay", "Variable Frequency Drives", "minimum flow
// logic"): the compound is the mention, not the quantity. (An alarm's quantity stays one: "no
// bearing temperature alarms" tells which quantity was watched.)
const INSTRUMENT_HEADS = new Set([
  'switch', 'switches', 'gauge', 'gauges', 'gage', 'indicator', 'indicators', 'indication', 'transmitter',
  'transmitters', 'element', 'elements', 'relay', 'relays', 'drive', 'drives', 'driven', 'logic', 'path', 'paths', 'signal',
  'signals', 'setpoint', 'setpoints', 'channel', 'channels', 'detector', 'detectors', 'sensor', 'sensors', 'controller',
  'controllers', 'recorder', 'recorders', 'fixture', 'instrument', 'instruments', 'instrumentation', 'trip', 'bypass',
]);
// The last word of an organisation's name ("Engine Systems, Inc.", "Omaha Public Power District",
// "Northern States Power Company", "Tennessee Valley Authority"): a term inside such a capitalised
// run is part of the name.
const ORGANISATION_HEADS = new Set([
  'inc', 'incorporated', 'co', 'company', 'companies', 'corporation', 'corp', 'district', 'authority', 'llc', 'ltd', 'limited',
  'utilities', 'industries', 'associates', 'cooperative',
]);
// How many capitalised words may follow a term before the organisation head ("Power and Light Co").
const NAME_WORDS = 4;
// The words a capitalised name run may hold in lower case.
const NAME_JOINERS = new Set(['and', 'of', '&', ',', '.']);

/**
 * Whether a label's terms are nouns, whose last word also matches in the plural ("tanks",
 * "temperature switches"): every routed label but the verb sheets (`*_v`) and the maintenance
 * sheet, which mixes verbs with nouns ("repair", "replaced"). Unrouted labels stay as written.
 */
function namesThings(label: string, field: LexiconField | null): boolean {
  return field !== null && field !== 'maintenance_actions' && !normaliseLabel(label).endsWith('_v');
}

/** The gazetteer's phrases: payload = index into LEXICON_FIELDS, -1 for a label that is not routed, -2 for a place. */
export function phraseSpecs(entries: readonly LexiconEntry[]): PhraseSpec<Route>[] {
  const specs: PhraseSpec<Route>[] = [];
  // Here, not at load: a Unicode-aware regex costs a fraction of a millisecond to parse.
  const hasWordChar = /[\p{L}\p{N}]/u;
  for (const { term, label } of entries) {
    const field = routeLabel(label);
    const normalised = normaliseLabel(label);
    const payload = PLACE_LABELS.has(normalised) ? PLACE : normalised === 'event_v' ? EVENT_VERB : field === null ? NO_FIELD : LEXICON_FIELDS.indexOf(field);
    const oneWord = !/\s|-/.test(term.trim());
    // A one-word finding, quantity or activity in the plural ("anomalies", "levels", "tests") names
    // such things in general more often than one that happened: only equipment and places take it.
    const plural = namesThings(label, field) && (!oneWord || payload === PLACE || THING_FIELDS.has(field));
    specs.push({ phrase: term, payload, plural, ...(plural && oneWord && payload >= 0 ? { pluralPayload: payload + BARE_PLURAL } : {}) });
    const parts = LONG_FORM_AND_ACRONYM.exec(term);
    if (parts === null) continue;
    const longForm = (parts[1] ?? '').trim();
    const acronym = (parts[2] ?? '').trim();
    if (hasWordChar.test(longForm)) specs.push({ phrase: longForm, payload, plural });
    if (hasWordChar.test(acronym)) specs.push({ phrase: acronym, payload, caseSensitive: true });
  }
  return specs;
}

// The follow-word checks run per match: token hashes are compared first, text only on a hash hit.
function hashesOf(words: ReadonlySet<string>): Set<number> {
  const buffer = new TokenBuffer();
  return new Set([...words].map((w) => buffer.load(w).hashes[0]!));
}

function nextWordIn(tokens: TokenBuffer, last: number, hashes: Set<number>, words: ReadonlySet<string>): string | null {
  const k = last + 1;
  if (k >= tokens.count || !hashes.has(tokens.hashes[k]!)) return null;
  const word = tokens.lower.slice(tokens.starts[k], tokens.ends[k]);
  return words.has(word) ? word : null;
}

/** "100% power", "90 percent power": the quantity a measurement names (the measurement holds it). */
function afterPercent(tokens: TokenBuffer, first: number): boolean {
  if (first === 0) return false;
  const k = first - 1;
  const start = tokens.starts[k]!;
  const end = tokens.ends[k]!;
  if (end - start === 1) return tokens.lower.charCodeAt(start) === 0x25;
  return end - start === 7 && tokens.lower.startsWith('percent', start);
}

function wordBefore(tokens: TokenBuffer, first: number, words: ReadonlySet<string>): boolean {
  return first > 0 && words.has(tokens.lower.slice(tokens.starts[first - 1], tokens.ends[first - 1]));
}

function capitalised(tokens: TokenBuffer, k: number): boolean {
  const code = tokens.text.charCodeAt(tokens.starts[k]!);
  return code >= 0x41 && code <= 0x5a;
}

/**
 * Whether a capitalised term starts or sits in a capitalised run that ends, within NAME_WORDS
 * words, on an organisation's head word: "Engine Systems, Inc.", "Omaha Public Power District".
 */
function inOrganisationName(tokens: TokenBuffer, first: number, last: number): boolean {
  if (!capitalised(tokens, first)) return false;
  let words = 0;
  for (let k = last + 1; k < tokens.count && words <= NAME_WORDS; k++) {
    const word = tokens.lower.slice(tokens.starts[k], tokens.ends[k]);
    if (ORGANISATION_HEADS.has(word)) return capitalised(tokens, k);
    if (NAME_JOINERS.has(word)) continue;
    if (!capitalised(tokens, k)) return false;
    words++;
  }
  return false;
}

const NO_HEAD = { field: -1, other: false };

/**
 * The lexicon's head nouns: the last words of its terms (and their plurals), each with the
 * equipment field (systems or components) whose terms end in it at least twice and more often than
 * in any other field's ("system", "injection", "pump", "valve"), and whether another field ends as
 * many of its terms in it ("pressure", "test").
 */
function headNouns(entries: readonly LexiconEntry[]): Map<string, { field: number; other: boolean }> {
  const counts = new Map<string, number[]>();
  const note = (word: string, field: number): void => {
    const row = counts.get(word) ?? new Array<number>(LEXICON_FIELDS.length).fill(0);
    row[field]!++;
    counts.set(word, row);
  };
  for (const { term, label } of entries) {
    const field = routeLabel(label);
    if (field === null || PLACE_LABELS.has(normaliseLabel(label))) continue;
    const words = term.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== '');
    const last = words[words.length - 1];
    if (last === undefined) continue;
    const index = LEXICON_FIELDS.indexOf(field);
    note(last, index);
    for (const plural of regularPlurals(last)) note(plural, index);
  }
  const heads = new Map<string, { field: number; other: boolean }>();
  for (const [word, row] of counts) {
    let best = -1;
    for (const field of EQUIPMENT) if (row[field]! >= 2 && (best < 0 || row[field]! > row[best]!)) best = field;
    const top = best < 0 ? 0 : row[best]!;
    const other = row.some((n, field) => !EQUIPMENT.includes(field) && n > 0 && n >= top);
    heads.set(word, { field: other ? -1 : best, other });
  }
  return heads;
}

export function buildGazetteer(entries: LexiconEntry[]): Gazetteer {
  const specs = phraseSpecs(entries);
  for (const phrase of CLAIMED_NAMES) specs.push({ phrase, payload: NO_FIELD });
  const phraseList: PhraseList<Route> = { specs };
  // Built on first use: the tag stage scans this list in the matcher it shares with the keyword lists.
  let matcher: PhraseListsMatcher<Route> | null = null;
  const ownTokens = new TokenBuffer();
  const areaHashes = hashesOf(AREA_HEADS);
  const purposeHashes = hashesOf(PURPOSE_WORDS);
  const documentHashes = hashesOf(DOCUMENT_HEADS);
  const systemHashes = hashesOf(SYSTEM_HEADS);
  const instrumentHashes = hashesOf(INSTRUMENT_HEADS);

  function begin(tokens: TokenBuffer, marks: ScopeIndex | null = null, extras: GazetteerExtras = { negated: [], places: [] }): GazetteerScan {
    const lists: string[][] = [[], [], [], [], [], [], [], []];
    const ruledOut: Array<{ field: number; mention: NegatedMention }> = [];
    // The negatable terms stated outside every scope, where (only in a text with scopes or labels).
    const statedAt: Array<{ field: number; start: number; end: number; first: number; last: number }> = [];
    // Lowercased surface -> bit set of the fields it was added to (first-seen order, one item per
    // field and case-insensitive surface). Created on the first routed match only. Keyed by
    // tokens.surfaceKey where it gives one (a small integer: no string built, lowercased or hashed
    // for a repeat), else by the lowercased surface itself; one surface always gets the same kind
    // of key, so the two never stand for the same surface.
    let seen: Map<string | number, number> | null = null;
    const place = (surface: string): void => {
      const key = surface.toLowerCase();
      if (!extras.places.some((p) => p.toLowerCase() === key)) extras.places.push(surface);
    };
    const onMatch = (start: number, end: number, routes: readonly Route[], first: number, last: number, phrase = -1): void => {
      // The fields of this match as a bit set: the checks below clear bits, nothing is allocated.
      let fields = 0;
      let bare = true;
      let eventVerb = false;
      for (const route of routes) {
        if (route === PLACE) {
          place(tokens.surface(first, last));
          return;
        }
        if (route === EVENT_VERB) eventVerb = true;
        if (route < BARE_PLURAL) bare = false;
        const field = fieldOfRoute(route);
        if (field >= 0) fields |= 1 << field;
      }
      // What the next verb's subject may be: the equipment (or quantity) this match names.
      if ((fields & (EQUIPMENT_MASK | PROPERTY_MASK)) !== 0) lastSubject = last;
      if (eventVerb) {
        if (wordBefore(tokens, first, MANNER_WORDS)) {
          first--;
          start = tokens.starts[first]!;
          phrase = -1;
          fields = OUTCOMES_MASK;
        } else if ((subjectEndsAt(first) === lastSubject && lastSubject >= 0) || noneIsSubject(first)) fields = OUTCOMES_MASK;
        else if (wordBefore(tokens, first, ARTICLES)) return;
      }
      if (fields === 0) return;
      if (fields === OUTCOMES_MASK && first === last) {
        const word = tokens.lower.slice(tokens.starts[first], tokens.ends[first]);
        if (VERB_AFTER_TO.has(word) && wordBefore(tokens, first, TO)) return;
        if (CLASS_NOUNS.has(word) && (!capitalised(tokens, first) || nextWordIn(tokens, last, THRESHOLD_HASHES, THRESHOLD_WORDS) !== null)) return;
        if (ACTION_NOUNS.has(word) && lastSubject !== first - 1 && nextWordIn(tokens, last, OF_HASHES, OF) === null) return;
      }
      if (fields === SYSTEMS_MASK && (wordBefore(tokens, first, ACTUATION_WORDS) || (lastOutcome === first - 2 && wordBefore(tokens, first, JOINING_WORDS)))) {
        fields = OUTCOMES_MASK;
      }
      if ((fields & OUTCOMES_MASK) !== 0) lastOutcome = last;
      // Names hold terms that are no mentions, in a negated scope or not (so they are decided here).
      if ((fields & NAMED_MASK) !== 0 && nextWordIn(tokens, last, documentHashes, DOCUMENT_HEADS) !== null) fields &= ~NAMED_MASK;
      // "Auxiliary Feedwater Actuation System", "Primary Containment Isolation System": an event
      // right before "system" names the system that makes it, not the event.
      if ((fields & EVENT_MASK) !== 0 && nextWordIn(tokens, last, systemHashes, SYSTEM_HEADS) !== null) fields &= ~EVENT_MASK;
      if (fields === 0 || inOrganisationName(tokens, first, last)) return;
      if (marks !== null) {
        if (marks.inCue(start, end)) return;
        // A bare plural as a heading label ("Columns: Field | Value") names the form's parts.
        if (bare && marks.inLabel(start, end)) return;
        if (marks.inLabel(start, end)) fields &= ~NOT_IN_LABELS_MASK;
        if ((fields & NEGATABLE_MASK) !== 0) {
          const scope = marks.scopeOf(start, end);
          if (scope !== null) {
            const text = tokens.surface(first, last);
            for (const field of NEGATABLE) {
              if ((fields & (1 << field)) !== 0) ruledOut.push({ field, mention: { text, kind: LEXICON_FIELDS[field]!, cue: scope.cue } });
            }
            // Its other fields (a term routed to two) keep it as usual.
            fields &= ~NEGATABLE_MASK;
          } else {
            // Where it is stated, for finish: a hedged occurrence does not keep a ruled-out term positive.
            for (const field of NEGATABLE) if ((fields & (1 << field)) !== 0) statedAt.push({ field, start, end, first, last });
          }
        }
      }
      if ((fields & EQUIPMENT_MASK) !== 0 && nextWordIn(tokens, last, areaHashes, AREA_HEADS) !== null) {
        place(tokens.surface(first, last + 1));
        fields &= ~EQUIPMENT_MASK;
      }
      if ((fields & ACTIONS_MASK) !== 0 && nextWordIn(tokens, last, purposeHashes, PURPOSE_WORDS) !== null) fields &= ~ACTIONS_MASK;
      if ((fields & PROPERTY_MASK) !== 0 && (afterPercent(tokens, first) || nextWordIn(tokens, last, instrumentHashes, INSTRUMENT_HEADS) !== null)) {
        fields &= ~PROPERTY_MASK;
      }
      // A quantity naming the equipment matched right after it ("discharge pressure gauge" where
      // "pressure gauge" is not a term, "power supply cable") is taken back: the compound is the mention.
      if ((fields & (EQUIPMENT_MASK | TOOLS_MASK)) !== 0 && lastProperty !== null && lastProperty.last === first - 1) takeBack(lastProperty);
      lastProperty = null;
      if (fields === 0) return;
      const numberKey = tokens.surfaceKey(first, last, phrase);
      let surface: string | null = null;
      let key: string | number = numberKey;
      if (numberKey < 0) {
        surface = tokens.surface(first, last);
        key = surface.toLowerCase();
      }
      seen ??= new Map();
      const before = seen.get(key) ?? 0;
      // A repeat adds nothing (a third of all matches): then the map is not written again.
      if ((fields & ~before) === 0) return;
      surface ??= tokens.surface(first, last);
      let kept = before;
      for (let field = 0; field < LEXICON_FIELDS.length; field++) {
        const bit = 1 << field;
        if ((fields & bit) === 0 || (kept & bit) !== 0) continue;
        kept |= bit;
        lists[field]!.push(surface);
      }
      seen.set(key, kept);
      if (!bare) readOther = true;
      if ((fields & ~before & PROPERTY_MASK) !== 0) lastProperty = { last, key };
    };
    // The property the previous match added, while it is the last of its list.
    let lastProperty: { last: number; key: string | number } | null = null;
    // The last token of the latest outcome match.
    let lastOutcome = -2;
    // Whether an item came from a match other than a bare plural (BARE_PLURAL).
    let readOther = false;
    // The last token of the latest equipment or property match (or acronym item), -1 before any.
    let lastSubject = -1;
    /** The token a verb at `first` has its subject end on, past auxiliaries ("vacuum was lost"). */
    const subjectEndsAt = (first: number): number => {
      let k = first - 1;
      for (let gap = 0; gap < VERB_GAP && k >= 0 && VERB_GAP_WORDS.has(tokens.lower.slice(tokens.starts[k], tokens.ends[k])); gap++) k--;
      return k;
    };
    // "found none to have been activated", "none were tripped": "none" stands for the equipment
    // looked for, so the verb after it is what that equipment did not do (a negation scope holds it).
    const noneIsSubject = (first: number): boolean => {
      let k = subjectEndsAt(first);
      const word = (i: number): string => (i < 0 ? '' : tokens.lower.slice(tokens.starts[i], tokens.ends[i]));
      if (word(k) === 'to') k--;
      return word(k) === 'none';
    };
    const takeBack = ({ key }: { last: number; key: string | number }): void => {
      const list = lists[PROPERTY]!;
      list.pop();
      seen!.set(key, seen!.get(key)! & ~PROPERTY_MASK);
    };
    const finish = (): Record<LexiconField, string[]> => {
      // Only bare plurals read: ordinary English, not plant equipment or events.
      if (!readOther) for (const list of lists) list.length = 0;
      // A term stated outside every scope stays positive: it is not also listed as ruled out.
      // Stated only under a hedge, as unconfirmed or in an alarm's name, it is ruled out here and
      // leaves the positive list.
      for (const { field, mention } of ruledOut) {
        const key = mention.text.toLowerCase();
        const list = lists[field]!;
        const at = list.findIndex((t) => t.toLowerCase() === key);
        if (at >= 0) {
          const stated = statedAt.filter((p) => p.field === field && tokens.surface(p.first, p.last).toLowerCase() === key);
          // (A term listed by another way, an acronym's item, stays.)
          const weak = stated.map((p) => weakStatement(tokens.text, p.start, p.end));
          if (stated.length === 0 || weak.includes(false)) continue;
          list.splice(at, 1);
          // What its alarm's name states is the alarm ("the fire alarm occurred"): listed as that.
          weak.forEach((w, i) => {
            if (w !== 'alarm') return;
            const name = tokens.surface(stated[i]!.first, stated[i]!.last + 1);
            if (!list.some((t) => t.toLowerCase() === name.toLowerCase())) list.push(name);
          });
        }
        if (extras.negated.some((n) => n.kind === mention.kind && n.text.toLowerCase() === key)) continue;
        extras.negated.push(mention);
      }
      // Keys in LEXICON_FIELDS order, every field present even when empty.
      return {
        systems: lists[0]!,
        components: lists[1]!,
        mechanisms: lists[2]!,
        outcomes: lists[3]!,
        surveillance_actions: lists[4]!,
        maintenance_actions: lists[5]!,
        properties: lists[6]!,
        tools: lists[7]!,
      };
    };
    const addItem = (field: number, first: number, last: number): void => {
      const surface = tokens.surface(first, last);
      const key = surface.toLowerCase();
      const list = lists[field]!;
      readOther = true;
      if (((1 << field) & EQUIPMENT_MASK) !== 0) lastSubject = last;
      if (list.some((t) => t.toLowerCase() === key)) return;
      list.push(surface);
      seen ??= new Map();
      seen.set(key, (seen.get(key) ?? 0) | (1 << field));
    };
    return { onMatch, addItem, finish };
  }

  const heads = headNouns(entries);
  // "a spurious safety injection (SI) signal": the long form names an actuation, an event (as onMatch reads it).
  const acronymClass = (definition: AcronymDefinition, terms: readonly TermSpan[], tokens: TokenBuffer): number =>
    wordBefore(tokens, definition.first, ACTUATION_WORDS) ? -1 : longFormClass(definition, terms, EQUIPMENT_MASK, (word) => heads.get(word) ?? NO_HEAD, (k) => tokens.lower.slice(tokens.starts[k], tokens.ends[k]));
  return {
    phraseList,
    begin,
    acronymClass,
    match(text: string): Record<LexiconField, string[]> {
      return this.matchTokens(ownTokens.load(text));
    },
    matchTokens(tokens: TokenBuffer, marks: ScopeIndex | null = null, extras?: GazetteerExtras): Record<LexiconField, string[]> {
      const scan = begin(tokens, marks, extras);
      (matcher ??= buildPhraseLists([phraseList])).scan(tokens, (_list, start, end, routes, first, last) => scan.onMatch(start, end, routes, first, last));
      return scan.finish();
    },
  };
}
