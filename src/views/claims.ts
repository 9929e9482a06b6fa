// Claim checks beyond "the number is in the text": a quantity keeps its unit and its comparator,
// an item keeps the polarity of the clause it comes from, and the systems and components it
// names are ones the text names. Each check reads the normalised tokens of evidence-text.ts, so
// "5.0 mils", "5.0 MILS" and "| 5.0 | mils |" are the same quantity.
import { normaliseTokens, normalisedForm, tokensOf, type Clause, type EvidenceText, type Token } from './evidence-text.js';
import { stem } from './evidence-match.js';
import { negationCueTokens, TURN_AFTER_COMMA, TURN_WORDS } from '../tagging/negation-cues.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

// Canonical units by written form (normalised tokens). Single letters that are also words
// ("a", "s", "h", "m") are left out: "5 A" is too often "5 a(n)".
const UNITS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    mil: 'mil', mils: 'mil', psig: 'psig', psi: 'psi', psia: 'psia', psid: 'psid', gpm: 'gpm', rpm: 'rpm', '%': '%', percent: '%',
    degf: '°f', degc: '°c', in: 'in', inch: 'in', inches: 'in', ft: 'ft', feet: 'ft', foot: 'ft', mm: 'mm', cm: 'cm',
    hour: 'h', hours: 'h', hr: 'h', hrs: 'h', minute: 'min', minutes: 'min', min: 'min', mins: 'min', second: 's', seconds: 's', sec: 's', secs: 's',
    day: 'd', days: 'd', week: 'wk', weeks: 'wk', month: 'mo', months: 'mo', year: 'yr', years: 'yr',
    kv: 'kv', v: 'v', vac: 'vac', vdc: 'vdc', volt: 'v', volts: 'v', amp: 'amp', amps: 'amp', amperes: 'amp', ma: 'ma',
    mw: 'mw', kw: 'kw', hp: 'hp', hz: 'hz', gal: 'gal', gallon: 'gal', gallons: 'gal', lb: 'lb', lbs: 'lb', lbm: 'lbm', lbf: 'lbf',
    'ft-lbs': 'ft-lb', 'ft-lb': 'ft-lb', 'lb-ft': 'ft-lb', 'ft-lbf': 'ft-lb', 'in-lbs': 'in-lb', 'in-lb': 'in-lb', rem: 'rem', mrem: 'mrem', ppm: 'ppm', ppb: 'ppb', inhg: 'inhg', ips: 'ips', times: 'x', x: 'x', g: 'g', gph: 'gph', cfm: 'cfm',
  }),
);
const DIGIT_OR_NON_ASCII_RE = /[0-9]|[^\x00-\x7f]/;
const NUMBER_TOKEN_RE = /^\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?$/;
type Direction = 'gt' | 'lt';
// Read right to left from the number: the nearest comparator wins ("not less than" before "less than").
const COMPARATORS: ReadonlyArray<readonly [string, Direction]> = [
  ['not to exceed', 'lt'], ['not exceed', 'lt'], ['not more than', 'lt'], ['no more than', 'lt'], ['not greater than', 'lt'], ['not above', 'lt'],
  ['not less than', 'gt'], ['no less than', 'gt'], ['not below', 'gt'], ['at least', 'gt'], ['at most', 'lt'],
  ['greater than', 'gt'], ['more than', 'gt'], ['higher than', 'gt'], ['in excess of', 'gt'], ['less than', 'lt'], ['lower than', 'lt'], ['up to', 'lt'],
  ['above', 'gt'], ['over', 'gt'], ['exceeds', 'gt'], ['exceed', 'gt'], ['exceeded', 'gt'], ['exceeding', 'gt'], ['minimum', 'gt'], ['>', 'gt'], ['≥', 'gt'],
  ['below', 'lt'], ['under', 'lt'], ['maximum', 'lt'], ['max', 'lt'], ['<', 'lt'], ['≤', 'lt'],
];
// How far before a number its comparator may stand: "below the alert limit of 0.325 in/s".
const COMPARATOR_WINDOW = 6;

export interface Quantity {
  value: string;
  unit: string | null;
  comparator: Direction | null;
  /** As written in the item, for the flag ("above 5.0 mils"). */
  phrase: string;
}

