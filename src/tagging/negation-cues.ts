// The negation vocabulary: the words and phrases that say a thing did not happen, is not so or was
// excluded, and the phrases that hold a negation word but are limits. One list for the whole
// toolkit: rca-tag builds its cue pattern and head words from it (negation.ts), and rca-validate's
// claim checks read a token list with negationCueTokens (views/claims.ts). A cue added here is a
// negation to both, so an extractive item quoting a sentence that tag read as ruling a mention out
// is read as negated by the claim check too, and is not flagged for stating what was ruled out.
//
// Words, lower case, a phrase's words joined by single spaces. Plain data and one token scan: no
// pattern is built here (tagging/negation.ts builds its own from these lists).

/** Words that negate by themselves ("nor" continues the scope of the "neither" or "not" before it: tag opens none of its own). */
export const NEGATION_WORDS = ['no', 'not', 'never', 'none', 'neither', 'nor', 'without', 'cannot'] as const;

/** The first token of an auxiliary written with "n't" ("didn't" is the tokens "didn" and "t"). */
export const CONTRACTED_NEGATIONS = ['didn', 'doesn', 'don', 'wasn', 'weren', 'isn', 'aren', 'hasn', 'haven', 'hadn', 'won', 'wouldn', 'couldn', 'shouldn', 'can', 'mustn'] as const;

/**
 * Participles that exclude what they are said of ("fouling was ruled out", "ruled out fouling"):
 * after a copula they rule out the clause before them; the first three also open a scope forward.
 */
export const EXCLUSION_PARTICIPLES = ['ruled out', 'excluded', 'eliminated', 'discounted', 'dismissed', 'refuted', 'disproved', 'precluded', 'prevented'] as const;
/**
 * Of EXCLUSION_PARTICIPLES, those written before what they exclude too ("excluded fouling", "the
 * trip precluded fuel damage", "the relief valve prevented overpressurization"). After a modal and
 * "have" they are a counterfactual, which rules nothing out: "earlier detection could have
 * prevented the failure" (the failure happened).
 */
export const FORWARD_EXCLUSIONS = ['ruled out', 'excluded', 'eliminated', 'precluded', 'prevented'] as const;

/** What contradicts the clause before it: "Tube fouling is contradicted by the flat trend". */
export const CONTRADICTION = 'contradicted by';

/** Phrases that rule out what follows them: "ramped off instead of tripping off", "free of debris". */
export const FORWARD_PHRASES = ['rather than', 'instead of', 'absence of', 'absence from', 'free of', 'free from', 'unaware of', 'inconsistent with'] as const;
/**
 * Of FORWARD_PHRASES, those whose object is the thing ruled out, whatever the lexicon knows
 * ("is unaware of any other similar occurrence", "ramped off instead of tripping off"): tag reads
 * the noun phrase after them (negation.ts ruledOutPhrases).
 */
export const NOUN_PHRASE_CUES = ['absence of', 'free of', 'free from', 'unaware of', 'instead of', 'rather than'] as const;

/** Verbs after "failed to" that report finding nothing ("failed to reproduce the fault"); "failed to start" is a failure, asserted. */
export const FAILED_TO_VERBS = ['reproduce', 'show', 'reveal', 'find', 'detect', 'identify', 'produce'] as const;

/** Nouns of "no evidence of", "without any signs of": what was looked for and not found. */
export const EVIDENCE_NOUNS = ['evidence', 'sign', 'signs', 'indication', 'indications', 'trace', 'traces', 'history', 'symptom', 'symptoms'] as const;

/**
 * Limits and times written with a negation word: no negated fact ("no more than 2.5 gpm", "not to
 * exceed 10 minutes", "no later than 0800"). Neither tag nor the claim check reads a cue there.
 */
