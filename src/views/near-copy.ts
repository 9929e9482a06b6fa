// Near-copies that contradict the text: an item that repeats a span of the text except for a few
// tokens, where those tokens turn its meaning round (elevated → reduced, above → below, opened →
// closed, is required → is not required). Such an item matches the text partially — most of its
// words are there — so the partial match alone would pass it; read against the span it copies,
// it says the opposite.
//
// The rule is over an alignment: the item's tokens against the tokens of the clauses it was
// located in, anchored by the longest common run at its start and at its end. What lies between
// the anchors (at most MAX_CHANGED tokens on either side) is the change; it contradicts when one
// side negates and the other does not, when both name one axis (direction, comparator, state, order)
// with opposite signs, or when one is the other with a prefix that reverses it (un-, in-, non-, de-).
import type { Located } from './evidence-match.js';
import type { EvidenceText, Token } from './evidence-text.js';
import { negationCues } from './claims.js';

/** At most this many tokens changed on either side: more is a paraphrase, not a near-copy. */
const MAX_CHANGED = 4;
/** At least this many tokens copied around the change. */
const MIN_ANCHOR = 2;

// Words with a sign on an axis: a change from one sign to the other on the same axis turns the
// statement round. Axes: amount and direction, comparator, state of equipment, outcome of a test,
// order in time, place relative to a bound.
const AXES: ReadonlyMap<string, readonly [string, number]> = new Map(
  (
    [
      ['amount', 1, 'elevated increased increasing increase increases higher high rising rose rise rises raised greater more above exceeded exceeds exceed exceeding over maximum most upward up'],
      ['amount', -1, 'reduced decreased decreasing decrease decreases lower low falling fell fall falls dropped dropping less fewer below under minimum least downward down'],
      ['open', 1, 'open opened opening opens'],
      ['open', -1, 'closed close closing closes shut'],
      ['run', 1, 'started start starting starts running energized'],
      ['run', -1, 'stopped stop stopping stops tripped secured'],
      ['result', 1, 'passed pass met satisfactory acceptable successful'],
      ['result', -1, 'failed fail unsatisfactory unacceptable unsuccessful'],
      ['order', 1, 'before prior preceding earlier'],
      ['order', -1, 'after following subsequent later'],
      ['bound', 1, 'within inside'],
      ['bound', -1, 'outside beyond'],
      ['trip', 1, 'tripped'],
      ['trip', -1, 'reset'],
    ] as const
  ).flatMap(([axis, sign, words]) => words.split(' ').map((w) => [w, [axis, sign]] as const)),
);
// "tripped" is on two axes: stopped, and tripped against reset.
const SECOND_AXIS: ReadonlyMap<string, readonly [string, number]> = new Map([['tripped', ['trip', 1]]]);

const REVERSING_PREFIXES = ['un', 'in', 'non', 'de', 'dis'];

