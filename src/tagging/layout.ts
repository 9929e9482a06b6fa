// How a reader sees a chunk's text. PDF and OCR converters hand over the page as it was printed:
// prose hard-wrapped at 70-80 columns with words hyphenated at the line end, form fields and field
// blocks, checkboxes, ASCII tables with borders, headings in capitals, letterheads, addresses,
// signature and distribution blocks, page headers and footers. A reader joins the wrapped lines
// into paragraphs and does not take a field label or a page footer for a sentence; this module
// does the same, by the shape of each line (field-label syntax, capitals, lower-case words,
// punctuation, length) and of its neighbours, never by the strings of any one document.
//
// Every line is classed once (lineShape, a hand scan of its characters), then looked at beside the
// lines around it (a window of a few lines: a label followed by prose is a heading, a title-like
// line inside a wrapped sentence is part of it), then consecutive prose lines are joined where the
// first does not end its sentence. The result (readingOf) is the reader's text: the chunk text with
// each join's line break (and the blank or stray lines a scan leaves between wrapped lines) made
// one space, an end-of-line hyphenation undone, and a boxed paragraph's frame removed; nothing else
// changes, so a text without wrapped lines is returned as it is. Beside it: the non-prose lines of
// that text with their kinds (views take no sentence from them), the spans of form labels (the tag
// stage takes no lexicon term from them), and a summary the section role and the doc form read.
//
// Linear in the text: one pass over its characters per line, a bounded look back from each colon
// for a label, a window of a few lines; memory is the reader's text and a few numbers per line.

export type LineKind =
  | 'blank'
  | 'prose'
  | 'row'
  | 'field'
  | 'checkbox'
  | 'border'
  | 'heading'
  | 'reference'
  | 'furniture'
  | 'address'
  | 'signature'
  | 'noise';

/** The kinds views never take an item from (a `row` is a table's data row, read as it is). */
export const NON_PROSE_KINDS: ReadonlySet<LineKind> = new Set(['field', 'checkbox', 'border', 'heading', 'reference', 'furniture', 'address', 'signature', 'noise']);

// Words of no content: a line made of capitalised words and these is a title, a name or an
// address, not a sentence; a line that ends on one of them goes on (the article, preposition or
// auxiliary wants its noun). General English, lower case.
const FUNCTION_WORDS = new Set([
  'a', 'an', 'the', 'of', 'to', 'in', 'on', 'at', 'by', 'for', 'with', 'from', 'into', 'onto', 'upon', 'about', 'through', 'throughout',
  'and', 'or', 'nor', 'but', 'as', 'than', 'then', 'per', 'via', 'if', 'when', 'while', 'after', 'before', 'during', 'under', 'over',
  'between', 'within', 'without', 'against', 'among', 'since', 'until', 'unless', 'because', 'whether', 'is', 'was', 'were', 'are', 'be',
  'been', 'being', 'am', 'has', 'have', 'had', 'do', 'does', 'did', 'will', 'would', 'shall', 'should', 'may', 'might', 'can', 'could',
  'must', 'that', 'which', 'who', 'whom', 'whose', 'this', 'these', 'those', 'it', 'its', 'their', 'his', 'her', 'our', 'your', 'my',
  'not', 'no', 'any', 'all', 'each', 'both', 'such', 'there', 'also', 'only', 'very', 'more', 'most', 'other', 'some', 'so',
]);
// A line ending on one of these is not a sentence's end even with no function word: "...the", "...and".
const CONTINUING_ENDS = FUNCTION_WORDS;

// Words a form label may hold beside its capitalised ones ("Description of Circumstances:",
// "Date I Time:", "Person (Organization):").
const LABEL_CONNECTORS = new Set(['of', 'and', 'or', 'for', 'to', 'the', 'in', 'by', 'at', 'on', 'no', 'per', 'w/', 'i', '&', '/', '-', 'a']);
const MAX_LABEL_CHARS = 48;
const MAX_LABEL_WORDS = 6;

// Labels that open a reference or distribution line of a letter or report.
const REFERENCE_LABELS = new Set(['reference', 'references', 'ref', 'refs', 'cc', 'bcc', 'enclosure', 'enclosures', 'attachment', 'attachments', 'distribution', 'copy', 'copies']);
// Salutations and closings of a letter (the first word of the line, lower case).
const LETTER_WORDS = new Set(['dear', 'sincerely', 'respectfully', 'cordially', 'regards']);
// Labels of a letter's or memorandum's heading block.
const LETTER_LABELS = new Set(['subject', 'subj', 'attn', 'attention', 'memorandum for', 'from', 'to', 're', 'thru']);

// Hyphenated at the line end after one of these, the hyphen is the word's own ("self-identified",
// "non-safety", "post-trip"): English prefixes written with a hyphen.
const HYPHEN_PREFIXES = new Set(['self', 'non', 'post', 'ex', 'well', 'cross', 'all', 'half', 'quasi']);
// After one of these, only before the letter the prefix ends with ("pre-existing", "re-enter",
// "de-energize", "co-owner", "anti-icing"); otherwise the hyphen is the line end's ("de-\nsigned").
const DOUBLED_VOWEL_PREFIXES = new Set(['pre', 're', 'de', 'co', 'anti', 'semi', 'multi', 'ultra', 'intra', 'micro', 'macro']);

/**
 * Verbs that open an instruction in a procedure (the extractive views' imperative verbs too):
 * an all-capitals line that starts with one ("CHECK SI PUMPS - RUNNING") is a step, not a heading.
 */
export const ACTION_VERBS = [
  'replace', 'repair', 'realign', 'align', 'add', 'lower', 'raise', 'perform', 'install', 'remove', 'adjust', 'clean', 'lubricate',
  'tighten', 'torque', 'uncouple', 'couple', 'rebuild', 'overhaul', 'restore', 'reset', 'isolate', 'start', 'stop', 'open', 'close',
  'throttle', 'notify', 'initiate', 'issue', 'generate', 'submit', 'review', 'evaluate', 'track', 'attach', 'retain', 'reschedule',
  'address', 'reduce', 'increase', 'implement', 'revise', 'update', 'train', 'enter', 'declare', 'establish', 'secure', 'shut', 'run',
  'place', 'set', 'return', 'obtain', 'ensure', 'maintain', 'document', 'log', 'report', 'contact', 'inform', 'request', 'schedule',
  'complete', 'apply', 'use', 'operate', 'recommend', 'consider', 'investigate', 'determine', 'identify', 'discriminate', 'flush',
  'drain', 'fill', 'vent', 'replenish', 'refill', 'rotate', 'lock', 'unlock', 'tag', 'verify', 'check', 'inspect', 'measure', 'test',
  'monitor', 'record', 'confirm', 'trend', 'sample', 'analyze', 'analyse', 'observe', 'capture', 'read', 'calibrate', 'walk down',
];
// Emergency procedures' own verbs, beside those: "TRIP Reactor", "DISPATCH NPO", "GO TO Step 5".
const STEP_VERBS = new Set([...ACTION_VERBS, 'trip', 'dispatch', 'go', 'proceed', 'insert', 'depressurize', 'cooldown', 'transfer', 'align', 'energize', 'deenergize']);

