import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildGazetteer } from '../../src/tagging/gazetteer.js';
import { parseLexiconCsv } from '../../src/tagging/lexicon.js';
import { buildPhraseMatcher, regularPlurals } from '../../src/tagging/phrase-matcher.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('regularPlurals', () => {
  it.each([
    ['tank', ['tanks']],
    ['switch', ['switches']],
    ['box', ['boxes']],
    ['bus', ['buses']],
    ['battery', ['batteries']],
    ['relay', ['relays']],
    ['EDG', ['edgs']],
    ['bellows', []],
    ['deenergized', []],
    ['480V', []],
  ])('%s → %j', (word, plurals) => expect(regularPlurals(word)).toEqual(plurals));
});

describe('phrase matching with plural forms', () => {
  const matcher = buildPhraseMatcher([
    { phrase: 'temperature switch', payload: 'component', plural: true },
    { phrase: 'storage tank', payload: 'component', plural: true },
    { phrase: 'o-ring', payload: 'component', plural: true },
    { phrase: 'battery', payload: 'component', plural: true },
    { phrase: 'valve', payload: 'component' },
    // A plural the list writes itself keeps its own payload.
    { phrase: 'flaw', payload: 'finding', plural: true },
    { phrase: 'flaws', payload: 'flaws as written' },
  ]);
  const found = (text: string) => matcher.matchAll(text).map((m) => `${m.text}:${m.payloads.join('+')}`);

  it('matches the last word in its plural and reports the text as written', () => {
    expect(found('Both Temperature Switches and the storage tanks, two O-Rings and the batteries.')).toEqual([
      'Temperature Switches:component',
      'storage tanks:component',
      'O-Rings:component',
      'batteries:component',
    ]);
  });

  it('adds no plural to a phrase that does not ask for it, nor to a phrase written as such', () => {
    expect(found('two valves and three flaws, one flaw')).toEqual(['flaws:flaws as written', 'flaw:finding']);
  });

  it('still matches the singular, and only whole words', () => {
    expect(found('one temperature switch; the tanksful')).toEqual(['temperature switch:component']);
  });
});

describe('the built-in lexicon with plurals', () => {
  const gazetteer = buildGazetteer(parseLexiconCsv(read('data/lexicon/rca-default.csv'), 'builtin'));

  it('reads plural components and systems the lexicon lists in the singular', () => {
    const found = gazetteer.match('The duplex strainers and two pressure switches were replaced; the check valves and the service water systems were tested.');
    expect(found.components).toEqual(['duplex strainers', 'pressure switches', 'check valves']);
    expect(found.systems).toEqual(['service water systems']);
  });

  it('takes a one-word plural only in a text the lexicon reads otherwise too', () => {
    expect(gazetteer.match('to lay the foundations deep and massive').components).toEqual([]);
    expect(gazetteer.match('the pump foundations cracked').components).toEqual(['pump', 'foundations']);
  });

  it('gives one-word findings and quantities no plural', () => {
    const found = gazetteer.match('The pump showed no anomalies at normal levels.');
    expect(found.outcomes).toEqual([]);
    expect(found.properties).toEqual([]);
  });
});
