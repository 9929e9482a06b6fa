import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LEXICON_FIELDS, type LexiconField } from '../../src/contracts/vocabulary.js';
import { buildGazetteer } from '../../src/tagging/gazetteer.js';
import { parseLexiconCsv } from '../../src/tagging/lexicon.js';
import { buildPhraseLists, buildPhraseMatcher, TokenBuffer } from '../../src/tagging/phrase-matcher.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const chunkText = (chunkId: string): string => {
  const lines = read('test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl').trim().split('\n');
  const chunk = lines.map((line) => JSON.parse(line) as { chunk_id: string; text: string }).find((c) => c.chunk_id === chunkId);
  if (chunk === undefined) throw new Error(`no chunk ${chunkId}`);
  return chunk.text;
};

const SMALL_LEXICON = `label,term
syst,auxiliary feedwater
syst,AFW
syst,Residual Heat Removal System (RHR)
ast_hyd_pne,pump
ast_hyd_pne,valve
ast_hyd_pne,motor operated valve
ast_hyd_pne,check valve
ast_hyd_pne,pipe
comp_hyd/pne,o-ring
ast_I&C,I&C
comp_elt/n,Programmable Unijunction transistor (PUT)
arch,pump-house
comp_mech_struct,steel
mat,carbon steel
deg_mech,cavitation
deg_mech,air in-leakage
deg_mech,vibration
event,loss of
event,high vibration
fail_type_n,loss of flow
fail_type_n,leak
prop,flow
prop,pressure
mnt_ops,replace
mnt_ops,sop
surv_ops_n,inspection
surv_tool,inspection
surv_tool,Liquid Penetrant Testing (PT)
mnt_tool,torque wrench
`;
const small = buildGazetteer(parseLexiconCsv(SMALL_LEXICON, 'small.csv'));

function fields(partial: Partial<Record<LexiconField, string[]>>): Record<LexiconField, string[]> {
  return Object.fromEntries(LEXICON_FIELDS.map((field) => [field, partial[field] ?? []])) as Record<LexiconField, string[]>;
}

