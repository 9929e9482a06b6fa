// HTTP error details both model clients read, kept apart from either so that the OpenAI client
// never loads the ollama package.

// Undici nests the system error in `cause`, and happy-eyeballs connects wrap several in an AggregateError.
export function errorCodeOf(err: unknown, depth = 0): string | null {
  if (depth > 4 || err === null || typeof err !== 'object') return null;
  const { code, cause, errors } = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = errorCodeOf(inner, depth + 1);
      if (found !== null) return found;
    }
  }
  return errorCodeOf(cause, depth + 1);
}

const DELTA_SECONDS = /^\d+$/;
// IMF-fixdate and its obsolete forms all open with a day name; Date.parse alone would take "-3" as a year.
const HTTP_DATE = /^[A-Za-z]{3},? /;

export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (DELTA_SECONDS.test(trimmed)) return Number(trimmed) * 1000;
  const at = HTTP_DATE.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
