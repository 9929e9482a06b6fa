import type { NegatedMention } from '../contracts/chunk.js';
import { LEXICON_FIELDS, type LexiconField } from '../contracts/vocabulary.js';
import { routeLabel, type LexiconEntry } from './lexicon.js';
import { NEGATABLE_FIELDS, type ScopeIndex } from './negation.js';
import { buildPhraseLists, TokenBuffer, type PhraseSpec } from './phrase-matcher.js';

export interface Gazetteer {
  match(text: string): Record<LexiconField, string[]>;
  /**
   * The same for a text already tokenized (the tag stage shares one TokenBuffer per record). With
   * `negation`, a match inside a cue is dropped, and a mechanism or outcome inside a negated scope
   * goes to `negated` instead of its list, unless the same term also occurs outside any scope.
   */
  matchTokens(tokens: TokenBuffer, negation?: ScopeIndex | null, negated?: NegatedMention[]): Record<LexiconField, string[]>;
}

const NEGATABLE: readonly number[] = NEGATABLE_FIELDS.map((f) => LEXICON_FIELDS.indexOf(f));

// `Auxiliary Feedwater System (AFW)`: text rarely repeats the whole form, so the long form and the
// acronym are matched on their own too. The acronym keeps its case: lowercased, `PUT`, `HR` or
// `CS` would fire on ordinary words and units.
const LONG_FORM_AND_ACRONYM = /^(.*\S)\s*\(([^()]*)\)$/s;
const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;

// Unrouted labels keep a NO_FIELD payload: their terms still win longest-match, so a material or
// chemical name does not leak its sub-words into a routed field. Routed payloads are indexes into
// LEXICON_FIELDS: a number compares and indexes faster than a field name on the hot path.
type Route = number;
const NO_FIELD = -1;

/** The gazetteer's phrases: payload = index into LEXICON_FIELDS, or -1 for a label that is not routed. */
export function phraseSpecs(entries: readonly LexiconEntry[]): PhraseSpec<Route>[] {
  const specs: PhraseSpec<Route>[] = [];
  for (const { term, label } of entries) {
    const field = routeLabel(label);
    const payload = field === null ? NO_FIELD : LEXICON_FIELDS.indexOf(field);
    specs.push({ phrase: term, payload });
    const parts = LONG_FORM_AND_ACRONYM.exec(term);
    if (parts === null) continue;
    const longForm = (parts[1] ?? '').trim();
    const acronym = (parts[2] ?? '').trim();
    if (HAS_WORD_CHAR.test(longForm)) specs.push({ phrase: longForm, payload });
    if (HAS_WORD_CHAR.test(acronym)) specs.push({ phrase: acronym, payload, caseSensitive: true });
  }
  return specs;
}

export function buildGazetteer(entries: LexiconEntry[]): Gazetteer {
  const matcher = buildPhraseLists([{ specs: phraseSpecs(entries) }]);
  const ownTokens = new TokenBuffer();

  return {
    match(text: string): Record<LexiconField, string[]> {
      return this.matchTokens(ownTokens.load(text));
    },
    matchTokens(tokens: TokenBuffer, negation: ScopeIndex | null = null, negated: NegatedMention[] = []): Record<LexiconField, string[]> {
      const lists: string[][] = [[], [], [], [], [], [], [], []];
      const ruledOut: Array<{ field: number; mention: NegatedMention }> = [];
      // Lowercased surface -> bit set of the fields it was added to (first-seen order, one item per
      // field and case-insensitive surface). Created on the first routed match only.
      let seen: Map<string, number> | null = null;
      matcher.scan(tokens, (_list, start, end, routes, first, last) => {
        if (negation !== null) {
          if (negation.inCue(start, end)) return;
          const scope = negation.scopeOf(start, end);
          if (scope !== null && routes.some((r) => NEGATABLE.includes(r))) {
            const text = tokens.surface(first, last);
            for (const field of routes) {
              if (NEGATABLE.includes(field)) ruledOut.push({ field, mention: { text, kind: LEXICON_FIELDS[field]!, cue: scope.cue } });
            }
            // Its other fields (a term routed to two) keep it as usual.
            routes = routes.filter((r) => !NEGATABLE.includes(r));
          }
        }
        let surface: string | undefined;
        let key = '';
        let fields = 0;
        for (const field of routes) {
          if (field === NO_FIELD) continue;
          if (surface === undefined) {
            surface = tokens.surface(first, last);
            key = surface.toLowerCase();
            seen ??= new Map();
            fields = seen.get(key) ?? 0;
          }
          const bit = 1 << field;
          if ((fields & bit) !== 0) continue;
          fields |= bit;
          seen!.set(key, fields);
          lists[field]!.push(surface);
        }
      });
      // A term stated outside every scope stays positive: it is not also listed as ruled out.
      for (const { field, mention } of ruledOut) {
        const key = mention.text.toLowerCase();
        if (lists[field]!.some((t) => t.toLowerCase() === key)) continue;
        if (negated.some((n) => n.kind === mention.kind && n.text.toLowerCase() === key)) continue;
        negated.push(mention);
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
    },
  };
}
