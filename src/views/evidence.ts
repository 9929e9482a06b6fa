// The evidence of a view: for every item, where in the source text its support is and how it
// matched (evidence-match.ts), the claim checks it failed (claims.ts), and per view a grounding
// summary. It is computed in validation, so rca-validate, rca-generate and rca-summarize write the
// same evidence for the same view whatever backend made it. It goes beside the view on the
// record (`evidence.<view>`), never into a prompt.
//
// Fields by role (each view kind names the roles of its fields, `roles`; a field it does not name
// is a claim):
// - claim: what the view says the text states (the lists of facts, actions, limits): located,
//   and checked for support, numbers, identifiers, units, comparators, negation and entities;
// - summary: a description of the source in its own words (retrieval_summary's scope): as a
//   claim, but a description with no clause of the text behind it is not flagged (its numbers,
//   ids and entities are);
// - entity: names of systems and components: located; one the text never names is novel;
// - id: equipment identifiers: located (its own check is ungrounded_equipment_id);
// - free: search terms and notes on what the text leaves open: located, never flagged, not
//   counted in the summary.
import type { EvidenceSpan, GroundingSummary, ItemEvidence, ViewEvidence } from '../contracts/evidence.js';
import { TRUSTED_KEYS } from '../contracts/vocabulary.js';
import type { JsonObject } from '../contracts/json.js';
import { entityMentions, negationCues, quantityFlags, ruledOutFlags, spanNegated, wordsOf, hasWord, type NegatedMention } from './claims.js';
import { EvidenceText, normaliseTokens, tokensOf } from './evidence-text.js';
import { contentWords, exactAt, locate, splitSentences, type Located, type MatchKind } from './evidence-match.js';
import { flat, numbersIn, type GroundingText } from './grounding.js';
import { nearCopyContradiction } from './near-copy.js';
import { VIEW_SHAPES } from './view-shape.js';
import type { ViewType } from '../contracts/vocabulary.js';
import { VIEW_KINDS } from './kinds/index.js';
import type { FieldRole } from './kinds/kind.js';

// The shapes of the evidence record are the contract's (src/contracts/evidence.ts, type-only: no
// zod at run time).
export type { EvidenceSpan, GroundingSummary, ItemEvidence, ViewEvidence } from '../contracts/evidence.js';

export interface EvidenceOptions {
  /** ner_seed.negated of the record, when the tag stage wrote it. */
  negated?: readonly NegatedMention[];
  /** weak_grounding below this share of exact or normalised items (0: off). */
  floor?: number;
  /** Trusted text around the source (section path, document id): names an entity may take from it. */
  context?: readonly string[];
}

/** Maps a span of the source text to where it is for a reader. */
export type SpanMapper = (span: { start: number; end: number }) => EvidenceSpan;

const TRUSTED = new Set<string>(TRUSTED_KEYS);
// The roles and polarity fields the kinds name, by field name (the checks of an item know its
// field, not its view): two views may share a field name only with the same role.
const ROLES = new Map<string, FieldRole>();
for (const kind of Object.values(VIEW_KINDS)) {
  for (const [field, role] of Object.entries(kind.roles)) {
    if ((ROLES.get(field) ?? role) !== role) throw new Error(`views give ${field} two evidence roles (${ROLES.get(field)}, ${role})`);
    ROLES.set(field, role);
  }
}
// Fields that state what happened or what to do: an item there keeps the polarity of its clause.
// Lists of checks and limits are not: "bearing temperature alarms" is what was checked whether or
// not one came, and "no more than 2 minutes" is the limit "do not … for more than 2 minutes".
const POLARITY_FIELDS = new Set(Object.values(VIEW_KINDS).flatMap((kind) => kind.polarity));
// A plant-style identifier inside a claim: letters and digits joined by '-', '_' or '*', with both ("P-101A", "FT-1102", "2RCS*PT455").
const ID_IN_TEXT_RE = /(?<![\p{L}\p{N}_*-])(?=[\p{L}\p{N}_*-]*\d)(?=[\p{L}\p{N}_*-]*\p{Lu})[\p{L}\p{N}]+(?:[-_*][\p{L}\p{N}]+)+(?![\p{L}\p{N}_*-])/gu;
const HAS_CONTENT_RE = /[\p{L}\p{N}]/u;
const FLAG_VALUE_MAX = 80;
const NO_MATCHES: readonly RegExpMatchArray[] = [];