/** The quantities of a token list: a number, its unit (the next token) and its comparator (up to four tokens before). */
export function quantitiesOf(tokens: readonly Token[] | readonly string[], raw?: string, clauseStart: (i: number) => number = () => 0, phrases = true): Quantity[] {
  const norms = tokens.map((t) => (typeof t === 'string' ? t : t.norm));
  const out: Quantity[] = [];
  for (let i = 0; i < norms.length; i++) {
    // A number token starts with a digit: most tokens are words, told apart by their first code.
    const lead = norms[i]!.charCodeAt(0);
    if (!(lead >= 48 && lead <= 57) || !NUMBER_TOKEN_RE.test(norms[i]!)) continue;
    let unit: string | null = null;
    let unitEnd = i;
    const next = norms[i + 1];
    if (next === '°' && (norms[i + 2] === 'f' || norms[i + 2] === 'c')) {
      unit = `°${norms[i + 2]}`;
      unitEnd = i + 2;
    } else if (next === 'in' && norms[i + 2] === 's') {
      unit = 'in/s';
      unitEnd = i + 2;
    } else if (next !== undefined && UNITS.has(next)) {
      unit = UNITS.get(next)!;
      unitEnd = i + 1;
    }
    const found = comparatorBefore(norms, i);
    const from = found.from;
    let direction = found.direction;
    // "Do not operate … for more than 2 minutes" sets an upper limit: a negated comparator turns round.
    if (direction !== null && from !== null && negationCues(norms.slice(clauseStart(i), from)).length > 0) direction = direction === 'gt' ? 'lt' : 'gt';
    const first = from ?? i;
    // The text's quantities are compared by value, unit and comparator; only an item's phrase is shown.
    const phrase = !phrases ? '' : raw !== undefined && typeof tokens[first] !== 'string' ? raw.slice((tokens[first] as Token).start, (tokens[unitEnd] as Token).end) : norms.slice(first, unitEnd + 1).join(' ');
    out.push({ value: norms[i]!, unit, comparator: direction, phrase });
  }
  return out;
}

// The comparators by their last word, each split once.
const COMPARATORS_BY_LAST = new Map<string, { words: string[]; direction: Direction }[]>();
for (const [phrase, direction] of COMPARATORS) {
  const words = phrase.split(' ');
  const last = words.at(-1)!;
  const list = COMPARATORS_BY_LAST.get(last) ?? [];
  list.push({ words, direction });
  COMPARATORS_BY_LAST.set(last, list);
}

function comparatorBefore(norms: readonly string[], at: number): { direction: Direction | null; from: number | null } {
  for (let back = 1; back <= COMPARATOR_WINDOW && at - back >= 0; back++) {
    const end = at - back;
    const lead = norms[end]!.charCodeAt(0);
    if (lead >= 48 && lead <= 57 && NUMBER_TOKEN_RE.test(norms[end]!)) break;
    const candidates = COMPARATORS_BY_LAST.get(norms[end]!);
    if (candidates === undefined) continue;
    // Longest first: "not less than" before "less than".
    let best: { words: string[]; direction: Direction } | null = null;
    for (const c of candidates) {
      const start = end - c.words.length + 1;
      if (start < 0 || !c.words.every((w, k) => norms[start + k] === w)) continue;
      if (best === null || c.words.length > best.words.length) best = c;
    }
    if (best !== null) return { direction: best.direction, from: end - best.words.length + 1 };
  }
  return { direction: null, from: null };
}

/** The quantities of the text, by value, computed once per text. */
function quantitiesByValue(text: EvidenceText): Map<string, Quantity[]> {
  let byValue = text.derived.quantities as Map<string, Quantity[]> | undefined;
  if (byValue === undefined) {
    byValue = new Map();
    for (const q of quantitiesOf(text.tokens, undefined, (i) => text.clauseOf(i)?.first ?? 0, false)) {
      const list = byValue.get(q.value) ?? [];
      list.push(q);
      byValue.set(q.value, list);
    }
    text.derived.quantities = byValue;
  }
  return byValue;
}

/**
 * wrong_unit:<q> when the text has the number only with other units; contradicted_comparator:<q>
 * when every occurrence of it (with this unit) that has a comparator has the opposite one.
 * A number the text does not hold at all is the number check's (ungrounded_number).
 */
