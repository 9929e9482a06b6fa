// The adversarial corpus's text: per rule family, the units built to attack it (bench/adversarial.mjs
// measures with them; test/runtime/signals.test.ts builds its slowest records from them).
/** `unit` repeated to about `chars` characters. */
export const fill = (unit, chars) => unit.repeat(Math.max(1, Math.ceil(chars / unit.length)));
/** Several attacks of one family, each a share of `chars`, one per line. */
export const mix = (units, chars) => units.map((u) => (typeof u === 'function' ? u(chars / units.length) : fill(u, chars / units.length))).join('\n');

// Each family: what attacks it. A function gets its share of characters and builds its own shape.
export const FAMILIES = {
  ids: ['P-101A ', 'A-', 'FM_A', (c) => `FM${fill('_A', c)}a`, 'SOP-U2-CND-', '1-', 'CR-2026-', 'A1B2C3'],
  references: ['RESPONSE ', 'STEP ACTION/EXPECTED RESPONSE RESPONSE NOT OBTAINED ', '10 CFR ', 'NUREG-', 'Tech Spec 3.', 'IEEE Std ', 'cr-', 'SOP '],
  measurements: ['1 ', '1,', (c) => `5${' '.repeat(c)}x`, '| 1 | ', '1 to ', '1.5E-', '100-120 ', '6.2 mils '],
  dates: ['may 5 ', '12/', '2026-02-', '03:22 ', 'within 2 ', '6 FEB ', 'Jan. '],
  negation: ['no ', 'not ', ', although ', '\n ', 'no leakage was found and ', 'did not ', ' - ', 'ruled out '],
  extractive: ['STEP ACTION/EXPECTED RESPONSE RESPONSE NOT OBTAINED ', 'e.g. ', '. ', '!!!!', (c) => `\u201c${' '.repeat(c)}x`, '"a ', '((((', '**a ', 'Step 1. ', 'A: '],
  'json recovery': ['{', '"', '[', '{"a": ', '\\', '```'],
  'section paths': ['**a ', '*_', ' > ', 'a > ', '__', '`', 'CP 5.'],
  'long tokens': [(c) => 'a'.repeat(c), (c) => 'A'.repeat(c), (c) => '1'.repeat(c), (c) => '-'.repeat(c), (c) => ' '.repeat(c) + 'x'],
};
export const familyText = (family, chars) => mix(FAMILIES[family], chars);

/** Every family's attacks in one text of about `chars` characters: a record slow for every stage. */
export const everyFamily = (chars) => Object.keys(FAMILIES).map((family) => familyText(family, chars / Object.keys(FAMILIES).length)).join('\n');
