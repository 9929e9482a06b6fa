import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cacheKey, canonicalJson, CACHE_KEY_RE, type CacheKeyParts } from '../../src/cache/cache-key.js';

const BASE: CacheKeyParts = {
  backend: 'ollama',
  model: 'mistral:latest',
  modelDigest: 'sha256:6577803aa9a036369e481d648a2baebb381ebc6e897f2bb9a766a2aa7bfbc1cf',
  options: { temperature: 0, seed: 42, num_predict: 2048, num_ctx: 8192 },
  schema: { type: 'object', properties: { scope: { type: 'string' }, unknowns: { type: 'array', items: { type: 'string' } } }, required: ['scope', 'unknowns'] },
  prompt: 'You are an information extraction engine.\nCHUNK_TEXT:\nP-101A tripped at 6.2 mils.',
};

function withPart(change: (p: CacheKeyParts) => void): CacheKeyParts {
  const parts = structuredClone(BASE);
  change(parts);
  return parts;
}

describe('cacheKey: every part that determines a reply changes the key', () => {
  it.each<[string, CacheKeyParts]>([
    ['backend', withPart((p) => (p.backend = 'extractive'))],
    ['model name', withPart((p) => (p.model = 'mistral:7b'))],
    ['model digest', withPart((p) => (p.modelDigest = 'sha256:0000'))],
    ['model digest unknown', withPart((p) => (p.modelDigest = null))],
    ['temperature', withPart((p) => (p.options.temperature = 0.1))],
    ['seed', withPart((p) => (p.options.seed = 43))],
    ['num_predict', withPart((p) => (p.options.num_predict = 1024))],
    ['num_ctx', withPart((p) => (p.options.num_ctx = 4096))],
    ['an added option', withPart((p) => (p.options.top_k = 1))],
    ['a removed option', withPart((p) => delete p.options.seed)],
    ['an option as a string instead of a number', withPart((p) => (p.options.seed = '42'))],
    ['schema: a property type', withPart((p) => ((p.schema as any).properties.scope.type = 'array'))],
    ['schema: required order', withPart((p) => ((p.schema as any).required = ['unknowns', 'scope']))],
    ['prompt: one character', withPart((p) => (p.prompt = p.prompt.replace('6.2', '6.3')))],
    ['prompt: trailing newline', withPart((p) => (p.prompt += '\n'))],
  ])('%s', (_name, changed) => {
    expect(cacheKey(changed)).not.toBe(cacheKey(BASE));
  });

  it('a prompt in NFD differs from the same prompt in NFC', () => {
    expect(cacheKey({ ...BASE, prompt: 'cafe\u0301' })).not.toBe(cacheKey({ ...BASE, prompt: 'caf\u00e9' }));
  });

  it('parts cannot leak into each other (model "a:b" + digest null vs model "a" + digest "b")', () => {
    expect(cacheKey({ ...BASE, model: 'a:b', modelDigest: null })).not.toBe(cacheKey({ ...BASE, model: 'a', modelDigest: 'b' }));
    expect(cacheKey({ ...BASE, prompt: 'x', options: {} })).not.toBe(cacheKey({ ...BASE, prompt: '', options: { x: '' } }));
  });
});

describe('cacheKey: stable', () => {
  it('is 64 lowercase hex digits and the same on every call', () => {
    const key = cacheKey(BASE);
    expect(key).toMatch(CACHE_KEY_RE);
    expect(cacheKey(structuredClone(BASE))).toBe(key);
  });

  it.each<[string, CacheKeyParts]>([
    ['options built in another order', { ...BASE, options: { num_ctx: 8192, num_predict: 2048, seed: 42, temperature: 0 } }],
    [
      'schema keys in another order at every depth',
      {
        ...BASE,
        schema: { required: ['scope', 'unknowns'], properties: { unknowns: { items: { type: 'string' }, type: 'array' }, scope: { type: 'string' } }, type: 'object' },
      },
    ],
    ['an option set to undefined is the same as no option', { ...BASE, options: { ...BASE.options, top_k: undefined } }],
  ])('%s gives the same key', (_name, parts) => {
    expect(cacheKey(parts)).toBe(cacheKey(BASE));
  });

  it('is pinned: changing what is hashed must come with a new CACHE_KEY_FORMAT', () => {
    const material = canonicalJson({
      format: 'rca-response-cache/1',
      backend: BASE.backend,
      model: BASE.model,
      model_digest: BASE.modelDigest,
      options: BASE.options,
      schema: BASE.schema,
      prompt: BASE.prompt,
    });
    expect(cacheKey(BASE)).toBe(createHash('sha256').update(material).digest('hex'));
    expect(cacheKey({ backend: 'b', model: 'm', modelDigest: null, options: {}, schema: {}, prompt: 'p' })).toBe(
      createHash('sha256').update('{"backend":"b","format":"rca-response-cache/1","model":"m","model_digest":null,"options":{},"prompt":"p","schema":{}}').digest('hex'),
    );
  });
});

describe('canonicalJson', () => {
  it.each<[string, unknown, string]>([
    ['sorted keys', { b: 1, a: 2 }, '{"a":2,"b":1}'],
    ['sorted at every depth', { z: { y: 1, x: [{ d: 1, c: 2 }] } }, '{"z":{"x":[{"c":2,"d":1}],"y":1}}'],
    ['array order kept', [3, 1, 2], '[3,1,2]'],
    ['undefined properties left out', { a: undefined, b: null }, '{"b":null}'],
    ['strings escaped as JSON', { 'k"': 'line\nbreak' }, '{"k\\"":"line\\nbreak"}'],
    ['numbers as JSON writes them', { a: 1e21, b: -0, c: 0.1 }, '{"a":1e+21,"b":0,"c":0.1}'],
    ['toJSON honoured', { when: new Date(0) }, '{"when":"1970-01-01T00:00:00.000Z"}'],
    ['null-prototype objects are plain', Object.assign(Object.create(null) as object, { b: 1, a: 1 }), '{"a":1,"b":1}'],
  ])('%s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
    expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
  });

  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  it.each<[string, unknown]>([
    ['NaN', { a: Number.NaN }],
    ['Infinity', { a: Infinity }],
    ['bigint', { a: 1n }],
    ['a function', { a: () => 1 }],
    ['a symbol', { a: Symbol('s') }],
    ['undefined in an array', [undefined]],
    ['undefined at the top', undefined],
    ['a Map', { a: new Map([['k', 1]]) }],
    ['a Set', { a: new Set([1]) }],
    ['a cycle', cyclic],
  ])('refuses what JSON would silently change: %s', (_name, value) => {
    expect(() => canonicalJson(value)).toThrow(TypeError);
  });

  it('a value shared twice (not a cycle) is fine', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});
