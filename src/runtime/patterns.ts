// Every regular expression that is built at run time from strings is made here, nowhere else.
// Chunk text is untrusted, so every pattern must run in linear time; the ReDoS check
// (test/patterns/linear.test.ts) reads the regex literals from dist/ and takes the built ones from
// this registry, as compiled, so a pattern assembled from pieces or word lists is checked too.

/** A pattern made by buildPattern: where (a name unique to its call site), its source and flags. */
export interface BuiltPattern {
  readonly site: string;
  readonly source: string;
  readonly flags: string;
}

// A handful of entries: only fixed builders (constants, the built-in word lists) call buildPattern.
const built = new Map<string, BuiltPattern>();

/** Compiles a pattern assembled from constant pieces; `site` names the call site for the check. */
export function buildPattern(site: string, source: string, flags: string): RegExp {
  const re = new RegExp(source, flags);
  const key = `${site}\u0000${source}\u0000${flags}`;
  if (!built.has(key)) built.set(key, { site, source, flags });
  return re;
}

const SPECIAL_RE = /[.*+?^${}()|[\]\\/]/g;

/** The literal text as a pattern source: every character stands for itself. */
export function escapePattern(literal: string): string {
  return literal.replace(SPECIAL_RE, '\\$&');
}

/**
 * A pattern that matches `literal` as written. Linear by construction (no quantifier, group or
 * class survives escaping), so it is not recorded: terms from chunks and lexicons come here,
 * unbounded in number.
 */
export function literalPattern(literal: string, flags: string): RegExp {
  return new RegExp(escapePattern(literal), flags);
}

/** What buildPattern has made so far in this process (for the ReDoS check). */
export function builtPatterns(): BuiltPattern[] {
  return [...built.values()];
}
