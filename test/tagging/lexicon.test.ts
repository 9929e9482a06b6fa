import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { LEXICON_FIELDS, type LexiconField } from '../../src/contracts/vocabulary.js';
import { labelRoute, normaliseLabel, parseCsvRecords, parseLexiconCsv, routeLabel, type CsvRecord, type LexiconEntry } from '../../src/tagging/lexicon.js';
import { runBin } from '../support/golden.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const REFERENCE_CSV = read('test/fixtures/dackar/tag_keywords_lists.derived.csv');
const DEFAULT_CSV = read('data/lexicon/rca-default.csv');

describe('parseCsvRecords', () => {
  it.each([
    ['plain LF', 'a,b\nc,d\n', [[1, ['a', 'b']], [2, ['c', 'd']]]],
    ['BOM and CRLF', '\uFEFFa,b\r\nc,d\r\n', [[1, ['a', 'b']], [2, ['c', 'd']]]],
    ['lone CR line ends', 'a,b\rc,d', [[1, ['a', 'b']], [2, ['c', 'd']]]],
    ['no final line end', 'a,b\nc,d', [[1, ['a', 'b']], [2, ['c', 'd']]]],
    ['blank and all-empty lines skipped, numbering kept', 'a,b\n\n , \nc,d\n', [[1, ['a', 'b']], [4, ['c', 'd']]]],
    ['quoted comma and doubled quote', 'x,"a, ""b"""\n', [[1, ['x', 'a, "b"']]]],
    ['quoted line break counts lines', '"a\r\nb",c\nd,e\n', [[1, ['a\r\nb', 'c']], [3, ['d', 'e']]]],
    ['empty trailing cell', 'a,\n', [[1, ['a', '']]]],
    ['quote inside an unquoted field is literal', '6" pipe,x\n', [[1, ['6" pipe', 'x']]]],
  ])('%s', (_name, text, expected) => {
    expect(parseCsvRecords(text, 'f.csv').map((r) => [r.line, r.cells])).toEqual(expected);
  });

  // A record on one line without a quote is read with one split; every other one cell by cell.
  // Both must give what the reading of every record cell by cell (as before the split) gives.
  it('gives what a cell-by-cell reading gives, records, lines and errors alike', () => {
    const outcome = (read: () => CsvRecord[]) => {
      try {
        return read().map((r) => [r.line, r.cells]);
      } catch (err) {
        return (err as Error).message;
      }
    };
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b c', ',', '"', '""', '\n', '\r', '\r\n', ' ', '\uFEFF'), { maxLength: 24 }), (parts) => {
        const text = parts.join('');
        expect(outcome(() => parseCsvRecords(text, 'f.csv'))).toEqual(outcome(() => cellByCell(text, 'f.csv')));
      }),
      { numRuns: 3000 },
    );
    expect(outcome(() => parseCsvRecords(DEFAULT_CSV, 'f.csv'))).toEqual(outcome(() => cellByCell(DEFAULT_CSV, 'f.csv')));
    expect(outcome(() => parseCsvRecords(REFERENCE_CSV, 'f.csv'))).toEqual(outcome(() => cellByCell(REFERENCE_CSV, 'f.csv')));
  });

  it.each([
    ['unterminated quote', 'a,b\n"open,c\n', 'f.csv:2: unterminated quoted field'],
    ['text after a closing quote', 'a,"b"c\n', 'f.csv:1: unexpected character after a closing quote'],
  ])('rejects %s', (_name, text, message) => {
    expect(() => parseCsvRecords(text, 'f.csv')).toThrow(message);
  });
});