export function quantityFlags(item: string, text: EvidenceText): string[] {
  const flags: string[] = [];
  // A quantity is a number token: an ASCII item without a digit has none (NFKC can make digits
  // only from other characters).
  if (!DIGIT_OR_NON_ASCII_RE.test(item)) return flags;
  return quantityFlagsOf(item, tokensOf(item), text);
}

/** quantityFlags of an item whose tokens are given (tokensOf(item)). */
function quantityFlagsOf(item: string, tokens: readonly Token[], text: EvidenceText): string[] {
  const flags: string[] = [];
  if (!DIGIT_OR_NON_ASCII_RE.test(item)) return flags;
  const quantities = quantitiesOf(tokens, item);
  // The text's quantities only when the item has some.
  if (quantities.length === 0) return flags;
  const byValue = quantitiesByValue(text);
  for (const q of quantities) {
    const occurrences = byValue.get(q.value);
    if (occurrences === undefined) continue;
    let pool = occurrences;
    if (q.unit !== null) {
      const same = occurrences.filter((o) => o.unit === q.unit);
      if (same.length === 0 && occurrences.some((o) => o.unit !== null)) {
        flags.push(`wrong_unit:${q.phrase}`);
        continue;
      }
      if (same.length > 0) pool = same;
    }
    if (q.comparator !== null) {
      const stated = pool.filter((o) => o.comparator !== null);
      if (stated.length > 0 && stated.every((o) => o.comparator !== q.comparator)) flags.push(`contradicted_comparator:${q.phrase}`);
    }
  }
  return flags;
}

// --- negation ---------------------------------------------------------------------------------

/**
 * Indexes of the negation cues among normalised tokens: the toolkit's one negation vocabulary
 * (tagging/negation-cues.ts), which rca-tag's negation scopes are built from too.
 */
export function negationCues(norms: readonly string[]): number[] {
  return negationCueTokens(norms);
}

/** Whether a string states something as not so. */
export function isNegated(value: string): boolean {
  return negationCues(normaliseTokens(value)).length > 0;
}

/**
 * The text's polarity where an item was found: negated when a cue stands inside the matched span
 * or before it in the same clause (a negation's scope runs to the clause end: "No safety
 * injection or reactor trip occurred"; "started without incident" does not negate "started").
 */
export function spanNegated(text: EvidenceText, clause: Clause, span: { start: number; end: number }): boolean {
  const cues = clauseCues(text, clause);
  if (cues.length === 0) return false;
  // Cues come in text order: the first that reaches the span decides. A turn of the sentence
  // between a cue and the span ends the cue's scope, as it ends tag's (tagging/negation-cues.ts
  // TURN_WORDS): "without the screw locked and therefore … from vibration" keeps the vibration.
  const turns = clauseTurns(text, clause);
  for (const cue of cues) {
    const at = text.tokens[clause.first + cue]!.start;
    if (at >= span.end) return false;
    if (at >= span.start || !turns.some((t) => t > cue && text.tokens[clause.first + t]!.start < span.start)) return true;
  }
  return false;
}

const TURNS = new Set<string>(TURN_WORDS);
const TURNS_AFTER_COMMA = new Set<string>(TURN_AFTER_COMMA);

// The turn words of a clause (indexes into it), found once per clause.
function clauseTurns(text: EvidenceText, clause: Clause): number[] {
  const byClause = (text.derived.clauseTurns ??= new Map());
  let turns = byClause.get(clause);
  if (turns === undefined) {
    turns = [];
    for (let i = clause.first; i < clause.last; i++) {
      const token = text.tokens[i]!;
      if (TURNS.has(token.norm) || (TURNS_AFTER_COMMA.has(token.norm) && commaBefore(text.raw, token.start))) turns.push(i - clause.first);
    }
    byClause.set(clause, turns);
  }
  return turns;
}

/** Whether a comma stands before `at`, blanks aside. */
function commaBefore(raw: string, at: number): boolean {
  let i = at;
  while (i > 0 && (raw[i - 1] === ' ' || raw[i - 1] === '\t' || raw[i - 1] === '\n' || raw[i - 1] === '\r')) i--;
  return raw[i - 1] === ',';
}

