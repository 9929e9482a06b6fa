import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildKeywordLists, type KeywordSpans } from '../../src/tagging/keyword-lists.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

const reference = buildKeywordLists({
  temporalQualifiers: read('test/fixtures/dackar/time_keywords.csv'),
  temporalRelations: read('test/fixtures/dackar/time_relation_keywords.csv'),
  locations: read('test/fixtures/dackar/location_keywords.csv'),
  conjectures: read('test/fixtures/dackar/conjecture_keywords.csv'),
});
const builtIn = buildKeywordLists({
  temporalQualifiers: read('data/keywords/temporal_qualifiers.csv'),
  temporalRelations: read('data/keywords/temporal_relations.csv'),
  locations: read('data/keywords/locations.csv'),
  conjectures: read('data/keywords/conjectures.csv'),
});

function spans(partial: Partial<KeywordSpans>): KeywordSpans {
  return { temporal_relations: [], temporal_qualifiers: [], locations: [], conjectures: [], ...partial };
}

const EMPTY_LISTS = { temporalQualifiers: 'approximation\n', temporalRelations: 'order\n', locations: 'proximity\n', conjectures: '' };

describe('buildKeywordLists with the built-in lists', () => {
  it.each<[string, Partial<KeywordSpans>]>([
    ['Shortly after the pump started, flow dropped.', { temporal_qualifiers: ['Shortly after'], temporal_relations: [{ text: 'after', sub_label: 'order' }] }],
    // An approximation qualifies a time only when a time follows: not "approximately 465 gpm".
    ['Flow was approximately 465 gpm, approx. 5 minutes later.', {
      temporal_qualifiers: ['approx.'],
      temporal_relations: [{ text: 'later', sub_label: 'order' }],
    }],
    ['Prior to the test and during the run, while at power', {
      temporal_relations: [
        { text: 'Prior to', sub_label: 'reverse-order' },
        { text: 'during', sub_label: 'concurrency-coincidence' },
        { text: 'while', sub_label: 'concurrency-coincidence' },
      ],
    }],
    ['The leak is upstream of the check valve, adjacent to the inboard bearing', {
      locations: [
        { text: 'upstream of', sub_label: 'upstream' },
        { text: 'adjacent to', sub_label: 'proximity' },
        { text: 'inboard', sub_label: 'side' },
      ],
    }],
    ['The failure may have been caused by possible air in-leakage; cavitation is suspected.', { conjectures: ['may have', 'possible', 'suspected'] }],
    ['Readings indicating possible misalignment', { conjectures: ['indicating possible'] }],
    ['non-drive end and drive-end bearings', { locations: [{ text: 'non-drive end', sub_label: 'side' }, { text: 'drive-end', sub_label: 'side' }] }],
    ['before the trip. Before  the\nreset, BEFORE', { temporal_relations: [{ text: 'before', sub_label: 'reverse-order' }] }],
    ['Appears to be below the\nsuction side', {
      conjectures: ['Appears to'],
      locations: [{ text: 'below', sub_label: 'down' }, { text: 'suction side', sub_label: 'upstream' }],
    }],
    // A term only in the use the list means: the relation, not the determiner or the verb; the
    // hedge, not the month, a fact, a request or a column heading.
    ['The following values were read. Following the scram, the crew was not following the step.', {
      temporal_relations: [{ text: 'Following', sub_label: 'order' }],
    }],
    ['On May 14, 2021 the gasket may weep.', { conjectures: ['may'] }],
    // A place word in its other uses: the document's layout, a rule or condition, a time.
    ['Sign below, the above mentioned report and the staff listed below; the drain below the tank.', {
      locations: [{ text: 'below', sub_label: 'down' }],
    }],
    ['acceptable under ASME Section XI and under low flow; the cable runs under the floor.', {
      locations: [{ text: 'under', sub_label: 'down' }],
    }],
    ['found outside design basis, outside the design basis; stored outside the building', {
      locations: [{ text: 'outside', sub_label: 'proximity' }],
    }],
    ['It is expected that addressees will review the notice. Valves stroked as expected; the expected isolation came. STEP ACTION/EXPECTED RESPONSE. The seal is expected to degrade.', {
      conjectures: ['expected'],
    }],
  ])('tags %j', (text, expected) => {
    expect(builtIn.match(text)).toEqual(spans(expected));
  });

  it.each([
    ['an inflection', 'an approximate value'],
    ['a term inside a word', 'the Mayor saw the aftermath belowground'],
    ['a list header', 'hedge approximation proximity order'],
    ['a compound', 'the pre-test and after-action notes'],
    ['a plural', 'durings and hypotheses'],
    ['empty text', ''],
  ])('finds nothing in %s', (_name, text) => {
    expect(builtIn.match(text)).toEqual(spans({}));
  });

  it('returns the four fields in seed order', () => {
    expect(Object.keys(builtIn.match(''))).toEqual(['temporal_relations', 'temporal_qualifiers', 'locations', 'conjectures']);
  });
});

