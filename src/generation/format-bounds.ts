// The bounds of the structured-output format: the view's JSON Schema (the contract, unchanged)
// plus maxLength on every string, maxItems on every list, and the minLength / minItems the
// validator demands where a grammar can hold them. The server turns the format into a grammar
// (llama.cpp's json-schema-to-grammar, for Ollama and llama-server alike), so a model that loops —
// one string forever, the same item again and again — is forced to close the string or the list
// and ends with complete JSON the ladder can check and feed back, instead of a reply cut at the
// token limit three times over.
//
// The numbers (README "Bounded format" lists them; each view kind in src/views/kinds names its own):
// - minima come from the validator: scope ≥ QUALITY_GATES.minScopeChars characters, keywords ≥
//   QUALITY_GATES.minKeywords items, observed ≥ 1 item (the prompt asks for one; a frame with
//   every list empty is flagged empty_frame), concepts between 1 (a short section needs only one)
//   and SECTION_QUALITY.targetConcepts.max, and no list item is "" (flagged _item_blank);
// - maxima are generous for what the prompts ask (one or two sentences, short items, exact
//   identifiers and values) and the corpus holds (ids ≤ 43 characters, section paths ≤ 125), and
//   together small enough that a reply filling every bound still fits the default
//   --max-output-tokens (2048) at 4 characters a token: worstCaseChars() ≤ FORMAT_BUDGET_CHARS,
//   held by a test. The summary's 250-word ceiling (SECTION_QUALITY.maxWords) is 250 × 7 characters;
// - every bound stays below llama.cpp's MAX_REPETITION_THRESHOLD (2000): the server refuses a
//   grammar whose {m,n} repetition reaches it (400 "failed to parse grammar").
// The contract itself (rca schema KIND, the validator) has no maxima: a longer value written by
// another tool is still valid; only what the model is asked for is bounded.
import type { JsonSchema } from '../contracts/json.js';
import { SECTION_TRUSTED_KEYS, SECTION_VIEW, TRUSTED_KEYS, VIEW_NAMES, type ViewName } from '../contracts/vocabulary.js';
import type { FieldBound, FormatBounds, ListBound } from '../views/kinds/bounds.js';
import { VIEW_KINDS } from '../views/kinds/index.js';

/** A reply that fills every bound must still fit this many characters: 2048 tokens × 4 characters. */
export const FORMAT_BUDGET_CHARS = 8192;
/** llama.cpp (llama-grammar.cpp) refuses a repetition {m,n} of n ≥ 2000 rules. */
export const GRAMMAR_REPETITION_LIMIT = 2000;

/** Each view's bounds, by dotted property path: its kind's. */
export const FORMAT_BOUNDS: Readonly<Record<ViewName, FormatBounds>> = Object.fromEntries(VIEW_NAMES.map((view) => [view, VIEW_KINDS[view].bounds])) as Record<ViewName, FormatBounds>;

function isList(bound: FieldBound): bound is ListBound {
  return 'item' in bound;
}

function isFreeString(schema: JsonSchema): boolean {
  return schema.type === 'string' && !('enum' in schema) && !('const' in schema);
}

/** The fields of each view the model never writes: rca stamps them from the trusted record. */
export function trustedKeysOf(view: ViewName): readonly string[] {
  return view === SECTION_VIEW ? SECTION_TRUSTED_KEYS : TRUSTED_KEYS;
}

/**
 * The contract schema less its trusted fields: what a compact prompt asks the model to write
 * (the reply gets the trusted fields in their places before it is checked against the contract).
 */
export function contentSchema(view: ViewName, contract: JsonSchema): JsonSchema {
  const trusted = new Set(trustedKeysOf(view));
  const properties = Object.fromEntries(Object.entries(contract.properties as Record<string, JsonSchema>).filter(([key]) => !trusted.has(key)));
  const required = (contract.required as string[]).filter((key) => !trusted.has(key));
  return { ...contract, properties, required };
}

/**
 * The format sent for a view: a deep copy of its contract schema (without `$schema`) with the
 * bounds of FORMAT_BOUNDS[view]; with `contentOnly`, of contentSchema (the bounds of the trusted
 * fields left out). Throws when a string or list has no bound or a bound names no property: a new
 * contract field cannot go out unbounded.
 */
export function boundedFormat(view: ViewName, contract: JsonSchema, contentOnly = false): JsonSchema {
  const trusted = new Set(contentOnly ? trustedKeysOf(view) : []);
  const bounds = Object.fromEntries(Object.entries(FORMAT_BOUNDS[view]).filter(([path]) => !trusted.has(path.split('.')[0]!)));
  if (contentOnly) contract = contentSchema(view, contract);
  const used = new Set<string>();
  const visit = (schema: JsonSchema, path: string): JsonSchema => {
    const out: JsonSchema = { ...schema };
    if (schema.type === 'object' && schema.properties !== null && typeof schema.properties === 'object') {
      out.properties = Object.fromEntries(
        Object.entries(schema.properties as Record<string, JsonSchema>).map(([key, child]) => [key, visit(child, path === '' ? key : `${path}.${key}`)]),
      );
      return out;
    }
    const isArray = schema.type === 'array';
    if (!isArray && !isFreeString(schema)) return out;
    const bound = bounds[path];
    if (bound === undefined) throw new Error(`format bounds: ${view}.${path} has no bound`);
    used.add(path);
    if (isArray !== isList(bound)) throw new Error(`format bounds: ${view}.${path} is ${isArray ? 'a list' : 'a string'}`);
    if (isList(bound)) {
      const items = schema.items as JsonSchema;
      if (!isFreeString(items)) throw new Error(`format bounds: ${view}.${path} is not a list of strings`);
      if (bound.minItems !== undefined) out.minItems = bound.minItems;
      out.maxItems = bound.maxItems;
      out.items = { ...items, ...bound.item };
    } else {
      if (bound.minLength !== undefined) out.minLength = bound.minLength;
      out.maxLength = bound.maxLength;
    }
    return out;
  };
  const { $schema: _ignored, ...schema } = contract;
  const bounded = visit(schema, '');
  const unused = Object.keys(bounds).filter((p) => !used.has(p));
  if (unused.length > 0) throw new Error(`format bounds: ${view} names no property ${unused.join(', ')}`);
  return bounded;
}

const NUMBER_CHARS = 16;

/**
 * The reply that fills the bounded format, in characters: every string at maxLength, every list
 * at maxItems, compact separators. On top the grammar still allows escapes (\uXXXX counts as one
 * character) and up to 22 blanks per separator; a model that spends its tokens on those is not
 * looping on content, and llama.cpp caps the blanks.
 */
export function worstCaseChars(schema: JsonSchema): number {
  if ('const' in schema) return JSON.stringify(schema.const).length;
  if (Array.isArray(schema.enum)) return Math.max(...schema.enum.map((v) => JSON.stringify(v).length));
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object')) {
    const props = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
    return 2 + props.reduce((sum, [key, child]) => sum + key.length + 4 + worstCaseChars(child), 0);
  }
  if (types.includes('array')) {
    const items = Number(schema.maxItems ?? Number.POSITIVE_INFINITY);
    return 2 + items * (worstCaseChars(schema.items as JsonSchema) + 1);
  }
  if (types.includes('string')) return 2 + Number(schema.maxLength ?? Number.POSITIVE_INFINITY);
  if (types.includes('integer') || types.includes('number')) return NUMBER_CHARS;
  return 5;
}
