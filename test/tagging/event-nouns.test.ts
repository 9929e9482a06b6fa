import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildGazetteer } from '../../src/tagging/gazetteer.js';
import { parseLexiconCsv } from '../../src/tagging/lexicon.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const gazetteer = buildGazetteer(parseLexiconCsv(read('data/lexicon/rca-default.csv'), 'builtin'));
const outcomes = (text: string): string[] => gazetteer.match(text).outcomes;

// Outcomes event reports state as nouns (docs/stages/tag.md, "Outcome nouns").
describe('event-reporting nouns', () => {
  it('a loss is an outcome, the lexicon\'s named losses stay whole', () => {
    expect(outcomes('The plant tripped on a loss of the running condensate booster pump.')).toEqual(['tripped', 'loss']);
    expect(outcomes('A loss of offsite power followed; this loss also disabled the paging system.')).toEqual(['loss of offsite power', 'loss']);
  });

  it('isolations, a generator lockout, a break and a missing source are outcomes', () => {
    expect(outcomes('Group 2 and 3 isolations occurred after the generator lockout.')).toEqual(['isolations', 'generator lockout']);
    expect(outcomes('A break in the letdown line was found; a sealed source was reported missing.')).toEqual(['break', 'missing']);
  });

  it('an Alert declared is an outcome; "to alert" and "to break" are verbs', () => {
    expect(outcomes('The licensee declared an Alert at 0412.')).toEqual(['Alert']);
    expect(outcomes('This notice is issued to alert licensees; operators tried to break the seal.')).toEqual([]);
    expect(outcomes('Vibration stayed below the alert limit. Alert levels are set by the vendor.')).toEqual([]);
    expect(outcomes('The site declared an ALERT.')).toEqual(['ALERT']);
  });

  it('an initiation is an outcome as the action of a system, not a record\'s opening', () => {
    expect(outcomes('High drywell pressure caused initiation of the standby gas treatment train.')).toEqual(['initiation']);
    expect(outcomes('An automatic RCIC initiation occurred.')).toEqual(['initiation']);
    expect(outcomes('Cause: unknown at initiation.')).toEqual([]);
  });
});
