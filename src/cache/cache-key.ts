// The address of a cached reply: a SHA-256 over everything that determines it. Pure: no store,
// no clock, so the generate stage can compute keys without loading SQLite (e.g. for --dry-run).
import { sha256Hex } from '../runtime/sha256.js';

export interface CacheKeyParts {
  backend: string;
  model: string;
  /** The model's content digest when the backend knows it: a re-pulled model under the same name is another model. */
  modelDigest: string | null;
  /** Every generation option sent (temperature, seed, num_predict, num_ctx, ...). */
  options: Record<string, unknown>;
  /** The JSON Schema sent as the structured-output format. */
  schema: unknown;
  /** The exact prompt text. */
  prompt: string;
}

// Bumped when the material hashed below changes shape, so old entries are simply never hit.
export const CACHE_KEY_FORMAT = 'rca-response-cache/1';

export function cacheKey(parts: CacheKeyParts): string {
  // Fields are named one by one: a property added to `parts` by a caller never silently joins the key.
  const material = canonicalJson({
    format: CACHE_KEY_FORMAT,
    backend: parts.backend,
    model: parts.model,
    model_digest: parts.modelDigest,
    options: parts.options,
    schema: parts.schema,
    prompt: parts.prompt,
  });
  return sha256Hex(material);
}

export const CACHE_KEY_RE = /^[0-9a-f]{64}$/;

/**
 * JSON with the keys of every object sorted, so equal values give equal text whatever order
 * their keys were built in. Stricter than JSON.stringify where it would silently merge
 * different inputs into one key: NaN, Infinity, bigint, functions, symbols, class instances
 * (Map, Set, ...) and cycles throw. An object property that is `undefined` is left out, as in JSON.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  writeCanonical(value, out, [], '$');
  return out.join('');
}

function writeCanonical(input: unknown, out: string[], stack: object[], path: string): void {
  let value = input;
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(): unknown }).toJSON();
  }
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      out.push(JSON.stringify(value));
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cache key: ${path} is ${value}, which JSON cannot represent`);
      out.push(JSON.stringify(value));
      return;
    case 'object':
      break;
    default:
      throw new TypeError(`cache key: ${path} (${typeof value}) is not representable in JSON`);
  }
  const obj = value as object;
  if (stack.includes(obj)) throw new TypeError(`cache key: ${path} refers back to itself`);
  stack.push(obj);
  if (Array.isArray(obj)) {
    out.push('[');
    obj.forEach((item, i) => {
      if (i > 0) out.push(',');
      writeCanonical(item, out, stack, `${path}[${i}]`);
    });
    out.push(']');
  } else {
    const proto = Object.getPrototypeOf(obj) as unknown;
    if (proto !== Object.prototype && proto !== null) throw new TypeError(`cache key: ${path} is not a plain object`);
    const record = obj as Record<string, unknown>;
    out.push('{');
    let first = true;
    for (const key of Object.keys(record).sort()) {
      if (record[key] === undefined) continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(key), ':');
      writeCanonical(record[key], out, stack, `${path}.${key}`);
    }
    out.push('}');
  }
  stack.pop();
}
