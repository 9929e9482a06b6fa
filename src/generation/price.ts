// --price: what the tokens of a run cost, at prices per million tokens. Three prices, because the
// three kinds of token cost differently: prompt tokens the engine computes, prompt tokens it serves
// from its prefix cache (a hosted API bills them lower; on one's own GPU they cost next to
// nothing), and output tokens, each of which is a step of the model. Pure and light: rca report
// and the generate stages both use it.

/** Prices per million tokens. */
export interface Price {
  prompt: number;
  cached: number;
  output: number;
}

/** What `--price` says is wrong with its value. */
export class PriceError extends Error {
  override name = 'PriceError';
}

const PRICE_RE = /^\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*(?:,\s*(\d+(?:\.\d+)?)\s*)?$/;

/** `IN,OUT[,CACHED]`, each a price per million tokens (CACHED defaults to IN). */
export function parsePrice(raw: string): Price {
  const m = PRICE_RE.exec(raw);
  if (m === null) throw new PriceError(`--price expects IN,OUT or IN,OUT,CACHED (prices per million tokens, e.g. 0.15,0.60), got '${raw}'`);
  const prompt = Number(m[1]);
  return { prompt, output: Number(m[2]), cached: m[3] === undefined ? prompt : Number(m[3]) };
}

export interface TokenCost {
  prompt: number;
  cached: number;
  output: number;
  total: number;
}

/** The cost of token counts (prompt counts every prompt token, cached those of them from the cache); unknown cached tokens are priced as computed ones. */
export function tokenCost(tokens: { prompt: number; cached: number | null; output: number }, price: Price): TokenCost {
  const cachedTokens = tokens.cached ?? 0;
  const prompt = ((tokens.prompt - cachedTokens) * price.prompt) / 1e6;
  const cached = (cachedTokens * price.cached) / 1e6;
  const output = (tokens.output * price.output) / 1e6;
  return { prompt: round6(prompt), cached: round6(cached), output: round6(output), total: round6(prompt + cached + output) };
}

/** A cost as the summary line and the report print it: cents for sums of a unit or more, else six places. */
export function costText(n: number): string {
  return n.toFixed(n >= 1 ? 2 : 6);
}

// Costs to a millionth of the currency unit: a sum of floats printed as it is would show 0.30000000000000004.
function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
