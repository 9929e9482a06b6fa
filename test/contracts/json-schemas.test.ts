import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECORD_KINDS, jsonSchemaOf, type RecordKind } from '../../src/contracts/index.js';
import type { JsonSchema } from '../../src/contracts/json.js';
import { compileChecker } from '../../src/contracts/json-schema-check.js';
import { JSON_SCHEMAS } from '../../src/contracts/json-schemas.generated.js';

const kinds = Object.keys(RECORD_KINDS) as RecordKind[];

describe('generated JSON Schemas', () => {
  it.each(kinds)('%s matches the zod contract (else run: npm run contracts)', (kind) => {
    expect(JSON_SCHEMAS[kind]).toEqual(jsonSchemaOf(RECORD_KINDS[kind].schema));
  });
});

/** Values shaped by a JSON Schema: a third fully valid, the rest sometimes wrong in a few places. */
function sample(schema: JsonSchema): fc.Arbitrary<unknown> {
  return fc.oneof(valid(schema, false), near(schema), near(schema));
}

function near(schema: JsonSchema): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 3 }), fc.constant([]), fc.constant({}), fc.constant(2 ** 60), fc.boolean());
  return fc.oneof({ weight: 12, arbitrary: valid(schema, true) }, { weight: 1, arbitrary: wrong });
}

function valid(schema: JsonSchema, corrupt: boolean): fc.Arbitrary<unknown> {
  const child = (s: JsonSchema) => (corrupt ? near(s) : valid(s, false));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as JsonSchema[]).map((s) => valid(s, corrupt)));
  // {}: any value (the chunk's fields that tag writes and reads only to keep them).
  if (schema.type === undefined) return fc.jsonValue({ maxDepth: 2 });
  const types = ([] as string[]).concat((schema.type as string | string[] | undefined) ?? []);
  const options: fc.Arbitrary<unknown>[] = types.map((t) => {
    switch (t) {
      case 'string':
        return fc.string({ maxLength: 6 });
      case 'integer':
        return fc.integer();
      case 'number':
        return fc.double({ noNaN: true, noDefaultInfinity: true });
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return fc.array(schema.items ? child(schema.items as JsonSchema) : fc.jsonValue(), { maxLength: 3 });
      case 'object': {
        const props = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
        const required = new Set((schema.required ?? []) as string[]);
        // Optional keys are sometimes absent; when corrupting, a stray key or a missing one may appear.
        const record = fc.record(Object.fromEntries(props.map(([k, s]) => [k, child(s)])), {
          requiredKeys: props.map(([k]) => k).filter((k) => required.has(k)),
        });
        if (!corrupt) return record;
        const mutation = fc.oneof({ weight: 8, arbitrary: fc.constant('none') }, fc.constant('extra'), fc.constant('drop'));
        return fc.tuple(record, mutation, fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 })).map(([r, m, key, value]) => {
          const out: Record<string, unknown> = { ...(r as Record<string, unknown>) };
          if (m === 'extra') out[`x_${key}`] = value;
          if (m === 'drop' && props.length > 0) delete out[props[0]![0]];
          return out;
        });
      }
      default:
        throw new Error(`no generator for ${t}`);
    }
  });
  return options.length === 1 ? options[0]! : fc.oneof(...options);
}

describe('JSON Schema checker agrees with zod', () => {
  it.each(kinds)('%s', (kind) => {
    const schema = JSON_SCHEMAS[kind] as JsonSchema;
    const check = compileChecker(schema);
    const zod = RECORD_KINDS[kind].schema;
    let valids = 0;
    fc.assert(
      fc.property(sample(schema), (value) => {
        const ours = check(value) === null;
        const theirs = zod.safeParse(value).success;
        if (ours) valids++;
        expect(ours).toBe(theirs);
      }),
      { numRuns: 400 },
    );
    // The generator must exercise both verdicts, or the agreement proves little.
    expect(valids).toBeGreaterThan(20);
  });

  it('says where and what is wrong in one line', () => {
    const check = compileChecker(JSON_SCHEMAS.chunk_context as JsonSchema);
    expect(check({})).toBe('$.doc_id: missing');
    expect(check('x')).toBe('$: expected object, got string');
    const ok = { doc_id: 'd', doc_type: 'CR', chunk_id: 'c', section_path: '', page_start: null, page_end: 2, authority_level: 'informational', section_role: 'unknown' };
    expect(check(ok)).toBeNull();
    expect(check({ ...ok, doc_type: 'MEMO' })).toBe('$.doc_type: must be one of "SOP", "CR", "WO", "ECA", "OTHER"');
    expect(check({ ...ok, page_start: 1.5 })).toBe('$.page_start: expected integer or null, got number');
    expect(check({ ...ok, extra: 1 })).toBe('$.extra: unexpected key');
  });

  it('refuses a keyword it does not know rather than ignoring it', () => {
    expect(() => compileChecker({ type: 'string', pattern: '^a' })).toThrow("unsupported JSON Schema keyword 'pattern'");
  });
});
