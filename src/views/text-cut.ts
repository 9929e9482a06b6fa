// Cuts chunk text to a length budget at the last sentence end, else the last word break, so a
// prompt never ends mid-word. Lengths are in Unicode code points, not UTF-16 units.

export interface TextCut {
  /** Length of the whole text. */
  text_chars: number;
  /** Length of what was kept. */
  kept_chars: number;
  cut_at: 'sentence' | 'word' | 'char';
}

// Cutting earlier than half the budget throws away too much; a hard cut is better then.
const MIN_KEEP_RATIO = 0.5;
const SENTENCE_END_RE = /[.!?](?=\s)|\n/g;
const WHITESPACE_RE = /\s/;

export function cutText(text: string, maxChars: number | undefined): { text: string; cut: TextCut | null } {
  if (maxChars === undefined) return { text, cut: null };
  const limit = utf16Index(text, maxChars);
  if (limit >= text.length) return { text, cut: null };
  const minKeep = utf16Index(text, Math.floor(maxChars * MIN_KEEP_RATIO));
  // One character past the budget, so a sentence ending exactly at the budget is seen.
  const window = text.slice(0, limit + 1);
  let end = -1;
  for (const m of window.matchAll(SENTENCE_END_RE)) {
    const after = m[0] === '\n' ? m.index : m.index + 1;
    if (after <= limit && after >= minKeep) end = after;
  }
  let kind: TextCut['cut_at'] = 'sentence';
  if (end < 0) {
    kind = 'word';
    for (let i = limit; i >= minKeep; i--) {
      if (WHITESPACE_RE.test(text[i]!)) {
        end = i;
        break;
      }
    }
  }
  if (end < 0) {
    kind = 'char';
    end = limit;
  }
  const kept = text.slice(0, end).trimEnd();
  return { text: kept, cut: { text_chars: codePoints(text), kept_chars: codePoints(kept), cut_at: kind } };
}

/** UTF-16 index just after the first `n` code points (text.length if shorter). */
function utf16Index(text: string, n: number): number {
  let index = 0;
  for (let count = 0; count < n && index < text.length; count++) {
    const code = text.charCodeAt(index);
    index += code >= 0xd800 && code <= 0xdbff && index + 1 < text.length ? 2 : 1;
  }
  return index;
}

export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
