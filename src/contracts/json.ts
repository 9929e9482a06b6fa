// The JSON shapes every layer passes around: a parsed record or view, and a JSON Schema.
export type JsonObject = Record<string, unknown>;
export type JsonSchema = Record<string, unknown>;
