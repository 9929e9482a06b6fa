// Turning one input line into a record, shared by the runner, by stages that take raw lines
// (the `raw` and `blocks` line adapters), possibly on other threads, and by `rca merge`: one
// implementation, so a line is accepted or refused with the same code and message whoever parses it.
import type { JsonObject, LineAdapter, ParsedLine } from './stage.js';

/**
 * How deep arrays and objects may nest in one input record. JSON.parse itself copes with any
 * depth, but everything after it that walks a record (JSON.stringify, the schema checks, the
 * canonical JSON of the cache key and of `rca merge`) recurses and would overflow the stack a few
 * thousand levels down. Real records nest a handful of levels; 100 leaves room and stays far from
 * the stack.
 */
export const MAX_NESTING_DEPTH = 100;

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
 * a line with few brackets is cleared by counting them; otherwise one pass skips strings with
 * indexOf (they are most of a record's bytes). Text that is not JSON gets an answer too;
 * JSON.parse judges it.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // Fast path: with at most `limit` opening brackets in all, nothing can nest deeper (native
  // indexOf; almost every record line stops here).
  let opening = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at >= 0 && opening <= limit; at = text.indexOf(bracket, at + 1)) opening++;
  }
  if (opening <= limit) return false;
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

/**
 * parseRecordLine for a stage that replaces some top-level members whatever they hold (rca-validate
 * writes flags and evidence anew): the values of the members named in `skip` are checked as JSON
 * here, without being built, and come out as null; everything else is as parseRecordLine gives it.
 * A line is accepted or refused exactly as parseRecordLine would, with its code and message: on
 * anything unusual (not an object, a skipped value that is not plain valid JSON, nesting near the
 * limit, a parse error anywhere) the line goes through parseRecordLine itself.
 *
 * Why the answer is the same: the text handed to JSON.parse is the line with each skipped value's
 * span replaced by `null`. A span is replaced only when it is one complete, valid JSON value, and
 * `null` cannot run together with what follows it into another token, so the new text is valid
 * JSON exactly when the line is (a value put in place of a value), and it parses to the same record
 * but for those members. The depth of the line is that of the new text's structure, or one more
 * than a skipped value's: both are measured.
 */
/**
 * The `parse` line adapter of a stage that writes the members in `skip` anew: lines parsed
 * leaving them out (parseRecordLineSkipping), `unread(line, key, at)` saying where a value may go
 * unread.
 */
export function skippingParse(skip: ReadonlySet<string>, unread: (line: string, key: string, start: number) => boolean): LineAdapter {
  return { kind: 'parse', parse: (line) => parseRecordLineSkipping(line, skip, (key, start) => unread(line, key, start)) };
}

export function parseRecordLineSkipping(text: string, skip: ReadonlySet<string>, unread?: (key: string, start: number) => boolean): ParsedLine {
  // A line of megabytes is parsed as it is: the shortened copy would hold most of it a second time.
  if (text.length > SKIPPING_MAX_CHARS) return parseRecordLine(text);
  const keys: string[] | undefined = unread === undefined ? undefined : [];
  const spans = skippedSpans(text, skip, keys);
  if (spans === null) return parseRecordLine(text);
  // A value the caller must see (not in the shape it would write over) makes the line go the ordinary way.
  if (keys !== undefined) for (let k = 0; k < keys.length; k++) if (!unread!(keys[k]!, spans[2 * k]!)) return parseRecordLine(text);
  let joined = spans.length === 0 ? text : '';
  let at = 0;
  for (let k = 0; k < spans.length; k += 2) {
    joined += text.slice(at, spans[k]) + 'null';
    at = spans[k + 1]!;
  }
  if (spans.length > 0) joined += text.slice(at);
  let value: unknown;
  try {
    value = JSON.parse(joined);
  } catch {
    return parseRecordLine(text);
  }
  // The top-level scan found '{' first: JSON.parse of valid text gives an object.
  return { record: value as JsonObject };
}