// ---------------------------------------------------------------------------------------------
// Characters.

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isAsciiUpper = (c: number): boolean => c >= 0x41 && c <= 0x5a;
const isAsciiLower = (c: number): boolean => c >= 0x61 && c <= 0x7a;
const isBlank = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0xa0 || c === 0x0b || c === 0x0c || c === 0x3000 || (c >= 0x2000 && c <= 0x200a);

// Outside ASCII a letter's case is asked of the regex engine once per code unit and remembered.
const LETTER_LOWER = 1;
const LETTER_UPPER = 2;
const LETTER_OTHER = 3;
const NOT_LETTER = 4;
const letterClasses = new Uint8Array(0x10000);
let letterRes: { lower: RegExp; upper: RegExp; letter: RegExp } | undefined;

function letterClass(c: number): number {
  if (c < 0x80) return isAsciiLower(c) ? LETTER_LOWER : isAsciiUpper(c) ? LETTER_UPPER : NOT_LETTER;
  let known = letterClasses[c]!;
  if (known === 0) {
    letterRes ??= { lower: /^\p{Ll}$/u, upper: /^\p{Lu}$/u, letter: /^\p{L}$/u };
    const ch = String.fromCharCode(c);
    known = letterRes.lower.test(ch) ? LETTER_LOWER : letterRes.upper.test(ch) ? LETTER_UPPER : letterRes.letter.test(ch) ? LETTER_OTHER : NOT_LETTER;
    letterClasses[c] = known;
  }
  return known;
}
const isLetter = (c: number): boolean => letterClass(c) !== NOT_LETTER;
const isAlnum = (c: number): boolean => isDigit(c) || isLetter(c);

// ---------------------------------------------------------------------------------------------
// One line.

/** What a line is, seen alone, and the facts its neighbours need. */
export interface LineShape {
  /** The line: [start, end) in the text, without its line break. */
  start: number;
  end: number;
  /** Its content: trimmed, and inside the frame of a boxed line (`| text |`). */
  cStart: number;
  cEnd: number;
  kind: LineKind;
  /** A label-only line ("Purpose:", "Docket No.:"): a heading or a field, as the next line says. */
  labelOnly: boolean;
  /** Capitalised words only (beside function words): a title, a name, a date, an address. */
  titleLike: boolean;
  framed: boolean;
  words: number;
  /** Ends a sentence or a clause: . ! ? ; : (closing quotes and brackets aside). */
  ends: boolean;
  /** Ends as a sentence that goes on does: a comma, an open bracket, a function word, a hyphen. */
  continues: boolean;
  /** Ends on a word cut by a hyphen ("equip-"), the letters before it lower case. */
  wrapHyphen: boolean;
  startsLower: boolean;
  /** Opens with a list marker or a step number ("1.", "a)", "o ", "-", "Step 3"). */
  listItem: boolean;
  /** An instruction ("VERIFY Reactor Trip;", "Manually CLOSE all MSIVs"). */
  instruction: boolean;
  /** Form labels of the line: [start, end) pairs, the colon left out. */
  labels: number[];
}

interface WordFacts {
  words: number;
  /** Alphabetic words of three letters or more that are not function words. */
  content: number;
  /** Of those, the ones that start with a lower-case letter. */
  lowerContent: number;
  firstLower: boolean;
  firstLowerWord: boolean;
  lastWord: string;
  /** The first two words, lower case, list markers skipped. */
  first: string;
  second: string;
  firstAllCaps: boolean;
  secondAllCaps: boolean;
  listItem: boolean;
  /** The list marker is a bullet ("-", "•", "o"), not a number. */
  bullet: boolean;
  lettersMax: number;
}

function lineFacts(text: string, start: number, end: number): LineShape {
  let cStart = start;
  let cEnd = end;
  while (cStart < cEnd && isBlank(text.charCodeAt(cStart))) cStart++;
  while (cEnd > cStart && isBlank(text.charCodeAt(cEnd - 1))) cEnd--;
  const shape: LineShape = {
    start,
    end,
    cStart,
    cEnd,
    kind: 'blank',
    labelOnly: false,
    titleLike: false,
    framed: false,
    words: 0,
    ends: false,
    continues: false,
    wrapHyphen: false,
    startsLower: false,
    listItem: false,
    instruction: false,
    labels: [],
  };
  if (cStart === cEnd) return shape;
  // A boxed line: `| text |` with no other pipe. Its content is read as a line of its own.
  let pipes = 0;
  for (let i = cStart; i < cEnd; i++) if (text.charCodeAt(i) === 0x7c) pipes++;
  if (pipes === 2 && text.charCodeAt(cStart) === 0x7c && text.charCodeAt(cEnd - 1) === 0x7c && cEnd - cStart >= 2) {
    shape.framed = true;
    cStart++;
    cEnd--;
    while (cStart < cEnd && isBlank(text.charCodeAt(cStart))) cStart++;
    while (cEnd > cStart && isBlank(text.charCodeAt(cEnd - 1))) cEnd--;
    shape.cStart = cStart;
    shape.cEnd = cEnd;
    pipes = 0;
    if (cStart === cEnd) {
      shape.kind = 'noise';
      return shape;
    }
  }
  classify(text, shape, pipes);
  return shape;
}

