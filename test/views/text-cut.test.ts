import { describe, expect, it } from 'vitest';
import { cutText } from '../../src/views/text-cut.js';

describe('cutText', () => {
  it.each<[string, string, number | undefined, string, string | null]>([
    ['no budget: no cut', 'One. Two.', undefined, 'One. Two.', null],
    ['fits: no cut', 'One. Two.', 9, 'One. Two.', null],
    ['last sentence end within the budget', 'Pump tripped. Flow was low. Operators responded quickly.', 30, 'Pump tripped. Flow was low.', 'sentence'],
    ['a sentence ending exactly at the budget', 'Pump tripped. Flow low.', 13, 'Pump tripped.', 'sentence'],
    ['a line break is a boundary', 'Step 1 open valve\nStep 2 start the pump and wait', 25, 'Step 1 open valve', 'sentence'],
    ['a decimal point is not a sentence end', 'Peak 6.2 mils then 5.0 mils and rising further', 22, 'Peak 6.2 mils then 5.0', 'word'],
    ['no sentence end in the second half: word boundary', 'The operators stopped the pump within two minutes', 30, 'The operators stopped the pump', 'word'],
    ['a word cut in the middle is dropped whole', 'The operators stopped the pump within two minutes', 28, 'The operators stopped the', 'word'],
    ['no boundary at all: hard cut', 'x'.repeat(50), 20, 'x'.repeat(20), 'char'],
    ['a sentence end too early is not used', 'Ok. then a very long run of words follows here', 30, 'Ok. then a very long run of', 'word'],
    ['code points, not UTF-16 units', '𝛼𝛽𝛾 𝛿𝜀 𝜁𝜂𝜃', 6, '𝛼𝛽𝛾 𝛿𝜀', 'word'],
  ])('%s', (_name, text, max, kept, cutAt) => {
    const result = cutText(text, max);
    expect(result.text).toBe(kept);
    expect(result.cut?.cut_at ?? null).toBe(cutAt);
    if (result.cut) {
      expect(result.cut.text_chars).toBe([...text].length);
      expect(result.cut.kept_chars).toBe([...kept].length);
      expect(result.cut.kept_chars).toBeLessThanOrEqual(max!);
    }
  });
});
