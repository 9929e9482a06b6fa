import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import command from '../../src/commands/schema.js';
import type { JsonObject, JsonSchema } from '../../src/contracts/json.js';
import { shapeOf, type ObjectShape } from '../../src/views/view-shape.js';
import { withTrustedFields } from '../../src/views/view-skeleton.js';
import { checkerFor, jsonSchemaFor } from '../../src/contracts/checkers.js';
import { boundedFormat, contentSchema, FORMAT_BOUNDS, FORMAT_BUDGET_CHARS, GRAMMAR_REPETITION_LIMIT, trustedKeysOf, worstCaseChars } from '../../src/generation/format-bounds.js';
import { formatOf, generateRequest, pairFormatOf } from '../../src/generation/requests.js';
import { chatCompletionBody } from '../../src/llm/openai-request.js';
import { SECTION_QUALITY } from '../../src/views/kinds/section-summary.js';
import { QUALITY_GATES } from '../../src/views/kinds/retrieval-summary.js';
import { VIEW_NAMES } from '../../src/contracts/vocabulary.js';

const VIEWS = VIEW_NAMES;
const BOUND_KEYS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems']);

/** Every free string and every list of a schema, by dotted path. */
function leaves(schema: JsonSchema, path = ''): [string, JsonSchema][] {
  if (schema.type === 'object') {
    return Object.entries(schema.properties as Record<string, JsonSchema>).flatMap(([k, v]) => leaves(v, path === '' ? k : `${path}.${k}`));
  }
  if (schema.type === 'array' || (schema.type === 'string' && !('enum' in schema) && !('const' in schema))) return [[path, schema]];
  return [];
}

function withoutBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutBounds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !BOUND_KEYS.has(k)).map(([k, v]) => [k, withoutBounds(v)]));
}

/** The reply that fills every bound: each string at its maxLength, each list at its maxItems. */
function filled(schema: JsonSchema): unknown {
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.type) || schema.type === 'integer') return 1;
  if (schema.type === 'object') return Object.fromEntries(Object.entries(schema.properties as Record<string, JsonSchema>).map(([k, v]) => [k, filled(v)]));
  if (schema.type === 'array') return Array.from({ length: Number(schema.maxItems) }, (_, i) => `${i} ${'x'.repeat(Number((schema.items as JsonSchema).maxLength) - 2 - String(i).length)}`);
  return 'w'.repeat(Number(schema.maxLength));
}

