// Where the members of a JSON line are, for a line that is exactly what JSON.stringify writes for
// it. A stage that embeds a field's JSON (or a string's escaped text) in its output can then copy
// that slice of the line instead of serialising or escaping the value again, and knows the line is
// the record's own JSON without a JSON.stringify to compare with. Any line this does not prove to
// be that (spacing, escapes or number forms of another writer, duplicate keys, keys JavaScript
// reorders) gets null, and the caller takes its ordinary path: a null costs speed, never bytes.


/** The top-level members of a canonical JSON object line: key bodies and value spans. */
export interface CanonicalMembers {
  /** Each key as written between its quotes (for a key needing no escapes, the key itself). */
  readonly keys: readonly string[];
  /** Where each value starts and ends in the line: `line.slice(starts[i], ends[i])` is its JSON. */
  readonly starts: readonly number[];
  readonly ends: readonly number[];
}

/** Deeper than this the scan gives up (JSON.parse would still read it; the caller's own path does). */
const MAX_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/** A character JSON.stringify never writes raw: a control character, or half of a surrogate pair. */
const CONTROL_OR_SURROGATE = /[\x00-\x1f\ud800-\udfff]/;
const CONTROL = /[\x00-\x1f]/;
/** A surrogate that is not half of a pair (JSON.stringify writes it as a \u escape). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The members of `line` when it is a JSON object and `JSON.stringify(JSON.parse(line)) === line`;
 * otherwise null (also for valid JSON this cannot prove so). What is proved, token by token: no
 * whitespace between tokens; every string as JSON.stringify escapes it (only \" \\ \b \f \n \r \t
 * and lower-case \u00XX for the other control characters; no escaped surrogate, no lone raw one);
 * every number as String(Number(token)); no key twice in one object and no key that starts with a
 * digit (an array-index key would be moved first by JSON.parse's object).
 */
export function canonicalMembers(line: string): CanonicalMembers | null {
  if (CONTROL_OR_SURROGATE.test(line) && (CONTROL.test(line) || LONE_SURROGATE.test(line))) return null;
  const scan = new Scanner(line);
  if (line.charCodeAt(0) !== OPEN_BRACE) return null;
  const keys: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let i = 1;
  if (line.charCodeAt(i) === CLOSE_BRACE) return i + 1 === line.length ? { keys, starts, ends } : null;
  for (;;) {
    const keyEnd = scan.key(i, keys);
    if (keyEnd < 0 || line.charCodeAt(keyEnd) !== COLON) return null;
    const end = scan.value(keyEnd + 1, 1);
    if (end < 0) return null;
    starts.push(keyEnd + 1);
    ends.push(end);
    const c = line.charCodeAt(end);
    if (c === COMMA) i = end + 1;
    else if (c === CLOSE_BRACE) return end + 1 === line.length ? { keys, starts, ends } : null;
    else return null;
  }
}

class Scanner {
  /** The next backslash at or after where the scan has got to (line.length: none). */
  private backslash: number;
  /** Likewise the next quote: a string of many escapes and no quote near would be searched to that quote again after each. */
  private quote = -1;

  constructor(private readonly line: string) {
    const at = line.indexOf('\\');
    this.backslash = at < 0 ? line.length : at;
  }

