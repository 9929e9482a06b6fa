// What stages need of the contracts at run time (the checkers), without loading zod: the JSON Schemas generated
// from the zod definitions (src/contracts/json-schemas.generated.ts) and checkers compiled from them.
import type { JsonSchema } from './json.js';
import { compileChecker, type Checker } from './json-schema-check.js';
import { JSON_SCHEMAS } from './json-schemas.generated.js';

export type RuntimeKind = keyof typeof JSON_SCHEMAS;
export type { Checker };

const checkers = new Map<RuntimeKind, Checker>();

/** The checker of a record kind, compiled once. */
export function checkerFor(kind: RuntimeKind): Checker {
  let check = checkers.get(kind);
  if (!check) {
    check = compileChecker(JSON_SCHEMAS[kind] as JsonSchema);
    checkers.set(kind, check);
  }
  return check;
}

/** The JSON Schema of a record kind, as `rca schema` prints it. */
export function jsonSchemaFor(kind: RuntimeKind): JsonSchema {
  return JSON_SCHEMAS[kind] as JsonSchema;
}

