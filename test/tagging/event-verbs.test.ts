import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildGazetteer } from '../../src/tagging/gazetteer.js';
import { parseLexiconCsv } from '../../src/tagging/lexicon.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const gazetteer = buildGazetteer(parseLexiconCsv(read('data/lexicon/rca-default.csv'), 'builtin'));

describe('event-reporting verbs (event_v)', () => {
  it('are outcomes after an equipment subject, past auxiliaries', () => {
    expect(gazetteer.match('The booster pump shut down and the isolation valve isolated.').outcomes).toEqual(['shut down', 'isolated']);
    expect(gazetteer.match('Instrument air pressure was lost.').outcomes).toEqual(['lost']);
    expect(gazetteer.match('The emergency feedwater system was actuated.').outcomes).toEqual(['actuated']);
    expect(gazetteer.match('Two transformers were also energized.').outcomes).toEqual(['energized']);
  });

  it('are outcomes after a manner adverb, which is kept with the verb', () => {
    expect(gazetteer.match('The standby unit automatically started; a second was manually started.').outcomes).toEqual(['automatically started', 'manually started']);
  });

  it('are no outcome with a person or a document as subject', () => {
    const found = gazetteer.match('A work request was initiated. The crew isolated the leak and stopped the work.');
    // ("leak" is the lexicon's failure noun.)
    expect(found.outcomes).toEqual(['leak']);
    // The maintenance sheet's word stays a maintenance action where it is one.
    expect(found.maintenance_actions).toEqual(['isolated']);
  });

  it('are nothing after an article, nor in a procedure\'s present-tense condition', () => {
    const adjective = gazetteer.match('The vendor believes this is an isolated case.');
    expect(adjective.outcomes).toEqual([]);
    expect(adjective.maintenance_actions).toEqual([]);
    expect(gazetteer.match('IF the feedwater system is isolated, THEN go to step 4.').outcomes).toEqual([]);
  });

  it('"activated": an outcome of equipment, nothing when a person activates a thing', () => {
    expect(gazetteer.match('The fire protection deluge valve was activated.').outcomes).toEqual(['activated']);
    expect(gazetteer.match('The operator activated the new account.').outcomes).toEqual([]);
  });

  it('"none" as subject stands for the equipment looked for', () => {
    expect(gazetteer.match('The log showed none to have been activated.').outcomes).toEqual(['activated']);
  });

  it('leave the lexicon\'s unconditional failure verbs as they were', () => {
    expect(gazetteer.match('It failed the test and tripped.').outcomes).toEqual(['failed', 'tripped']);
  });
});