// The negation cues of a clause of a text, found once per clause.
function clauseCues(text: EvidenceText, clause: Clause): number[] {
  const byClause = (text.derived.clauseCues ??= new Map());
  let cues = byClause.get(clause);
  if (cues === undefined) byClause.set(clause, (cues = negationCues(text.tokens.slice(clause.first, clause.last).map((t) => t.norm))));
  return cues;
}

// --- entities ---------------------------------------------------------------------------------

// Head nouns of plant equipment: "<modifier> <head>" names a component ("charging pump").
const COMPONENT_HEADS = new Set(
  'pump pumps valve valves motor motors bearing bearings seal seals impeller breaker breakers exchanger exchangers condenser turbine generator generators compressor fan fans tank tanks pipe piping strainer filter relay relays transmitter transmitters switch sensor heater heaters cooler damper nozzle coupling shaft gasket flange bellows actuator transformer battery inverter boiler header loop train bus panel'.split(' '),
);
const UPPER_OR_NON_ASCII_RE = /[A-Z]|[^\x00-\x7f]/;
const ACRONYM_RE = /(?<![\p{L}\p{N}_-])\p{Lu}[\p{Lu}\d]{1,5}(?![\p{L}\p{N}_-])/gu;
// Document types, roles and units written in capitals are not plant entities.
const NOT_ENTITIES = new Set(['cr', 'wo', 'sop', 'eca', 'fmea', 'id', 'na', 'n/a', 'ok', 'pm', 'am', 'tbd', 'psig', 'psi', 'gpm', 'rpm', 'mw', 'kv', 'hp', 'note', 'caution', 'warning']);
const MODIFIER_STOP = new Set('a an the of to in on at by for from with and or as is are was were be this that its their each both all any other same new one two three'.split(' '));

/**
 * The entity names an item uses: capitalised acronyms ("CCW") and "<Name> <head noun>"
 * phrases ("Charging Pump"). Those the text never mentions are novel: the acronym, or the
 * modifier, is nowhere in it.
 */
export function entityMentions(item: string, text: EvidenceText, context: ReadonlySet<string> = new Set()): { mentions: string[]; novel: string[] } {
  return entityMentionsOf(item, null, text, context);
}

const NO_NAMES: { mentions: string[]; novel: string[] } = Object.freeze({ mentions: [], novel: [] }) as never;

/** entityMentions with the item's tokens given (tokensOf(item)), or null to make them. An item
 *  naming nothing gets one shared, empty answer: callers only read it. */
function entityMentionsOf(item: string, tokens: readonly Token[] | null, text: EvidenceText, context: ReadonlySet<string> = new Set()): { mentions: string[]; novel: string[] } {
  // Both kinds of name start with a capital: an ASCII item without one names none.
  if (!UPPER_OR_NON_ASCII_RE.test(item)) return tokens === null ? { mentions: [], novel: [] } : NO_NAMES;
  const mentions: string[] = [];
  const novel: string[] = [];
  const textWords = { has: (w: string): boolean => hasWord(text, w) || context.has(w) };
  const acronyms = new Set<string>();
  for (const m of item.matchAll(ACRONYM_RE)) {
    const norm = m[0].toLowerCase();
    if (NOT_ENTITIES.has(norm) || /^\d+$/.test(norm)) continue;
    mentions.push(m[0]);
    acronyms.add(norm);
    if (!textWords.has(norm)) novel.push(m[0]);
  }
  // "<Name> <head>" with the name capitalised as written ("Charging Pump", "Service Water pump"):
  // a lower-case word before a head noun is as often a verb or an adjective as a name.
  const words = tokens ?? tokensOf(item);
  for (let i = 1; i < words.length; i++) {
    if (!COMPONENT_HEADS.has(words[i]!.norm)) continue;
    const modifier = words[i - 1]!;
    const written = item.slice(modifier.start, modifier.end);
    if (MODIFIER_STOP.has(modifier.norm) || /\d/.test(modifier.norm) || acronyms.has(modifier.norm) || !/^\p{Lu}\p{Ll}/u.test(written)) continue;
    const phrase = `${modifier.norm} ${words[i]!.norm}`;
    mentions.push(phrase);
    if (!textWords.has(modifier.norm) && !textWords.has(stem(modifier.norm))) novel.push(phrase);
  }
  return { mentions, novel };
}

