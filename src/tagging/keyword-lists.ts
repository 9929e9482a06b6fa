import { parseCsvRecords } from './lexicon.js';
import { buildPhraseMatcher, surfaceText, TokenBuffer, type PhraseMatcher } from './phrase-matcher.js';

export interface KeywordSpans {
  temporal_relations: { text: string; sub_label: string }[];
  temporal_qualifiers: string[];
  locations: { text: string; sub_label: string }[];
  conjectures: string[];
}

export interface KeywordLists {
  match(text: string): KeywordSpans;
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

// A term listed under two columns keeps the first column's sub_label ('keep-first'), so each
// surface gets exactly one sub_label.
function labelledMatcher(terms: readonly KeywordTerm[]): PhraseMatcher<string> {
  return buildPhraseMatcher(
    terms.map(({ term, subLabel }) => ({ phrase: term, payload: subLabel })),
    'keep-first',
  );
}

function plainMatcher(terms: readonly string[]): PhraseMatcher<string> {
  return buildPhraseMatcher(
    terms.map((term) => ({ phrase: term, payload: '' })),
    'keep-first',
  );
}

// The shipped lists (data/keywords/) keep the reference column layout. Their relation columns:
// `order` marks a later event (after, then, subsequently), `reverse-order` points back (before,
// prior to, previously), `concurrency-coincidence` marks overlap (during, while, concurrent with).

/** Each list is matched on its own (longest-first within the list), so one span may be both, e.g., a qualifier and a location. */
export function buildKeywordLists(files: { temporalQualifiers: string; temporalRelations: string; locations: string; conjectures: string }): KeywordLists {
  const relations = labelledMatcher(parseColumns(files.temporalRelations, 'temporal_relations'));
  const locations = labelledMatcher(parseColumns(files.locations, 'locations'));
  const qualifiers = plainMatcher(parseColumns(files.temporalQualifiers, 'temporal_qualifiers').map(({ term }) => term));
  const conjectures = plainMatcher(parseConjectures(files.conjectures, 'conjectures'));
  const tokens = new TokenBuffer();

  function labelled(matcher: PhraseMatcher<string>, text: string): { text: string; sub_label: string }[] {
    const spans: { text: string; sub_label: string }[] = [];
    const seen = new Set<string>();
    matcher.scan(tokens, (start, end, subLabels) => {
      const surface = surfaceText(text, start, end);
      const subLabel = subLabels[0] ?? '';
      const key = `${surface.toLowerCase()}\u0000${subLabel}`;
      if (seen.has(key)) return;
      seen.add(key);
      spans.push({ text: surface, sub_label: subLabel });
    });
    return spans;
  }

  function plain(matcher: PhraseMatcher<string>, text: string): string[] {
    const spans: string[] = [];
    const seen = new Set<string>();
    matcher.scan(tokens, (start, end) => {
      const surface = surfaceText(text, start, end);
      const key = surface.toLowerCase();
      if (seen.has(key)) return;
      seen.add(key);
      spans.push(surface);
    });
    return spans;
  }

  return {
    match(text: string): KeywordSpans {
      tokens.load(text);
      return {
        temporal_relations: labelled(relations, text),
        temporal_qualifiers: plain(qualifiers, text),
        locations: labelled(locations, text),
        conjectures: plain(conjectures, text),
      };
    },
  };
}