describe('bounded format', () => {
  it.each(VIEWS)('%s: every string has a maxLength and every list a maxItems of non-empty strings', (view) => {
    const found = [...leaves(formatOf(view)), ...leaves(formatOf(view, 'dackar'))];
    expect(found.length).toBeGreaterThan(3);
    for (const [path, schema] of found) {
      if (schema.type === 'array') {
        expect(schema.maxItems, path).toBeGreaterThan(0);
        expect((schema.items as JsonSchema).maxLength, path).toBeGreaterThan(0);
        expect((schema.items as JsonSchema).minLength, path).toBe(1);
      } else {
        expect(schema.maxLength, path).toBeGreaterThan(0);
      }
      // llama.cpp refuses the whole grammar when one repetition reaches its limit.
      for (const bound of [schema.maxItems, schema.maxLength, (schema.items as JsonSchema | undefined)?.maxLength]) {
        if (bound !== undefined) expect(Number(bound), path).toBeLessThan(GRAMMAR_REPETITION_LIMIT);
      }
    }
  });

  it.each(VIEWS)('%s: the format is the contract (without $schema) plus bounds only; the compact one, less its trusted fields', (view) => {
    const { $schema: _ignored, ...contract } = jsonSchemaFor(view);
    expect(withoutBounds(formatOf(view, 'dackar'))).toEqual(contract);
    const trusted = trustedKeysOf(view);
    const content = formatOf(view);
    // rca schema --format holds no trusted field: the model never writes one.
    expect(Object.keys(content.properties as object).filter((k) => trusted.includes(k))).toEqual([]);
    expect((content.required as string[]).filter((k) => trusted.includes(k))).toEqual([]);
    expect(withoutBounds(content)).toEqual(contentSchema(view, contract));
    expect([...Object.keys(content.properties as object), ...trusted].sort()).toEqual(Object.keys(contract.properties as object).sort());
  });

  it('carries the minima the validator demands', () => {
    const rs = formatOf('retrieval_summary') as any;
    expect(rs.properties.scope.minLength).toBe(QUALITY_GATES.minScopeChars);
    expect(rs.properties.keywords_synonyms.minItems).toBe(QUALITY_GATES.minKeywords);
    expect((formatOf('rca_frame') as any).properties.observed.minItems).toBe(1);
    const concepts = (formatOf('section_summary') as any).properties.concepts;
    expect([concepts.minItems, concepts.maxItems]).toEqual([1, SECTION_QUALITY.targetConcepts.max]);
    expect((formatOf('section_summary') as any).properties.summary.maxLength).toBe(SECTION_QUALITY.maxWords * 7);
  });

  it.each(VIEWS)('%s: a reply that fills every bound is within the contract and within the token budget', (view) => {
    const format = formatOf(view, 'dackar');
    const reply = filled(format);
    expect(checkerFor(view)(reply)).toBeNull();
    expect(JSON.stringify(reply).length).toBeLessThanOrEqual(worstCaseChars(format));
    expect(worstCaseChars(format)).toBeLessThanOrEqual(FORMAT_BUDGET_CHARS);
    // The compact reply, its trusted fields put in their places, is within the contract too.
    const content = formatOf(view);
    const compact = filled(content) as JsonObject;
    const trusted = Object.fromEntries(trustedKeysOf(view).map((k) => [k, (reply as JsonObject)[k]]));
    expect(checkerFor(view)(withTrustedFields(compact, shapeOf(jsonSchemaFor(view)) as ObjectShape, trusted))).toBeNull();
    expect(worstCaseChars(content)).toBeLessThan(worstCaseChars(format));
  });

  it('the pair format holds each view\'s content format under its name, within the budget of its two replies', () => {
    const pair = pairFormatOf(['retrieval_summary', 'rca_frame']);
    expect(pair.properties).toEqual({ retrieval_summary: formatOf('retrieval_summary'), rca_frame: formatOf('rca_frame') });
    expect(pair.required).toEqual(['retrieval_summary', 'rca_frame']);
    expect(worstCaseChars(pair)).toBeLessThanOrEqual(2 * FORMAT_BUDGET_CHARS);
  });

  it('refuses a contract field without a bound, and a bound without a field', () => {
    const contract = jsonSchemaFor('rca_frame');
    const extra = { ...contract, properties: { ...(contract.properties as object), notes: { type: 'string' } } };
    expect(() => boundedFormat('rca_frame', extra)).toThrow('rca_frame.notes has no bound');
    const { observed: _dropped, ...rest } = contract.properties as Record<string, JsonSchema>;
    expect(() => boundedFormat('rca_frame', { ...contract, properties: rest })).toThrow('names no property observed');
    expect(Object.keys(FORMAT_BOUNDS)).toEqual([...VIEWS]);
  });

  it('is what both wire formats send, one object per view', () => {
    const settings = { model: 'm', modelOptions: { temperature: 0, seed: 1, num_predict: 10, num_ctx: 512 }, keepAlive: '30m', timeoutMs: 1000 };
    for (const view of VIEWS) {
      const request = generateRequest(settings, view, 'p');
      expect(request.format).toBe(formatOf(view));
      expect((chatCompletionBody(request).response_format as any).json_schema.schema).toBe(formatOf(view));
    }
  });
});

describe('rca schema --format', () => {
  async function run(argv: string[]) {
    let stdout = '';
    let stderr = '';
    const sink = (append: (s: string) => void) => new Writable({ write: (chunk, _e, cb) => (append(String(chunk)), cb()) });
    const code = await command.run({ argv, stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)), env: {} });
    return { code, stdout, stderr };
  }

  it.each(VIEWS)('prints exactly the format sent for %s', async (view) => {
    const r = await run(['--format', view]);
    expect(r).toEqual({ code: 0, stdout: JSON.stringify(formatOf(view), null, 2) + '\n', stderr: '' });
  });

  it.each([[['--format']], [['--format', 'chunk']], [['--format', 'rca_frame', 'x']]])('%j is a usage error', async (argv) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith(`rca schema: --format expects one view (${VIEW_NAMES.join(', ')})`), r.stderr).toBe(true);
  });
});