describe('buildGazetteer: matching', () => {
  it.each<[string, string, Partial<Record<LexiconField, string[]>>]>([
    ['a single word', 'The pump tripped.', { components: ['pump'] }],
    ['longest match first', 'Stroke the motor operated valve now', { components: ['motor operated valve'] }],
    ['longer phrase over two shorter ones', 'loss of flow occurred', { outcomes: ['loss of flow'] }],
    ['shorter phrase when the longer one breaks off', 'loss of pressure', { outcomes: ['loss of'], properties: ['pressure'] }],
    ['case and whitespace flexibility, surface kept', 'MOTOR  operated\nValve', { components: ['MOTOR operated Valve'] }],
    ['hyphen in the text, space in the term', 'the motor-operated valve', { components: ['motor-operated valve'] }],
    ['space in the text, hyphen in the term', 'replace the o ring', { components: ['o ring'], maintenance_actions: ['replace'] }],
    ['hyphenated term as written', 'air in-leakage at the O-Ring', { components: ['O-Ring'], mechanisms: ['air in-leakage'] }],
    ['punctuation inside a term, spaced or not', 'I&C and I & C', { components: ['I&C', 'I & C'] }],
    ['punctuation around a word is a boundary', "(pump), pump's seal; valve.", { components: ['pump', 'valve'] }],
    ['case-insensitive dedupe, first surface and order kept', 'Pump A, valve, pump B; PUMP C', { components: ['Pump', 'valve'] }],
    ['one term in two routed fields', 'Inspection found a leak', { surveillance_actions: ['Inspection'], tools: ['Inspection'], outcomes: ['leak'] }],
    ['acronym of a long form', 'RHR pump', { systems: ['RHR'], components: ['pump'] }],
    ['long form alone', 'the residual heat removal system', { systems: ['residual heat removal system'] }],
    ['whole long form with its acronym', 'Residual Heat Removal System (RHR) was lined up', { systems: ['Residual Heat Removal System (RHR)'] }],
    ['case-sensitive acronym', 'put the PUT back', { components: ['PUT'] }],
    // A building or room (label arch) is a place: the tag stage lists it under locations.
    ['a place is not a component', 'the pump-house roof', {}],
    ['events and mechanisms together', 'high vibration and cavitation on the AFW pump', { systems: ['AFW'], components: ['pump'], mechanisms: ['cavitation'], outcomes: ['high vibration'] }],
    ['multi-line text', 'auxiliary\r\nfeedwater\tpump', { systems: ['auxiliary feedwater'], components: ['pump'] }],
  ])('%s', (_name, text, expected) => {
    expect(small.match(text)).toEqual(fields(expected));
  });

  it.each([
    ['a term inside a word', 'isopropyl alcohol'],
    ['a plural', 'two pumps'],
    ['another plural', 'the valves'],
    ['an inflection', 'replaced and leaking'],
    ['a compound split by a match', 'the pump-motor assembly'],
    ['a term ending a compound', 'the booster-pump skid'],
    ['an equipment id glued to an acronym', 'PT-1102 read low'],
    ['a lowercased acronym', 'rhr and put'],
    ['punctuation that differs', 'I/C and I C'],
    ['an unrouted longer term swallows its sub-word', 'carbon steel'],
    ['a partial phrase', 'torque settings'],
    ['empty text', ''],
  ])('finds nothing in %s', (_name, text) => {
    expect(small.match(text)).toEqual(fields({}));
  });

  it('always returns the 8 lexicon fields in order', () => {
    expect(Object.keys(small.match('nothing here'))).toEqual([...LEXICON_FIELDS]);
  });

  it('is deterministic and keeps no state between calls', () => {
    const text = 'pump valve loss of flow; motor operated valve';
    const first = small.match(text);
    small.match('a very different text about torque wrench and I&C');
    expect(small.match(text)).toEqual(first);
    expect(buildGazetteer(parseLexiconCsv(SMALL_LEXICON, 'again')).match(text)).toEqual(first);
  });

  it('returns only surfaces found in the text, without case-insensitive duplicates', () => {
    const words = ['pump', 'PUMP', 'valve', 'motor', 'operated', 'loss', 'of', 'flow', 'o', 'ring', 'I', '&', 'C', 'RHR', 'x', 'steel'];
    const separators = [' ', '  ', '\n', '-', ', ', '.'];
    const texts = fc
      .array(fc.tuple(fc.constantFrom(...words), fc.constantFrom(...separators)), { maxLength: 30 })
      .map((parts) => parts.map(([word, separator]) => word + separator).join(''));
    fc.assert(
      fc.property(texts, (text) => {
        const collapsed = text.replace(/\s+/g, ' ');
        for (const items of Object.values(small.match(text))) {
          for (const item of items) expect(collapsed).toContain(item);
          expect(new Set(items.map((item) => item.toLowerCase())).size).toBe(items.length);
        }
      }),
    );
  });
});