describe('buildKeywordLists with the reference lists (UTF-8 BOM, CRLF)', () => {
  it.each<[string, Partial<KeywordSpans>]>([
    ['Beyond the wall', { locations: [{ text: 'Beyond', sub_label: 'up' }] }],
    ['Expected and Possible causes', { conjectures: ['Expected', 'Possible'] }],
    ['Roughly 5 minutes', { temporal_qualifiers: ['Roughly'] }],
    // A threshold phrase is neither a time nor a place.
    ['Near lower bound', {}],
    ['Near the pump', { locations: [{ text: 'Near', sub_label: 'proximity' }] }],
    ['Subsequently, it was concurrent', {
      temporal_relations: [
        { text: 'Subsequently', sub_label: 'order' },
        { text: 'concurrent', sub_label: 'concurrency-coincidence' },
      ],
    }],
    ['approximation proximity order', {}],
  ])('tags %j', (text, expected) => {
    expect(reference.match(text)).toEqual(spans(expected));
  });

  it('tags a condition report sentence', () => {
    const lines = read('test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl').trim().split('\n');
    const texts = lines.map((line) => (JSON.parse(line) as { text: string }).text);
    expect(reference.match(texts[3] ?? '')).toEqual(spans({ locations: [{ text: 'at', sub_label: 'proximity' }], conjectures: ['Potential'] }));
  });
});

describe('buildKeywordLists: list files', () => {
  it.each<[string, string, string, string[]]>([
    ['a named hedge column', 'conjectures', 'hedge\r\nmay\r\n', ['may']],
    ['a headerless hedge list', 'conjectures', '\uFEFFExpected\r\nPossible', ['Expected', 'Possible']],
    ['a quoted qualifier', 'temporalQualifiers', 'approximation\n"give or take"\n', ['give or take']],
  ])('reads %s', (_name, list, csv, terms) => {
    const lists = buildKeywordLists({ ...EMPTY_LISTS, [list]: csv });
    const found = lists.match(terms.join(' | '));
    expect(list === 'conjectures' ? found.conjectures : found.temporal_qualifiers).toEqual(terms);
  });

  it('keeps the first column of a term listed twice', () => {
    const lists = buildKeywordLists({ ...EMPTY_LISTS, locations: 'up,down\nover,under\n,Over\n' });
    expect(lists.match('over').locations).toEqual([{ text: 'over', sub_label: 'up' }]);
  });

  it.each([
    ['a term under a column with no header', { temporalRelations: 'order,\nafter,then\n' }, 'temporal_relations:2: term "then" in column 2, which has no header'],
    ['an unterminated quote', { locations: 'proximity\n"near\n' }, 'locations:2: unterminated quoted field'],
  ])('rejects %s', (_name, files, message) => {
    expect(() => buildKeywordLists({ ...EMPTY_LISTS, ...files })).toThrow(message);
  });
});
