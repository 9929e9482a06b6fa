// What both model clients read alike: the size bounds of a reply, token counts, embedding vectors
// and model names.

export const DEFAULT_MAX_REPLY_CHARS = 1_000_000;
export const DEFAULT_PREFLIGHT_TIMEOUT_MS = 10_000;

// A JSON string can spend six characters (\uXXXX) on one character of content.
const JSON_ESCAPE_FACTOR = 6;
const ENVELOPE_CHARS = 64 * 1024;

/** The longest line (NDJSON) or event (SSE) a reply of `maxReplyChars` characters can take. */
export function maxLineCharsFor(maxReplyChars: number): number {
  return maxReplyChars * JSON_ESCAPE_FACTOR + ENVELOPE_CHARS;
}

export function countOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The vectors of an embedding reply: one non-empty list of finite numbers per input, or null. */
export function vectorsOf(value: unknown, inputs: number): number[][] | null {
  if (!Array.isArray(value) || value.length !== inputs) return null;
  for (const v of value) {
    if (!Array.isArray(v) || v.length === 0) return null;
    for (const x of v) if (typeof x !== 'number' || !Number.isFinite(x)) return null;
  }
  return value as number[][];
}

/** Ollama's reading of a name without a tag: `mistral` is `mistral:latest`. */
export function withDefaultTag(name: string): string {
  const lastSegment = name.slice(name.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? name : `${name}:latest`;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