function classify(text: string, shape: LineShape, pipes: number): void {
  const { cStart, cEnd } = shape;
  let alnum = 0;
  let digits = 0;
  let rules = 0;
  let plus = false;
  let checkbox = false;
  for (let i = cStart; i < cEnd; i++) {
    const c = text.charCodeAt(i);
    if (isDigit(c)) {
      alnum++;
      digits++;
    } else if (isLetter(c)) alnum++;
    else if (c === 0x2d || c === 0x3d || c === 0x5f || c === 0x2b || c === 0x2a || c === 0x7e) {
      rules++;
      if (c === 0x2b) plus = true;
    }
    else if (c === 0x5b && checkboxAt(text, i, cEnd)) checkbox = true;
    else if (c >= 0x2610 && c <= 0x2612) checkbox = true;
  }
  const w = wordFacts(text, cStart, cEnd);
  shape.words = w.words;
  shape.listItem = w.listItem;
  shape.startsLower = w.firstLower;
  endingOf(text, shape, w);
  // Title-like: no lower-case content word (one allowed in a long line, for an OCR slip).
  shape.titleLike = w.content > 0 && !w.firstLowerWord && w.lowerContent <= (w.content >= 6 ? 1 : 0);
  shape.instruction = isInstruction(w);

  if (alnum === 0) {
    // `+-----+`, `-----`, `=====`: a border; `|---|:--|` is a markdown table's delimiter row, read with its table.
    if (pipes > 0 && !plus && rules >= 3) shape.kind = 'row';
    else shape.kind = rules >= 3 ? 'border' : 'noise';
    return;
  }
  if (checkbox) {
    shape.kind = 'checkbox';
    return;
  }
  findLabels(text, shape);
  if (pipes >= 2) {
    // A table row; in a boxed form ("| FACILITY: VOGTLE   REGION: 2 |…|"), a row of fields.
    const boxed = text.charCodeAt(cStart) === 0x7c || text.charCodeAt(cStart) === 0x2b;
    shape.kind = shape.labels.length >= 4 || (boxed && shape.labels.length > 0) ? 'field' : 'row';
    return;
  }
  if (w.lettersMax < 2 || (w.words <= 2 && w.lettersMax <= 3 && digits === 0 && !shape.ends && !w.listItem)) {
    // Stray letters ("fil i", "E g f."): furniture, unless a wrapped sentence reads through them.
    if (w.lettersMax >= 2) {
      shape.kind = 'furniture';
      return;
    }
    // No word of two letters: stray marks, a list marker alone ("- a."), a page or stamp number.
    shape.kind = digits > 0 && w.lettersMax === 0 && !w.listItem ? 'furniture' : 'noise';
    return;
  }
  const lower = text.slice(cStart, Math.min(cEnd, cStart + 24)).toLowerCase();
  if (LETTER_WORDS.has(w.first) || lower.startsWith('/s/') || lower.startsWith('very truly') || lower.startsWith('yours ')) {
    shape.kind = 'signature';
    return;
  }
  if (isPageLine(w, lower, digits)) {
    shape.kind = 'furniture';
    return;
  }
  if (shape.instruction) {
    shape.kind = 'prose';
    return;
  }
  // Prose reads as prose whatever labels it holds: a run-on OCR line, a letter stored as one line.
  const proseLike = w.lowerContent >= 2 && w.lowerContent * 3 >= w.content;
  // A long line that is mostly sentences (a letter or an OCR page stored as one line) is prose, whatever fields open it.
  const runOn = w.words >= 25 && w.lowerContent >= 8 && w.lowerContent * 4 >= w.content;
  // What follows a label that opens the line, and what precedes one inside it, may be a sentence:
  // "Reference: SOP-101 Rev 3. The pump is started …", "Work completed. Related: CR-2026-00418."
  let labelledProse = false;
  if (shape.labels.length === 2 && isReferenceLabel(text, shape)) {
    // A reference list is no sentence, but a sentence may follow it ("Reference: SOP-101 Rev 3. The pump …").
    labelledProse = hasSentenceBreak(text, shape.labels[1]!, cEnd);
  } else if (shape.labels.length === 2) {
    const first = shape.labels[0]!;
    const part = first === cStart ? wordFacts(text, labelValueStart(text, shape.labels[1]!, cEnd), cEnd) : wordFacts(text, cStart, first);
    // A sentence before an inline label is a short one ("Work completed. Related: CR-…"), not a page of OCR.
    labelledProse = part.words >= 3 && part.lowerContent >= 2 && part.lowerContent * 3 >= part.content && (first === cStart || part.words <= 25);
  }
  if (!labelledProse && isReferenceLine(text, shape)) {
    shape.kind = 'reference';
    return;
  }
  if (shape.labels.length > 0 && !runOn && !labelledProse) {
    if (shape.labels[0] === cStart && shape.labels.length === 2 && labelValueStart(text, shape.labels[1]!, cEnd) >= cEnd) shape.labelOnly = true;
    shape.kind = 'field';
    return;
  }
  if (labelledProse || runOn) {
    shape.kind = 'prose';
    return;
  }
  // A short line ending on a colon that is no sentence ("Engineeri anager Date:"): a label.
  if (w.words <= 4 && w.lowerContent <= 1 && text.charCodeAt(cEnd - 1) === 0x3a && !shape.listItem && !w.firstLower) {
    shape.kind = 'field';
    shape.labelOnly = true;
    return;
  }
  if (!proseLike && isAddress(text, cStart, cEnd)) {
    shape.kind = 'address';
    return;
  }
  // A bulleted item is an item of a list, whatever its capitals ("• Vent", "- 480V Bus 6A").
  if (shape.titleLike && !(w.bullet && w.words <= 8)) {
    shape.kind = w.words <= 12 ? 'heading' : 'furniture';
    return;
  }
  if (w.content === 0) {
    // Numbers, codes and function words only: dates, stamps, a list of event numbers.
    shape.kind = 'furniture';
    return;
  }
  shape.kind = 'prose';
}

/** `[ ]`, `[X]`, `[x]`, `[]`, `[✓]` at `i` (an opening bracket). */
function checkboxAt(text: string, i: number, end: number): boolean {
  let j = i + 1;
  while (j < end && text.charCodeAt(j) === 0x20) j++;
  const c = text.charCodeAt(j);
  if (c === 0x58 || c === 0x78 || c === 0x2713 || c === 0x221a || c === 0x2a || c === 0x2f) {
    j++;
    while (j < end && text.charCodeAt(j) === 0x20) j++;
  }
  return j < end && text.charCodeAt(j) === 0x5d && j - i <= 4;
}

/** The words of [start, end): counts, and the first, second and last ones. */
function wordFacts(text: string, start: number, end: number): WordFacts {
  const f: WordFacts = { words: 0, content: 0, lowerContent: 0, firstLower: false, firstLowerWord: false, lastWord: '', first: '', second: '', firstAllCaps: false, secondAllCaps: false, listItem: false, bullet: false, lettersMax: 0 };
  let i = start;
  let index = 0;
  let lastStart = -1;
  let lastEnd = -1;
  while (i < end) {
    while (i < end && isBlank(text.charCodeAt(i))) i++;
    if (i >= end) break;
    const ws = i;
    while (i < end && !isBlank(text.charCodeAt(i))) i++;
    const we = i;
    f.words++;
    // The word's core: its letters and digits, leading and trailing marks left out.
    let s = ws;
    let e = we;
    while (s < e && !isAlnum(text.charCodeAt(s))) s++;
    while (e > s && !isAlnum(text.charCodeAt(e - 1))) e--;
    let lowers = 0;
    let uppers = 0;
    let letters = 0;
    let other = 0;
    let hash = 0;
    for (let k = s; k < e; k++) {
      const c = text.charCodeAt(k);
      const lc = letterClass(c);
      if (lc === LETTER_LOWER) lowers++;
      else if (lc === LETTER_UPPER) uppers++;
      else if (lc === LETTER_OTHER) letters++;
      else if (c !== 0x27 && c !== 0x2019 && c !== 0x2d) other++;
      hash = (Math.imul(hash, 31) + lowerCode(c)) | 0;
    }
    letters += lowers + uppers;
    if (letters > f.lettersMax) f.lettersMax = letters;
    if (index === 0 && f.words === 1 && isListMarker(text, ws, we, s, e)) {
      f.listItem = true;
      // A bullet opens an item: "* * *" or "- - -" is a rule, not a list.
      const after = nextWordStart(text, we, end);
      f.bullet = we - ws === 1 && (!isAlnum(text.charCodeAt(ws)) || text.charCodeAt(ws) === 0x6f) && after < end && (isAlnum(text.charCodeAt(after)) || text.charCodeAt(after) === 0x22 || text.charCodeAt(after) === 0x28);
      continue;
    }
    if (index === 0) {
      // A word in lower case, not a stray OCR letter ("l ISSUE", "k DAILY"): "a" is a word.
      f.firstLower = s === ws && s < e && letterClass(text.charCodeAt(s)) === LETTER_LOWER && (letters >= 2 || text.charCodeAt(s) === 0x61);
      f.firstLowerWord = f.firstLower && letters >= 3 && uppers === 0;
      f.first = text.slice(s, e).toLowerCase();
      f.firstAllCaps = uppers >= 2 && lowers === 0;
    } else if (index === 1) {
      f.second = text.slice(s, e).toLowerCase();
      f.secondAllCaps = uppers >= 2 && lowers === 0;
    }
    index++;
    lastStart = s;
    lastEnd = e;
    if (other === 0 && letters >= 3 && !isFunctionWord(text, s, e, hash)) {
      f.content++;
      if (letterClass(text.charCodeAt(s)) === LETTER_LOWER) f.lowerContent++;
    }
  }
  if (lastStart >= 0) f.lastWord = index === 1 ? f.first : text.slice(lastStart, lastEnd).toLowerCase();
  return f;
}

