import { describe, expect, it } from 'vitest';
import { GroundingText, normaliseForGrounding, numbersIn, quotedPhrases } from '../../src/views/grounding.js';

describe('numbersIn', () => {
  it.each<[string, string[]]>([
    ['6.2 mils', ['6.2']],
    ['alarm setpoint 5.0 mils', ['5.0']],
    ['1,175 psig', ['1,175']],
    ['steps 1,2 and 3', ['1', '2', '3']],
    ['100-120 gpm', ['100', '120']],
    ['1x and 2x running speed', ['1', '2']],
    ['P-101A, FT-1102, A101, CR-2026-00123', ['00123']],
    ['101a', ['101']],
    ['１７２ °F (fullwidth digits)', ['172']],
    ['no numbers', []],
  ])('%j → %j', (text, numbers) => {
    expect(numbersIn(text)).toEqual(numbers);
  });
});

describe('quotedPhrases', () => {
  it.each<[string, string[]]>([
    ['operators "declared Train A inoperable" at 03:22', ['declared Train A inoperable']],
    ['“curly quotes” and "straight ones"', ['curly quotes', 'straight ones']],
    ['a 3/4" valve and a 12" line', []],
    ['he said " spaced " words', []],
    ['no quotes', []],
  ])('%j → %j', (text, phrases) => {
    expect(quotedPhrases(text)).toEqual(phrases);
  });
});

describe('GroundingText', () => {
  const text = new GroundingText('AFW  Pump P‑101A tripped;\nflow 1175 gpm, peak 6.2 mils. Set point: 2,250 psig. “Train A” inoperable.');

  it.each<[string, boolean]>([
    ['6.2', true],
    ['6', false],
    ['2', false],
    ['1,175', true],
    ['2250', true],
    ['101', false],
  ])('hasNumber(%j) → %s', (n, found) => {
    expect(text.hasNumber(n)).toBe(found);
  });

  it.each<[string, boolean]>([
    ['P-101A', true],
    ['p-101a', true],
    ['P‐101A', true],
    ['P-101', false],
    ['101A', false],
    ['P-101AB', false],
  ])('hasIdentifier(%j) → %s', (id, found) => {
    expect(text.hasIdentifier(id)).toBe(found);
  });

  it.each<[string, boolean]>([
    ['pump p-101a tripped', true],
    ['AFW Pump', true],
    ['flow 1175 gpm', true],
    ['train a', true],
    ['pump trip', false],
    ['ump P-101A', false],
    ['', false],
  ])('hasPhrase(%j) → %s', (phrase, found) => {
    expect(text.hasPhrase(phrase)).toBe(found);
  });

  it('normalises case, whitespace, hyphen variants and compatibility forms', () => {
    expect(normaliseForGrounding('  P\u2011101A\u00a0\n Ｐｕｍｐ  ')).toBe('p-101a pump');
  });
});
