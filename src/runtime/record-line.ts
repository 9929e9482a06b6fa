// Turning one input line into a record, shared by the runner, by stages that take raw lines
// (the `raw` and `blocks` line adapters), possibly on other threads, and by `rca merge`: one implementation, so a
// line is accepted or refused with the same code and message whoever parses it.
import type { JsonObject } from './stage.js';

/**
 * How deep arrays and objects may nest in one input record. JSON.parse itself copes with any
 * depth, but everything after it that walks a record (JSON.stringify, the schema checks, the
 * canonical JSON of the cache key and of `rca merge`) recurses and would overflow the stack a few
 * thousand levels down. Real records nest a handful of levels; 100 leaves room and stays far from
 * the stack.
 */
export const MAX_NESTING_DEPTH = 100;

export interface LineReject {
  code: 'BAD_JSON' | 'NOT_OBJECT' | 'NESTING_TOO_DEEP';
  message: string;
}

export type ParsedLine = { record: JsonObject; reject?: undefined } | { record?: undefined; reject: LineReject };

export function parseRecordLine(text: string): ParsedLine {
  // Checked before parsing: a line nested 100,000 deep is refused without building it.
  if (nestsDeeperThan(text, MAX_NESTING_DEPTH)) {
    return { reject: { code: 'NESTING_TOO_DEEP', message: `arrays and objects nest more than ${MAX_NESTING_DEPTH} levels deep` } };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { reject: { code: 'BAD_JSON', message: messageOf(err) } };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    return { reject: { code: 'NOT_OBJECT', message: `expected a JSON object, got ${kind}` } };
  }
  return { record: value as JsonObject };
}

/**
 * True when the brackets of `text` outside its strings nest deeper than `limit`. No allocation:
 * one pass that skips strings with indexOf (they are most of a record's bytes). Text that is not
 * JSON gets an answer too; JSON.parse judges it.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i = closingQuote(text, i + 1);
      if (i < 0) return false;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}

/** Index of the quote that ends the string whose body starts at `from`, or -1 if it never ends. */
export function closingQuote(text: string, from: number): number {
  for (let j = from; ; j++) {
    j = text.indexOf('"', j);
    if (j < 0) return -1;
    // Escaped when an odd number of backslashes precede it.
    let k = j - 1;
    while (k >= from && text.charCodeAt(k) === 0x5c) k--;
    if ((j - 1 - k) % 2 === 0) return j;
  }
}

/** The first line of an error's message: messages on stderr are one line each, never a stack. */
export function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]!;
}