/** The changed words of an item that copies the text with its meaning turned round, or null. */
export function nearCopyContradiction(item: readonly Token[], text: EvidenceText, located: Located): string | null {
  if (located.match !== 'partial' || located.clauses.length === 0 || item.length < MIN_ANCHOR + 1) return null;
  const from = located.clauses[0]!.first;
  const to = located.clauses[located.clauses.length - 1]!.last;
  const I = item.map((t) => t.norm);
  const T: string[] = [];
  for (let k = from; k < to; k++) T.push(text.tokens[k]!.norm);
  const m = I.length;

  // The longest run of the item's first tokens in the window, and of its last ones.
  let p = 0;
  let j = -1;
  for (let k = 0; k < T.length; k++) {
    if (T[k] !== I[0]) continue;
    let n = 0;
    while (n < m && k + n < T.length && T[k + n] === I[n]) n++;
    if (n > p) [p, j] = [n, k];
  }
  let s = 0;
  let e = -1;
  for (let k = T.length; k > 0; k--) {
    if (T[k - 1] !== I[m - 1]) continue;
    let n = 0;
    while (n < m && k - 1 - n >= 0 && T[k - 1 - n] === I[m - 1 - n]) n++;
    if (n > s) [s, e] = [n, k];
  }
  if (p >= m || s >= m) return null;

  const turned = turnedWord(I, T);
  if (turned !== null) return turned;
  let itemMiddle: string[];
  let textMiddle: string[];
  let anchor: number;
  let copiedEnd: number;
  if (j >= 0 && e >= 0 && p + s <= m && e - s >= j + p && e - s - (j + p) <= MAX_CHANGED) {
    itemMiddle = I.slice(p, m - s);
    textMiddle = T.slice(j + p, e - s);
    anchor = p + s;
    copiedEnd = e;
  } else if (j >= 0 && p >= s) {
    // The change is at the end: as many text tokens as the item has left.
    itemMiddle = I.slice(p);
    textMiddle = T.slice(j + p, j + p + itemMiddle.length);
    anchor = p;
    copiedEnd = j + p + itemMiddle.length;
  } else if (e >= 0) {
    itemMiddle = I.slice(0, m - s);
    textMiddle = T.slice(Math.max(0, e - s - itemMiddle.length), e - s);
    anchor = s;
    copiedEnd = e;
  } else return null;
  if (anchor < MIN_ANCHOR || itemMiddle.length > MAX_CHANGED || textMiddle.length > MAX_CHANGED) return null;
  if (itemMiddle.length === 0 && textMiddle.length === 0) return null;
  // Polarity is the whole item's against the clause up to where the copy ends: a negation the text
  // puts before the copied words ("Do not operate the pump with …") negates them there too.
  const polarity = negationCues(I).length % 2 !== negationCues(T.slice(0, copiedEnd)).length % 2;
  const changedPolarity = negationCues(itemMiddle).length % 2 !== negationCues(textMiddle).length % 2;
  if (changedPolarity && polarity) return itemMiddle.join(' ') || `no "${textMiddle.join(' ')}"`;
  return opposite(itemMiddle, textMiddle) ? itemMiddle.join(' ') : null;
}

/**
 * A paraphrase's word turned round: an item word on an axis that the window does not hold, where
 * the window holds only the opposite sign of that axis ("stopped" where the clause says "start"),
 * or the item word is a window word with a reversing prefix added or taken away.
 */
function turnedWord(item: readonly string[], window: readonly string[]): string | null {
  const present = new Set(window);
  const signsOf = new Map<string, Set<number>>();
  for (const w of window) {
    for (const table of [AXES, SECOND_AXIS]) {
      const entry = table.get(w);
      if (entry !== undefined) (signsOf.get(entry[0]) ?? signsOf.set(entry[0], new Set()).get(entry[0])!).add(entry[1]);
    }
  }
  for (const w of item) {
    if (present.has(w)) continue;
    const entry = AXES.get(w);
    const signs = entry === undefined ? undefined : signsOf.get(entry[0]);
    if (entry !== undefined && signs !== undefined && signs.has(-entry[1]) && !signs.has(entry[1])) return w;
    if (w.length < 5) continue;
    const bare = w.replaceAll('-', '');
    for (const prefix of REVERSING_PREFIXES) {
      if (bare.startsWith(prefix) && present.has(bare.slice(prefix.length))) return w;
      if (present.has(prefix + bare) || present.has(`${prefix}-${bare}`)) return w;
    }
  }
  return null;
}

/** Whether the item's changed tokens name the opposite of the text's on one axis. */
function opposite(item: readonly string[], text: readonly string[]): boolean {
  const signs = (words: readonly string[]): Map<string, number> => {
    const out = new Map<string, number>();
    for (const w of words) {
      for (const table of [AXES, SECOND_AXIS]) {
        const entry = table.get(w);
        if (entry !== undefined) out.set(entry[0], (out.get(entry[0]) ?? 0) + entry[1]);
      }
    }
    return out;
  };
  const a = signs(item);
  const b = signs(text);
  for (const [axis, sign] of a) {
    const other = b.get(axis);
    if (other !== undefined && Math.sign(other) === -Math.sign(sign) && sign !== 0) return true;
  }
  // "operable" → "inoperable", "energized" → "de energized": the same word with a reversing prefix.
  const joined = (words: readonly string[]): string => words.join('').replaceAll('-', '');
  const x = joined(item);
  const y = joined(text);
  for (const prefix of REVERSING_PREFIXES) if ((x === prefix + y || y === prefix + x) && Math.min(x.length, y.length) >= 3) return true;
  return false;
}
