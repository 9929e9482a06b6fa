// parseRecordLineSkipping (the members a stage writes anew are checked as JSON, not built) against
// parseRecordLine, the path it stands in for: the same lines accepted, the same rejects with the
// same codes and messages, the same records but for the skipped members (null). Lines are made
// valid, broken by a character, spaced, duplicated, nested near the depth limit.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING_DEPTH, parseRecordLine, parseRecordLineSkipping, SKIPPING_MAX_CHARS, validValueEnd } from '../../src/runtime/record-line.js';

const SKIP = new Set(['evidence', 'flags']);
const key = fc.constantFrom('evidence', 'flags', 'text', 'a', 'evidence ', 'Evidence', '__proto__', 'ev\\u0069dence', 'x"y');
const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
const value = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.integer({ min: 80, max: 110 }).map(nested) },
  { weight: 1, arbitrary: fc.constantFrom('1.50e3', '-0', '0.5', '1E+2', '"a\\u00e9\\/\\b\\ud800"', '"\\x"', '01', '1.', '.5', '-', 'tru', 'nul', '"a\tb"', '[1,]', '{"a":1,}', '{"a" 1}', '[1 2]', '{}', '[]', '""', ' 1 ', '\u00a01') },
);
const spacing = fc.constantFrom('', ' ', '\t', '  ', '\u00a0');
const line = fc.array(fc.tuple(key, value, spacing), { maxLength: 6 }).map((members) => `{${members.map(([k, v, s]) => `${s}"${k}"${s}:${s}${v}${s}`).join(',')}}`);
// A valid line broken at one place: a character dropped, doubled or replaced.
const broken = fc.tuple(line, fc.nat(), fc.constantFrom('', '"', ',', '}', '{', '[', ']', ':', '\\', 'x', '0', ' ', '\n', '\u0001')).map(([l, at, c]) => {
  const i = l.length === 0 ? 0 : at % l.length;
  return l.slice(0, i) + c + l.slice(i + 1);
});

function expectSame(text: string): void {
  const want = parseRecordLine(text);
  const got = parseRecordLineSkipping(text, SKIP);
  if (want.reject) {
    expect(got).toEqual(want);
    return;
  }
  expect(got.reject).toBeUndefined();
  const expected = { ...want.record };
  for (const k of Object.keys(expected)) if (SKIP.has(k)) expected[k] = null;
  // Key order too: the record is written in the order it was read. A line the scan leaves to
  // parseRecordLine (nested near the limit, an escape in a key) comes back whole.
  const json = JSON.stringify(got.record);
  if (json !== JSON.stringify(want.record)) expect(json).toBe(JSON.stringify(expected));
  expect(Object.keys(got.record!)).toEqual(Object.keys(expected));
}

describe('parseRecordLineSkipping: parseRecordLine without building the skipped members', () => {
  it('valid lines: the same record, skipped members null, same key order', () => {
    fc.assert(fc.property(line, expectSame), { numRuns: 3000 });
  });

  it('broken lines: refused with the same code and message, or accepted exactly when parseRecordLine accepts', () => {
    fc.assert(fc.property(broken, expectSame), { numRuns: 5000 });
  });

  it('any text at all', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60 }), (s) => expectSame(s)), { numRuns: 3000 });
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '1', 'e', '-', '.', ' ', '\\', 'n', 'u', 'l'), maxLength: 40 }), (s) => expectSame(`{"evidence":${s}}`)), { numRuns: 5000 });
  });

  it('nesting at and around the limit, inside a skipped member and outside', () => {
    for (let depth = MAX_NESTING_DEPTH - 12; depth <= MAX_NESTING_DEPTH + 2; depth++) {
      expectSame(`{"evidence":${nested(depth)},"a":1}`);
      expectSame(`{"a":${nested(depth)},"evidence":{}}`);
      expectSame(`{"evidence":{"x":${nested(depth)}}}`);
    }
  });

  it('a line of megabytes: the same record (parsed whole), the same refusal', () => {
    const big = 'x'.repeat(SKIPPING_MAX_CHARS);
    expectSame(`{"text":"${big}","evidence":{"a":[1]}}`);
    expectSame(`{"text":"${big}","evidence":{"a":[1}}`);
  });

  it('duplicate and look-alike keys, and text after the object', () => {
    for (const text of ['{"evidence":1,"a":2,"evidence":{"b":[1]}}', '{"a":{"evidence":[1,2]},"evidence":"x"}', '{"evidence":{}}  ', '{"evidence":{}} x', '{"evidence":{}.5}', '{"evidence":0 5}', '{"evidence":"a"5}', '{"evidence":1', '  {"flags":[], "evidence" :  {"a" : [ true , false , null ] } }', '{"evidence":"\\"}"}', '{"a":"\\\\","evidence":[]}']) expectSame(text);
  });
});

describe('validValueEnd: one valid JSON value, as JSON.parse reads it', () => {
  const parses = (s: string): boolean => {
    try {
      JSON.parse(s);
      return true;
    } catch {
      return false;
    }
  };
  it('ends where the value ends when JSON.parse accepts the text, and never accepts what it refuses', () => {
    const unit = fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '0', '1', '9', 'e', 'E', '+', '-', '.', ' ', '\t', '\\', '/', 'u', 'a', 'F', 't', 'r', 'n', 'l', 'f', 's', '\u0001', 'é');
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit, maxLength: 30 }), fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null')), (s) => {
        const end = validValueEnd(s, 0, 1000);
        if (end >= 0) expect(parses(s.slice(0, end))).toBe(true);
        if (parses(s)) {
          expect(end).toBeGreaterThanOrEqual(0);
          expect(/^[ \t\n\r]*$/.test(s.slice(end))).toBe(true);
        }
      }),
      { numRuns: 20000 },
    );
  });
});
