import { describe, expect, it } from 'vitest';
import { acronymDefinitions, acronymLetters } from '../../src/tagging/acronyms.js';
import { TokenBuffer } from '../../src/tagging/phrase-matcher.js';
import { builtInSeeder as seeder } from './support/seeders.js';

/** Each definition's long form and acronym, as written. */
function definitions(text: string): string[] {
  const tokens = new TokenBuffer().load(text);
  return acronymDefinitions(tokens).map((d) => `${tokens.surface(d.first, d.last)} = ${d.letters}`);
}

describe('acronymLetters', () => {
  it.each([
    ['HPCS', 'HPCS'],
    ['VFDs', 'VFD'],
    ['ECCS', 'ECCS'],
    ['Pump', null],
    ['A', null],
    ['As', null],
    ['ABCDEFGHIJK', null],
  ])('%s → %s', (word, letters) => expect(acronymLetters(word)).toBe(letters));
});

describe('acronymDefinitions', () => {
  it('reads the shortest run of words whose initials spell the acronym', () => {
    expect(definitions('A loss of the low-low steam generator (SG) level alarm.')).toEqual(['steam generator = SG']);
    expect(definitions('The standby liquid control (SLC) system was tested.')).toEqual(['standby liquid control = SLC']);
  });

  it('skips or counts function words, takes hyphenated parts, a plural and inner letters', () => {
    expect(definitions('the chemical and volume control system (CVCS)')).toEqual(['chemical and volume control system = CVCS']);
    expect(definitions('the Department of Energy (DOE) wrote')).toEqual(['Department of Energy = DOE']);
    expect(definitions('two air-operated valves (AOVs) stuck')).toEqual(['air-operated valves = AOV']);
    expect(definitions('a power-operated relief valve (PORV) lifted')).toEqual(['power-operated relief valve = PORV']);
    expect(definitions('the startup feedwater (SFW) pump')).toEqual(['startup feedwater = SFW']);
  });

  it('accepts codes after the acronym and a line break inside the parentheses', () => {
    expect(definitions('the Instrument Air (IA; EIIS code: LD) header')).toEqual(['Instrument Air = IA']);
    expect(definitions('the control rod drive (\nCRD) pumps')).toEqual(['control rod drive = CRD']);
  });

  it('finds nothing where the initials do not spell it', () => {
    expect(definitions('the Palo Verde plant (APS) said')).toEqual([]);
    expect(definitions('see the report (NUREG) for details')).toEqual([]);
    expect(definitions('a value (Note 3) was used')).toEqual([]);
  });

  // Linear by construction: each "(" looks back at most MAX_LETTERS + EXTRA_WORDS tokens. A text of
  // open parentheses and would-be acronyms, the worst case for that look-back, is read whole.
  it('reads a text of parentheses and would-be acronyms whole, one definition per unit', () => {
    const unit = 'the quick brown fox (QBF) and (((( ';
    expect(acronymDefinitions(new TokenBuffer().load(unit.repeat(20_000)))).toHaveLength(20_000);
  });
});

describe('NerSeeder with acronyms defined in the text', () => {
  it('puts a long form holding a system term, and every mention of its acronym, among the systems', () => {
    const seed = seeder.seed('The operators manually started the high pressure core spray (HPCS) system. Later the HPCS pump tripped.');
    expect(seed.systems).toEqual(['high pressure core spray', 'HPCS']);
    // "core spray" and "pressure" inside the long form give way to it.
    expect(seed.properties).toEqual([]);
  });

  it('reads a long form that ends in a head noun of the lexicon, and the plural of its acronym', () => {
    const seed = seeder.seed('Both main steam isolation valves (MSIVs) closed. One MSIV was slow to close.');
    expect(seed.components).toEqual(['main steam isolation valves', 'MSIVs', 'MSIV']);
    const drives = seeder.seed('The variable frequency drives (VFDs) were replaced; one VFD had failed.');
    expect(drives.components).toEqual(['variable frequency drives', 'VFDs', 'VFD']);
  });

  it('takes the class from the noun after the parentheses when the long form has none', () => {
    const seed = seeder.seed('Technicians tested the reactor building closed cooling (RBCC) system and the RBCC heat exchanger.');
    expect(seed.systems).toEqual(['reactor building closed cooling', 'RBCC']);
  });

  it('finds a mention written before the definition', () => {
    const seed = seeder.seed('RBCC flow was low. The reactor building closed cooling (RBCC) system was realigned.');
    expect(seed.systems).toEqual(['RBCC', 'reactor building closed cooling']);
  });

  it('keeps the lexicon\'s own acronyms as they were', () => {
    const seed = seeder.seed('The reactor core isolation cooling (RCIC) system tripped; RCIC was restored.');
    expect(seed.systems).toEqual(['reactor core isolation cooling', 'RCIC']);
  });

  it('leaves alone acronyms of no equipment class, undefined acronyms and actuations', () => {
    expect(seeder.seed('The Nuclear Regulatory Commission (NRC) was told at 1130 Central Daylight Time (CDT).').systems).toEqual([]);
    expect(seeder.seed('The RBCC pump was started.').systems).toEqual([]);
    const actuation = seeder.seed('a spurious safety injection (SI) signal; SI reset');
    expect(actuation.systems).toEqual([]);
    // The gazetteer reads the actuation as an event, as without the definition.
    expect(actuation.outcomes).toContain('safety injection');
  });
});