/** Lines longer than this go straight to parseRecordLine (see parseRecordLineSkipping). */
export const SKIPPING_MAX_CHARS = 1 << 20;

const WS = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * [start, end, start, end, …] of the values of top-level members named in `skip`, each checked
 * to be one valid JSON value; null when the line must go the ordinary way (it does not start as an
 * object, a skipped value is not valid, a key has an escape, or anything nests 90 or more deep).
 * The other members are stepped over by their brackets and strings only: JSON.parse judges them.
 */
export function skippedSpans(text: string, skip: ReadonlySet<string>, keys?: string[]): number[] | null {
  const n = text.length;
  let i = 0;
  while (i < n && WS(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 0x7b /* { */) return null;
  i++;
  const spans: number[] = [];
  // Safely below MAX_NESTING_DEPTH: a line near the limit takes the ordinary path, which measures it.
  const limit = MAX_NESTING_DEPTH - 10;
  for (;;) {
    while (i < n && WS(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== 0x22 /* " */) return null;
    const keyEnd = text.indexOf('"', i + 1);
    if (keyEnd < 0) return null;
    const key = text.slice(i + 1, keyEnd);
    if (key.includes('\\')) return null;
    i = keyEnd + 1;
    while (i < n && WS(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== 0x3a /* : */) return null;
    i++;
    while (i < n && WS(text.charCodeAt(i))) i++;
    if (skip.has(key)) {
      const end = validValueEnd(text, i, limit - 1);
      if (end < 0) return null;
      spans.push(i, end);
      keys?.push(key);
      i = end;
    } else {
      i = skipValue(text, i, limit - 1);
      if (i < 0) return null;
    }
    while (i < n && WS(text.charCodeAt(i))) i++;
    const c = text.charCodeAt(i);
    if (c === 0x2c /* , */) {
      i++;
      continue;
    }
    if (c === 0x7d /* } */) return spans;
    return null;
  }
}

/**
 * Whether the valid JSON value at `text[start]` is an object each of whose members holds a list of
 * strings (`of: 'strings'`) or an object (`of: 'objects'`): the shapes of the per-view maps rca's
 * stages write ({<view>: [flag, …]}, {<view>: {…}}), told without building the value.
 */
export function isMapOf(text: string, start: number, of: 'strings' | 'objects'): boolean {
  let i = start;
  const ws = () => {
    while (i < text.length && WS(text.charCodeAt(i))) i++;
  };
  if (text.charCodeAt(i) !== 0x7b /* { */) return false;
  i++;
  ws();
  if (text.charCodeAt(i) === 0x7d) return true;
  for (;;) {
    ws();
    if (text.charCodeAt(i) !== 0x22) return false;
    i = closingQuote(text, i + 1) + 1;
    if (i <= 0) return false;
    ws();
    i++; // the colon: the value is valid JSON
    ws();
    if (of === 'objects') {
      if (text.charCodeAt(i) !== 0x7b) return false;
      i = skipValue(text, i, MAX_NESTING_DEPTH);
      if (i < 0) return false;
    } else {
      if (text.charCodeAt(i) !== 0x5b /* [ */) return false;
      i++;
      ws();
      if (text.charCodeAt(i) === 0x5d) i++;
      else {
        for (;;) {
          ws();
          if (text.charCodeAt(i) !== 0x22) return false;
          i = closingQuote(text, i + 1) + 1;
          if (i <= 0) return false;
          ws();
          const c = text.charCodeAt(i++);
          if (c === 0x5d) break;
          if (c !== 0x2c) return false;
        }
      }
    }
    ws();
    const c = text.charCodeAt(i++);
    if (c === 0x7d) return true;
    if (c !== 0x2c) return false;
  }
}

/** Past the value at `i`, going by strings and brackets only (the value is not checked); -1 when
 *  it nests deeper than `limit` or the text ends first. */
function skipValue(text: string, i: number, limit: number): number {
  const n = text.length;
  let depth = 0;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(text, i + 1);
      if (i < 0) return -1;
      if (depth === 0) return i + 1;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return -1;
    } else if (c === 0x7d || c === 0x5d) {
      if (--depth < 0) return i;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (c === 0x2c || WS(c))) {
      return i;
    }
  }
  return depth === 0 ? i : -1;
}

/**
 * The end of the one valid JSON value (RFC 8259, as JSON.parse reads it) that starts at `i`, or -1
 * when there is none or it nests deeper than `limit`. Iterative: the depth is bounded, not the stack.
 */
export function validValueEnd(text: string, i: number, limit: number): number {
  const n = text.length;
  // The open containers: true for an object, false for an array.
  const stack: boolean[] = [];
  for (;;) {
    // A value at i.
    while (i < n && WS(text.charCodeAt(i))) i++;
    if (i >= n) return -1;
    let c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      const object = c === 0x7b;
      if (stack.length >= limit) return -1;
      stack.push(object);
      i++;
      while (i < n && WS(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) === (object ? 0x7d : 0x5d)) {
        stack.pop();
        i++;
      } else {
        if (object) {
          i = memberKey(text, i);
          if (i < 0) return -1;
        }
        continue;
      }
    } else if (c === 0x22) {
      i = stringEnd(text, i);
      if (i < 0) return -1;
    } else if (c === 0x74 /* t */) {
      if (!text.startsWith('true', i)) return -1;
      i += 4;
    } else if (c === 0x66 /* f */) {
      if (!text.startsWith('false', i)) return -1;
      i += 5;
    } else if (c === 0x6e /* n */) {
      if (!text.startsWith('null', i)) return -1;
      i += 4;
    } else {
      i = numberEnd(text, i);
      if (i < 0) return -1;
    }
    // After a value: close containers or go on to the next element.
    for (;;) {
      if (stack.length === 0) return i;
      while (i < n && WS(text.charCodeAt(i))) i++;
      c = text.charCodeAt(i);
      const object = stack[stack.length - 1]!;
      if (c === 0x2c) {
        i++;
        if (object) {
          while (i < n && WS(text.charCodeAt(i))) i++;
          i = memberKey(text, i);
          if (i < 0) return -1;
        }
        break;
      }
      if (c === (object ? 0x7d : 0x5d)) {
        stack.pop();
        i++;
        continue;
      }
      return -1;
    }
  }
}