const lowerCode = (c: number): number => (isAsciiUpper(c) ? c + 32 : c);

function nextWordStart(text: string, from: number, end: number): number {
  let i = from;
  while (i < end && isBlank(text.charCodeAt(i))) i++;
  return i;
}

// Function words by the hash of their letters (as wordFacts computes it), so a word is looked up
// without a string of its own.
const FUNCTION_WORD_HASHES = new Map<number, string[]>();
for (const word of FUNCTION_WORDS) {
  let hash = 0;
  for (let k = 0; k < word.length; k++) hash = (Math.imul(hash, 31) + word.charCodeAt(k)) | 0;
  const known = FUNCTION_WORD_HASHES.get(hash);
  if (known === undefined) FUNCTION_WORD_HASHES.set(hash, [word]);
  else known.push(word);
}

function isFunctionWord(text: string, s: number, e: number, hash: number): boolean {
  const candidates = FUNCTION_WORD_HASHES.get(hash);
  if (candidates === undefined) return false;
  outer: for (const word of candidates) {
    if (word.length !== e - s) continue;
    for (let k = 0; k < word.length; k++) if (lowerCode(text.charCodeAt(s + k)) !== word.charCodeAt(k)) continue outer;
    return true;
  }
  return false;
}

/** A list marker or step number opening a line: "1.", "1.2)", "(3)", "a.", "iv)", "-", "•", "o", "Step". */
function isListMarker(text: string, ws: number, we: number, s: number, e: number): boolean {
  const len = we - ws;
  const c0 = text.charCodeAt(ws);
  if (len === 1 && (c0 === 0x2d || c0 === 0x2a || c0 === 0x2022 || c0 === 0x00b7 || c0 === 0x25aa || c0 === 0x25cf || c0 === 0x6f || c0 === 0x2013)) return true;
  const last = text.charCodeAt(we - 1);
  if (last !== 0x2e && last !== 0x29) return e - s === 4 && text.slice(s, e).toLowerCase() === 'step';
  // "1." "1.2." "4.2)" "(3)" "a." "b)" "iv." "A."
  if (len > 8 || e <= s) return false;
  let digits = true;
  for (let k = s; k < e; k++) {
    const c = text.charCodeAt(k);
    if (!isDigit(c) && c !== 0x2e) digits = false;
  }
  if (digits) return true;
  if (e - s === 1 && isLetter(text.charCodeAt(s))) return true;
  if (e - s > 4) return false;
  for (let k = s; k < e; k++) if ('ivxIVX'.indexOf(text[k]!) < 0) return false;
  return true;
}

/** How the line ends: a sentence end, a continuation, a word cut by a hyphen. */
function endingOf(text: string, shape: LineShape, w: WordFacts): void {
  let e = shape.cEnd;
  // Closing quotes and brackets do not say how the line ends.
  while (e > shape.cStart && isCloser(text.charCodeAt(e - 1))) e--;
  const last = text.charCodeAt(e - 1);
  if (last === 0x2e || last === 0x21 || last === 0x3f || last === 0x3b || last === 0x3a) {
    shape.ends = true;
    return;
  }
  const lastRaw = text.charCodeAt(shape.cEnd - 1);
  if (lastRaw === 0x28 || lastRaw === 0x5b || last === 0x2c || last === 0x26 || last === 0x2f) {
    shape.continues = true;
    return;
  }
  if (last === 0x2d) {
    const before = text.charCodeAt(e - 2);
    shape.continues = true;
    shape.wrapHyphen = letterClass(before) === LETTER_LOWER && e - 2 >= shape.cStart;
    return;
  }
  shape.continues = CONTINUING_ENDS.has(w.lastWord);
}

const isCloser = (c: number): boolean => c === 0x22 || c === 0x27 || c === 0x29 || c === 0x5d || c === 0x201d || c === 0x2019;

function isInstruction(w: WordFacts): boolean {
  // The verb in capitals, as procedures write it, first or after an adverb ("Manually CLOSE").
  if (w.firstAllCaps && STEP_VERBS.has(w.first) && w.words >= 2) return true;
  // Second, after an adverb or a word of the column beside it ("DECREASING PERFORM the following:").
  if (w.secondAllCaps && STEP_VERBS.has(w.second) && (w.first.endsWith('ly') || w.lowerContent > 0)) return true;
  // A numbered or bulleted line opened by an instruction verb ("1. Verify the pump is running").
  return w.listItem && STEP_VERBS.has(w.first) && w.words >= 3 && w.lowerContent > 0;
}

/** "Page 2 of 3", "PAGE 1 of 40", "1 of 67", "Page I of 53": a page counter and little else. */
function isPageLine(w: WordFacts, lower: string, digits: number): boolean {
  if (w.words > 6) return false;
  if ((w.first === 'page' || w.first === 'pagel' || w.first === 'pgina' || w.first === 'pag') && (digits > 0 || w.words <= 4)) return true;
  return digits > 0 && w.content === 0 && (lower.includes(' of ') || lower.includes(' de '));
}

function isReferenceLabel(text: string, shape: LineShape): boolean {
  return shape.labels.length > 0 && shape.labels[0] === shape.cStart && REFERENCE_LABELS.has(normalLabel(text, shape.labels[0], shape.labels[1]!));
}

/** ". " then a capital between `from` and `end`: a sentence ends there and another begins. */
function hasSentenceBreak(text: string, from: number, end: number): boolean {
  for (let i = text.indexOf('. ', from); i >= 0 && i < end - 2; i = text.indexOf('. ', i + 1)) {
    if (letterClass(text.charCodeAt(i + 2)) === LETTER_UPPER && letterClass(text.charCodeAt(i + 3)) === LETTER_LOWER) return true;
  }
  return false;
}

function isReferenceLine(text: string, shape: LineShape): boolean {
  if (isReferenceLabel(text, shape)) return true;
  // "cc:" or "cc (w/Enclosure):" anywhere at a word start.
  for (let i = text.indexOf('cc', shape.cStart); i >= 0 && i < shape.cEnd - 2; i = text.indexOf('cc', i + 2)) {
    if (i > shape.cStart && isAlnum(text.charCodeAt(i - 1))) continue;
    const after = text.charCodeAt(i + 2);
    if (after === 0x3a || (after === 0x20 && text.charCodeAt(i + 3) === 0x28)) return true;
  }
  return false;
}