describe('buildGazetteer: the shared scan with phrase numbers', () => {
  // The tag stage's scan hands the gazetteer each match's phrase number, which keys its per-record
  // repeat test without building the lowercased surface; its own matchTokens does not. Both must
  // give the same lists, whatever the case, gaps, compounds and non-ASCII letters.
  const words = ['pump', 'PUMP', 'Pump', 'valve', 'motor', 'operated', 'loss', 'of', 'flow', 'o', 'ring', 'I', '&', 'C', 'RHR', 'rhr', 'x', 'steel', 'AFW', 'afw', 'İ', 'Σ', 'é'];
  const separators = [' ', '  ', '\t', '\n', '-', '\u2010', ', ', '.', ''];
  const texts = fc
    .array(fc.tuple(fc.constantFrom(...words), fc.constantFrom(...separators)), { maxLength: 40 })
    .map((parts) => parts.map(([word, separator]) => word + separator).join(''));

  it('gives the lists matchTokens gives', () => {
    const matcher = buildPhraseLists([small.phraseList]);
    fc.assert(
      fc.property(texts, (text) => {
        const tokens = new TokenBuffer().load(text);
        const scan = small.begin(tokens);
        matcher.scan(tokens, (_list, start, end, routes, first, last, phrase) => scan.onMatch(start, end, routes, first, last, phrase));
        expect(scan.finish()).toEqual(small.matchTokens(new TokenBuffer().load(text)));
      }),
      { numRuns: 1500 },
    );
  });

  it('tells apart surfaces that differ only in their gaps ("I&C" and "I & C", "o-ring" and "o ring")', () => {
    const matcher = buildPhraseLists([small.phraseList]);
    const pieces = fc.constantFrom('o', 'ring', 'O', 'RING', 'I', '&', 'C', 'c', 'pump', ' ', '  ', '\t', '-', '\u2011', ' valve ');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 24 }), (parts) => {
        const text = parts.join('');
        const tokens = new TokenBuffer().load(text);
        const scan = small.begin(tokens);
        matcher.scan(tokens, (_list, start, end, routes, first, last, phrase) => scan.onMatch(start, end, routes, first, last, phrase));
        expect(scan.finish()).toEqual(small.matchTokens(new TokenBuffer().load(text)));
      }),
      { numRuns: 2000 },
    );
    const tokens = new TokenBuffer().load('I&C, I & C, i&c; o-ring, o ring, O-RING');
    const scan = small.begin(tokens);
    matcher.scan(tokens, (_list, start, end, routes, first, last, phrase) => scan.onMatch(start, end, routes, first, last, phrase));
    const lists = scan.finish();
    expect(Object.values(lists).flat()).toEqual(expect.arrayContaining(['I&C', 'I & C', 'o-ring', 'o ring']));
    expect(Object.values(lists).flat().filter((item) => item.toLowerCase() === 'o-ring' || item.toLowerCase() === 'i&c')).toHaveLength(2);
  });
});

describe('buildGazetteer with the shipped lexicons', () => {
  const reference = buildGazetteer(parseLexiconCsv(read('test/fixtures/dackar/tag_keywords_lists.derived.csv'), 'reference'));
  const builtIn = buildGazetteer(parseLexiconCsv(read('data/lexicon/rca-default.csv'), 'rca-default'));
  const observation = chunkText('chunk:ad61d26ecf6e:sec2');
  const cause = chunkText('chunk:ad61d26ecf6e:sec4');

  it.each<[string, typeof reference, string, Partial<Record<LexiconField, string[]>>]>([
    ['reference', reference, observation, {
      systems: ['AFW'],
      // The reference lists "alarm" as an I&C component: "bearing temperature alarms" is its
      // plural, and the quantity before it names that equipment (as "bearing temperature alarm" would).
      components: ['Pump', 'alarm', 'bearing', 'alarms'],
      mechanisms: ['vibration'],
      maintenance_actions: ['start'],
      properties: ['flow', 'pressure'],
    }],
    ['reference', reference, cause, { components: ['coupling'], properties: ['pressure'] }],
    ['built-in', builtIn, observation, {
      systems: ['AFW'],
      components: ['Pump', 'Vibration channel'],
      outcomes: ['elevated vibration'],
      // "observed" and "confirmed" report, they name no surveillance: not in the built-in lexicon.
      surveillance_actions: ['surveillance'],
      properties: ['flow', 'discharge pressure', 'bearing temperature'],
    }],
    ['built-in', builtIn, cause, { mechanisms: ['coupling misalignment'], properties: ['suction pressure margin'] }],
  ])('the %s lexicon tags a condition report sentence', (_name, gazetteer, text, expected) => {
    expect(gazetteer.match(text)).toEqual(fields(expected));
  });

  it.each([
    ['a kind of plant', 'All nuclear power plants and PWR licensees'],
    ['a plant type in a name', 'Millstone Nuclear Power Station and the power reactor'],
  ])('the built-in lexicon finds no system or property in %s (it names the facility)', (_name, text) => {
    expect(builtIn.match(text)).toEqual(fields({}));
  });

  it.each<[string, string, Partial<Record<LexiconField, string[]>>]>([
    ['the quantity of a measurement', 'The unit was at 100% power and Unit 2 at 93.5 percent power.', {}],
    ['the quantity an instrument measures', 'The Over Voltage Relay and the Variable Frequency Drives', { components: ['Relay', 'Variable Frequency Drives'] }],
    ['a quantity naming the equipment after it', 'the power cable', { components: ['cable'] }],
    ['an activity naming a document or an office', 'Deviation Report and the Inspection Report of the Vendor Inspection Branch', {}],
    ['an activity naming a role', 'the IST Coordinator reviews it', {}],
    ['a term in an organisation name', 'Engine Systems, Inc. and Omaha Public Power District', {}],
    ['terms of the oversight process', 'The performance deficiency affected human performance.', {}],
    ['a quantity stated on its own', 'power was reduced and pressure rose', { properties: ['power', 'pressure'] }],
    ['an activity with its plan', 'A repair plan is being developed.', { maintenance_actions: ['repair'] }],
    ['a system actuated as an event', 'after a reactor trip or safety injection, a spurious safety injection', { outcomes: ['reactor trip', 'safety injection'] }],
    // "started" after the pumps: what happened to them (an event term that is a verb, gazetteer.ts).
    ['a system stated as one', 'the safety injection pumps started', { systems: ['safety injection'], components: ['pumps'], outcomes: ['started'] }],
    ['generators as components', 'the main generator and the EDG', { components: ['main generator', 'EDG'] }],
    ['an operational mode', 'in Power Operation and then Hot Standby', {}],
    ['an NRC programme and a form heading', 'Systematic Assessment of Licensee Performance; Assessment of Safety Consequences', {}],
    ['an event naming its system', 'the diverse auxiliary feedwater actuation system and the actuation', { systems: ['auxiliary feedwater'], outcomes: ['actuation'] }],
    ['the title of Part 21', 'Reporting of Defects and Noncompliance: DEFECTS AND NONCOMPLIANCE', {}],
  ])('the built-in lexicon reads %s', (_name, text, expected) => {
    expect(builtIn.match(text)).toEqual(fields(expected));
  });

  // Its speed is measured by bench/tag-parts.mjs (the gazetteer part), not asserted here.
  it('matches a 1.5 KB text 2,000 times with the reference lexicon, the same every time', () => {
    const text = read('test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl').slice(0, 1500);
    const first = JSON.stringify(reference.match(text));
    let same = 0;
    for (let k = 0; k < 2000; k++) if (JSON.stringify(reference.match(text)) === first) same++;
    expect(same).toBe(2000);
  });
});

