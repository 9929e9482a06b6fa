import { describe, expect, it } from 'vitest';
import { sectionChunkOf, type SectionChunk } from '../../src/sections/section-chunk.js';

describe('sectionChunkOf: the fields a section needs, read like tag reads them', () => {
  it.each<[string, Record<string, unknown>, Partial<SectionChunk>]>([
    ['snake_case record', { doc_id: 'd', chunk_id: 'c', section_path: '**A** > B', text: 't', order_index: 4 }, { docId: 'd', docIdMissing: false, chunkId: 'c', segments: ['A', 'B'], text: 't', order: 4 }],
    ['camelCase record', { document: { sourceId: 'book' }, chunk_id: 'c', sectionPath: 'Peirce: CP 1.1 > 1. PREFACE', orderIndex: 0 }, { docId: 'book', segments: ['Peirce: CP 1.1', '1. PREFACE'], order: 0 }],
    ['doc_id wins over document.sourceId', { doc_id: 'd', document: { sourceId: 'other' } }, { docId: 'd' }],
    ['no doc id', { chunk_id: 'c' }, { docId: '', docIdMissing: true }],
    ['section_segments are never split and win over section_path', { section_segments: ['A > B', ' C '], section_path: 'X' }, { segments: ['A > B', 'C'] }],
    ['section_segments that are not all strings are ignored', { section_segments: ['A', 1], section_path: 'X > Y' }, { segments: ['X', 'Y'] }],
    ['no path: section, else section_title, is a one-heading path (tag cites and files it the same)', { section_title: 'Notes' }, { segments: ['Notes'] }],
    ['section wins over section_title', { section: '**1. PREFACE**', section_title: 'x' }, { segments: ['1. PREFACE'] }],
    ['a path wins over section', { section: '1. PREFACE', sectionPath: 'CP 1.1 > 1. PREFACE' }, { segments: ['CP 1.1', '1. PREFACE'] }],
    ['numeric ids become strings', { doc_id: 123, chunk_id: 7 }, { docId: '123', docIdMissing: false, chunkId: '7' }],
    ['an empty doc id is no doc id', { doc_id: '' }, { docId: '', docIdMissing: true }],
    ['a page of digits is a page', { page_start: '3', page_end: -1 }, { pageMin: 3, pageMax: 3 }],
    ['embedding_text when text and raw_text are missing', { embedding_text: 'e' }, { text: 'e' }],
    ['a path deeper than --max-depth is folded into its last kept segment', { section_path: Array.from({ length: 40 }, (_, i) => `H${i}`).join(' > ') },
      { folded: true, segments: [...Array.from({ length: 31 }, (_, i) => `H${i}`), Array.from({ length: 9 }, (_, i) => `H${i + 31}`).join(' > ')] }],
    ['a path of exactly --max-depth is kept', { section_path: Array.from({ length: 32 }, (_, i) => `H${i}`).join(' > ') }, { folded: false }],
    ['an empty path has no segments', { section_path: ' > ' }, { segments: [] }],
    ['raw_text when text is missing', { raw_text: 'r' }, { text: 'r' }],
    ['no text', {}, { text: undefined }],
    ['page range from start and end', { page_start: 5, page_end: 3 }, { pageMin: 3, pageMax: 5 }],
    ['a lone page', { page: 9 }, { pageMin: 9, pageMax: 9 }],
    ['null and fractional pages are unknown', { page_start: null, page_end: 2.5 }, { pageMin: null, pageMax: null }],
    ['orderIndex wins over order_index', { orderIndex: 1, order_index: 2 }, { order: 1 }],
    ['a non-numeric order is unknown', { orderIndex: '3' }, { order: null }],
    ['the section_id of tagged input', { section_id: 'sec_1' }, { taggedSectionId: 'sec_1' }],
  ])('%s', (_label, record, expected) => {
    expect(sectionChunkOf(record)).toMatchObject(expected);
  });
});
