// A plain description of each view, read once from its JSON Schema (generated from the zod
// contract). The skeleton and the validator walk this description, so adding or renaming a field
// in src/contracts/views.ts changes the prompt template and the checks together.
import { jsonSchemaFor } from '../contracts/checkers.js';
import type { JsonSchema } from '../contracts/json.js';
import { VIEW_TYPES, type ViewType } from '../contracts/vocabulary.js';

export type FieldShape =
  | { kind: 'string' }
  | { kind: 'list' }
  | { kind: 'literal'; value: string }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'integer'; nullable: boolean }
  | ObjectShape;
export interface ObjectShape {
  kind: 'object';
  /** Keys in contract order. */
  fields: ReadonlyMap<string, FieldShape>;
}

/** Reads a field's shape from the JSON Schema generated from the zod contract (no zod at run time). */
export function shapeOf(schema: JsonSchema): FieldShape {
  const type = schema.type;
  if (typeof schema.const === 'string') return { kind: 'literal', value: schema.const };
  if (Array.isArray(schema.enum)) return { kind: 'enum', values: schema.enum.map(String) };
  if (type === 'string') return { kind: 'string' };
  if (type === 'array') {
    if ((schema.items as JsonSchema | undefined)?.type === 'string') return { kind: 'list' };
    throw new Error('view lists must be lists of strings');
  }
  if (type === 'integer') return { kind: 'integer', nullable: false };
  if (Array.isArray(type) && type.length === 2 && type.includes('integer') && type.includes('null')) return { kind: 'integer', nullable: true };
  if (type === 'object') {
    const fields = new Map<string, FieldShape>();
    for (const [key, child] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) fields.set(key, shapeOf(child));
    return { kind: 'object', fields };
  }
  // Fail at load time, not on a model's reply: the validator would not know how to check it.
  throw new Error(`unsupported field type '${JSON.stringify(type)}' in a view schema`);
}

export const VIEW_SHAPES: Readonly<Record<ViewType, ObjectShape>> = Object.fromEntries(
  VIEW_TYPES.map((view) => [view, shapeOf(jsonSchemaFor(view)) as ObjectShape]),
) as Record<ViewType, ObjectShape>;
