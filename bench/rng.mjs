// The seeded generator of the bench corpora: mulberry32, so a seed gives the same bytes everywhere.
// `rand.state` is the generator's current 32-bit state (generate-corpus.mjs derives hashes from it).
export function seededRandom(seed) {
  let state = Number(seed) >>> 0;
  const rand = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  Object.defineProperty(rand, 'state', { get: () => state });
  return rand;
}