/** A key and its colon at `i`: the index after the colon, or -1. */
function memberKey(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x22) return -1;
  i = stringEnd(text, i);
  if (i < 0) return -1;
  const n = text.length;
  while (i < n && WS(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === 0x3a ? i + 1 : -1;
}

/** Past the valid JSON string whose opening quote is at `i`, or -1. */
function stringEnd(text: string, i: number): number {
  const n = text.length;
  for (i++; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return -1;
    if (c === 0x5c) {
      const e = text.charCodeAt(++i);
      if (e === 0x75 /* u */) {
        for (let k = 1; k <= 4; k++) if (!isHex(text.charCodeAt(i + k))) return -1;
        i += 4;
      } else if (!(e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74)) {
        return -1;
      }
    }
  }
  return -1;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** Past the valid JSON number at `i`, or -1: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? */
function numberEnd(text: string, i: number): number {
  if (text.charCodeAt(i) === 0x2d) i++;
  const first = text.charCodeAt(i);
  if (first === 0x30) i++;
  else if (first >= 0x31 && first <= 0x39) while (isDigit(text.charCodeAt(++i)));
  else return -1;
  if (text.charCodeAt(i) === 0x2e) {
    if (!isDigit(text.charCodeAt(++i))) return -1;
    while (isDigit(text.charCodeAt(++i)));
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    let s = text.charCodeAt(++i);
    if (s === 0x2b || s === 0x2d) s = text.charCodeAt(++i);
    if (!isDigit(s)) return -1;
    while (isDigit(text.charCodeAt(++i)));
  }
  return i;
}