/** The plant-style identifiers of a string: an id has a digit and a joiner, so a string without both has none. */
export function idsIn(value: string): Iterable<RegExpMatchArray> {
  if (!/\d/.test(value) || !/[-_*]/.test(value)) return NO_MATCHES;
  return value.matchAll(ID_IN_TEXT_RE);
}

export function fieldRole(field: string): FieldRole {
  return ROLES.get(field) ?? 'claim';
}

// The field names of a shape's keys ("entities.components"), made once: a name built per item
// would be hashed anew by every lookup of its role.
const FIELD_NAMES = new Map<ReadonlyMap<string, unknown>, { prefix: string; names: Map<string, string> }>();
function fieldName(fields: ReadonlyMap<string, unknown>, prefix: string, key: string): string {
  let known = FIELD_NAMES.get(fields);
  if (known === undefined) FIELD_NAMES.set(fields, (known = { prefix, names: new Map() }));
  if (known.prefix !== prefix) return prefix + key;
  let name = known.names.get(key);
  if (name === undefined) known.names.set(key, (name = flat(prefix + key)));
  return name;
}

/** Every item of a chunk view, in contract order: [field, index, text]. */
export function chunkViewItems(view: ViewType, obj: JsonObject): [string, number, string][] {
  const out: [string, number, string][] = [];
  forEachChunkViewItem(view, obj, (field, index, value) => out.push([field, index, value]));
  return out;
}

/** chunkViewItems one item at a time, without a list of them. */
function forEachChunkViewItem(view: ViewType, obj: JsonObject, each: (field: string, index: number, value: string) => void): void {
  const walk = (fields: ReadonlyMap<string, { kind: string }>, value: JsonObject, prefix: string): void => {
    for (const [key, shape] of fields) {
      if (prefix === '' && TRUSTED.has(key)) continue;
      const v = value[key];
      const field = fieldName(fields, prefix, key);
      if (shape.kind === 'string' && typeof v === 'string' && HAS_CONTENT_RE.test(v)) each(field, 0, v);
      else if (shape.kind === 'list' && Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const item: unknown = v[i];
          if (typeof item === 'string' && HAS_CONTENT_RE.test(item)) each(field, i, item);
        }
      } else if (shape.kind === 'object' && v !== null && typeof v === 'object' && !Array.isArray(v)) walk((shape as unknown as { fields: ReadonlyMap<string, { kind: string }> }).fields, v as JsonObject, `${field}.`);
    }
  };
  walk(VIEW_SHAPES[view].fields, obj, '');
}

/**
 * Texts longer than this are located by exact match only: the token, clause and stem tables of
 * normalised and partial matching hold tens of bytes per word, so a chunk of many megabytes (a
 * parser that lost its page breaks) would cost hundreds of megabytes. Such a view's grounding
 * summary says `limited: true`; numbers and ids are still checked against the whole text.
 */
export const EVIDENCE_MAX_CHARS = 1_000_000;

/** The evidence and claim flags of a chunk view (its checks are the item checks, unique). */
export function chunkViewEvidence(view: ViewType, obj: JsonObject, grounding: GroundingText, chunkId: string, options: EvidenceOptions = {}): { evidence: ViewEvidence; flags: string[] } {
  const map: SpanMapper = (s) => ({ source: 'chunk', id: chunkId, start: s.start, end: s.end });
  const limited = grounding.source.length > EVIDENCE_MAX_CHARS;
  const items = chunkViewItems(view, obj).map(([field, index, value]) =>
    limited ? exactItemEvidence(field, index, value, fieldRole(field), grounding, map, options) : itemEvidence(field, index, value, fieldRole(field), grounding, map, options, true),
  );
  const result = finish(items, options);
  if (limited) result.evidence.grounding.limited = true;
  return result;
}