  /** The end of the value at `i` (one past its last character), or -1. */
  value(i: number, depth: number): number {
    const line = this.line;
    const c = line.charCodeAt(i);
    if (c === QUOTE) return this.string(i);
    if (c === OPEN_BRACE) return depth >= MAX_DEPTH ? -1 : this.object(i, depth + 1);
    if (c === OPEN_BRACKET) return depth >= MAX_DEPTH ? -1 : this.array(i, depth + 1);
    if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) return this.number(i);
    if (line.startsWith('true', i) || line.startsWith('null', i)) return i + 4;
    if (line.startsWith('false', i)) return i + 5;
    return -1;
  }

  /** A key string at `i`, not seen before in its object and not starting with a digit: the index after it, or -1. */
  key(i: number, seen: string[]): number {
    if (this.line.charCodeAt(i) !== QUOTE) return -1;
    const end = this.string(i);
    if (end < 0) return -1;
    const first = this.line.charCodeAt(i + 1);
    if (first >= DIGIT_0 && first <= DIGIT_9) return -1;
    const key = this.line.slice(i + 1, end - 1);
    // Two keys are the same string exactly when their canonical texts are the same.
    if (seen.includes(key)) return -1;
    seen.push(key);
    return end;
  }

  private object(i: number, depth: number): number {
    const line = this.line;
    i++;
    if (line.charCodeAt(i) === CLOSE_BRACE) return i + 1;
    const seen: string[] = [];
    for (;;) {
      const keyEnd = this.key(i, seen);
      if (keyEnd < 0 || line.charCodeAt(keyEnd) !== COLON) return -1;
      const end = this.value(keyEnd + 1, depth);
      if (end < 0) return -1;
      const c = line.charCodeAt(end);
      if (c === COMMA) i = end + 1;
      else if (c === CLOSE_BRACE) return end + 1;
      else return -1;
    }
  }

  private array(i: number, depth: number): number {
    const line = this.line;
    i++;
    if (line.charCodeAt(i) === CLOSE_BRACKET) return i + 1;
    for (;;) {
      const end = this.value(i, depth);
      if (end < 0) return -1;
      const c = line.charCodeAt(end);
      if (c === COMMA) i = end + 1;
      else if (c === CLOSE_BRACKET) return end + 1;
      else return -1;
    }
  }

  private number(i: number): number {
    let end = i;
    while (end < this.line.length && isNumberChar(this.line.charCodeAt(end))) end++;
    const token = this.line.slice(i, end);
    // Number's own output is always a JSON number (never NaN or Infinity from these characters).
    return String(Number(token)) === token ? end : -1;
  }

  /**
   * The end of the string whose opening quote is at `i`, when it is escaped as JSON.stringify
   * escapes (raw control characters and lone surrogates are ruled out for the whole line first).
   */
  string(i: number): number {
    const line = this.line;
    let from = i + 1;
    for (;;) {
      let quote = this.quote;
      if (quote < from) {
        quote = line.indexOf('"', from);
        if (quote < 0) return -1;
        this.quote = quote;
      }
      let slash = this.backslash;
      if (slash < from) {
        slash = line.indexOf('\\', from);
        if (slash < 0) slash = line.length;
        this.backslash = slash;
      }
      if (slash > quote) return quote + 1;
      // An escape before the quote: one of JSON.stringify's, then on from after it.
      const e = line.charCodeAt(slash + 1);
      if (e === QUOTE || e === BACKSLASH || e === 0x62 /* b */ || e === 0x66 /* f */ || e === 0x6e /* n */ || e === 0x72 /* r */ || e === 0x74 /* t */) {
        from = slash + 2;
      } else if (e === 0x75 /* u */ && isControlEscape(line, slash + 2)) {
        from = slash + 6;
      } else {
        return -1;
      }
    }
  }
}

/** A character a JSON number is written with (which of them form one is String(Number(…))'s to say). */
function isNumberChar(c: number): boolean {
  return (c >= DIGIT_0 && c <= DIGIT_9) || c === MINUS || c === 0x2b /* + */ || c === 0x2e /* . */ || c === 0x65 /* e */ || c === 0x45 /* E */;
}

/** `00XX` at `at`, lower-case hex, for a control character that has no short escape (\b \f \n \r \t). */
function isControlEscape(line: string, at: number): boolean {
  if (line.charCodeAt(at) !== DIGIT_0 || line.charCodeAt(at + 1) !== DIGIT_0) return false;
  const hi = line.charCodeAt(at + 2);
  const lo = line.charCodeAt(at + 3);
  const low = lo >= DIGIT_0 && lo <= DIGIT_9 ? lo - DIGIT_0 : lo >= 0x61 && lo <= 0x66 ? lo - 0x61 + 10 : -1;
  if (low < 0 || (hi !== DIGIT_0 && hi !== 0x31)) return false;
  const code = (hi - DIGIT_0) * 16 + low;
  return code !== 0x08 && code !== 0x09 && code !== 0x0a && code !== 0x0c && code !== 0x0d;
}
