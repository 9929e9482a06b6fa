import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChunkContext, NerSeed } from '../../src/contracts/chunk.js';
import { NER_SEED_KEYS } from '../../src/contracts/vocabulary.js';
import { contextJson, jsonString, nerSeedJson, stringArrayJson } from '../../src/tagging/seed-json.js';

// The hand-written JSON must be JSON.stringify's, byte for byte: tag appends it to input lines.

const TRICKY = [
  '', 'pump', 'say "hi"', 'back\\slash', 'line\nbreak', 'tab\there', 'cr\r', '\u0000\u0001\u001f', '\u007f',
  '°F', 'Ω café', '\u2028\u2029', '😀', '\ud83d', '\ude00', 'x\ud83dy', '\ude00\ud83d', '</script>', '\u00a0',
];

const seed = (fill: (key: string) => unknown): NerSeed => Object.fromEntries(NER_SEED_KEYS.map((key) => [key, fill(key)])) as NerSeed;

describe('jsonString', () => {
  it.each(TRICKY)('%j', (value) => {
    expect(jsonString(value)).toBe(JSON.stringify(value));
  });

  it('any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })), (value) => {
        expect(jsonString(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('stringArrayJson', () => {
  it.each([[[]], [['a']], [TRICKY]])('%j', (values) => {
    expect(stringArrayJson(values)).toBe(JSON.stringify(values));
  });
});

describe('contextJson', () => {
  it.each<ChunkContext>([
    { doc_id: 'd', doc_type: 'CR', doc_subtype: 'LER', chunk_id: 'c', section_path: 'A > B', page_start: 1, page_end: 2, authority_level: 'informational', section_role: 'header' },
    { doc_id: 'say "x"', doc_type: 'SOP', doc_subtype: 'EOP', chunk_id: 'c\n1', section_path: '', page_start: null, page_end: null, authority_level: 'mandatory', section_role: 'unknown' },
    { doc_id: '😀\ud800', doc_type: 'OTHER', doc_subtype: null, chunk_id: '', section_path: 'Ω', page_start: 0, page_end: 123456789, authority_level: 'informational', section_role: 'steps' },
  ])('%j', (context) => {
    expect(contextJson(context)).toBe(JSON.stringify(context));
  });
});

describe('nerSeedJson', () => {
  it('all lists empty', () => {
    const empty = seed(() => []);
    expect(nerSeedJson(empty)).toBe(JSON.stringify(empty));
  });

  it('every list filled with awkward strings, keys in NER_SEED_KEYS order', () => {
    const full = seed((key) => {
      if (key === 'measurements') return TRICKY.map((text) => ({ value: text, unit: `${text}u`, text: `v${text}` }));
      if (key === 'temporal_relations' || key === 'locations') return TRICKY.map((text) => ({ text, sub_label: `${text}!` }));
      return TRICKY.map((text) => `${key}:${text}`);
    });
    expect(nerSeedJson(full)).toBe(JSON.stringify(full));
  });
});
