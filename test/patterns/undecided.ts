// The patterns recheck's automaton cannot decide (lookaround, back-references, or too large for
// it) and scslre does not flag, each with why it is linear. Keyed by where the pattern is and a hash of it as
// compiled, so a changed pattern is looked at again. test/patterns/linear.test.ts fails on one
// missing here and on an entry no pattern has any more, and runs each of them through generated
// hostile inputs.
import { createHash } from 'node:crypto';

/** "dist/views/extractive.js HEDGE_RE #1a2b3c4d": where (file and name, or buildPattern site) and what. */
export const undecidedKey = (where: string, source: string, flags: string): string =>
  `${where} #${createHash('sha256').update(`/${source}/${flags}`).digest('hex').slice(0, 8)}`;

export const UNDECIDED = new Map<string, string>([
  [
    "dist/cache/cache-key.js CACHE_KEY_RE #78e1c4d8",
    "Anchored at both ends, one class counted to 64: one start, at most 64 characters read (the count is past the automaton checker's limit of 30).",
  ],
  [
    "dist/cache/cache-options.js #006cd16e",
    "Anchored at both ends, one class counted to 200: one start, at most 200 characters read.",
  ],
  [
    "dist/tagging/extractors/scan.js FINDER #72454d53",
    "Each alternative takes one character after a word boundary. The lookahead over a run of capitals and digits starts only at the run's first character (there is no word boundary inside the run), so each run is read once; the other assertions look at most three characters back or two ahead.",
  ],
  [
    "dist/tagging/keyword-lists.js #cdda7d2c",
    "Anchored at the start (no m flag): one start. At most three lead words or numbers, each a fixed word or a digit run with an optional range, then its blank run; giving back a digit or a blank leaves a digit or a blank where a blank or a word must follow, so no earlier choice is ever retried.",
  ],
  [
    "dist/tagging/keyword-lists.js THRESHOLD_AFTER_RE #4c8ba1fc",
    "Anchored at the start: one start. At most three fixed lead words, each with its blank run, then one fixed word or a number's first character: a bounded number of bounded attempts.",
  ],
  [
    "buildPattern('tagging/negation: head words') #07a74877",
    "Fixed words (negation-cues.ts's first words, auxiliaries and copulas) between word boundaries, and `[a-z]+n't`, which starts only at a word boundary and so reads each word once: linear, as any alternation of literals is.",
  ],
  [
    "dist/tagging/negation.js NOUN_CUE_RE #02564ef5",
    "Anchored at both ends and tried only on a cue as matched (a few words): alternatives of fixed words joined by single spaces; the one letter run (the verb after \"failed to\") is followed by a fixed space or the end, which no letter matches, so it is never given back and retried.",
  ],
  [
    "buildPattern('tagging/negation: clause end') #ea00ed07",
    "Clause ends (src/tagging/negation.ts, the turn words from negation-cues.ts): single marks, or a blank run tried only from its first character (after a comma, the comma), which clauseEndAfter's slice makes the search's own start; the lookaheads read one word. The turn words after a comma (which, resulting, …) and \", and\" before a new subject (the, it, …) open with the comma, so their blank runs are read once from it.",
  ],
  [
    "dist/tagging/section-path.js #f31eed41",
    "An italic `*…*`: the text between the markers holds no `*`, so from an opener the search reads only to the next `*`; each stretch between two stars is read from the one opener before it. The assertions look one character either side.",
  ],
  [
    "dist/tagging/section-path.js #e44150c6",
    "As the `*` form, with `_`: the content holds no `_`, so each stretch between two underscores is read from the one opener before it.",
  ],
  [
    "dist/tagging/section-role.js #44367591",
    "The first alternative starts only right after a letter or digit (lookbehind), so a run of `_`/`-` is read once from its start; the second takes the run of `_` it starts on, which the global replace then steps past.",
  ],
  [
    "dist/views/evidence-match.js SENTENCE_SPLIT_RE #97ee9748",
    "Starts only right after `.!?;` (lookbehind); from there one blank run, then a one-character lookahead: each blank run is read once.",
  ],
  [
    "dist/views/evidence-text.js CLAUSE_END_RE #5f3c8ee5",
    "Clause ends (src/views/evidence-text.ts): a blank run before a conjunction is tried from its first character, after a comma, or after a line break up to the next one, never from each of its characters; the other forms are one or two marks.",
  ],
  [
    "dist/views/evidence.js ID_IN_TEXT_RE #0b5328d1",
    "Starts only at the first character of an id-like token (lookbehind); the two lookaheads and the body (segments split by `-_*`, unambiguous) each read that token once.",
  ],
  [
    "dist/views/extractive.js SENTENCE_END_RE #31b284e9",
    "Starts only at the first mark of a run of `.!?` (lookbehind): the run and the closing quotes after it are read once, then a one-character lookahead.",
  ],
  [
    "dist/views/extractive.js HEDGE_RE #3ecb2ba4",
    "Fixed words after a word boundary; the negative lookaheads (`may(?!\\s+(?:not\\b|\\d))`, …) read the one blank run after the word and one word: each blank run is read once per word before it.",
  ],
  [
    "dist/views/extractive.js TEST_RE #82ba2d29",
    "Fixed words after a word boundary; the lookahead `(?!\\s+valves?\\b)` reads the blank run after the word and one word.",
  ],
  [
    "dist/views/extractive.js ACTION_RE #50b33f46",
    "Fixed words and phrases between word boundaries, with bounded lookaheads after some: linear, as an alternation of literals is.",
  ],
  [
    "dist/views/extractive.js NORMATIVE_RE #9ce7e667",
    "Fixed words and phrases after a word boundary; `hold(?:\\s+points?)?` reads one blank run; the lookaheads read one character or one word.",
  ],
  [
    "dist/views/extractive.js INSTRUCTION_PREFIX_RE #cd991da4",
    "Anchored at the start: one start. Nothing follows the loop, so the first count of markers the greedy loop reaches is the match and it never goes back into earlier ones; each marker reads at most 40 characters (a label) or one number, then its blank run.",
  ],
  [
    "dist/views/extractive.js LEADING_CLAUSE_RE #5d44c0b2",
    "Anchored at the start: one start; a fixed word, at most 150 characters up to a comma, then one blank run.",
  ],
  [
    "dist/views/extractive.js OBLIGATION_RE #0fbed606",
    "Fixed words after a word boundary; each lookahead `(?!\\s+not\\b)` reads the one blank run after the word and one word.",
  ],
  [
    "dist/views/extractive.js LABEL_PREFIX_RE #b3a4cc97",
    "Anchored at the start: one start; at most 41 label characters, a colon, one blank run.",
  ],
  [
    "dist/views/grounding.js NUMBER_RE #1c8b10b6",
    "Starts only at the first digit of a digit run (the lookbehind refuses a digit before); the groups that follow are unambiguous (`,ddd` that no digit follows, one decimal part).",
  ],
  [
    "dist/views/grounding.js QUOTE_RE #1131e4cd",
    "A straight quote's content holds no `\"`, so each opener reads only to the next quote; inside curly quotes each inner blank run must be followed by a phrase character, so no blank goes to either side of the phrase, and the content stops at the next curly quote or line break.",
  ],
  [
    "buildPattern('tagging/extractors/identifiers: DOC_REF_RE') #a21a636a",
    "Sticky, tried only at token starts (findStarts; the lookbehind refuses a start after `.` or `-`). Each form is a fixed prefix and counted digit runs or separated segments (a plant segment is letters and digits, then a year, then one optional blank before the serial; a year's serial may follow one fixed line break), unambiguous, so one attempt reads one token and the two-character end test.",
  ],
  [
    "buildPattern('tagging/extractors/identifiers: ALARM_RE') #73bc65ca",
    "Sticky, tried only at token starts. Fixed prefixes with counted runs (`\\d{3,6}`, `(?:-[A-Z0-9]{1,6}){0,3}`): one attempt reads a bounded stretch of one token.",
  ],
  [
    "buildPattern('tagging/extractors/identifiers: FM_ID_RE') #fd396496",
    "Sticky, tried only at token starts. `FM(?:_[A-Z0-9]+)+`: segments split by `_`, unambiguous, so one attempt reads one token once.",
  ],
  [
    "buildPattern('tagging/extractors/identifiers: EQUIPMENT_RE') #df7d512c",
    "Sticky, tried only at token starts (not after `-`, so never inside a hyphenated tag). Segments split by `-` (or one `*`), unambiguous: one attempt reads one token once.",
  ],
  [
    "buildPattern('tagging/extractors/measurements: MEASUREMENT_RE') #cfc8d680",
    "Sticky, tried only at a number's first character (the lookbehind refuses a start after a digit, letter or joiner). The number forms share digits (a fraction is at most two digits, a slash and two digits), but giving one back leaves a digit where only a separator, a unit or a range mark may follow, which fails at once; blank runs are read once per attempt, and the hyphen separator is one character.",
  ],
  [
    "buildPattern('tagging/extractors/temporal: TEMPORAL_RE') #490da4ea",
    "Sticky, tried only at findStarts' starts (a digit, or a month or duration word before a number). Every form is counted digits, fixed words and single blank runs (a zone: a fixed word, or one in brackets with at most one blank each side): one attempt reads a bounded number of tokens and the blank runs between them. The bare time's lookbehind reads `at ` and at most one fixed approximation word back (a bounded literal), and its lookahead reads a fixed clause mark or function word, or one blank run to a line end: the run is read once, by the one attempt at the time before it.",
  ],
  [
    "buildPattern('tagging/extractors: REGULATORY_RE') #1a48c0bd",
    "Starts only at a token start (lookbehind). Fixed prefixes (NUREG and its OCR form a two-way literal choice, a hyphen or one blank after; a Regulatory Guide's optional fixed \"(RG)\"), counted digit runs and unambiguous segment loops (`(?:\\.\\d+)*`, `(?:[.-]\\d{1,4})*`): each attempt reads one reference-shaped stretch once.",
  ],
  [
    "buildPattern('tagging/section-role: keywords') #278dd5cd",
    "SOP's keywords. An alternation of literal keywords at a word start, a fixed plural ending and a one-character lookahead: each start reads at most the longest keyword plus two; the prefix form `applicab\\p{L}*` reads one word.",
  ],
  [
    "buildPattern('tagging/section-role: keywords') #62fa1fa1",
    "OTHER's keywords, of the same shape as SOP's: literal keywords at a word start, a fixed plural ending, a one-character lookahead, and the prefix form `applicab\\p{L}*` reading one word.",
  ],
  [
    "buildPattern('tagging/negation: cue') #045b1fa6",
    "Sticky, tried at head words only. Each form is fixed words joined by single blank runs (and one optional `\\p{L}+ly` word): an attempt reads at most the words of the longest form and the blank runs between them, so a blank run is read by a bounded number of attempts. The lookaheads after \"did not result\" (or occur, happen, exist), after \"failed to identify\" (or detect) and after \"none\" each read one blank run and one word.",
  ],
]);