describe('buildPhraseMatcher', () => {
  it.each<[string, string[], string, string[]]>([
    ['longest first, left to right, no overlap', ['a b', 'b c', 'a b c d'], 'a b c d a b c', ['a b c d', 'a b']],
    ['a later longer phrase does not reclaim consumed tokens', ['x y', 'y z w'], 'x y z w', ['x y']],
    ['a dead-end prefix falls back to the last full phrase', ['one two', 'one two three four'], 'one two three five', ['one two']],
    ['phrases of punctuation only', ['~', 'approx.'], '~5 min, approx. 6', ['~', 'approx.']],
    ['non-ASCII letters stay inside words', ['café'], 'CAFÉ cafés café', ['CAFÉ', 'café']],
    ['dotted capital I keeps offsets', ['pump'], 'İİ pump', ['pump']],
    ['underscores are word characters', ['air'], 'FM_AIR_INLEAK air', ['air']],
  ])('%s', (_name, phrases, text, expected) => {
    const matcher = buildPhraseMatcher(phrases.map((phrase) => ({ phrase, payload: phrase })));
    expect(matcher.matchAll(text).map((m) => m.text)).toEqual(expected);
  });

  it.each<['merge' | 'keep-first', string[]]>([
    ['merge', ['first', 'second']],
    ['keep-first', ['first']],
  ])('with %s, a repeated phrase carries %j', (policy, payloads) => {
    const matcher = buildPhraseMatcher(
      [
        { phrase: 'Relief  Valve', payload: 'first' },
        { phrase: 'relief-valve', payload: 'second' },
      ],
      policy,
    );
    expect(matcher.matchAll('relief valve').map((m) => m.payloads)).toEqual([payloads]);
  });
});
