// A small validator for the JSON Schema subset that z.toJSONSchema emits for our contracts.
// Stages check records against the JSON Schema derived from the zod contracts at build time, so
// they need not load zod (~46 ms of start-up) to validate; a property test holds its verdicts equal
// to zod's. Unknown keywords are refused when a schema is compiled, never ignored.

import type { JsonSchema } from './json.js';
/** Returns null when the value conforms, else one line: where (from `root`, default "$") and what is wrong. */
export type Checker = (value: unknown, root?: string) => string | null;

const KNOWN = new Set(['$schema', 'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'description', 'anyOf', 'title']);

export function compileChecker(schema: JsonSchema): Checker {
  const check = compile(schema, '');
  return (value, root = '$') => check(value, root);
}

type Inner = (value: unknown, at: string) => string | null;

function compile(schema: JsonSchema, where: string): Inner {
  for (const key of Object.keys(schema)) {
    if (!KNOWN.has(key)) throw new Error(`unsupported JSON Schema keyword '${key}' at ${where || '/'}`);
  }
  const parts: Inner[] = [];
  if (schema.type !== undefined) parts.push(typeCheck(schema.type as string | string[]));
  if (Array.isArray(schema.enum)) {
    const allowed = schema.enum as unknown[];
    parts.push((v, at) => (allowed.includes(v) ? null : `${at}: must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`));
  }
  if (schema.const !== undefined) {
    const c = schema.const;
    parts.push((v, at) => (v === c ? null : `${at}: must be ${JSON.stringify(c)}`));
  }
  if (Array.isArray(schema.anyOf)) {
    const options = (schema.anyOf as JsonSchema[]).map((s, i) => compile(s, `${where}/anyOf/${i}`));
    parts.push((v, at) => (options.some((o) => o(v, at) === null) ? null : `${at}: matches none of the allowed forms`));
  }
  if (schema.items !== undefined) {
    const item = compile(schema.items as JsonSchema, `${where}/items`);
    parts.push((v, at) => {
      if (!Array.isArray(v)) return null;
      for (let i = 0; i < v.length; i++) {
        const e = item(v[i], `${at}[${i}]`);
        if (e) return e;
      }
      return null;
    });
  }
  if (schema.properties !== undefined || schema.required !== undefined || schema.additionalProperties !== undefined) {
    parts.push(objectCheck(schema, where));
  }
  return (v, at) => {
    for (const p of parts) {
      const e = p(v, at);
      if (e) return e;
    }
    return null;
  };
}

function typeCheck(type: string | string[]): Inner {
  const types = Array.isArray(type) ? type : [type];
  const ok = (v: unknown) =>
    types.some((t) => {
      switch (t) {
        case 'string':
          return typeof v === 'string';
        case 'integer':
          // zod's int() accepts only safe integers; beyond 2^53 a JSON number is not exact anyway.
          return typeof v === 'number' && Number.isSafeInteger(v);
        case 'number':
          return typeof v === 'number' && Number.isFinite(v);
        case 'boolean':
          return typeof v === 'boolean';
        case 'null':
          return v === null;
        case 'array':
          return Array.isArray(v);
        case 'object':
          return v !== null && typeof v === 'object' && !Array.isArray(v);
        default:
          throw new Error(`unsupported JSON Schema type '${t}'`);
      }
    });
  const name = types.join(' or ');
  return (v, at) => (ok(v) ? null : `${at}: expected ${name}, got ${describe(v)}`);
}

function objectCheck(schema: JsonSchema, where: string): Inner {
  const props = new Map(Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([k, s]) => [k, compile(s, `${where}/${k}`)]));
  const required = (schema.required ?? []) as string[];
  const extra = schema.additionalProperties;
  const extraCheck = extra && typeof extra === 'object' && Object.keys(extra).length > 0 ? compile(extra as JsonSchema, `${where}/*`) : null;
  return (v, at) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
    const obj = v as Record<string, unknown>;
    for (const key of required) if (!Object.hasOwn(obj, key)) return `${at}.${key}: missing`;
    for (const [key, value] of Object.entries(obj)) {
      const check = props.get(key);
      if (check) {
        const e = check(value, `${at}.${key}`);
        if (e) return e;
      } else if (extra === false) {
        return `${at}.${key}: unexpected key`;
      } else if (extraCheck) {
        const e = extraCheck(value, `${at}.${key}`);
        if (e) return e;
      }
    }
    return null;
  };
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number' && !Number.isSafeInteger(v) && Number.isInteger(v)) return 'an unsafe integer';
  return typeof v;
}
