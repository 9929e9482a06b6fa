import { describe, expect, it } from 'vitest';
import { recoverJson } from '../../src/views/json-recovery.js';

describe('recoverJson: a reply that parses must be an object (reference cases)', () => {
  it.each([
    ['[{"a": 1}]', 'reply is JSON an array, not an object'],
    ['"a string"', 'reply is JSON a string, not an object'],
    ['42', 'reply is JSON a number, not an object'],
    ['true', 'reply is JSON true, not an object'],
    ['null', 'reply is JSON null, not an object'],
  ])('%s → error (an array is not mined for an object)', (reply, error) => {
    expect(recoverJson(reply)).toEqual({ ok: false, error });
  });
});

describe('recoverJson: objects', () => {
  it.each<[string, string, Record<string, unknown>]>([
    ['whole reply', '{"x": 10, "y": [1, 2]}', { x: 10, y: [1, 2] }],
    ['first of two objects amid text', 'prefix {"a": 1} suffix {"b": 2}', { a: 1 }],
    ['object after junk', 'junk {"ok": true} tail', { ok: true }],
    ['surrounding whitespace', '\n\t {"a": 1}  \n', { a: 1 }],
    ['json code fence', '```json\n{"a": {"b": [1]}}\n```', { a: { b: [1] } }],
    ['bare code fence', '```\n{"a": 1}\n```', { a: 1 }],
    ['fence with prose around it', 'Here it is:\n```json\n{"a": 1}\n```\nDone.', { a: 1 }],
    ['braces inside strings', 'note: {"s": "a } b { c", "t": "\\"}"} end', { s: 'a } b { c', t: '"}' }],
    ['a broken first candidate, a good nested one', '{ not json {"a": 1} }', { a: 1 }],
    ['unclosed first brace, good later object', '{ oops ... {"a": 1}', { a: 1 }],
    ['non-ASCII kept', '{"t": "172 °F, µm"}', { t: '172 °F, µm' }],
  ])('%s', (_name, reply, value) => {
    expect(recoverJson(reply)).toEqual({ ok: true, value });
  });
});

describe('recoverJson: errors are one line and say what was wrong', () => {
  it.each([
    ['', 'empty reply'],
    ['   \n ', 'empty reply'],
    ['```json\n\n```', 'empty code block'],
    ['```json\n[1, 2]\n```', 'reply is JSON an array, not an object'],
    ['no json here', 'no JSON object found in reply "no json here"'],
    ['{"a": 1', 'no JSON object found in reply "{\\"a\\": 1"'],
    ['line one\nline two {', 'no JSON object found in reply "line one line two {"'],
  ])('%j → %s', (reply, error) => {
    const result = recoverJson(reply);
    expect(result).toEqual({ ok: false, error });
    if (!result.ok) expect(result.error).not.toContain('\n');
  });

  it('cuts the preview of a long reply', () => {
    const result = recoverJson('x'.repeat(500));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.length).toBeLessThan(100);
  });

  it('bounds its work on thousands of stray braces (it gives up after 1000)', () => {
    const result = recoverJson('{'.repeat(20_000) + '{"a": 1}');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/^no JSON object found in reply \(gave up after 1000 '\{'\) /);
  });
});
