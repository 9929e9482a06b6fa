import { LEXICON_FIELDS, type LexiconField } from '../contracts/vocabulary.js';

export interface LexiconEntry {
  term: string;
  label: string;
}

export interface CsvRecord {
  /** 1-based physical line on which the record starts. */
  line: number;
  cells: string[];
}

function csvError(sourceName: string, line: number, message: string): Error {
  return new Error(`${sourceName}:${line}: ${message}`);
}

function countLineBreaks(text: string, from: number, to: number): number {
  let breaks = 0;
  for (let k = from; k < to; k++) {
    const code = text.charCodeAt(k);
    if (code === 10 || (code === 13 && text.charCodeAt(k + 1) !== 10)) breaks++;
  }
  return breaks;
}

/**
 * RFC 4180 records: a leading BOM, CRLF/LF/CR line ends, quoted fields with commas, doubled
 * quotes and line breaks. Records whose cells are all blank are skipped. A quote inside an
 * unquoted field is kept literally (`6" pipe`).
 */
export function parseCsvRecords(text: string, sourceName: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  // Where the next LF, CR and quote are (n: none), found again only once passed: a record on one
  // line with no quote is that line split on commas, with no walk over its characters.
  let nextLf = -1;
  let nextCr = -1;
  let nextQuote = -1;
  const after = (char: string, from: number): number => {
    const at = text.indexOf(char, from);
    return at < 0 ? n : at;
  };
  while (i < n) {
    const recordLine = line;
    if (nextLf < i) nextLf = after('\n', i);
    if (nextCr < i) nextCr = after('\r', i);
    if (nextQuote < i) nextQuote = after('"', i);
    const lineEnd = Math.min(nextLf, nextCr);
    let cells: string[];
    if (nextQuote > lineEnd) {
      cells = text.slice(i, lineEnd).split(',');
      i = lineEnd;
    } else {
      cells = [];
      const read = readRecord(text, i, line, cells, sourceName);
      i = read.end;
      line = read.line;
    }
    if (i < n) {
      if (text.charCodeAt(i) === 13 && text.charCodeAt(i + 1) === 10) i += 2;
      else i++;
      line++;
    }
    if (cells.some((cell) => cell.trim() !== '')) records.push({ line: recordLine, cells });
  }
  return records;
}

/** One record that holds a quote, read cell by cell from `i` into `cells`: where it ends (its line
 *  break or the end of text) and the physical line it ends on. */
function readRecord(text: string, i: number, line: number, cells: string[], sourceName: string): { end: number; line: number } {
  const n = text.length;
  for (;;) {
    if (text.charCodeAt(i) === 34) {
      const quoteLine = line;
      let cell = '';
      let from = i + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote < 0) throw csvError(sourceName, quoteLine, 'unterminated quoted field');
        line += countLineBreaks(text, from, quote);
        if (text.charCodeAt(quote + 1) === 34) {
          cell += text.slice(from, quote + 1);
          from = quote + 2;
          continue;
        }
        cell += text.slice(from, quote);
        i = quote + 1;
        break;
      }
      const next = text.charCodeAt(i);
      if (i < n && next !== 44 && next !== 10 && next !== 13) {
        throw csvError(sourceName, line, 'unexpected character after a closing quote');
      }
      cells.push(cell);
    } else {
      let j = i;
      while (j < n) {
        const code = text.charCodeAt(j);
        if (code === 44 || code === 10 || code === 13) break;
        j++;
      }
      cells.push(text.slice(i, j));
      i = j;
    }
    if (i < n && text.charCodeAt(i) === 44) {
      i++;
      continue;
    }
    break;
  }
  return { end: i, line };
}

const LEXICON_COLUMNS = ['sheet', 'column_header', 'label', 'term'];

export function parseLexiconCsv(text: string, sourceName: string): LexiconEntry[] {
  const records = parseCsvRecords(text, sourceName);
  const header = records[0];
  if (header === undefined) throw csvError(sourceName, 1, 'empty lexicon: expected a header "label,term" or "sheet,column_header,label,term"');
  const names = header.cells.map((cell) => cell.trim().toLowerCase());
  for (const [k, name] of names.entries()) {
    const problem = !LEXICON_COLUMNS.includes(name) ? 'unknown' : names.indexOf(name) !== k ? 'repeated' : null;
    if (problem !== null) {
      throw csvError(sourceName, header.line, `${problem} header ${JSON.stringify(header.cells[k])} (expected "label,term" or "sheet,column_header,label,term")`);
    }
  }
  const labelAt = names.indexOf('label');
  const termAt = names.indexOf('term');
  if (labelAt < 0 || termAt < 0) {
    throw csvError(sourceName, header.line, `header lacks ${labelAt < 0 ? '"label"' : '"term"'} (expected "label,term" or "sheet,column_header,label,term")`);
  }

  const entries: LexiconEntry[] = [];
  // A lexicon has a handful of labels, each on hundreds of rows: each is checked once.
  const known = new Set<string>();
  for (let r = 1; r < records.length; r++) {
    const record = records[r]!;
    if (record.cells.length !== names.length) {
      throw csvError(sourceName, record.line, `expected ${names.length} fields, found ${record.cells.length}`);
    }
    const label = (record.cells[labelAt] ?? '').trim();
    const term = (record.cells[termAt] ?? '').trim();
    if (label === '') throw csvError(sourceName, record.line, 'empty label');
    if (term === '') throw csvError(sourceName, record.line, 'empty term');
    if (!known.has(label)) {
      if (labelRoute(label) === undefined) {
        throw csvError(sourceName, record.line, `unknown label ${JSON.stringify(label)}: a label is ${knownLabelsText()} (see the README, "Lexicon labels")`);
      }
      known.add(label);
    }
    entries.push({ term, label });
  }
  return entries;
}

