// How a text too long for the embedding model becomes pieces, and their vectors one (pure). The
// estimate is deliberately short of the truth (a token of technical English is 3 to 4 characters,
// identifiers and numbers fewer; 2.5 errs towards more pieces), and a piece the server still
// refuses is halved again by the caller: nothing is ever cut off.
const CHARS_PER_TOKEN = 2.5;
const SPACE = /\s/;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The characters a piece of `maxTokens` estimated tokens may hold. */
export function charsFor(maxTokens: number): number {
  return Math.max(1, Math.floor(maxTokens * CHARS_PER_TOKEN));
}

/**
 * Consecutive pieces of at most `maxChars` characters that together are the whole text, each cut
 * after the last whitespace within its bound (or at the bound when a word is longer). Joined, they
 * give the text back exactly.
 */
export function splitText(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > maxChars) {
    let end = start + maxChars;
    let cut = end;
    while (cut > start && !SPACE.test(text[cut - 1]!)) cut--;
    if (cut > start) end = cut;
    pieces.push(text.slice(start, end));
    start = end;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** Whether a vector has unit length (to the precision a float32 server gives). */
export function isUnit(vector: readonly number[]): boolean {
  let sum = 0;
  for (const x of vector) sum += x * x;
  return Math.abs(Math.sqrt(sum) - 1) < 1e-3;
}

/**
 * The mean of the pieces' vectors, weighted by their characters, brought back to unit length when
 * the pieces had it; rounded to 8 significant digits (more than a float32 holds), so records stay
 * short and the same on every machine.
 */
export function meanVector(vectors: readonly (readonly number[])[], weights: readonly number[]): number[] {
  const dims = vectors[0]!.length;
  const total = weights.reduce((a, b) => a + b, 0);
  const mean = new Array<number>(dims).fill(0);
  vectors.forEach((v, i) => {
    for (let d = 0; d < dims; d++) mean[d] = mean[d]! + (v[d]! * weights[i]!) / total;
  });
  if (vectors.every(isUnit)) {
    const norm = Math.sqrt(mean.reduce((s, x) => s + x * x, 0)) || 1;
    for (let d = 0; d < dims; d++) mean[d] = mean[d]! / norm;
  }
  return mean.map((x) => Number(x.toPrecision(8)));
}