export const LIMIT_PHRASES = [
  'no more than', 'no less than', 'no later than', 'no earlier than', 'no sooner than', 'no greater than', 'no fewer than', 'no longer than',
  'not to exceed', 'not exceed', 'not more than', 'not less than', 'not later than', 'not greater than', 'not above', 'not below',
] as const;

/**
 * Where a sentence turns, so a negation's scope ends before it: a contrast ("Leakage was observed,
 * although no cracking was found") or a consequence ("shipped without the screw locked and
 * therefore the settings could drift from vibration": the vibration is asserted).
 */
export const TURN_WORDS = ['although', 'but', 'however', 'though', 'whereas', 'while', 'yet', 'except', 'therefore', 'thus', 'consequently', 'hence'] as const;
/** After a comma, the start of what followed: "was not met, resulting in the seal failure" (the failure is asserted). */
export const TURN_AFTER_COMMA = ['which', 'resulting', 'causing', 'leading', 'thereby'] as const;

/**
 * Words that state a claim's negative polarity without ruling a mention out ("was unable to
 * start": the failure is asserted): the claim check reads them, tag opens no scope at them.
 */
export const POLARITY_WORDS = ['absent', 'absence', 'unable'] as const;

const split = (phrases: readonly string[]): string[][] => phrases.map((p) => p.split(' '));
let phraseTable: Map<string, string[][]> | undefined;

// Every multi-word cue by its first word (the claim check's scan).
function phrasesByFirst(): Map<string, string[][]> {
  if (phraseTable !== undefined) return phraseTable;
  const table = new Map<string, string[][]>();
  const add = (words: string[]) => {
    const list = table.get(words[0]!) ?? [];
    list.push(words);
    table.set(words[0]!, list);
  };
  for (const words of split([...EXCLUSION_PARTICIPLES, CONTRADICTION, ...FORWARD_PHRASES])) if (words.length > 1) add(words);
  for (const verb of FAILED_TO_VERBS) add(['failed', 'to', verb]);
  return (phraseTable = table);
}

const SINGLE = new Set<string>([
  ...NEGATION_WORDS,
  ...POLARITY_WORDS,
  ...[...EXCLUSION_PARTICIPLES, CONTRADICTION, ...FORWARD_PHRASES].filter((p) => !p.includes(' ')),
]);
const CONTRACTED = new Set<string>(CONTRACTED_NEGATIONS);
const LIMITS = split(LIMIT_PHRASES);
const NUMBER_RE = /^\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?$/;

const startsAt = (norms: readonly string[], i: number, words: readonly string[]): boolean => words.every((w, k) => norms[i + k] === w);

/**
 * Indexes of the negation cues among normalised tokens (lower case, apostrophes splitting
 * "didn't" into "didn" and "t"): each cue's first token. A limit phrase is no cue, nor "no"
 * before a number ("No. 2").
 */
export function negationCueTokens(norms: readonly string[]): number[] {
  const cues: number[] = [];
  const phrases = phrasesByFirst();
  for (let i = 0; i < norms.length; i++) {
    const w = norms[i]!;
    let cue = SINGLE.has(w) || (CONTRACTED.has(w) && norms[i + 1] === 't');
    if (!cue) {
      const candidates = phrases.get(w);
      cue = candidates !== undefined && candidates.some((words) => startsAt(norms, i, words));
    }
    if (w === 'no' && NUMBER_RE.test(norms[i + 1] ?? '')) cue = false;
    if (cue && (w === 'no' || w === 'not') && LIMITS.some((words) => startsAt(norms, i, words))) cue = false;
    if (cue) cues.push(i);
  }
  return cues;
}

/** The first word of every cue of the vocabulary: a text without one of them holds no cue. */
export function cueFirstWords(): string[] {
  const words = new Set<string>(NEGATION_WORDS);
  for (const p of [...EXCLUSION_PARTICIPLES, CONTRADICTION, ...FORWARD_PHRASES]) words.add(p.split(' ')[0]!);
  words.add('failed');
  return [...words];
}