/** An item of a text over EVIDENCE_MAX_CHARS: an exact span or none, and the number and id checks. */
function exactItemEvidence(field: string, index: number, value: string, role: FieldRole, grounding: GroundingText, map: SpanMapper, options: EvidenceOptions): ItemEvidence & { mentions: number; novel: number } {
  const trimmed = value.trim();
  const at = exactAt(trimmed, grounding.source);
  const checks: string[] = [];
  if (role !== 'free' && role !== 'id') {
    for (const number of numbersIn(value)) if (!grounding.hasNumber(number) && !inContext(number, options.context)) checks.push(trimmed === number ? `ungrounded_number:${number}` : `ungrounded_number:${number} in "${flagValue(trimmed, 40)}"`);
    for (const m of idsIn(value)) if (!grounding.hasIdentifier(m[0])) checks.push(`ungrounded_id:${m[0]}`);
  }
  const spans = at < 0 ? [] : [map({ start: at, end: at + trimmed.length })];
  return { field, index, role, match: at < 0 ? 'none' : 'exact', score: at < 0 ? 0 : 1, spans, checks: [...new Set(checks)], mentions: 0, novel: 0 };
}

/** What an item's evidence is made of apart from its field and index: the same for every item of
 *  one text with the same value, role and polarity rule (its checks without unsupported_item). */
interface ItemFindings {
  located: Located;
  checks: readonly string[];
  mentions: number;
  novel: number;
}

// The findings of the items of the last text (and options) seen: views repeat items (rca_frame's
// observed is retrieval_summary's corrective_actions, keywords repeat the entities), and a repeat
// is the same answer. Keyed by the text's GroundingText and the options' arrays; reset for another.
interface FindingsMemo {
  negated: readonly NegatedMention[] | undefined;
  context: readonly string[] | undefined;
  /** By the item's value (a string read once from JSON: its hash is kept), its location and its
   *  findings by variant (role, polarity rule, numbers checked or not; see variantOf). */
  items: Map<string, { located: Located; variants: (ItemFindings | undefined)[] }>;
}
const MEMO_ITEMS_MAX = 4096;
const ROLE_CODES: Record<FieldRole, number> = { claim: 0, summary: 1, entity: 2, id: 3, free: 4 };

function variantOf(role: FieldRole, polarity: boolean, checkNumbers: boolean): number {
  return ROLE_CODES[role] * 4 + (polarity ? 2 : 0) + (checkNumbers ? 1 : 0);
}

function memoOf(grounding: GroundingText, options: EvidenceOptions): FindingsMemo {
  let memo = grounding.derived.findings as FindingsMemo | undefined;
  if (memo === undefined || memo.negated !== options.negated || memo.context !== options.context || memo.items.size >= MEMO_ITEMS_MAX) {
    memo = { negated: options.negated, context: options.context, items: new Map() };
    grounding.derived.findings = memo;
  }
  return memo;
}

/** One item: located, and checked by its role. `checkNumbers`: numbers and ids are checked here (chunk views). */
export function itemEvidence(field: string, index: number, value: string, role: FieldRole, grounding: GroundingText, map: SpanMapper, options: EvidenceOptions, checkNumbers: boolean): ItemEvidence & { mentions: number; novel: number } {
  const memo = memoOf(grounding, options);
  const polarity = POLARITY_FIELDS.has(field);
  let entry = memo.items.get(value);
  if (entry === undefined) memo.items.set(value, (entry = { located: locate(value, grounding.evidence), variants: [] }));
  const variant = variantOf(role, polarity, checkNumbers);
  let found = entry.variants[variant];
  if (found === undefined) entry.variants[variant] = found = itemFindings(value, role, polarity, entry.located, grounding, options, checkNumbers);
  const { located } = found;
  let checks: string[];
  if (located.match === 'none' && role === 'claim') checks = [`unsupported_item:${field}[${index}]`, ...found.checks];
  else checks = found.checks.slice();
  return { field, index, role, match: located.match, score: located.score, spans: located.spans.map(map), checks, mentions: found.mentions, novel: found.novel };
}