describe('parseLexiconCsv', () => {
  it.each<[string, string, LexiconEntry[]]>([
    ['label,term', 'label,term\nsyst,AFW\ncomp_elt/n,relay\n', [{ label: 'syst', term: 'AFW' }, { label: 'comp_elt/n', term: 'relay' }]],
    ['sheet,column_header,label,term', 'sheet,column_header,label,term\nsystem,Systems [syst],syst,service water\n', [{ label: 'syst', term: 'service water' }]],
    ['BOM, CRLF, blank lines', '\uFEFFlabel,term\r\n\r\nsyst,AFW\r\n\r\n', [{ label: 'syst', term: 'AFW' }]],
    ['quoted fields', 'label,term\n"ast_I&C","valve, ""globe"" type"\n', [{ label: 'ast_I&C', term: 'valve, "globe" type' }]],
    ['cells trimmed, NBSP included', 'label,term\n syst ,\u00a0core spray\u00a0\n', [{ label: 'syst', term: 'core spray' }]],
    ['header case and column order', 'Term,LABEL\npump,ast_hyd_pne\n', [{ label: 'ast_hyd_pne', term: 'pump' }]],
  ])('parses %s', (_name, text, expected) => {
    expect(parseLexiconCsv(text, 'lex.csv')).toEqual(expected);
  });

  it.each([
    ['unknown header', 'kind,term\nsyst,AFW\n', 'lex.csv:1: unknown header "kind"'],
    ['header without term', 'sheet,label\nx,syst\n', 'lex.csv:1: header lacks "term"'],
    ['repeated header', 'label,term,term\nsyst,a,b\n', 'lex.csv:1: repeated header "term"'],
    ['too few fields', 'label,term\nsyst,AFW\nsyst\n', 'lex.csv:3: expected 2 fields, found 1'],
    ['too many fields', 'sheet,column_header,label,term\na,b,syst,AFW,extra\n', 'lex.csv:2: expected 4 fields, found 5'],
    ['empty term', 'label,term\nsyst, \n', 'lex.csv:2: empty term'],
    ['empty label', 'label,term\n,AFW\n', 'lex.csv:2: empty label'],
    ['empty file', '\uFEFF\r\n', 'lex.csv:1: empty lexicon'],
    ['unterminated quote', 'label,term\nsyst,"AFW\n', 'lex.csv:2: unterminated quoted field'],
  ])('rejects %s with a one-line message naming the line', (_name, text, message) => {
    expect(() => parseLexiconCsv(text, 'lex.csv')).toThrow(message);
    try {
      parseLexiconCsv(text, 'lex.csv');
    } catch (err) {
      expect((err as Error).message).not.toContain('\n');
    }
  });

  it('loads the reference lexicon: 2,833 entries over 39 labels, in file order', () => {
    const entries = parseLexiconCsv(REFERENCE_CSV, 'reference');
    expect(entries).toHaveLength(2833);
    expect(new Set(entries.map((e) => e.label)).size).toBe(39);
    expect(entries[0]).toEqual({ label: 'comp_mech_fast', term: 'Acoustical wedge anchor' });
    expect(parseLexiconCsv(REFERENCE_CSV, 'reference')).toEqual(entries);
  });

  describe('the default lexicon', () => {
    const entries = parseLexiconCsv(DEFAULT_CSV, 'rca-default');
    const referenceLabels = new Set(parseLexiconCsv(REFERENCE_CSV, 'reference').map((e) => e.label));
    const key = (e: LexiconEntry) => `${e.label}|${e.term.toLowerCase().replace(/[\s-]+/g, ' ')}`;

    it('has at least 350 terms and no duplicate (label, term) rows', () => {
      expect(entries.length).toBeGreaterThanOrEqual(350);
      const keys = entries.map(key);
      expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    });

    it('uses only labels of the reference vocabulary, and rca\'s event_v', () => {
      // event_v (events stated by a verb, outcomes only after an equipment subject: README's label
      // table) is the one label rca adds: the reference's `event` terms are outcomes as written.
      const own = new Set(['event_v']);
      expect([...new Set(entries.map((e) => e.label))].filter((label) => !referenceLabels.has(label) && !own.has(label))).toEqual([]);
    });

    it.each(LEXICON_FIELDS.map((field) => [field]))('feeds %s', (field) => {
      expect(entries.filter((e) => routeLabel(e.label) === field).length).toBeGreaterThanOrEqual(10);
    });

    it.each([
      ['syst', 'AFW'],
      ['syst', 'RHR'],
      ['syst', 'CCW'],
      ['ast_elt', 'EDG'],
      ['syst', 'CVCS'],
      ['ast_hyd_pne', 'MOV'],
      ['ast_hyd_pne', 'AOV'],
      ['comp_mech_rot', 'mechanical seal'],
      ['deg_mech', 'cavitation'],
      ['surv_tool', 'vibration analyzer'],
    ])('includes %s %s', (label, term) => {
      expect(entries).toContainEqual({ label, term });
    });
  });
});

