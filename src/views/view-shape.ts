// A plain description of each view, read once from its zod schema. The skeleton and the
// validator walk this description, so adding or renaming a field in src/contracts/views.ts
// changes the prompt template and the checks together.
import { z } from 'zod';
import { VIEW_SCHEMAS } from '../contracts/views.js';
import { VIEW_TYPES, type ViewType } from './view-types.js';

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

export function shapeOf(schema: z.ZodType): FieldShape {
  if (schema instanceof z.ZodString) return { kind: 'string' };
  if (schema instanceof z.ZodArray) {
    if (schema.element instanceof z.ZodString) return { kind: 'list' };
    throw new Error('view lists must be lists of strings');
  }
  if (schema instanceof z.ZodLiteral && typeof schema.value === 'string') return { kind: 'literal', value: schema.value };
  if (schema instanceof z.ZodEnum) return { kind: 'enum', values: schema.options.map(String) };
  if (schema instanceof z.ZodNullable) {
    const inner = schema.unwrap();
    if (inner instanceof z.ZodNumber && inner.format === 'safeint') return { kind: 'integer', nullable: true };
  }
  if (schema instanceof z.ZodNumber && schema.format === 'safeint') return { kind: 'integer', nullable: false };
  if (schema instanceof z.ZodObject) {
    const fields = new Map<string, FieldShape>();
    for (const [key, child] of Object.entries(schema.shape as Record<string, z.ZodType>)) fields.set(key, shapeOf(child));
    return { kind: 'object', fields };
  }
  // Fail at load time, not on a model's reply: the validator would not know how to check it.
  throw new Error(`unsupported field type '${schema._zod.def.type}' in a view schema`);
}

export const VIEW_SHAPES: Readonly<Record<ViewType, ObjectShape>> = Object.fromEntries(
  VIEW_TYPES.map((view) => [view, shapeOf(VIEW_SCHEMAS[view]) as ObjectShape]),
) as Record<ViewType, ObjectShape>;

/** The top-level list fields of a view, in contract order. */
export function listKeys(view: ViewType): string[] {
  return [...VIEW_SHAPES[view].fields].filter(([, s]) => s.kind === 'list').map(([k]) => k);
}