/** The item's checks (unique, without unsupported_item) and entity counts. */
function itemFindings(value: string, role: FieldRole, polarity: boolean, located: Located, grounding: GroundingText, options: EvidenceOptions, checkNumbers: boolean): ItemFindings {
  const text = grounding.evidence;
  const checks: string[] = [];
  let mentions = 0;
  let novel = 0;
  const context = contextWords(grounding, options.context);
  if (role === 'entity') {
    // Not in the text as a phrase, and a word of it in neither the text nor the trusted context.
    const entities = entityMentions(value, text, context);
    const unnamed = located.match === 'none' && contentWords(value).some((w) => !hasWord(text, w) && !context.has(w));
    mentions = Math.max(1, entities.mentions.length);
    novel = unnamed ? Math.max(1, entities.novel.length) : entities.novel.length;
    if (unnamed) checks.push(`novel_entity:${flagValue(value)}`);
    for (const name of entities.novel) checks.push(`novel_entity:${flagValue(name)}`);
  } else if (role === 'claim' || role === 'summary') {
    checks.push(...quantityFlags(value, text));
    if (polarity) checks.push(...negationFlags(value, text, located));
    if (!checks.some((c) => c.startsWith('negation_mismatch:'))) {
      const changed = nearCopyContradiction(tokensOf(value), text, located);
      if (changed !== null) checks.push(`contradicted_copy:${flagValue(changed, 40)} in "${flagValue(value.trim(), 60)}"`);
    }
    checks.push(...ruledOutFlags(value, options.negated ?? []));
    const entities = entityMentions(value, text, context);
    mentions = entities.mentions.length;
    novel = entities.novel.length;
    for (const name of entities.novel) checks.push(`novel_entity:${flagValue(name)}`);
  }
  // Numbers and identifiers of claims and entity names must be the text's (section summaries check numbers themselves).
  if (checkNumbers && role !== 'free' && role !== 'id') {
    const trimmed = value.trim();
    for (const number of numbersIn(value)) if (!grounding.hasNumber(number) && !inContext(number, options.context)) checks.push(trimmed === number ? `ungrounded_number:${number}` : `ungrounded_number:${number} in "${flagValue(trimmed, 40)}"`);
    for (const m of idsIn(value)) if (!grounding.hasIdentifier(m[0]) && !context.has(normaliseTokens(m[0]).join(' '))) checks.push(`ungrounded_id:${m[0]}`);
  }
  return { located, checks: checks.length < 2 ? checks : [...new Set(checks)], mentions, novel };
}

// Each sentence of the item against the text where it was found: a sentence that negates what
// the text states, or states what the text negates, is negation_mismatch.
function negationFlags(value: string, text: EvidenceText, whole: Located): string[] {
  const sentences = splitSentences(value);
  const flags: string[] = [];
  for (const sentence of sentences) {
    const located = sentences.length === 1 ? whole : locate(sentence.text, text);
    if (located.match === 'none' || located.spans.length === 0) continue;
    const itemNegated = negationCues(normaliseTokens(sentence.text)).length > 0;
    const span = located.spans[0]!;
    const clauses = located.clauses.filter((c) => c.end > span.start && c.start < span.end);
    if (clauses.length === 0) continue;
    let textNegated: boolean;
    if (located.match === 'exact' || located.match === 'normalised') {
      // The item is a span of the text, its own words included: only a negation before it in
      // the same clause can reverse it ("No safety injection or reactor trip occurred" → "reactor trip").
      // A zero-width span at the item's start: a cue before it reaches it unless the sentence turns between.
      textNegated = itemNegated || clauses.some((c) => c.start < span.start && spanNegated(text, c, { start: span.start, end: span.start }));
    } else {
      textNegated = clauses.some((c) => spanNegated(text, c, { start: Math.max(span.start, c.start), end: Math.min(span.end, c.end) }));
    }
    if (itemNegated !== textNegated) flags.push(`negation_mismatch:${flagValue(sentence.text)}`);
  }
  return flags;
}

