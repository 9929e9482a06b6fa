// Shared pieces of the pattern extractors: the token-edge assertions every family uses and the
// loop that turns one global regex pass into candidate spans.

/** A span one family found, before overlap resolution. `key` is what deduplication compares. */
export interface Candidate<T> {
  readonly start: number;
  readonly end: number;
  readonly key: string;
  readonly item: T;
}

// A match must begin and end on the edge of an identifier-like token, so no family can carve a
// shorter span out of a longer token ("CR-2026" out of "CR-2026-00123", "101A" out of "VB-101A").
// A token continues through letters, digits and underscores, through "-" or "." when a letter or
// digit follows, and through ":" when a digit follows (so the date in "2026-02-06T03:22" is not a
// tag). Every form starts with a letter or digit, so the start is a word boundary not preceded by
// a joiner; testing "\b" first lets the engine skip most positions cheaply.
export const TOKEN_START = String.raw`\b(?<![.\-])`;
export const TOKEN_END = String.raw`(?![A-Za-z0-9_]|[\-.][A-Za-z0-9]|:\d)`;

/** Builds a global regex whose match is one of `forms`, starting and ending on token edges. */
export function tokenRegex(forms: readonly string[]): RegExp {
  return new RegExp(`${TOKEN_START}(?:${forms.join('|')})${TOKEN_END}`, 'g');
}

/**
 * Runs `re` once over `text`; `build` turns a match into a candidate or rejects it.
 * `re` must be global and unable to match the empty string.
 */
export function scan<T>(
  re: RegExp,
  text: string,
  build: (match: RegExpExecArray) => Candidate<T> | undefined,
): Candidate<T>[] {
  const found: Candidate<T>[] = [];
  re.lastIndex = 0;
  for (let match = re.exec(text); match !== null; match = re.exec(text)) {
    const candidate = build(match);
    if (candidate !== undefined) found.push(candidate);
    // A rejected match must not hide a later one that starts inside it ("may 5 days" → "5 days");
    // the token-edge assertions keep the retry from landing mid-token, so the pass stays linear.
    else re.lastIndex = match.index + 1;
  }
  return found;
}

/** The common case: the whole match is the item, compared case-insensitively. */
export function wholeMatch(match: RegExpExecArray): Candidate<string> {
  const text = match[0];
  return { start: match.index, end: match.index + text.length, key: text.toLowerCase(), item: text };
}
