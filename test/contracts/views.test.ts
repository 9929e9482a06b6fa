import { describe, expect, it } from 'vitest';
import { ChunkContext, NerSeed } from '../../src/contracts/chunk.js';
import { jsonSchemaOf, RECORD_KINDS, viewFormatSchema } from '../../src/contracts/index.js';
import { NER_SEED_KEYS } from '../../src/contracts/vocabulary.js';
import { RcaFrame, RetrievalSummary, VIEW_SCHEMAS } from '../../src/contracts/views.js';
import { VIEW_KINDS } from '../../src/views/kinds/index.js';
import { VIEW_SHAPES, type FieldShape } from '../../src/views/view-shape.js';
import { emptyView } from '../../src/views/view-skeleton.js';
import { VIEW_TYPES } from '../../src/contracts/vocabulary.js';

const CTX: ChunkContext = {
  doc_id: 'D1',
  doc_type: 'SOP',
  chunk_id: 'C1',
  section_path: 'A > B',
  page_start: null,
  page_end: null,
  authority_level: 'mandatory',
  section_role: 'steps',
};

describe('the view contracts of DESIGN §3', () => {
  it.each<[string, string[]]>([
    ['retrieval_summary', ['chunk_id', 'doc_type', 'view_type', 'scope', 'entities', 'symptoms_outcomes', 'mechanisms', 'diagnostics', 'corrective_actions', 'numbers_limits', 'keywords_synonyms', 'unknowns', 'citations']],
    ['rca_frame', ['chunk_id', 'doc_type', 'view_type', 'observed', 'hypotheses', 'tests_to_confirm', 'candidate_actions', 'constraints', 'citations']],
  ])('%s has exactly the keys, in order', (view, keys) => {
    expect(Object.keys(VIEW_SCHEMAS[view as 'rca_frame'].shape)).toEqual(keys);
  });

  it('entities and citations have their DESIGN keys', () => {
    expect(Object.keys(RetrievalSummary.shape.entities.shape)).toEqual(['systems', 'equipment_ids', 'components']);
    expect(Object.keys(RcaFrame.shape.citations.shape)).toEqual(['doc_id', 'section_path', 'page_start', 'page_end']);
  });

  it.each(VIEW_TYPES)('every %s list is a list of strings', (view) => {
    const lists = (shape: FieldShape): FieldShape[] => (shape.kind === 'object' ? [...shape.fields.values()].flatMap(lists) : [shape]);
    const leaves = lists(VIEW_SHAPES[view]);
    // The lists of the two first views are pinned; a new view's are the lists its kind bounds.
    const bounded = Object.values(VIEW_KINDS[view].bounds).filter((b) => 'item' in b).length;
    expect(leaves.filter((s) => s.kind === 'list').length).toBe(({ rca_frame: 5, retrieval_summary: 10 } as Record<string, number>)[view] ?? bounded);
  });

  it.each(VIEW_TYPES)('the %s skeleton is valid under its own schema and has every key', (view) => {
    const skeleton = emptyView(view, CTX);
    expect(VIEW_SCHEMAS[view].safeParse(skeleton).success).toBe(true);
    expect(Object.keys(skeleton)).toEqual(Object.keys(VIEW_SCHEMAS[view].shape));
    expect(skeleton).toMatchObject({ chunk_id: 'C1', doc_type: 'SOP', view_type: view, citations: { doc_id: 'D1', section_path: 'A > B', page_start: null, page_end: null } });
  });

  it.each(VIEW_TYPES)('every %s field documents itself', (view) => {
    for (const [key, field] of Object.entries(VIEW_SCHEMAS[view].shape)) {
      if (key === 'view_type') continue;
      expect(field.description, key).toBeTruthy();
    }
  });
});

describe('derived tables name real fields of the schemas', () => {
  const fieldAt = (view: 'rca_frame' | 'retrieval_summary', path: string): FieldShape | undefined => {
    let shape: FieldShape | undefined = VIEW_SHAPES[view];
    for (const part of path.split('.')) shape = shape?.kind === 'object' ? shape.fields.get(part) : undefined;
    return shape;
  };

  it.each(VIEW_TYPES)('flatten layout of %s: string or list fields, none twice', (view) => {
    const paths = VIEW_KINDS[view].flatten.fields.map(([, path]) => path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const path of paths) expect(['string', 'list'], path).toContain(fieldAt(view, path)?.kind);
  });

  it.each(VIEW_TYPES)('grounded fields of %s are lists', (view) => {
    for (const path of VIEW_KINDS[view].identifiers) expect(fieldAt(view, path)?.kind, path).toBe('list');
  });
});

describe('NER seed contract', () => {
  it('has all 18 keys in DESIGN order, then the negated mentions', () => {
    expect(Object.keys(NerSeed.shape)).toEqual([...NER_SEED_KEYS, 'negated']);
    expect(NER_SEED_KEYS).toHaveLength(18);
  });
});

describe('JSON Schemas: what Ollama grammar conversion supports', () => {
  const walk = (node: unknown, visit: (o: Record<string, unknown>) => void): void => {
    if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
    else if (node !== null && typeof node === 'object') {
      visit(node as Record<string, unknown>);
      Object.values(node).forEach((n) => walk(n, visit));
    }
  };

  it.each(Object.keys(RECORD_KINDS))('%s: no regex, string formats, refs or ±2^53 bounds', (kind) => {
    const schema = jsonSchemaOf(RECORD_KINDS[kind as keyof typeof RECORD_KINDS].schema);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    walk(schema, (o) => {
      for (const banned of ['pattern', 'format', '$ref', 'uniqueItems', 'not', 'minimum', 'maximum']) expect(o, banned).not.toHaveProperty(banned);
    });
  });

  it.each(VIEW_TYPES)('the %s format: every key required, no others, no $schema', (view) => {
    const format = viewFormatSchema(view);
    expect(format).not.toHaveProperty('$schema');
    expect(format.required).toEqual(Object.keys(VIEW_SCHEMAS[view].shape));
    expect(format.additionalProperties).toBe(false);
    walk(format, (o) => {
      if (o.type === 'object') expect(o.additionalProperties).toBe(false);
    });
    expect((format.properties as Record<string, unknown>).view_type).toEqual({ type: 'string', const: view });
    expect((format.properties as any).citations.properties.page_start).toEqual({ type: ['integer', 'null'] });
  });
});
