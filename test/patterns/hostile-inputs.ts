// Inputs built to attack one pattern: its own characters (a representative of each class and
// escape it names, its literal words) repeated into long runs, alone, in pairs and with each
// word between blanks, each ended by a character that fails it. A super-linear pattern takes
// minutes on some of them; a linear one, milliseconds.
import { RegExpParser } from '@eslint-community/regexpp';
import { visitRegExpAST } from '@eslint-community/regexpp';

const LENGTH = 20_000;

const REPRESENTATIVE: Record<string, string[]> = {
  digit: ['1'], space: [' ', '\n'], word: ['a', 'A', '_'], any: ['x'], property: ['A', 'a', '1', 'é'],
};

export function hostileInputs(source: string, flags: string): string[] {
  const ast = new RegExpParser({ ecmaVersion: 2025 }).parsePattern(source, undefined, undefined, { unicode: flags.includes('u') });
  const chars = new Set<string>();
  const words = new Set<string>();
  visitRegExpAST(ast, {
    onCharacterEnter(node) {
      if (node.parent.type !== 'CharacterClassRange') chars.add(String.fromCodePoint(node.value));
    },
    onCharacterClassRangeEnter(node) {
      chars.add(String.fromCodePoint(node.min.value));
      chars.add(String.fromCodePoint(node.max.value));
    },
    onCharacterSetEnter(node) {
      for (const c of REPRESENTATIVE[node.kind] ?? []) chars.add(c);
    },
    onAlternativeEnter(node) {
      const text = node.elements.every((e) => e.type === 'Character') ? node.raw : '';
      if (text.length > 1) words.add(node.elements.map((e) => String.fromCodePoint((e as { value: number }).value)).join(''));
    },
  });
  const alphabet = [...chars].slice(0, 40);
  const runs: string[] = [];
  const fill = (unit: string) => unit.repeat(Math.max(1, Math.floor(LENGTH / unit.length)));
  for (const a of alphabet) {
    runs.push(`${fill(a)}\u0000`);
    runs.push(`${fill(a + ' ')}!`);
  }
  for (let i = 0; i + 1 < alphabet.length; i++) runs.push(`${fill(alphabet[i]! + alphabet[i + 1]!)}\u0000`);
  for (const w of [...words].slice(0, 20)) {
    runs.push(`${fill(`${w} `)}\u0000`);
    runs.push(`${fill(`${w}1 `)}.`);
  }
  return runs;
}
