// canonicalMembers may say null for any line; where it does not, the line must be exactly
// JSON.stringify(JSON.parse(line)) and each span the JSON of its member (stages copy those bytes).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalMembers } from '../../src/runtime/json-spans.js';

/** The verdict checked against JSON itself: non-null only for a canonical object line, with true spans. */
function holds(line: string): void {
  const members = canonicalMembers(line);
  if (members === null) return;
  const parsed = JSON.parse(line) as Record<string, unknown>;
  expect(JSON.stringify(parsed)).toBe(line);
  expect(members.keys).toEqual(Object.keys(parsed).map((k) => JSON.stringify(k).slice(1, -1)));
  members.keys.forEach((_, i) => {
    expect(line.slice(members.starts[i], members.ends[i])).toBe(JSON.stringify(parsed[Object.keys(parsed)[i]!]));
  });
}

const STRINGS = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('', '"', '\\', '\n\r\t\b\f', '\u0000\u001f\u007f', '\u2028\u2029', '😀', '\ud800', '\udc00', 'a\ud83d', '\ude00b', '/', '</script>', '0', '12'),
);
const VALUES = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    STRINGS,
    fc.double(),
    fc.integer(),
    fc.constantFrom(true, false, null, 0, -0, 1e21, 1.5e-7, 123456789012345680000),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(STRINGS, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const OBJECTS = fc.dictionary(STRINGS, VALUES, { maxKeys: 6 });

/** Edits another writer might make, each keeping the line valid JSON or not. */
const EDITS: ReadonlyArray<(line: string) => string> = [
  (l) => ` ${l}`,
  (l) => `${l} `,
  (l) => l.replace(':', ' :'),
  (l) => l.replace(',', ', '),
  (l) => l.replace(/"([a-z])/, '"\\u00$1'),
  (l) => l.replace('\\n', '\\u000a'),
  (l) => l.replace('\\u001f', '\\u001F'),
  (l) => l.replace('/', '\\/'),
  (l) => l.replace(/(\d)([,}\]])/, '$1.0$2'),
  (l) => l.replace(/:(\d+)/, ':$1e0'),
  (l) => l.replace(/\{"([^"\\]*)":/, '{"$1":0,"$1":'),
  (l) => l.slice(0, -1),
  (l) => l.replace('"', ''),
  (l) => `${l.slice(0, -1)},}`,
];

describe('canonicalMembers', () => {
  it('says yes only to JSON.stringify’s own text, with each member’s JSON as its span', () => {
    fc.assert(
      fc.property(OBJECTS, fc.nat(EDITS.length), (object, edit) => {
        const line = JSON.stringify(object);
        holds(line);
        holds(edit === EDITS.length ? line : EDITS[edit]!(line));
      }),
      { numRuns: 3000 },
    );
  });

  it('says yes to JSON.stringify’s text of objects without digit keys or lone surrogates', () => {
    const plain = fc.dictionary(fc.string({ unit: 'grapheme' }).filter((k) => !/^\d/.test(k)), fc.oneof(fc.string({ unit: 'grapheme' }), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string())), { maxKeys: 8 });
    fc.assert(
      fc.property(plain, (object) => {
        expect(canonicalMembers(JSON.stringify(object))).not.toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws, and its yes holds, on any text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.json()), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        const members = canonicalMembers(text);
        if (!valid) expect(members).toBeNull();
        else holds(text);
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    '{}',
    '{"a":1}',
    '{"a":"\\u001f\\u0000\\b\\f\\n\\r\\t\\"\\\\"}',
    '{"a":"😀 \u2028 \u2029 ° \u007f"}',
    '{"a":-1.5e-7,"b":1e+21,"c":0,"d":-12}',
    '{"a":[],"b":{},"c":[{"d":[null,true,false]}]}',
    '{"__proto__":1}',
    '{"a1":1}',
  ])('accepts %s', (line) => {
    expect(canonicalMembers(line)).not.toBeNull();
    holds(line);
  });

  it.each([
    ['spacing', ' {"a":1}'],
    ['spacing at the end', '{"a":1} '],
    ['spacing inside', '{"a": 1}'],
    ['a number form', '{"a":1.0}'],
    ['an exponent', '{"a":1e2}'],
    ['minus zero', '{"a":-0}'],
    ['an escaped slash', '{"a":"\\/"}'],
    ['an escaped letter', '{"a":"\\u0041"}'],
    ['upper-case hex', '{"a":"\\u001F"}'],
    ['a short escape as \\u', '{"a":"\\u000a"}'],
    ['an escaped lone surrogate', '{"a":"\\ud800"}'],
    ['an escaped pair', '{"a":"\\ud83d\\ude00"}'],
    ['a raw lone surrogate', '{"a":"\ud800"}'],
    ['a raw tab', '{"a":"\t"}'],
    ['a duplicate key', '{"a":1,"a":2}'],
    ['a duplicate nested key', '{"b":{"a":1,"a":1}}'],
    ['an index key', '{"1":1}'],
    ['a trailing comma', '{"a":[1,]}'],
    ['a bad literal', '{"a":tru}'],
    ['an open string', '{"a":"x}'],
    ['an array', '[1]'],
    ['text after', '{"a":1}x'],
    ['nested 65 deep', `{"a":${'['.repeat(65)}${']'.repeat(65)}}`],
  ])('declines %s', (_, line) => {
    expect(canonicalMembers(line)).toBeNull();
  });
});
