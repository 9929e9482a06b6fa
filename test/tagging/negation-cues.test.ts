// One negation vocabulary for rca-tag and rca-validate: every cue tag reads is a negation to the
// claim check, so an item quoting a sentence that tag read as ruling a mention out is not flagged
// for stating it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { negationCueTokens } from '../../src/tagging/negation-cues.js';
import { negationScopes } from '../../src/tagging/negation.js';
import { isNegated, negationCues, spanNegated } from '../../src/views/claims.js';
import { EvidenceText, normaliseTokens } from '../../src/views/evidence-text.js';

// Sentences of the kind event reports, Part 21 notices and inspection findings write.
const NEGATED = [
  'No fuel damage occurred.',
  'There were no personnel injuries.',
  'The licensee did not confirm a flaw in the weld.',
  'A reactor trip did not occur.',
  'The pumps ramped off instead of tripping off.',
  'The operators throttled the valve rather than closing it.',
  'The vendor examined the strainer and found it free of debris.',
  'The analysis ruled out fatigue of the bracket.',
  'Corrosion was eliminated as a cause of the leak.',
  'Intergranular cracking was discounted by the metallurgical examination.',
  'Bearing wear is contradicted by the flat vibration trend.',
  'The test failed to reproduce the relay chatter.',
  'The inspection found no evidence of boric acid leakage.',
  'The readings were inconsistent with a tube leak.',
  'In the absence of a flow path, the pump was stopped.',
  "The breaker didn't trip.",
  'The vendor is not aware of any other similar failures.',
  'The supplier is unaware of any other field returns.',
  'Core damage was precluded by the automatic scram.',
  'The relief valve lift prevented a radiological release.',
  'Neither the pump nor the valve showed wear.',
  'The diesel generator never lost its output.',
  'None of the snubbers were found locked.',
  'The valve was operated without any indication of binding.',
];

describe('the negation vocabulary (tagging/negation-cues.ts)', () => {
  it.each(NEGATED)('tag and the claim check both read a negation in "%s"', (sentence) => {
    expect(negationScopes(sentence).length).toBeGreaterThan(0);
    expect(isNegated(sentence)).toBe(true);
  });

  it('every cue tag finds holds a cue the claim check reads (the project own quality set, the sentences above)', () => {
    const chunks = readFileSync(new URL('../fixtures/quality/chunks.jsonl', import.meta.url), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => String((JSON.parse(l) as { text?: unknown }).text ?? ''));
    const unread: string[] = [];
    let cues = 0;
    for (const text of [...chunks, ...NEGATED]) {
      for (const scope of negationScopes(text)) {
        cues++;
        const cueText = text.slice(scope.cueStart, scope.cueEnd);
        if (negationCues(normaliseTokens(cueText)).length === 0) unread.push(cueText);
      }
    }
    expect(cues).toBeGreaterThan(NEGATED.length);
    expect(unread).toEqual([]);
  });

  it('the claim check ends a cue where the sentence turns, as tag does', () => {
    const raw = 'The switch was shipped without the screw staked and therefore its setting could drift from vibration.';
    const text = new EvidenceText(raw);
    const clause = text.clauses[0]!;
    const at = raw.indexOf('vibration');
    expect(spanNegated(text, clause, { start: at, end: at })).toBe(false);
    const screw = raw.indexOf('screw');
    expect(spanNegated(text, clause, { start: screw, end: screw })).toBe(true);
  });

  it.each([
    ['The leak rate was no more than 0.5 gpm.', []],
    ['Run the pump not to exceed 10 minutes.', []],
    ['Restore the train no later than 0800.', []],
    ['See procedure No. 2 for the lineup.', []],
    ['No flow was observed.', [0]],
    ['The light was not illuminated.', [3]],
    ["It wasn't found.", [1]],
    ['failed to detect the leak', [0]],
    ['failed to start', []],
  ])('reads the cues of "%s" as token indexes %j', (sentence, expected) => {
    expect(negationCueTokens(normaliseTokens(sentence))).toEqual(expected);
  });
});