/** A label's words, lower case, single spaces, without a trailing "(…)". */
function normalLabel(text: string, start: number, end: number): string {
  let label = text.slice(start, end).toLowerCase();
  const paren = label.indexOf('(');
  if (paren > 0) label = label.slice(0, paren);
  return label.replace(/\s+/g, ' ').replace(/[.#]/g, '').trim();
}

/** A postal address: "City, ST 12345", "P.O. Box 388", "Post Office Box 767", "Suite 3100". */
function isAddress(text: string, start: number, end: number): boolean {
  const line = text.slice(start, end);
  const lower = line.toLowerCase();
  if (lower.includes('p.o. box') || lower.includes('p. o. box') || lower.includes('post office box') || lower.includes('mail stop')) return true;
  // ", ST 12345" (a state's two capitals and a ZIP code; one stray mark before it allowed).
  for (let i = line.indexOf(', '); i >= 0; i = line.indexOf(', ', i + 1)) {
    if (!isAsciiUpper(line.charCodeAt(i + 2)) || !isAsciiUpper(line.charCodeAt(i + 3)) || line.charCodeAt(i + 4) !== 0x20) continue;
    let k = i + 5;
    if (k < line.length && !isDigit(line.charCodeAt(k)) && !isBlank(line.charCodeAt(k))) k++;
    let n = 0;
    while (k < line.length && isDigit(line.charCodeAt(k))) {
      k++;
      n++;
    }
    if (n === 5) return true;
  }
  return false;
}

/**
 * The form labels of a line ("FACILITY:", "Docket No.:", "10 CFR Section:", "Person
 * (Organization):"), as [start, end) pairs without the colon: a colon followed by a blank or the
 * line end, after at most six words that open the line, a column (two blanks or more), a cell or a
 * sentence, each capitalised, a number or a connector. Looked for back from each colon, at most
 * MAX_LABEL_CHARS characters.
 */
function findLabels(text: string, shape: LineShape): void {
  const { cStart, cEnd } = shape;
  for (let colon = text.indexOf(':', cStart); colon >= 0 && colon < cEnd; colon = text.indexOf(':', colon + 1)) {
    const after = colon + 1 < cEnd ? text.charCodeAt(colon + 1) : 0x20;
    if (!isBlank(after)) continue;
    let end = colon;
    while (end > cStart && isBlank(text.charCodeAt(end - 1))) end--;
    if (end === cStart) continue;
    const start = labelStart(text, cStart, end);
    if (start < 0) continue;
    const prev = shape.labels.length;
    if (prev > 0 && start < shape.labels[prev - 1]!) continue;
    shape.labels.push(start, end);
  }
}

/** Where the label ending at `end` starts, or -1 when no label ends there. */
function labelStart(text: string, lineStart: number, end: number): number {
  let i = end;
  let words = 0;
  let inWord = false;
  let blanks = 0;
  while (i > lineStart && end - i < MAX_LABEL_CHARS) {
    const c = text.charCodeAt(i - 1);
    if (isBlank(c)) {
      blanks++;
      if (blanks >= 2) break; // a column
      inWord = false;
      i--;
      continue;
    }
    if (blanks === 1 && (c === 0x2e || c === 0x3b || c === 0x3a) && words > 0) break; // after a sentence or another field
    blanks = 0;
    if (!(isAlnum(c) || c === 0x23 || c === 0x2e || c === 0x2f || c === 0x28 || c === 0x29 || c === 0x26 || c === 0x27 || c === 0x2d || c === 0x2019)) {
      if (c === 0x7c || c === 0x2b) break; // a cell
      return -1;
    }
    if (!inWord) {
      inWord = true;
      words++;
      if (words > MAX_LABEL_WORDS) return -1;
    }
    i--;
  }
  if (end - i >= MAX_LABEL_CHARS) return -1;
  while (i < end && isBlank(text.charCodeAt(i))) i++;
  // What precedes: the line start, a column, a cell, a sentence or another field.
  if (i > lineStart) {
    let k = i;
    while (k > lineStart && isBlank(text.charCodeAt(k - 1))) k--;
    const before = text.charCodeAt(k - 1);
    const gap = i - k;
    if (!(k === lineStart || gap >= 2 || before === 0x7c || before === 0x2b || ((before === 0x2e || before === 0x3b || before === 0x3a) && gap >= 1))) return -1;
  }
  return labelWordsOk(text, i, end) ? i : -1;
}

/** Every word capitalised, a number or a connector; the first capitalised or a number. */
function labelWordsOk(text: string, start: number, end: number): boolean {
  let i = start;
  let first = true;
  let letterWords = 0;
  while (i < end) {
    while (i < end && isBlank(text.charCodeAt(i))) i++;
    const ws = i;
    while (i < end && !isBlank(text.charCodeAt(i))) i++;
    if (ws === i) break;
    let s = ws;
    while (s < i && !isAlnum(text.charCodeAt(s)) && text.charCodeAt(s) !== 0x23 && text.charCodeAt(s) !== 0x26 && text.charCodeAt(s) !== 0x2f) s++;
    const c = text.charCodeAt(s);
    const lc = letterClass(c);
    if (lc === LETTER_UPPER || isDigit(c) || c === 0x23) {
      if (lc === LETTER_UPPER) letterWords++;
    } else {
      let e = i;
      while (e > s && (text.charCodeAt(e - 1) === 0x2e || text.charCodeAt(e - 1) === 0x2c)) e--;
      if (first || !LABEL_CONNECTORS.has(text.slice(s, e).toLowerCase())) return false;
    }
    first = false;
  }
  return letterWords > 0;
}

/** Where a label's value starts: past the colon and the blanks after it. */
function labelValueStart(text: string, labelEnd: number, cEnd: number): number {
  let i = text.indexOf(':', labelEnd);
  if (i < 0 || i >= cEnd) return cEnd;
  i++;
  while (i < cEnd && isBlank(text.charCodeAt(i))) i++;
  return i;
}

// ---------------------------------------------------------------------------------------------
// Lines in their context.

/** The lines of a text, one at a time, with a look ahead of a few. */
class Lines {
  private readonly ahead: LineShape[] = [];
  private at = 0;

  constructor(private readonly text: string) {}

  /** The line `k` places ahead (0: the next one), or null past the end. */
  peek(k: number): LineShape | null {
    while (this.ahead.length <= k) {
      const line = this.read();
      if (line === null) return null;
      this.ahead.push(line);
    }
    return this.ahead[k]!;
  }

  next(): LineShape | null {
    const line = this.peek(0);
    if (line !== null) this.ahead.shift();
    return line;
  }

  private read(): LineShape | null {
    const { text } = this;
    if (this.at > text.length) return null;
    const start = this.at;
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    this.at = end + 1;
    const lineEnd = end > start && text.charCodeAt(end - 1) === 0x0d ? end - 1 : end;
    return lineFacts(text, start, lineEnd);
  }
}

// A wrap is joined over at most this many blank or stray lines between its two halves.
const MAX_GAP_LINES = 6;
// A line at least this long that does not end its sentence is a hard wrap, whatever follows it.
const WRAP_WIDTH = 60;

/** The reader's text of a chunk, and what it holds. */
export interface Reading {
  /** The text with wrapped prose joined (the chunk text itself when nothing was joined). */
  text: string;
  /** The non-prose lines of `text`: [start, end) pairs, in order. */
  nonProse: Int32Array;
  /** Their kinds, one per pair. */
  nonProseKinds: LineKind[];
  /** Form labels and field-block captions in `text`, [start, end) pairs in order. */
  formLabels: number[];
  summary: LayoutSummary;
}

/** What the section role and the document's form read of a chunk's layout. */
export interface LayoutSummary {
  /** The first heading lines (headings, label-only lines, inline headings opening a prose line), as written. */
  headings: string[];
  /** Non-blank characters on prose lines, and on the others. */
  proseChars: number;
  otherChars: number;
  /** Lines of a field block, checkboxes, table rows of a bordered form. */
  fieldLines: number;
  /** Prose lines that are instructions, and prose lines in all. */
  instructionLines: number;
  proseLines: number;
  /** The column header of a two-column procedure step table. */
  stepTable: boolean;
  /** A salutation, closing, subject or addressee label, "Document Control Desk": a letter. */
  letter: boolean;
  /** The first prose paragraph's first 300 characters, joined. */
  opening: string;
}

const MAX_HEADINGS = 8;
const OPENING_CHARS = 300;

/** Reads a chunk text as a reader does (see the top of this file). */
export function readingOf(text: string): Reading {
  const builder = new ReadingBuilder(text);
  builder.run();
  return builder.result();
}

// A caption ("Power Reactor", "Unit SCRAM Code RX Crit …") is a capitalised line without digits
// at most this many lines after a field, in a block of two field lines or more.
const CAPTION_REACH = 3;

class ReadingBuilder {
  private readonly lines: Lines;
  private readonly parts: string[] = [];
  private from = 0; // where the next verbatim part of the text starts
  private removed = 0; // characters of the text left out of the output so far
  private nonProse = new Int32Array(64);
  private nonProseCount = 0;
  private readonly nonProseKinds: LineKind[] = [];
  private readonly formLabels: number[] = [];
  private readonly summary: LayoutSummary = { headings: [], proseChars: 0, otherChars: 0, fieldLines: 0, instructionLines: 0, proseLines: 0, stepTable: false, letter: false, opening: '' };
  private openingAt = -1;
  // The field block around the current line: field lines since the last blank, lines since the last one.
  private blockFields = 0;
  private sinceField = Number.POSITIVE_INFINITY;

  constructor(private readonly text: string) {
    this.lines = new Lines(text);
  }

  run(): void {
    let prev: LineShape | null = null; // the last non-blank line, in its final kind
    let blanks = 0;
    let para: LineShape | null = null; // the last line of the open paragraph
    let paraFramed = false;
    // Noise lines after the open paragraph: dropped if the paragraph goes on past them.
    const pending: LineShape[] = [];
    const flush = (): void => {
      if (para !== null) this.closeParagraph(para, paraFramed);
      para = null;
      for (const noise of pending) this.markNonProse(noise);
      pending.length = 0;
    };
    for (let line = this.lines.next(); line !== null; line = this.lines.next()) {
      if (line.kind === 'blank') {
        blanks++;
        this.blockFields = 0;
        continue;
      }
      this.settle(line, prev, blanks);
      if (line.kind === 'noise' && para !== null) {
        pending.push(line);
        continue;
      }
      if (line.kind === 'prose') {
        if (para !== null && this.joins(para, line)) {
          pending.length = 0;
          this.join(para, line);
        } else {
          flush();
          paraFramed = line.framed;
          this.openParagraph(line);
          this.noteOpening(line);
        }
        para = line;
        this.noteProse(line);
      } else {
        flush();
        this.noteOther(line);
        // A table's data row is read by the views as it is.
        if (line.kind !== 'row') this.markNonProse(line);
      }
      prev = line;
      blanks = 0;
    }
    flush();
  }

  /** The kind of a line beside its neighbours: label-only lines, form tables, title-like lines inside a sentence. */
  private settle(line: LineShape, prev: LineShape | null, blanks: number): void {
    const next = this.nextContentLine();
    const adjacent = prev !== null && blanks === 0 ? prev : null;
    if (line.labelOnly) {
      // A label over prose is the heading of what follows; over a value or another field, a field.
      line.kind = next !== null && next.kind === 'prose' && !next.framed && !next.listItem ? 'heading' : 'field';
    } else if (line.kind === 'row') {
      // A row of a bordered form table (`+----+` lines, field rows around it) is a field.
      const bordered = (adjacent !== null && (adjacent.kind === 'border' || (adjacent.kind === 'field' && adjacent.labels.length === 0 && this.isRow(adjacent)))) || (next !== null && next.kind === 'border' && next.start === line.end + 1);
      if (bordered || (adjacent !== null && adjacent.kind === 'field' && this.isRow(adjacent))) line.kind = 'field';
    } else if (line.kind === 'heading' || line.kind === 'furniture' || line.kind === 'address') {
      // A capitalised stretch of a wrapped sentence ("the main\nTurbine Building\nwas"): prose.
      if (prev !== null && prev.kind === 'prose' && prev.continues && !prev.ends && blanks <= 1 && line.words <= 12) line.kind = 'prose';
      // The rest of a hard-wrapped sentence: after a long line that did not end it.
      else if (prev !== null && prev.kind === 'prose' && !prev.ends && blanks === 0 && prev.cEnd - prev.cStart >= WRAP_WIDTH && !prev.titleLike && line.words <= 16) line.kind = 'prose';
      // A sentence that opens with capitalised words ("Engine Systems Inc. (\nESI) began a",
      // "On 19 July 1996, Northeast Utilities, Millstone Nuclear Power Station\nnotified …").
      else if (!line.ends && next !== null && next.kind === 'prose' && (((line.continues || next.start === line.end + 1) && next.startsLower) || (line.continues && this.endsOpen(line)))) line.kind = 'prose';
    }
    if (line.kind === 'field' || line.kind === 'checkbox') {
      this.blockFields++;
      this.sinceField = 0;
    } else this.sinceField++;
  }

  private isRow(line: LineShape): boolean {
    return this.text.charCodeAt(line.cStart) === 0x7c || this.text.charCodeAt(line.cStart) === 0x2b;
  }

  /** A caption of a field block: a capitalised line without digits among field lines. */
  private isCaption(line: LineShape): boolean {
    if (line.kind !== 'heading' && line.kind !== 'furniture' && line.kind !== 'field') return false;
    if (hasDigit(this.text, line.cStart, line.cEnd)) return false;
    return this.nextIsField() || (this.blockFields >= 2 && this.sinceField <= CAPTION_REACH);
  }

  /** The next two lines are fields, the first opening with its label: a field block begins. */
  private nextIsField(): boolean {
    const next = this.lines.peek(0);
    const after = this.lines.peek(1);
    return next !== null && after !== null && next.kind === 'field' && next.labels[0] === next.cStart && (after.kind === 'field' || after.kind === 'checkbox');
  }

  private endsOpen(line: LineShape): boolean {
    const c = this.text.charCodeAt(line.cEnd - 1);
    return c === 0x28 || c === 0x5b;
  }

  /** The next line that is neither blank nor noise, within a few lines. */
  private nextContentLine(): LineShape | null {
    for (let k = 0; k < MAX_GAP_LINES; k++) {
      const line = this.lines.peek(k);
      if (line === null) return null;
      if (line.kind !== 'blank' && line.kind !== 'noise') return line;
    }
    return null;
  }

  /** Whether `line` goes on the paragraph that `para` ends (the lines between were blank or noise). */
  private joins(a: LineShape, b: LineShape): boolean {
    if (b.listItem || a.ends || a.framed !== b.framed) return false;
    const between = this.gapLines(a, b);
    if (between === 0) return b.startsLower || a.continues || startsContinuing(this.text, b) || (a.cEnd - a.cStart >= WRAP_WIDTH && !a.titleLike);
    if (between <= MAX_GAP_LINES) return a.continues || b.startsLower;
    return false;
  }

  /** Blank and noise lines between two lines of the text. */
  private gapLines(a: LineShape, b: LineShape): number {
    let n = 0;
    for (let i = a.end; i < b.start; i++) if (this.text.charCodeAt(i) === 0x0a) n++;
    return Math.max(0, n - 1);
  }

  private openParagraph(line: LineShape): void {
    // A boxed paragraph loses its frame: its first line's opening pipe.
    if (line.framed) this.replace(line.start, line.cStart, '');
    if (this.openingAt < 0) this.openingAt = line.cStart - this.removed;
  }

  private join(a: LineShape, b: LineShape): void {
    const text = this.text;
    if (a.wrapHyphen && dehyphenates(text, a, b)) {
      this.replace(a.cEnd - 1, b.cStart, '');
      return;
    }
    const last = text.charCodeAt(a.cEnd - 1);
    // No space after an opening bracket, nor after a hyphen of a word's own ("pre-\nexisting", "1-\nFCV").
    const hyphened = last === 0x2d && isAlnum(text.charCodeAt(a.cEnd - 2)) && isAlnum(text.charCodeAt(b.cStart));
    this.replace(a.cEnd, b.cStart, last === 0x28 || last === 0x5b || hyphened ? '' : ' ');
  }

  private closeParagraph(last: LineShape, framed: boolean): void {
    // A boxed paragraph's last line loses its closing pipe.
    if (framed) this.replace(last.cEnd, last.end, '');
  }

  private noteProse(line: LineShape): void {
    const s = this.summary;
    s.proseLines++;
    s.proseChars += line.cEnd - line.cStart;
    if (line.instruction) s.instructionLines++;
    if (!s.stepTable && hasStepHeader(this.text, line.cStart, line.cEnd)) s.stepTable = true;
    if (!s.letter && isLetterLine(this.text, line)) s.letter = true;
  }

  /** Called for the first line of each paragraph: a heading may open it. */
  private noteOpening(line: LineShape): void {
    const s = this.summary;
    if (s.headings.length >= MAX_HEADINGS) return;
    const inline = inlineHeading(this.text, line);
    if (inline !== null) s.headings.push(inline);
  }

  private noteOther(line: LineShape): void {
    const s = this.summary;
    s.otherChars += line.cEnd - line.cStart;
    if (line.kind === 'field' || line.kind === 'checkbox' || line.kind === 'border') s.fieldLines++;
    if (!s.stepTable && hasStepHeader(this.text, line.cStart, line.cEnd)) s.stepTable = true;
    if (!s.letter && (line.kind === 'signature' || isLetterLine(this.text, line))) s.letter = true;
    if (s.headings.length < MAX_HEADINGS && line.kind === 'heading' && line.words <= 8) s.headings.push(this.text.slice(line.cStart, line.cEnd));
    // Labels and captions of a field block name fields: the seed takes no term from them.
    if (line.kind === 'field') {
      for (let i = 0; i < line.labels.length; i += 2) this.addFormLabel(line.labels[i]!, line.labels[i + 1]!);
      // A caption before the first label ("Fuel Cycle Facility Event Number: 45655").
      const first = line.labels[0];
      if (first !== undefined && first > line.cStart && !hasDigit(this.text, line.cStart, first)) this.addFormLabel(line.cStart, first);
      // A form table's header row ("|UNIT |SCRAM CODE|RX CRIT|…|").
      if (first === undefined && !hasDigit(this.text, line.cStart, line.cEnd)) this.addFormLabel(line.cStart, line.cEnd);
    } else if (this.isCaption(line)) this.addFormLabel(line.cStart, line.cEnd);
  }

  private addFormLabel(start: number, end: number): void {
    this.formLabels.push(start - this.removed, end - this.removed);
  }

  private markNonProse(line: LineShape): void {
    if (this.nonProseCount * 2 + 2 > this.nonProse.length) {
      const grown = new Int32Array(this.nonProse.length * 2);
      grown.set(this.nonProse);
      this.nonProse = grown;
    }
    this.nonProse[this.nonProseCount * 2] = line.start - this.removed;
    this.nonProse[this.nonProseCount * 2 + 1] = line.end - this.removed;
    this.nonProseCount++;
    this.nonProseKinds.push(line.kind);
  }

  /** Puts `replacement` for [start, end) of the text in the output (edits come in text order). */
  private replace(start: number, end: number, replacement: string): void {
    if (start < this.from) start = this.from;
    if (end < start) return;
    this.parts.push(this.text.slice(this.from, start), replacement);
    this.removed += end - start - replacement.length;
    this.from = end;
  }

  result(): Reading {
    let out = this.text;
    if (this.parts.length > 0) {
      this.parts.push(this.text.slice(this.from));
      out = this.parts.join('');
    }
    if (this.openingAt >= 0) {
      const lineEnd = out.indexOf('\n', this.openingAt);
      this.summary.opening = out.slice(this.openingAt, Math.min(lineEnd < 0 ? out.length : lineEnd, this.openingAt + OPENING_CHARS));
    }
    return {
      text: out,
      nonProse: this.nonProse.subarray(0, this.nonProseCount * 2),
      nonProseKinds: this.nonProseKinds,
      formLabels: this.formLabels,
      summary: this.summary,
    };
  }
}

function hasDigit(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (isDigit(text.charCodeAt(i))) return true;
  return false;
}

/** A line that starts with a digit or an opening bracket goes on a sentence ("…in accordance with\n10 CFR 50.73"). */
function startsContinuing(text: string, b: LineShape): boolean {
  const c = text.charCodeAt(b.cStart);
  return isDigit(c) && !b.listItem;
}

/** "equip-" + "ment": the hyphen is the line end's, not the word's. */
function dehyphenates(text: string, a: LineShape, b: LineShape): boolean {
  return dehyphenatesAt(text, a.cEnd - 1, b.cStart, a.cStart);
}

/**
 * Whether the hyphen at `hyphen` is a line end's cut of the word that goes on at `next`: both
 * sides lower-case letters, the left one two letters or more and a whole word (not the tail of a
 * compound or an identifier), and not a prefix that keeps its hyphen ("self-", "non-", "post-";
 * "pre-", "re-", "de-" … before the vowel they end with: "pre-existing", "de-energize").
 */
function dehyphenatesAt(text: string, hyphen: number, next: number, lineStart: number): boolean {
  if (letterClass(text.charCodeAt(next)) !== LETTER_LOWER) return false;
  let s = hyphen;
  while (s > lineStart && letterClass(text.charCodeAt(s - 1)) === LETTER_LOWER) s--;
  if (hyphen - s < 2) return false;
  const before = s > lineStart ? text.charCodeAt(s - 1) : 0x20;
  // Part of a longer compound ("long-term-") or of an identifier: kept as written.
  if (!isBlank(before) && before !== 0x28 && before !== 0x22 && before !== 0x27 && before !== 0x0a) return false;
  const left = text.slice(s, hyphen);
  if (HYPHEN_PREFIXES.has(left)) return false;
  return !(DOUBLED_VOWEL_PREFIXES.has(left) && text.charCodeAt(next) === left.charCodeAt(left.length - 1));
}

/**
 * A word or identifier hyphenated at a line end: where it goes on ("equip-\nment": the index of
 * "m") and whether the hyphen is the line end's (dropped: "equipment") or its own (kept:
 * "pre-existing", "1-FCV"), as readingOf joins them; null when no word goes on across the break.
 * For readers of the text as written (the views' evidence), so that they see the same words.
 */
export function wrapHyphenAt(text: string, hyphen: number): { resume: number; dropped: boolean } | null {
  if (hyphen === 0 || !isAlnum(text.charCodeAt(hyphen - 1))) return null;
  let k = hyphen + 1;
  while (k < text.length && (isBlank(text.charCodeAt(k)) || text.charCodeAt(k) === 0x0d)) k++;
  if (text.charCodeAt(k) !== 0x0a) return null;
  k++;
  while (k < text.length && isBlank(text.charCodeAt(k))) k++;
  if (k >= text.length || !isAlnum(text.charCodeAt(k))) return null;
  // The word's left part, looked back from the hyphen: never past the line start.
  let lineStart = hyphen;
  while (lineStart > 0 && hyphen - lineStart < 64 && text.charCodeAt(lineStart - 1) !== 0x0a) lineStart--;
  return { resume: k, dropped: dehyphenatesAt(text, hyphen, k, lineStart) };
}

/** A procedure step table's column header: "STEP ACTION/EXPECTED RESPONSE RESPONSE NOT OBTAINED". */
function hasStepHeader(text: string, start: number, end: number): boolean {
  if (end - start < 16) return false;
  const upper = text.slice(start, end).toUpperCase();
  return upper.includes('RESPONSE NOT OBTAINED') || upper.includes('ACTION/EXPECTED RESPONSE');
}

/** A letter's or memorandum's line: a salutation, a subject or addressee label, NRC's submittal address. */
function isLetterLine(text: string, line: LineShape): boolean {
  for (let i = 0; i < line.labels.length; i += 2) {
    if (LETTER_LABELS.has(normalLabel(text, line.labels[i]!, line.labels[i + 1]!))) return true;
  }
  const lower = text.slice(line.cStart, line.cEnd).toLowerCase();
  return lower.includes('document control desk') || lower.startsWith('dear ') || lower.includes(' dear sir') || lower.includes(' dear mr') || lower.includes(' dear ms');
}

/**
 * A heading opening a prose line, or null: a number and the capitalised words after it ("1. Event
 * Description On November 28" gives "1. Event Description On November"), or a run of two letters
 * or more in capitals before a capitalised word ("EXECUTIVE SUMMARY Davis-Besse …", "PURPOSE This
 * procedure …").
 */
function inlineHeading(text: string, line: LineShape): string | null {
  const { cStart, cEnd } = line;
  let i = cStart;
  // A number: "1.", "1.0", "2.", "A.", "B."
  let numbered = false;
  let k = i;
  while (k < cEnd && (isDigit(text.charCodeAt(k)) || text.charCodeAt(k) === 0x2e)) k++;
  if (k > i && text.charCodeAt(k - 1) === 0x2e && isBlank(text.charCodeAt(k))) numbered = true;
  else if (isAsciiUpper(text.charCodeAt(i)) && text.charCodeAt(i + 1) === 0x2e && isBlank(text.charCodeAt(i + 2))) {
    numbered = true;
    k = i + 2;
  } else k = i;
  i = k;
  while (i < cEnd && isBlank(text.charCodeAt(i))) i++;
  const from = i;
  let words = 0;
  let capsRun = 0;
  let end = i;
  while (i < cEnd && words < 6) {
    const ws = i;
    while (i < cEnd && !isBlank(text.charCodeAt(i))) i++;
    const first = text.charCodeAt(ws);
    if (letterClass(first) !== LETTER_UPPER) break;
    let lowers = 0;
    let others = 0;
    for (let m = ws; m < i; m++) {
      const c = text.charCodeAt(m);
      if (letterClass(c) === LETTER_LOWER) lowers++;
      else if (!isLetter(c) && c !== 0x2f && c !== 0x2d && !(m === i - 1 && c === 0x3a)) others++;
    }
    if (lowers === 0 && others === 0 && i - ws >= 2 && capsRun === words) capsRun++;
    words++;
    end = i;
    while (i < cEnd && isBlank(text.charCodeAt(i))) i++;
  }
  if (numbered && words > 0) return text.slice(cStart, end);
  // A caps run, then more text: "EXECUTIVE SUMMARY Davis-Besse"; not a line all in capitals (a step).
  if (capsRun >= 1 && capsRun < words && !line.instruction) {
    let j = from;
    for (let n = 0; n < capsRun; n++) {
      while (j < cEnd && !isBlank(text.charCodeAt(j))) j++;
      if (n < capsRun - 1) while (j < cEnd && isBlank(text.charCodeAt(j))) j++;
    }
    const run = text.slice(from, j);
    return run.length >= 4 ? run : null;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Sentences.

/**
 * Whether a sentence (or a short unit) reads as prose: not a run of capitalised words (a title, a
 * name, a letterhead, an address), whatever punctuation the converter left in it.
 */
export function readsAsProse(sentence: string): boolean {
  const w = wordFacts(sentence, 0, sentence.length);
  if (w.lowerContent >= 2 && w.lowerContent * 3 >= w.content) return true;
  if (isInstruction(w) || (w.bullet && w.words <= 8)) return true;
  // Capitalised words only (three or more content words, one slip allowed in six): a title, a
  // name, a letterhead or an address. A short unit ("Start P-101A.", "Vent", "Yes!") is read.
  if (w.content >= 6) return w.lowerContent >= 2;
  return w.content < 3 || w.lowerContent > 0;
}