// The label table (README "Lexicon labels"): which seed field a lexicon label fills. A label is a
// seed field's own name, or one of the reference gazetteer's labels (DACKAR's NER label set).
// Anything else is refused at load time: a label that silently filled nothing would look loaded
// and never match.
const EXACT_ROUTES: ReadonlyMap<string, LexiconField> = new Map([
  ...LEXICON_FIELDS.map((field) => [field, field] as const),
  ['syst', 'systems'],
  ['plant', 'systems'],
  ['deg_mech', 'mechanisms'],
  ['event', 'outcomes'],
  // What happened to equipment, stated by a verb ("the pump tripped", "the valve isolated"): an
  // outcome only where the gazetteer finds its subject to be equipment (gazetteer.ts EVENT_VERB).
  ['event_v', 'outcomes'],
  ['fail_type_n', 'outcomes'],
  ['fail_type_v', 'outcomes'],
  ['mnt_ops', 'maintenance_actions'],
  ['surv_ops_n', 'surveillance_actions'],
  ['surv_ops_v', 'surveillance_actions'],
  ['mnt_tool', 'tools'],
  ['surv_tool', 'tools'],
  ['prop', 'properties'],
  ['arch', 'components'],
]);

// Families whose members all route alike, including spellings the reference does not use yet
// (`surv_ops` without its `_n`/`_v`, a new `comp_…` sheet).
const FAMILY_ROUTES: ReadonlyMap<string, LexiconField> = new Map([
  ['comp', 'components'],
  ['opd', 'components'],
  ['ast', 'components'],
  ['fail_type', 'outcomes'],
  ['surv_ops', 'surveillance_actions'],
]);

// Known labels that fill no seed field: materials, chemicals, biology, diagnoses. Their terms are
// still matched, so that "stainless steel" is not read as a component "steel".
const UNROUTED_EXACT: ReadonlySet<string> = new Set(['mat', 'states_matter', 'diagn', 'qual_asmnt']);
const UNROUTED_FAMILIES = ['chem', 'mat', 'bio'] as const;

/** Lowercased, every run of other characters turned into `_`: `comp_elt/n` → `comp_elt_n`, `ast_I&C` → `ast_i_c`. */
export function normaliseLabel(label: string): string {
  // Runs are one "_" after the first replace, so one at each end is all there is to trim.
  return label.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
}

const inFamily = (normalised: string, family: string) => normalised === family || normalised.startsWith(`${family}_`);

/** The seed field a lexicon label feeds; null for a known label that fills none; undefined for an unknown label. */
export function labelRoute(label: string): LexiconField | null | undefined {
  const normalised = normaliseLabel(label);
  const exact = EXACT_ROUTES.get(normalised);
  if (exact !== undefined) return exact;
  for (const [family, field] of FAMILY_ROUTES) if (inFamily(normalised, family)) return field;
  if (UNROUTED_EXACT.has(normalised) || UNROUTED_FAMILIES.some((family) => inFamily(normalised, family))) return null;
  return undefined;
}

/** The seed field a lexicon label feeds, or null for labels that are loaded but not routed. */
export function routeLabel(label: string): LexiconField | null {
  return labelRoute(label) ?? null;
}

/** The known labels, for the message that refuses an unknown one. */
export function knownLabelsText(): string {
  const exact = [...EXACT_ROUTES.keys()].filter((k) => !(LEXICON_FIELDS as readonly string[]).includes(k));
  return (
    `a seed field (${LEXICON_FIELDS.join(', ')}), ${exact.join(', ')}, ` +
    `${[...FAMILY_ROUTES.keys()].map((f) => `${f}_*`).join(', ')}, ` +
    `or, matched but filling no field, ${[...UNROUTED_EXACT].join(', ')}, ${UNROUTED_FAMILIES.map((f) => `${f}_*`).join(', ')}`
  );
}