/** Every word of a text, stemmed too, and the parts of hyphenated tokens. */
export function wordsOf(text: EvidenceText): Set<string> {
  let words = text.derived.words;
  if (words === undefined) {
    words = new Set();
    for (const t of text.tokens) {
      words.add(t.norm);
      words.add(stem(t.norm));
      // "P-101A" also names "p" and "101a"; "motor-driven" names "motor".
      if (t.norm.includes('-')) for (const part of t.norm.split('-')) words.add(part);
    }
    text.derived.words = words;
  }
  return words;
}

// A text asked about this many words or fewer is scanned for each; then its word set is built.
const WORDS_SCANNED = 16;

/** wordsOf(text).has(word), without building the set for a text asked about a few words only. */
export function hasWord(text: EvidenceText, word: string): boolean {
  const words = text.derived.words;
  if (words !== undefined) return words.has(word);
  const asked = (text.derived.wordsAsked ??= new Map());
  const known = asked.get(word);
  if (known !== undefined) return known;
  if (asked.size >= WORDS_SCANNED) return wordsOf(text).has(word);
  const found = scanForWord(text, word);
  asked.set(word, found);
  return found;
}

// What wordsOf puts in the set for each token: the token, its stem (a prefix of it: stem() only
// cuts the end) and the parts of a hyphenated token.
function scanForWord(text: EvidenceText, word: string): boolean {
  for (const t of text.tokens) {
    const norm = t.norm;
    if (norm === word) return true;
    if (norm.length > word.length && norm.startsWith(word) && stem(norm) === word) return true;
    if (norm.includes('-') && norm.split('-').includes(word)) return true;
  }
  return false;
}

/** A negated mention recorded by the tag stage (ner_seed.negated). */
export interface NegatedMention {
  text: string;
  kind?: string;
  cue?: string;
}

/** The negated mentions an item states as positive facts: ruled_out:<mention>. */
export function ruledOutFlags(item: string, negated: readonly NegatedMention[]): string[] {
  if (negated.length === 0 || isNegated(item)) return [];
  return ruledOutOfForm(normalisedForm(item), negated);
}

/** ruledOutFlags of an item not negated itself, given its normalised form (normalisedForm(item)). */
function ruledOutOfForm(normalised: string, negated: readonly NegatedMention[]): string[] {
  if (negated.length === 0) return [];
  const form = ` ${normalised} `;
  const flags: string[] = [];
  const forms = mentionForms(negated);
  negated.forEach((mention, i) => {
    const m = forms[i]!;
    // A mention that is its own cue ("unaffected", "intact") is the negative state as written:
    // an item stating it states what the text states.
    if (mention.cue !== undefined && mention.cue.toLowerCase() === mention.text.toLowerCase()) return;
    if (m !== '' && form.includes(` ${m} `) && statesBeyondAlarm(form, m)) flags.push(`ruled_out:${mention.text}`);
  });
  return flags;
}

// "The fire alarm occurred" where "no fire" was found: an alarm's name states the alarm, not its event.
const ALARM_WORDS = ['alarm', 'alarms', 'annunciator', 'annunciators'];
function statesBeyondAlarm(form: string, mention: string): boolean {
  let rest = form;
  for (const alarm of ALARM_WORDS) rest = rest.split(` ${mention} ${alarm} `).join(' ');
  return rest.includes(` ${mention} `);
}

// A record's negated mentions are checked against every item of its views: normalised once.
const negatedForms = new WeakMap<readonly NegatedMention[], string[]>();
function mentionForms(negated: readonly NegatedMention[]): string[] {
  let forms = negatedForms.get(negated);
  if (forms === undefined || forms.length !== negated.length) negatedForms.set(negated, (forms = negated.map((m) => normalisedForm(m.text))));
  return forms;
}



/** ner_seed.negated when the tag stage wrote it: [{text, kind, cue}]; anything else is none. */
export function negatedMentions(seed: unknown): NegatedMention[] {
  if (!isObject(seed) || !Array.isArray(seed.negated)) return [];
  return seed.negated.filter((m): m is NegatedMention => isObject(m) && typeof m.text === 'string' && m.text.trim() !== '');
}