describe('routeLabel', () => {
  it.each<[string, LexiconField | null]>([
    ['syst', 'systems'],
    ['plant', 'systems'],
    ['deg_mech', 'mechanisms'],
    ['event', 'outcomes'],
    ['fail_type_n', 'outcomes'],
    ['fail_type_v', 'outcomes'],
    ['event_v', 'outcomes'],
    ['fail_type', 'outcomes'],
    ['mnt_ops', 'maintenance_actions'],
    ['surv_ops_n', 'surveillance_actions'],
    ['surv_ops_v', 'surveillance_actions'],
    ['mnt_tool', 'tools'],
    ['surv_tool', 'tools'],
    ['prop', 'properties'],
    ['arch', 'components'],
    ['comp_elt/n', 'components'],
    ['comp_elt_n', 'components'],
    ['comp_hyd/pne', 'components'],
    ['comp_mech_fast', 'components'],
    ['opd_hyd_pne', 'components'],
    ['opd_elt', 'components'],
    ['ast_I&C', 'components'],
    ['ast_I_C', 'components'],
    ['ast_hyd_pne', 'components'],
    ['  SYST ', 'systems'],
    ['Surv-Ops/V', 'surveillance_actions'],
  ])('routes %j to %s', (label, field) => {
    expect(routeLabel(label)).toBe(field);
  });

  it.each([
    ['chem_cmpd'],
    ['chem_elem'],
    ['chem_rx'],
    ['mat'],
    ['mat_class'],
    ['bio_air'],
    ['bio_insct'],
    ['diagn'],
    ['qual_asmnt'],
    ['states_matter'],
    ['property'],
    ['compound'],
    ['architecture'],
    [''],
  ])('leaves %j unrouted', (label) => {
    expect(routeLabel(label)).toBeNull();
  });

  it('routes each reference label family as DESIGN.md §2 says', () => {
    const counts: Record<string, number> = {};
    for (const { label } of parseLexiconCsv(REFERENCE_CSV, 'reference')) {
      const field = routeLabel(label) ?? 'unrouted';
      counts[field] = (counts[field] ?? 0) + 1;
    }
    expect(counts).toEqual({
      components: 1151,
      tools: 274,
      maintenance_actions: 175,
      properties: 134,
      mechanisms: 115,
      outcomes: 99,
      systems: 50,
      surveillance_actions: 33,
      unrouted: 802,
    });
  });

  it.each([
    ['comp_elt/n', 'comp_elt_n'],
    ['ast_I&C', 'ast_i_c'],
    [' Surv ops (v) ', 'surv_ops_v'],
  ])('normalises %j to %j', (label, normalised) => {
    expect(normaliseLabel(label)).toBe(normalised);
  });
});