// The context's words, prepared once per grounding text and context.
interface ContextWords {
  context: readonly string[];
  key: string;
  words: Set<string>;
}
/** A number the trusted context writes (a section "6.1", a chunk id "doc:3") is the record's, not invented. */
function inContext(number: string, context: readonly string[] | undefined): boolean {
  if (context === undefined) return false;
  const canonical = number.replaceAll(',', '');
  return context.some((c) => numbersIn(c).some((n) => n.replaceAll(',', '') === canonical));
}

function contextWords(grounding: GroundingText, context: readonly string[] | undefined): ReadonlySet<string> {
  if (context === undefined || context.length === 0) return new Set();
  const cached = grounding.derived.context as ContextWords | undefined;
  // The same array for every item of a view: no need to join it again (its strings do not change).
  if (cached?.context === context) return cached.words;
  const key = context.join('\u0000');
  if (cached?.key === key) {
    cached.context = context;
    return cached.words;
  }
  const words = wordsOf(new EvidenceText(context.join('\n')));
  grounding.derived.context = { context, key, words };
  return words;
}

/** The view's evidence from its items, and its flags (the items' checks, then the floor's). */
export function finish(items: (ItemEvidence & { mentions: number; novel: number })[], options: EvidenceOptions): { evidence: ViewEvidence; flags: string[] } {
  // One pass: the counts by match kind of the counted (not free) items, the entity sums, the
  // flags in item order and the items without their counts.
  const kinds = { exact: 0, normalised: 0, partial: 0, none: 0 };
  let n = 0;
  let entities = 0;
  let novel = 0;
  const flags: string[] = [];
  const out: ItemEvidence[] = [];
  for (const i of items) {
    if (i.role !== 'free') {
      n++;
      kinds[i.match]++;
    }
    entities += i.mentions;
    novel += i.novel;
    for (const check of i.checks) flags.push(check);
    out.push({ field: i.field, index: i.index, role: i.role, match: i.match, score: i.score, spans: i.spans, checks: i.checks });
  }
  const share = (kind: MatchKind): number => (n === 0 ? 0 : round(kinds[kind] / n));
  const grounding: GroundingSummary = {
    items: n,
    exact: share('exact'),
    normalised: share('normalised'),
    partial: share('partial'),
    none: share('none'),
    entities,
    novel_entities: novel,
    novel_entity_rate: entities === 0 ? null : round(novel / entities),
  };
  const strong = n === 0 ? 1 : (kinds.exact + kinds.normalised) / n;
  if (options.floor !== undefined && options.floor > 0 && strong < options.floor) flags.push(`weak_grounding:${round(strong)}`);
  return { evidence: { items: out, grounding }, flags: [...new Set(flags)] };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function flagValue(value: string, max = FLAG_VALUE_MAX): string {
  const one = value.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** Items by how they matched, over every view of a run: the summary line and --stats. */
export class GroundingTally {
  views = 0;
  items = 0;
  readonly matches = { exact: 0, normalised: 0, partial: 0, none: 0 };
  entities = 0;
  novelEntities = 0;

  add(e: ViewEvidence): void {
    this.views++;
    for (const item of e.items) {
      if (item.role === 'free') continue;
      this.items++;
      this.matches[item.match]++;
    }
    this.entities += e.grounding.entities;
    this.novelEntities += e.grounding.novel_entities;
  }

  line(): string | null {
    if (this.items === 0) return null;
    const pct = (n: number): string => `${((100 * n) / this.items).toFixed(1)}%`;
    const m = this.matches;
    const novel = this.entities === 0 ? '' : `; novel entities ${this.novelEntities} of ${this.entities}`;
    return `grounding: ${this.items} items: exact ${pct(m.exact)}, normalised ${pct(m.normalised)}, partial ${pct(m.partial)}, none ${pct(m.none)}${novel}`;
  }

  toJson(): Record<string, unknown> {
    return {
      views: this.views,
      items: this.items,
      ...this.matches,
      entities: this.entities,
      novel_entities: this.novelEntities,
      novel_entity_rate: this.entities === 0 ? null : Math.round((1000 * this.novelEntities) / this.entities) / 1000,
    };
  }
}
