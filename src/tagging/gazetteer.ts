import type { LexiconField } from '../contracts/vocabulary.js';
import { routeLabel, type LexiconEntry } from './lexicon.js';
import { buildPhraseMatcher, surfaceText, TokenBuffer, type PhraseSpec } from './phrase-matcher.js';

export interface Gazetteer {
  match(text: string): Record<LexiconField, string[]>;
}

// `Auxiliary Feedwater System (AFW)`: text rarely repeats the whole form, so the long form and the
// acronym are matched on their own too. The acronym keeps its case: lowercased, `PUT`, `HR` or
// `CS` would fire on ordinary words and units.
const LONG_FORM_AND_ACRONYM = /^(.*\S)\s*\(([^()]*)\)$/s;
const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;

// Unrouted labels keep a null payload: their terms still win longest-match, so a material or
// chemical name does not leak its sub-words into a routed field.
type Route = LexiconField | null;

function phraseSpecs(entries: readonly LexiconEntry[]): PhraseSpec<Route>[] {
  const specs: PhraseSpec<Route>[] = [];
  for (const { term, label } of entries) {
    const payload = routeLabel(label);
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
  const matcher = buildPhraseMatcher(phraseSpecs(entries));
  const tokens = new TokenBuffer();

  return {
    match(text: string): Record<LexiconField, string[]> {
      // Keys in LEXICON_FIELDS order, every field present even when empty.
      const found: Record<LexiconField, string[]> = {
        systems: [],
        components: [],
        mechanisms: [],
        outcomes: [],
        surveillance_actions: [],
        maintenance_actions: [],
        properties: [],
        tools: [],
      };
      const seen = new Set<string>();
      matcher.scan(tokens.load(text), (start, end, routes) => {
        let surface: string | undefined;
        let key: string | undefined;
        for (const field of routes) {
          if (field === null) continue;
          surface ??= surfaceText(text, start, end);
          key ??= surface.toLowerCase();
          const fieldKey = `${field}\u0000${key}`;
          if (seen.has(fieldKey)) continue;
          seen.add(fieldKey);
          found[field].push(surface);
        }
      });
      return found;
    },
  };
}