describe('lexicon labels: seed field names, the reference vocabulary, nothing else', () => {
  it.each(LEXICON_FIELDS.map((field) => [field] as const))('the seed field name %s is a label that fills it', (field) => {
    expect(labelRoute(field)).toBe(field);
    expect(parseLexiconCsv(`label,term\n${field},flux capacitor\n`, 'mine.csv')).toEqual([{ label: field, term: 'flux capacitor' }]);
  });

  it('"components,flux capacitor" matches in a chunk (it used to load and never match)', () => {
    const r = runBin('tag', ['--lexicon', join(tmp, 'flux.csv')], '{"chunk_id":"c","doc_id":"d","text":"The flux capacitor failed."}\n');
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { ner_seed: { components: string[] } }).ner_seed.components).toEqual(['flux capacitor']);
  });

  it('an unknown label is a usage error that lists the known ones', () => {
    const r = runBin('tag', ['--lexicon', join(tmp, 'bad.csv')], '');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^rca-tag: --lexicon .*bad\.csv: .*bad\.csv:3: unknown label "flux": a label is a seed field \(systems, components, .*\), syst, plant, .*comp_\*.*chem_\*.*\n$/);
    expect(r.stdout).toBe('');
  });

  it('a bad --lexicon file is refused at set-up, before any input is read', () => {
    const input = '{"chunk_id":"c","doc_id":"d","text":"AFW"}\nnot json\n';
    for (const jobs of ['1', '2']) {
      const r = runBin('tag', ['--jobs', jobs, '--lexicon', 'builtin', '--lexicon', join(tmp, 'bad.csv')], input);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^rca-tag: --lexicon .*bad\.csv: .*bad\.csv:3: unknown label "flux": [^\n]*\n$/);
      expect(r.stdout).toBe('');
    }
  });

  it('every label of the reference and built-in lexicons is known', () => {
    for (const csv of [REFERENCE_CSV, DEFAULT_CSV]) {
      for (const { label } of parseLexiconCsv(csv, 'lexicon')) expect(labelRoute(label), label).not.toBeUndefined();
    }
  });

  it("rca-tag's documented label table is the routing table", () => {
    const page = read('docs/stages/tag.md');
    const table = page.slice(page.indexOf('## Lexicon labels'));
    const rows = [...table.matchAll(/^\| `([^`]+)`[^|]*\| ([a-z_]+|—) \|/gm)].map((m): [string, string] => [m[1]!, m[2]!]);
    expect(rows.length).toBeGreaterThan(20);
    for (const [label, field] of rows) {
      const example = label.endsWith('_*') ? label.replace('_*', '_x') : label;
      expect(labelRoute(example) ?? '—', label).toBe(field);
    }
  });
});

const tmp = mkdtempSync(join(tmpdir(), 'rca-lexicon-'));
writeFileSync(join(tmp, 'flux.csv'), 'label,term\ncomponents,flux capacitor\n');
writeFileSync(join(tmp, 'bad.csv'), 'label,term\nsystems,AFW\nflux,flux capacitor\n');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// The reader as it was before its one-line fast path: every record cell by cell.
function countLineBreaks(text: string, from: number, to: number): number {
  let breaks = 0;
  for (let k = from; k < to; k++) {
    const code = text.charCodeAt(k);
    if (code === 10 || (code === 13 && text.charCodeAt(k + 1) !== 10)) breaks++;
  }
  return breaks;
}

function cellByCell(text: string, sourceName: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (i < n) {
    const recordLine = line;
    const cells: string[] = [];
    for (;;) {
      if (text.charCodeAt(i) === 34) {
        const quoteLine = line;
        let cell = '';
        let from = i + 1;
        for (;;) {
          const quote = text.indexOf('"', from);
          if (quote < 0) throw new Error(`${sourceName}:${quoteLine}: unterminated quoted field`);
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
          throw new Error(`${sourceName}:${line}: unexpected character after a closing quote`);
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
    if (i < n) {
      if (text.charCodeAt(i) === 13 && text.charCodeAt(i + 1) === 10) i += 2;
      else i++;
      line++;
    }
    if (cells.some((cell) => cell.trim() !== '')) records.push({ line: recordLine, cells });
  }
  return records;
}
