// The JSON shapes every layer passes around: a parsed record or view, and a JSON Schema.
export type JsonObject = Record<string, unknown>;
export type JsonSchema = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
