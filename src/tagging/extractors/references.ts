// Document and regulatory references read by their grammar: the cue word of each family ("LER",
// "Docket No.", "Information Notice", "Event Number:", "Procedure", "Technical Specification") and
// the number forms that family writes (docket/year-sequence report numbers, YY-NN notices, CFR
// sections with their subparagraphs whole), plus the few forms that need no cue (ADAMS accession
// numbers, NRC licence designators, EOP-set procedure names, "50.72(b)(3)(iv)(A)").
//
// A hand scan, not a regex: the forms are long runs of optional parts (a "No.", a colon, an
// acronym in brackets, a list of numbers), which is where a regex backtracks. The scan visits each
// word start once, reads forward at most to the end of a reference, and never goes back, so a text
// costs one pass. Spans come out in text order and never overlap; they claim their characters
// before every pattern family (extractors.ts), so a licence or procedure number is never equipment.

export interface ReferenceSpan {
  start: number;
  end: number;
  text: string;
}

// ---- characters ----

function code(text: string, i: number): number {
  return i >= 0 && i < text.length ? text.charCodeAt(i) : -1;
}
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isUpper = (c: number): boolean => c >= 0x41 && c <= 0x5a;
const isLower = (c: number): boolean => c >= 0x61 && c <= 0x7a;
const isAlnum = (c: number): boolean => isDigit(c) || isUpper(c) || isLower(c);
const isWordChar = (c: number): boolean => isAlnum(c) || c === 0x5f;
const isBlank = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0xa0;
const HYPHEN = 0x2d;
const DOT = 0x2e;
const SLASH = 0x2f;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN = 0x28;
const CLOSE = 0x29;
const HASH = 0x23;
const AMP = 0x26;
const SEMI = 0x3b;
const LETTER_O = 0x4f;
const SECTION_SIGN = 0xa7;

// Form layouts align a field's value with blanks: "Docket No.    50-354".
const MAX_GAP = 12;

function digitsEnd(text: string, i: number): number {
  while (isDigit(code(text, i))) i++;
  return i;
}

function alnumEnd(text: string, i: number): number {
  while (isAlnum(code(text, i))) i++;
  return i;
}

/** One blank (space, tab or no-break space) at i, or a line break when `lines`: where it ends, or i. */
function gap(text: string, i: number, lines = false): number {
  let j = i;
  while (isBlank(code(text, j)) || (lines && (code(text, j) === 0x0a || code(text, j) === 0x0d))) j++;
  return j - i <= MAX_GAP || lines ? j : i;
}

/** Whether the token ending at `end` ends there (no letter, digit or joiner-then-alnum after). */
function tokenEnds(text: string, end: number): boolean {
  const c = code(text, end);
  if (isWordChar(c)) return false;
  if ((c === HYPHEN || c === DOT || c === SLASH) && isAlnum(code(text, end + 1))) return false;
  return true;
}

/** Whether a token may start at `i` (no word character or joiner right before). */
function tokenStarts(text: string, i: number): boolean {
  const c = code(text, i - 1);
  return !isWordChar(c) && c !== HYPHEN && c !== DOT && c !== SLASH;
}

/**
 * `literal` at i, letters compared without case when `fold`: where it ends, or -1. A blank in the
 * literal matches the blanks a hard wrap leaves ("Information\nNotice"): at most one line break.
 */
function word(text: string, i: number, literal: string, fold = true): number {
  let j = i;
  for (let k = 0; k < literal.length; k++) {
    let b = literal.charCodeAt(k);
    if (b === 0x20 && (isBlank(code(text, j)) || isBreak(code(text, j)))) {
      j = wrap(text, j);
      continue;
    }
    let a = code(text, j);
    if (fold) {
      if (isUpper(a)) a += 32;
      if (isUpper(b)) b += 32;
    }
    if (a !== b) return -1;
    j++;
  }
  return isAlnum(literal.charCodeAt(literal.length - 1)) && isAlnum(code(text, j)) ? -1 : j;
}

const isBreak = (c: number): boolean => c === 0x0a || c === 0x0d;

/** Blanks with at most one line break (a hard wrap), up to MAX_GAP characters: where they end. */
function wrap(text: string, i: number): number {
  let j = i;
  while (isBlank(code(text, j)) && j - i < MAX_GAP) j++;
  if (code(text, j) === 0x0d) j++;
  if (code(text, j) === 0x0a) j++;
  while (isBlank(code(text, j)) && j - i < MAX_GAP) j++;
  return j;
}

/**
 * A run of digits as OCR reads typewritten ones (a capital O or a lower-case o for 0, l or I for
 * 1: "5O-321", "86-O9", "MLl9345F627"), holding at least one real digit, of at most `max`
 * characters: where it ends, or i.
 */
function ocrDigitsEnd(text: string, i: number, max: number): number {
  let j = i;
  let real = false;
  for (;;) {
    const c = code(text, j);
    if (isDigit(c)) real = true;
    else if (c !== LETTER_O && c !== 0x6f && c !== 0x6c && c !== 0x49) break;
    j++;
    if (j - i > max) return i;
  }
  // A word ("Ol", "IO") is no number: a real digit, and no letter run after.
  return real && !isLower(code(text, j)) ? j : i;
}

/** The first of `literals` at i: where it ends, or -1. */
function anyWord(text: string, i: number, literals: readonly string[], fold = true): number {
  for (const literal of literals) {
    const end = word(text, i, literal, fold);
    if (end >= 0) return end;
  }
  return -1;
}

/**
 * A chain of CFR subparagraphs "(b)(3)(iv)(A)" at i, after at most one blank: where it ends, or i.
 * Each group holds one to four letters or digits.
 */
function paragraphChain(text: string, i: number): number {
  let j = code(text, i) === OPEN ? i : gap(text, i);
  let end = i;
  while (code(text, j) === OPEN) {
    const inner = alnumEnd(text, j + 1);
    if (code(text, inner) !== CLOSE || !subparagraph(text, j + 1, inner)) break;
    end = j = inner + 1;
  }
  return end;
}

/** A subparagraph's designator: lower-case letters or roman numerals (up to 4), one or two digits, or one capital. */
function subparagraph(text: string, start: number, end: number): boolean {
  const n = end - start;
  if (n === 0 || n > 4) return false;
  const first = text.charCodeAt(start);
  if (n === 1 && isUpper(first)) return true;
  if (isDigit(first)) return n <= 2 && digitsEnd(text, start) === end;
  for (let k = start; k < end; k++) if (!isLower(text.charCodeAt(k))) return false;
  return true;
}

/** A dotted section number "50.73", "3.8.1.2", "6.9.2.b" at i (OCR "50. 73" too): where it ends, or -1. */
function dotted(text: string, i: number, minParts: number, letterParts: boolean): number {
  let j = digitsEnd(text, i);
  if (j === i || j - i > 4) return -1;
  let parts = 1;
  for (;;) {
    if (code(text, j) !== DOT) break;
    let k = j + 1;
    if (code(text, k) === 0x20 && isDigit(code(text, k + 1)) && parts === 1) k++;
    const d = digitsEnd(text, k);
    if (d > k) {
      j = d;
      parts++;
      continue;
    }
    // "6.9.2.b", "5.4.1.a": one letter as the last parts of a Technical Specification.
    if (letterParts && isLower(code(text, k)) && !isAlnum(code(text, k + 1))) {
      j = k + 1;
      parts++;
      continue;
    }
    break;
  }
  return parts >= minParts ? j : -1;
}

/** An identifier token at i: letters and digits joined by "-", ".", "/", holding a digit; its end or -1. */
function idToken(text: string, i: number, spacedHyphen = false): number {
  if (!isAlnum(code(text, i))) return -1;
  let j = alnumEnd(text, i);
  for (;;) {
    const c = code(text, j);
    if ((c === HYPHEN || c === DOT || c === SLASH) && isAlnum(code(text, j + 1))) {
      j = alnumEnd(text, j + 1);
      continue;
    }
    // An OCR'd wrap inside a number: "CR-IP3-2015- 05952".
    if (spacedHyphen && c === HYPHEN && code(text, j + 1) === 0x20 && isDigit(code(text, j + 2))) {
      j = alnumEnd(text, j + 2);
      continue;
    }
    break;
  }
  let digit = false;
  for (let k = i; k < j && !digit; k++) digit = isDigit(text.charCodeAt(k));
  if (!digit) return -1;
  // A division suffix in brackets: "50-456/86036(DRS)".
  if (code(text, j) === OPEN) {
    const inner = alnumEnd(text, j + 1);
    if (inner - j - 1 >= 2 && inner - j - 1 <= 5 && code(text, inner) === CLOSE && isUpper(code(text, j + 1))) j = inner + 1;
  }
  return j;
}

/** "No.", "Nos.", "Number", "Numbers", "#", each optionally followed by ":" (OCR "N0." too), after a blank: where it ends, or i. */
function numberWord(text: string, i: number): number {
  let j = gap(text, i);
  if (code(text, j) === HASH) j++;
  else {
    const w = anyWord(text, j, ['Numbers', 'Number', 'Nos.', 'No.', 'Nos', 'No', 'N0.']);
    if (w < 0) return fieldColon(text, i);
    j = w;
  }
  return fieldColon(text, j);
}

function fieldColon(text: string, i: number): number {
  let j = i;
  while (isBlank(code(text, j)) && j - i < 3) j++;
  return code(text, j) === COLON ? j + 1 : i;
}

/** An acronym in brackets after a name: " (TS)", " (LER)": where it ends, or i. */
function bracketAcronym(text: string, i: number): number {
  const j = gap(text, i);
  if (code(text, j) !== OPEN) return i;
  const inner = alnumEnd(text, j + 1);
  return inner > j + 1 && inner - j - 1 <= 6 && code(text, inner) === CLOSE && isUpper(code(text, j + 1)) ? inner + 1 : i;
}

/** A list separator (", ", ", and ", " and ", " & ", "; ", " or "): where the next item starts, or -1. */
function listNext(text: string, i: number): number {
  let j = i;
  const c = code(text, j);
  const mark = c === COMMA || c === SEMI;
  if (mark) j++;
  j = gap(text, j, true);
  const and = anyWord(text, j, ['and', 'or', '&']);
  if (and >= 0) return gap(text, and, true);
  // Blanks alone separate no list: "ELLIS86-656 PDR 00" is two things.
  return mark ? j : -1;
}

// ---- families ----

type Out = ReferenceSpan[];

function push(out: Out, text: string, start: number, end: number): number {
  out.push({ start, end, text: text.slice(start, end) });
  return end;
}

/**
 * Items of one family after its cue: the first from `spanStart` (the cue, unless it is a form
 * field "Docket: …", whose value alone is the reference), the rest of a list on their own.
 * `item` reads one value at a position and returns its end or -1.
 */
function cuedList(text: string, out: Out, spanStart: number, valueAt: number, item: (at: number) => number, list = true): number {
  const first = item(valueAt);
  if (first < 0 || !tokenEnds(text, first)) return -1;
  let end = push(out, text, spanStart, first);
  if (!list) return end;
  for (;;) {
    const next = listNext(text, end);
    if (next < 0) return end;
    const e = item(next);
    if (e < 0 || !tokenEnds(text, e)) return end;
    end = push(out, text, next, e);
  }
}

/** Where a cue's value starts: after "No."/"#"/":" and a blank; the span starts at the value for a form field. */
function afterCue(text: string, cueStart: number, cueEnd: number): { span: number; value: number } {
  // "Inspection Manual Chapter (IMC) 0609": the acronym in brackets is the name again.
  const named = bracketAcronym(text, cueEnd);
  const n = numberWord(text, named);
  const value = gap(text, n, code(text, n - 1) === COLON);
  const field = code(text, n - 1) === COLON;
  return { span: field ? value : cueStart, value };
}

// "YY-NN", "YY-NNN", "YYYY-NN", with a letter of a supplement ("79-05A") and an optional
// revision in brackets "79-06A (Revision 1)": notices, letters, bulletins, circulars.
function noticeNumber(text: string, i: number): number {
  const y = ocrDigitsEnd(text, i, 4);
  if (!(y - i === 2 || y - i === 4) || code(text, y) !== HYPHEN) return -1;
  const n = ocrDigitsEnd(text, y + 1, 3);
  if (n - y - 1 < 2 || n - y - 1 > 3) return -1;
  let end = isUpper(code(text, n)) && !isAlnum(code(text, n + 1)) ? n + 1 : n;
  const rev = gap(text, end);
  if (code(text, rev) === OPEN) {
    const w = word(text, rev + 1, 'Revision');
    if (w >= 0) {
      const d = digitsEnd(text, gap(text, w));
      if (d > w && code(text, d) === CLOSE) end = d + 1;
    }
  }
  return end;
}

// NRC docket series: 50- (power reactors), 52- (new reactors), 70- (fuel facilities), 72- (spent
// fuel storage), 30-/40- (materials): "50-296", and their eight-digit forms "05000296", "07001151".
function docketNumber(text: string, i: number): number {
  const d = digitsEnd(text, i);
  const series = code(text, i) === 0x30 && (text.startsWith('0500', i) || text.startsWith('0700', i) || text.startsWith('0720', i));
  if (d - i === 8 && series) return d;
  // The eight-digit form as a form's boxes print it: "05000-298", "05000- 298", "05000 298".
  if (d - i === 5 && series) {
    let k = d;
    if (code(text, k) === 0x20) k++;
    if (code(text, k) === HYPHEN) k++;
    if (code(text, k) === 0x20 && code(text, k - 1) === HYPHEN) k++;
    const n = digitsEnd(text, k);
    if (k > d && n - k === 3) return n;
  }
  // OCR reads the series' 0 as O: "5O-321".
  const series2 = ocrDigitsEnd(text, i, 2);
  const two = series2 - i === 2 && code(text, series2) === HYPHEN ? text.slice(i, series2).replace(/[Oo]/g, '0') : '';
  if (two !== '' && /^(?:50|52|70|72|30|40)$/.test(two)) {
    const n = ocrDigitsEnd(text, series2 + 1, 5);
    if (n - series2 - 1 >= 3 && n - series2 - 1 <= 5) return n;
  }
  if (d - i === 2 && code(text, d) === HYPHEN && /^(?:50|52|70|72|30|40)$/.test(text.slice(i, d))) {
    const n = digitsEnd(text, d + 1);
    if (n - d - 1 >= 3 && n - d - 1 <= 5) return n;
  }
  return -1;
}

/**
 * A report numbered under a docket: inspection reports "50-458/99-13", "05000255/2010009",
 * "50-346/98015(DRS)", LERs "50-296/2019-001-01", reportable occurrences "50-219/82-45/03L".
 */
function docketReport(text: string, i: number, docket: number): number {
  // OCR and typing set a blank either side of the slash: "05000275 /2019002", "05000275/ 2019002".
  const slash = code(text, docket) === 0x20 ? docket + 1 : docket;
  if (code(text, slash) !== SLASH) return -1;
  const serial = code(text, slash + 1) === 0x20 && slash === docket ? slash + 2 : slash + 1;
  let j = digitsEnd(text, serial);
  if (j - serial < 2 || j - serial > 7) return -1;
  for (let parts = 0; parts < 2 && code(text, j) === HYPHEN && isDigit(code(text, j + 1)); parts++) j = digitsEnd(text, j + 1);
  if (code(text, j) === SLASH && isDigit(code(text, j + 1))) {
    j = digitsEnd(text, j + 1);
    if (isUpper(code(text, j))) j++;
  }
  return idTokenTail(text, j);
}

/** A division suffix "(DRS)" after a number, kept with it. */
function idTokenTail(text: string, j: number): number {
  if (code(text, j) !== OPEN) return j;
  const inner = alnumEnd(text, j + 1);
  return inner - j - 1 >= 2 && inner - j - 1 <= 5 && code(text, inner) === CLOSE && isUpper(code(text, j + 1)) ? inner + 1 : j;
}

// An LER number "2019-003-00", "2023-002-01", its OCR'd form "2016 - 002 - 00", or with a docket
// before it "390/2024-002-00".
function lerNumber(text: string, i: number): number {
  let j = i;
  const d = digitsEnd(text, j);
  if (d - j === 3 && code(text, d) === SLASH) j = d + 1;
  const y = digitsEnd(text, j);
  if (y - j !== 4) return -1;
  const hyphen = (at: number): number => {
    let k = at;
    if (code(text, k) === 0x20) k++;
    if (code(text, k) !== HYPHEN) return -1;
    k++;
    if (code(text, k) === 0x20) k++;
    return k;
  };
  const a = hyphen(y);
  if (a < 0) return -1;
  const s = digitsEnd(text, a);
  if (s - a !== 3) return -1;
  const b = hyphen(s);
  if (b < 0) return s;
  const r = digitsEnd(text, b);
  return r - b === 2 ? r : s;
}

// 10 CFR and its spellings: "10 CFR", "10CFR", OCR "10 CPR", "10 CER", "10/CFR", "10 C.F.R.".
function cfrAt(text: string, i: number): number {
  // OCR's l or I for the title's 1: "l0 CFR 50.72".
  if ((code(text, i) === 0x6c || code(text, i) === 0x49) && code(text, i + 1) === 0x30) return cfrName(text, i + 2);
  const t = digitsEnd(text, i);
  if (t - i < 1 || t - i > 2) return -1;
  const named = cfrName(text, t);
  if (named >= 0 || t - i !== 1 || code(text, i) !== 0x31) return named;
  // OCR'd "10": its 0 read as a capital O, or split from the 1 by a blank ("1 OCFR21", "1OCFR50.72", "1 0 CFR").
  let k = t;
  if (code(text, k) === 0x20) k++;
  const c = code(text, k);
  return c === LETTER_O || (c === 0x30 && k > t) ? cfrName(text, k + 1) : -1;
}

/** The title's "CFR" after its number (a slash or a blank between): where it ends, or -1. */
function cfrName(text: string, t: number): number {
  let j = t;
  if (code(text, j) === SLASH) j++;
  else j = gap(text, j);
  // "10CFR50.72": the part may follow without a blank, so no word end is asked for.
  for (const name of ['CFR', 'CPR', 'CER', 'C.F.R.']) if (text.startsWith(name, j) && !isLower(code(text, j + name.length))) return j + name.length;
  return -1;
}

/** After "10 CFR": "Part 50, Appendix B, Criterion V", "50.73(a)(2)(v)(D)", "Parts 30, 40, and 76", "21-0094". */
function cfrBody(text: string, start: number, nameEnd: number, out: Out): number {
  let j = code(text, nameEnd) === COMMA ? nameEnd + 1 : nameEnd;
  // The section may follow a hard wrap ("10 CFR\n50.73(a)") and a section sign ("10 CFR § 50.9").
  j = wrap(text, j);
  if (code(text, j) === SECTION_SIGN) {
    j++;
    if (code(text, j) === SECTION_SIGN) j++;
    j = gap(text, j);
  }
  const parts = anyWord(text, j, ['Parts', 'PARTS']);
  if (parts >= 0) {
    return cuedList(text, out, start, gap(text, parts), (at) => {
      const d = digitsEnd(text, at);
      return d > at && d - at <= 3 ? d : -1;
    });
  }
  const part = anyWord(text, j, ['Part', 'PART', 'Section', 'SECTION']);
  if (part >= 0) j = gap(text, part);
  let end = sectionLetter(text, dotted(text, j, 1, false));
  // "10 CFR SECTION:" is a form's field name, not a reference.
  if (end < 0) return -1;
  // "10CFR21-0094": a report numbered in its Part's series.
  if (code(text, end) === HYPHEN && isDigit(code(text, end + 1))) end = digitsEnd(text, end + 1);
  end = paragraphChain(text, end);
  end = appendix(text, end);
  return push(out, text, start, end);
}

/** A section's letter: "50.55a", "50.34f" (then "(g)(4)" may follow). */
function sectionLetter(text: string, end: number): number {
  return end >= 0 && isLower(code(text, end)) && !isAlnum(code(text, end + 1)) ? end + 1 : end;
}

/** ", Appendix B, Criterion V" / " Appendix A" after a Part: where it ends, or i. */
function appendix(text: string, i: number): number {
  let j = code(text, i) === COMMA ? i + 1 : i;
  j = gap(text, j, true);
  const a = anyWord(text, j, ['Appendix', 'APPENDIX', 'App.', 'APP']);
  if (a < 0) return i;
  const letter = gap(text, a);
  if (!isUpper(code(text, letter)) || isAlnum(code(text, letter + 1))) return i;
  let end = letter + 1;
  end = paragraphChain(text, end);
  let k = code(text, end) === COMMA ? end + 1 : end;
  k = gap(text, k, true);
  const crit = anyWord(text, k, ['Criterion', 'CRITERION']);
  if (crit >= 0) {
    const v = alnumEnd(text, gap(text, crit));
    if (v > crit + 1) end = v;
  }
  return end;
}

// Technical Specifications: "Technical Specification (TS) 3.7.4.1", "TS 3.8.1", "LCO 3.0.3",
// "Surveillance Requirement (SR) 3.5.3.3", "Technical Specifications Limiting Condition of
// Operation 3.5.1", "TECH SPEC LCO"; the bare "Technical Specifications" names the document.
const TS_LONG = ['Technical Specifications', 'Technical Specification', 'TECHNICAL SPECIFICATIONS', 'TECHNICAL SPECIFICATION', 'Tech Specs', 'Tech Spec', 'TECH SPECS', 'TECH SPEC', 'Tech. Spec.'];
// Short names need a number; so does the licensee-controlled Technical Requirements Manual's
// (TRM, its requirements TLCO and surveillances TRS).
const TS_SHORT = ['LCO', 'TS', 'T.S.', 'SR', 'Technical Requirements Manual', 'TRM', 'TLCO', 'TRS'];
const TS_NAMES = ['Limiting Conditions for Operation', 'Limiting Condition for Operation', 'Limiting Condition of Operation', 'Surveillance Requirements', 'Surveillance Requirement', 'LCO'];

function techSpec(text: string, start: number, out: Out): number {
  let named = anyWord(text, start, TS_LONG, false);
  // Only the document's own name stands as a reference without a number.
  const document = named >= 0;
  if (named < 0) named = anyWord(text, start, TS_NAMES.slice(0, 5), false);
  if (named < 0) named = anyWord(text, start, TS_SHORT, false);
  if (named < 0) return -1;
  let j = bracketAcronym(text, named);
  // A name of the part after the document's: "Technical Specifications Limiting Condition of Operation 3.5.1".
  const part = anyWord(text, gap(text, j), TS_NAMES, false);
  if (part >= 0) j = bracketAcronym(text, part);
  const section = anyWord(text, gap(text, j), ['Section', 'section']);
  // "TS Table 3.3.1-1", "TS Figure 3.4-1": a table or figure numbered within its section.
  const table = section >= 0 ? -1 : anyWord(text, gap(text, j), ['Table', 'Figure', 'TABLE', 'FIGURE']);
  if (table >= 0) {
    let e = dotted(text, gap(text, table), 2, false);
    if (e >= 0 && code(text, e) === HYPHEN && isDigit(code(text, e + 1))) e = digitsEnd(text, e + 1);
    if (e >= 0 && tokenEnds(text, e)) return push(out, text, start, e);
  }
  const at = gap(text, section >= 0 ? section : j);
  // The combined "3/4" numbering of the older standard specifications: "3/4.8.1.1".
  if (code(text, at) === 0x33 && text.startsWith('3/4.', at) && isDigit(code(text, at + 4))) {
    const e = dotted(text, at + 4, 1, true);
    if (e >= 0 && tokenEnds(text, e)) return push(out, text, start, paragraphChain(text, e));
  }
  const end = dotted(text, at, 2, true);
  if (end >= 0 && tokenEnds(text, end)) {
    return cuedList(text, out, start, at, (k) => {
      const e = dotted(text, k, 2, true);
      return e < 0 ? -1 : paragraphChain(text, e);
    });
  }
  if (!document) return -1;
  return push(out, text, start, part >= 0 ? part : named);
}

// Cue words of plant and NRC documents whose number is any identifier token: written with their
// number after them, optionally "No."/"#"/":" (LABELLING's doc_refs).
const TOKEN_CUES = [
  // Before "Procedure": the longer cue is tried first.
  'Procedure Change Requests', 'Procedure Change Request',
  'Condition Reports', 'Condition Report', 'CONDITION REPORT', 'Action Requests', 'Action Request', 'Work Orders', 'Work Order',
  'WORK ORDER', 'Work Requests', 'Work Request', 'Deviation Report', 'Nonconformance Report', 'Licensee Event Reports',
  'Licensee Event Report', 'LICENSEE EVENT REPORT', 'Reportable Occurrence', 'Inspection Reports', 'Inspection Report',
  'INSPECTION REPORT', 'Purchase Order', 'purchase order', 'Report', 'REPORT', 'File', 'Procedures', 'Procedure',
  'procedures', 'procedure', 'PROCEDURE', 'LERs', 'LER', 'NCR', 'CRs', 'CR', 'AR', 'WO', 'WR', 'PO', 'FOIA', 'AITS',
  'SSINS', 'OMB', 'Accession', 'ACCESSION', 'Letter',
  // Corrective action programme records and NRC enforcement items, as plants and inspectors number them.
  'Issue Reports', 'Issue Report', 'IR', 'PER', 'CAP', 'CRDR', 'NCV', 'FIN', 'URI', 'VIO', 'AV',
  // Problem reports and engineering changes, as plants number them.
  'Problem Identification Report', 'Adverse Condition Report', 'PIR', 'ACR', 'Problem Investigation Process', 'PIP', 'Engineering Changes', 'Engineering Change',
  'Design Change Package', 'Design Change Notice', 'Design Change', 'EC', 'ECP', 'DCP', 'DCN',
  // Cause evaluations and procedure change requests, numbered like the records they follow.
  'Apparent Cause Evaluation', 'Root Cause Evaluation', 'ACE', 'RCE', 'PCR',
  // Industry and NRC guidance series: EPRI and NEI reports, INPO significant operating experience
  // reports, the Standard Review Plan's branch technical positions.
  'EPRI', 'NEI', 'SOER', 'Branch Technical Position', 'BTP',
];
// A generic cue's number has at least this many characters: "REPORT (LER) 1." is a form's field number.
const MIN_TOKEN = 3;
// Cues that take only a number of their own family.
const NOTICE_CUES = [
  'Information Notices', 'Information Notice', 'INFORMATION NOTICE', 'Generic Letters', 'Generic Letter', 'GENERIC LETTER',
  'Bulletins', 'Bulletin', 'BULLETIN', 'Circulars', 'Circular', 'CIRCULAR', 'Regulatory Issue Summary', 'Administrative Letter',
  'IEB', 'IEC', 'IEN', 'RIS', 'IN', 'GL', 'BL', 'EA', 'NOV',
];
const CHAPTER_CUES = ['Inspection Manual Chapter', 'Manual Chapter', 'IMC', 'MC'];
const PROCEDURE_CUES = ['Inspection Procedures', 'Inspection Procedure', 'IP'];
const DOCKET_CUES = ['Docket', 'DOCKET'];
const LICENSE_CUES = ['Operating License', 'License', 'Licence', 'LICENSE', 'Permit'];
// The NRC's generic safety issues and the plans that resolve them: "Unresolved Safety Issues A-3,
// A-4 and A-5", "Task Action Plan A-17", "Generic Safety Issue 191", "USI A-46".
const ISSUE_CUES = [
  'Unresolved Safety Issues', 'Unresolved Safety Issue', 'Task Action Plans', 'Task Action Plan', 'Generic Safety Issues',
  'Generic Safety Issue', 'Generic Issues', 'Generic Issue', 'USI', 'GSI',
  'UNRESOLVED SAFETY ISSUES', 'UNRESOLVED SAFETY ISSUE', 'GENERIC SAFETY ISSUES', 'GENERIC SAFETY ISSUE',
];
const EVENT_CUES = ['Event Notification', 'Event Number', 'EVENT NUMBER', 'Event No.', 'Event #', 'Event#', 'EN'];
// Words that never start a document's number after "Report", "File", "Letter", "Procedure"…
// unless a digit is in it (idToken needs one): nothing to list.

// NRC licence designators: DPR (power reactor), NPF (nuclear power facility), CPPR/CPR
// (construction permits), SNM (special nuclear material), SUA/SMB (source material).
const LICENCE_PREFIXES = new Set(['DPR', 'NPF', 'CPPR', 'CPR', 'SNM', 'SUA', 'SMB', 'XSNM']);
// Procedure series of plant procedure sets: emergency, abnormal, general, system operating,
// alarm response, surveillance, maintenance, emergency plan implementing procedures.
// Instruction sets are numbered the same way: abnormal, general, system and emergency operating
// instructions, alarm response instructions.
// Surveillance and test procedure series are numbered alike: surveillance tests and procedures,
// operations and maintenance surveillance tests, off-normal and operating/test procedures.
const PROCEDURE_PREFIXES = new Set([
  'EOP', 'AOP', 'GOP', 'SOP', 'OP', 'ARP', 'OSP', 'MP', 'SP', 'EPIP', 'FNP', 'ONP', 'AP', 'OI', 'AOI', 'GOI', 'SOI', 'EOI', 'ARI', 'ONI',
  'ST', 'STP', 'OST', 'MST', 'ISTP', 'OHP', 'ONOP', 'OPT', 'GP', 'TP',
  // Off-normal and abnormal procedures, emergency plan procedures, and surveillance procedures
  // numbered after the Technical Specification surveillance they perform ("1-SR-3.3.1.1").
  'ON', 'ABN', 'EPP', 'SR',
]);

// Procedures numbered by a two-digit department, a two-letter kind, the GE system code they serve
// and a serial ("34SV-R43-001-1": a surveillance of system R43, unit 1; "34SO-E11-010-2").
const SYSTEM_PROCEDURE_KINDS = new Set(['SV', 'SO', 'AB', 'GO', 'EO', 'OP', 'IT', 'CP', 'SP', 'PM', 'MM', 'MT', 'FH', 'HP', 'AR', 'RP', 'EP', 'SC', 'CH', 'AC', 'IM', 'EN', 'MA', 'ST']);

function systemProcedure(text: string, i: number): number {
  if (!isDigit(code(text, i)) || !isDigit(code(text, i + 1)) || !SYSTEM_PROCEDURE_KINDS.has(text.slice(i + 2, i + 4))) return -1;
  if (code(text, i + 4) !== HYPHEN || !isUpper(code(text, i + 5)) || digitsEnd(text, i + 6) !== i + 8 || code(text, i + 8) !== HYPHEN) return -1;
  const serial = digitsEnd(text, i + 9);
  if (serial - i - 9 < 3 || serial - i - 9 > 4) return -1;
  let end = serial;
  if (code(text, end) === HYPHEN && isDigit(code(text, end + 1))) {
    end = digitsEnd(text, end + 1);
    if (isUpper(code(text, end))) end++;
  }
  return tokenEnds(text, end) ? end : -1;
}

// Vendor topical reports and NRC papers numbered under a series name: Westinghouse WCAP, GE
// NEDC/NEDE/NEDO, B&W BAW, Combustion Engineering CENPD/CEN, Framatome EMF/ANP/ANF/XN-NF, Duke
// DPC-NE, the Commission's SECY papers ("SRM-SECY-93-087" is the requirements memo on one), ASME NQA-1.
const SERIES_PREFIXES = new Set(['WCAP', 'NEDC', 'NEDE', 'NEDO', 'BAW', 'CENPD', 'CEN', 'EMF', 'ANP', 'ANF', 'XN', 'DPC', 'SECY', 'SRM', 'NQA']);

/** A series-numbered report "WCAP-16793-NP", "NEDC-33106P", "SRM-SECY-93-087": where it ends, or -1. */
function seriesReport(text: string, i: number): number {
  const e = idToken(text, i);
  return e >= 0 && tokenEnds(text, e) ? e : -1;
}

/**
 * "E-0", "ES-1.2", "ECA-0.0", "FR-S.1", "F-0.1" (OCR "E-O", "FR-S. 1", "FR-H.l"): a Westinghouse
 * EOP-set name. In the procedure's own "EOP:" header field, OCR that lost the blanks glues the
 * title on ("EOP:FR-H.1TITLE:"): there the name's own grammar ends it before a capital.
 */
function eopSetName(text: string, i: number): number {
  const letters = alnumEnd(text, i);
  const name = text.slice(i, letters);
  if (code(text, letters) !== HYPHEN) return -1;
  const digitOrO = (at: number): boolean => isDigit(code(text, at)) || code(text, at) === LETTER_O;
  const field = text.startsWith('EOP:', i - 4);
  const ends = (at: number): boolean => !isAlnum(code(text, at)) || (field && isUpper(code(text, at)));
  // The last digit, or OCR's "l" for a 1 ("FR-H.l").
  const last = (at: number): boolean => isDigit(code(text, at)) || (code(text, at) === 0x6c && !isAlnum(code(text, at + 1)));
  const j = letters + 1;
  if (name === 'E') return digitOrO(j) && !isAlnum(code(text, j + 1)) && tokenEnds(text, j + 1) ? j + 1 : -1;
  let k = j;
  if (name === 'FR') {
    if (!isUpper(code(text, k)) || code(text, k + 1) !== DOT) return -1;
    k += 2;
    if (code(text, k) === 0x20) k++;
    return last(k) && ends(k + 1) ? k + 1 : -1;
  }
  if (name !== 'ES' && name !== 'ECA' && name !== 'F') return -1;
  if (!digitOrO(k) || code(text, k + 1) !== DOT || !last(k + 2) || !ends(k + 3)) return -1;
  return k + 3;
}

// Design documents numbered like procedures: design change packages and requests, engineering
// change packages, field change requests and notices, calculations and drawings.
const DESIGN_SERIES = new Set(['DCP', 'DCR', 'DCA', 'ECP', 'FCR', 'FCN', 'TCN', 'CALC', 'DWG']);

/** A plant procedure "OP-2325D", "OP-AB-101-105", "3-SOP-ESP-O01", "2-EOP-3" (unit digit optional). */
function plantProcedure(text: string, i: number): number {
  let j = i;
  if (isDigit(code(text, j)) && code(text, j + 1) === HYPHEN && isUpper(code(text, j + 2))) j += 2;
  const p = alnumEnd(text, j);
  const prefix = text.slice(j, p);
  if (code(text, p) !== HYPHEN) return -1;
  // "3-E-0", "3-ECA-0.0": an EOP-set name with its unit digit.
  if (prefix === 'E' || prefix === 'ES' || prefix === 'ECA' || prefix === 'FR' || prefix === 'F') return j === i ? -1 : eopSetName(text, j);
  if (!PROCEDURE_PREFIXES.has(prefix) && !DESIGN_SERIES.has(prefix)) return -1;
  let end = p;
  let digit = false;
  let segments = 0;
  while (code(text, end) === HYPHEN && isAlnum(code(text, end + 1)) && segments < 5) {
    const s = alnumEnd(text, end + 1);
    for (let k = end + 1; k < s; k++) digit ||= isDigit(text.charCodeAt(k));
    end = s;
    segments++;
    // "AP-IA.1": a dotted part's digits count; OCR reads a last 1 as "l" ("AP-CVCS.l,").
    while (code(text, end) === DOT && isDigit(code(text, end + 1))) {
      end = digitsEnd(text, end + 1);
      digit = true;
    }
    if (code(text, end) === DOT && code(text, end + 1) === 0x6c && !isAlnum(code(text, end + 2)) && isUpper(code(text, end - 1))) {
      end += 2;
      digit = true;
    }
  }
  return digit && tokenEnds(text, end) ? end : -1;
}

/** ADAMS accession numbers: "ML19345F627", "ML081130777", OCR "ML 19128A102". */
function adams(text: string, i: number): number {
  if (word(text, i, 'ML', false) < 0 && !text.startsWith('ML', i)) return -1;
  let j = i + 2;
  if (code(text, j) === 0x20) j++;
  const d = ocrDigitsEnd(text, j, 9);
  if (d - j === 9) return tokenEnds(text, d) ? d : -1;
  if (d - j !== 5 || !isUpper(code(text, d))) return -1;
  const e = ocrDigitsEnd(text, d + 1, 3);
  return e - d - 1 === 3 && tokenEnds(text, e) ? e : -1;
}

/** A pre-ADAMS NRC accession number: ten digits that open with a date YYMMDD (1970–2009). */
function legacyAccession(text: string, i: number): number {
  const d = digitsEnd(text, i);
  if (d - i !== 10 || !tokenEnds(text, d)) return -1;
  const yy = Number(text.slice(i, i + 2));
  const mm = Number(text.slice(i + 2, i + 4));
  const dd = Number(text.slice(i + 4, i + 6));
  // ADAMS numbers (ML…) replaced them from 2000.
  return yy >= 70 && mm >= 1 && mm <= 12 && dd >= 1 && dd <= 31 ? d : -1;
}

/** A CFR section cited without "10 CFR", with its subparagraphs: "50.72(b)(3)(iv)(A)", "21.21 (d)(3)(i)". */
function bareSection(text: string, i: number): number {
  const p = digitsEnd(text, i);
  if (p - i < 1 || p - i > 3 || code(text, p) !== DOT) return -1;
  const digits = digitsEnd(text, p + 1);
  if (digits - p - 1 < 1 || digits - p - 1 > 4) return -1;
  const s = sectionLetter(text, digits);
  let j = s;
  if (code(text, j) === 0x20) j++;
  if (code(text, j) !== OPEN || !isLower(code(text, j + 1)) || code(text, j + 2) !== CLOSE) return -1;
  return paragraphChain(text, s);
}

// The licensing basis document and the parts of it a report cites: "UFSAR Section 8.3.1",
// "FSAR Table 3.2-1", "USAR Chapter 15", "Updated Final Safety Analysis Report (UFSAR) Section 9.2.1".
const SAR_NAMES = ['Updated Final Safety Analysis Report', 'Final Safety Analysis Report', 'Updated Safety Analysis Report', 'Safety Analysis Report', 'UFSAR', 'FSAR', 'USAR', 'SAR'];
const SAR_PARTS = ['Sections', 'Section', 'Tables', 'Table', 'Figures', 'Figure', 'Chapters', 'Chapter', 'SECTION', 'TABLE', 'CHAPTER'];

function safetyAnalysisReport(text: string, i: number): number {
  const name = anyWord(text, i, SAR_NAMES, false);
  if (name < 0) return -1;
  const partAt = gap(text, bracketAcronym(text, name));
  const part = anyWord(text, partAt, SAR_PARTS, false);
  if (part < 0) return -1;
  const at = gap(text, part);
  let end = dotted(text, at, 1, true);
  if (end < 0) return -1;
  // A table or figure numbered within its section: "3.2-1", "8.3-4".
  if (code(text, end) === HYPHEN && isDigit(code(text, end + 1))) end = digitsEnd(text, end + 1);
  return tokenEnds(text, end) ? end : -1;
}

// The Inspection Manual's temporary instructions are numbered 2515/NNN: "TI 2515/182".
function temporaryInstruction(text: string, i: number): number {
  const cue = anyWord(text, i, ['Temporary Instructions', 'Temporary Instruction', 'TI'], false);
  if (cue < 0) return -1;
  const at = gap(text, numberWord(text, bracketAcronym(text, cue)));
  const series = digitsEnd(text, at);
  if (series - at !== 4 || code(text, series) !== SLASH) return -1;
  const n = digitsEnd(text, series + 1);
  return n - series - 1 === 3 && tokenEnds(text, n) ? n : -1;
}

// ---- the scan ----

// Where a reference may start: a digit or a capital at a word start, or one of the lower-case
// cue words. The regex engine skips the prose between far faster than a loop over characters.
// One character a match (lastIndex - 1 is the start), the lower-case cues by their first letter.
const FINDER = /\b(?:[0-9A-Z]|p(?=aragraph|rocedure|urchase|er )|i(?=n accordance with )|l(?=0 ?C))/g;
const EVENT_INDEX_RE = /event numbers?/i;

/** The document and regulatory references of a text, in text order, never overlapping. */
export function referenceSpans(text: string): ReferenceSpan[] {
  const out: ReferenceSpan[] = [];
  const eventReport = EVENT_INDEX_RE.test(text);
  FINDER.lastIndex = 0;
  let from = 0;
  while (FINDER.test(text)) {
    const start = FINDER.lastIndex - 1;
    if (start < from) continue;
    if (!tokenStarts(text, start)) continue;
    const end = referenceAt(text, start, out, eventReport);
    if (end > start) {
      from = end;
      FINDER.lastIndex = end;
    }
  }
  return out;
}

/** The reference(s) starting at `i`, pushed to `out`: where the last ends, or -1. */
function referenceAt(text: string, i: number, out: Out, eventReport: boolean): number {
  const c = text.charCodeAt(i);
  if (isDigit(c) || ((c === 0x6c || c === 0x49) && code(text, i + 1) === 0x30)) return numberAt(text, i, out, eventReport);
  // Lower-case cues: "paragraph (a)(2)(iv)(B)", "procedure P-1", "purchase order P0116932".
  if (isLower(c)) {
    const per = anyWord(text, i, ['per', 'in accordance with'], false);
    if (per >= 0) return performedPer(text, gap(text, per), out);
    const para = word(text, i, 'paragraph', false);
    if (para >= 0) {
      const v = gap(text, para);
      const chain = paragraphChain(text, v);
      if (chain > v) return push(out, text, i, chain);
      const d = dotted(text, v, 2, true);
      return d >= 0 && tokenEnds(text, d) ? push(out, text, i, d) : -1;
    }
    return tokenCue(text, i, out);
  }
  const wordEnd = alnumEnd(text, i);
  const w = text.slice(i, wordEnd);
  const ml = w.startsWith('ML') ? adams(text, i) : -1;
  if (ml >= 0) return push(out, text, i, ml);
  // The NRC's compact names of its generic communications: "GL89013", "BL79005C", "IN98008".
  if (w.length >= 7 && w.length <= 8 && (w.startsWith('GL') || w.startsWith('BL') || w.startsWith('IN')) && tokenEnds(text, wordEnd)) {
    const d = digitsEnd(text, i + 2);
    if (d - i - 2 === 5 && (d === wordEnd || (d + 1 === wordEnd && isUpper(code(text, d))))) return push(out, text, i, wordEnd);
  }
  if (code(text, wordEnd) === HYPHEN) {
    // Cue-free forms joined by a hyphen: licences, EOP-set names, procedures, ASME Section XI
    // articles (IWB-3600), correspondence numbers.
    if (LICENCE_PREFIXES.has(w)) {
      const d = digitsEnd(text, wordEnd + 1);
      if (d > wordEnd + 1 && d - wordEnd - 1 <= 5 && tokenEnds(text, d)) return push(out, text, i, d);
    }
    const eop = w === 'E' || w === 'ES' || w === 'ECA' || w === 'FR' || w === 'F' ? eopSetName(text, i) : -1;
    if (eop >= 0) return push(out, text, i, eop);
    const proc = plantProcedure(text, i);
    if (proc >= 0) return push(out, text, i, proc);
    // ASME Section XI articles (IWB-3600) and OM Code subsections (ISTC-3500).
    if ((w.length === 3 && w.startsWith('IW')) || (w.length === 4 && w.startsWith('IST'))) {
      const d = digitsEnd(text, wordEnd + 1);
      const end = d - wordEnd - 1 < 3 || d - wordEnd - 1 > 4 ? -1 : tokenEnds(text, d) ? d : dotted(text, wordEnd + 1, 1, false);
      if (end >= 0 && tokenEnds(text, end)) return push(out, text, i, end);
    }
    const corr = correspondence(text, i, wordEnd);
    if (corr >= 0) return push(out, text, i, corr);
    const letter = letterNumber(text, i, wordEnd);
    if (letter >= 0) return push(out, text, i, letter);
    if (SERIES_PREFIXES.has(w)) {
      const series = seriesReport(text, i);
      if (series >= 0) return push(out, text, i, series);
    }
  }
  const spaced = spacedProcedure(text, i, w, wordEnd);
  if (spaced >= 0) return push(out, text, i, spaced);
  // A licence with a blank for its hyphen: "DPR 57", "NPF 14" (the power reactor series only).
  if ((w === 'DPR' || w === 'NPF') && code(text, wordEnd) === 0x20) {
    const d = digitsEnd(text, wordEnd + 1);
    if (d > wordEnd + 1 && d - wordEnd - 1 <= 3 && tokenEnds(text, d)) return push(out, text, i, d);
  }
  // A series-numbered report with a blank for its hyphen: "SECY 04-0111", "WCAP 16793".
  if (SERIES_PREFIXES.has(w) && code(text, wordEnd) === 0x20 && isDigit(code(text, wordEnd + 1))) {
    const e = idToken(text, wordEnd + 1);
    const hyphenated = e > 0 && text.slice(wordEnd + 1, e).includes('-');
    if (e > 0 && tokenEnds(text, e) && (hyphenated || digitsEnd(text, wordEnd + 1) - wordEnd - 1 >= 4)) return push(out, text, i, e);
  }
  const sar = safetyAnalysisReport(text, i);
  if (sar >= 0) return push(out, text, i, sar);
  const ti = temporaryInstruction(text, i);
  if (ti >= 0) return push(out, text, i, ti);
  const ts = techSpec(text, i, out);
  if (ts >= 0) return ts;
  const cited = namedCode(text, i, out);
  if (cited >= 0) return cited;
  const cfr = word(text, i, 'Code of Federal Regulations');
  if (cfr >= 0) return cfrBody(text, i, cfr, out);
  const part = partReference(text, i, out);
  if (part >= 0) return part;
  return cuedReference(text, i, out);
}

/**
 * "per ST-O-052-100-2", "in accordance with 0-SI-82-1": work is done per a procedure or a
 * document, never per a piece of equipment, so the hyphenated identifier after the cue is one.
 */
function performedPer(text: string, i: number, out: Out): number {
  const c = code(text, i);
  if (!isUpper(c) && !(isDigit(c) && code(text, i + 1) === HYPHEN && isUpper(code(text, i + 2)))) return -1;
  const end = idToken(text, i);
  if (end < 0 || !tokenEnds(text, end) || text.indexOf('-', i) < 0 || text.indexOf('-', i) >= end) return -1;
  return push(out, text, i, end);
}

/** Numbers that open a reference: 10 CFR, docket reports, LER numbers, dockets, accessions, bare sections, event index lines. */
function numberAt(text: string, i: number, out: Out, eventReport: boolean): number {
  const cfr = cfrAt(text, i);
  if (cfr >= 0) return cfrBody(text, i, cfr, out);
  const system = systemProcedure(text, i);
  if (system >= 0) return push(out, text, i, system);
  if (code(text, i + 1) === HYPHEN && isUpper(code(text, i + 2))) {
    const proc = plantProcedure(text, i);
    if (proc >= 0) return push(out, text, i, proc);
  }
  const listed = docketList(text, i, out);
  if (listed >= 0) return listed;
  const vendor = vendorReport(text, i);
  if (vendor >= 0) return push(out, text, i, vendor);
  const docket = docketNumber(text, i);
  if (docket >= 0) {
    const finding = findingNumber(text, docket);
    if (finding >= 0) return push(out, text, i, finding);
    const report = docketReport(text, i, docket);
    if (report >= 0 && tokenEnds(text, report)) return push(out, text, i, report);
    if (docket - i === 8 && tokenEnds(text, docket)) return push(out, text, i, docket);
    // A docket number alone on its line, as report headers set it.
    if (aloneOnLine(text, i, docket)) return push(out, text, i, docket);
  }
  const fr = federalRegister(text, i);
  if (fr >= 0) return push(out, text, i, fr);
  // The NRC's OMB clearance numbers of its information collections: "(3150-0104)".
  if (text.startsWith('3150-', i) && digitsEnd(text, i + 5) === i + 9 && tokenEnds(text, i + 9)) return push(out, text, i, i + 9);
  const ler = lerNumber(text, i);
  if (ler >= 0 && tokenEnds(text, ler) && code(text, digitsEnd(text, i)) !== SLASH && ler - i >= 10 && /\d{4} ?- ?\d{3} ?- ?\d{2}$/.test(text.slice(i, ler))) return push(out, text, i, ler);
  const accession = legacyAccession(text, i);
  if (accession >= 0) return push(out, text, i, accession);
  const section = bareSection(text, i);
  if (section >= 0) return push(out, text, i, section);
  if (eventReport) return eventIndexLine(text, i, out);
  return -1;
}

function aloneOnLine(text: string, start: number, end: number): boolean {
  let a = start;
  while (isBlank(code(text, a - 1))) a--;
  let b = end;
  while (isBlank(code(text, b))) b++;
  const before = code(text, a - 1);
  const after = code(text, b);
  return (before === -1 || before === 0x0a || before === 0x0d) && (after === -1 || after === 0x0a || after === 0x0d);
}

/** The index line of an event notification report: only event numbers, two or more ("56550 56551 56553"). */
function eventIndexLine(text: string, i: number, out: Out): number {
  let lineStart = i;
  while (lineStart > 0 && isBlank(code(text, lineStart - 1))) lineStart--;
  if (lineStart > 0 && code(text, lineStart - 1) !== 0x0a) return -1;
  const items: Array<[number, number]> = [];
  let j = i;
  for (;;) {
    const d = digitsEnd(text, j);
    if (d - j < 5 || d - j > 6) return -1;
    items.push([j, d]);
    let k = d;
    while (isBlank(code(text, k))) k++;
    const c = code(text, k);
    if (c === -1 || c === 0x0a || c === 0x0d) break;
    if (!isDigit(c)) return -1;
    j = k;
  }
  if (items.length < 2) return -1;
  let end = -1;
  for (const [s, e] of items) end = push(out, text, s, e);
  return end;
}

/** Three segments, letters then a two-digit year then a serial: a licensee's letter number "WBL-24-041", "NL-16-011I". */
function correspondence(text: string, i: number, wordEnd: number): number {
  if (wordEnd - i < 2 || wordEnd - i > 5) return -1;
  // A unit's digit may close the series letters ("RBF1-12-0099"); then the serial has four digits.
  const unit = isDigit(code(text, wordEnd - 1)) && wordEnd - i >= 3;
  for (let k = i; k < (unit ? wordEnd - 1 : wordEnd); k++) if (!isUpper(text.charCodeAt(k))) return -1;
  const y = digitsEnd(text, wordEnd + 1);
  if (y - wordEnd - 1 !== 2 || code(text, y) !== HYPHEN) return -1;
  const s = digitsEnd(text, y + 1);
  if (s - y - 1 < (unit ? 4 : 3) || s - y - 1 > 4) return -1;
  const end = isUpper(code(text, s)) && !isAlnum(code(text, s + 1)) ? s + 1 : s;
  return tokenEnds(text, end) ? end : -1;
}

/** "PART 70 APP A (b)(1)" (an event notification's 10 CFR field), "Part 50, Appendix B", "Parts 30, 40, and 76". */
function partReference(text: string, i: number, out: Out): number {
  const parts = anyWord(text, i, ['Parts', 'PARTS'], false);
  if (parts >= 0) {
    const v = gap(text, parts);
    const first = digitsEnd(text, v);
    if (first === v || first - v > 3 || listNext(text, first) < 0 || !isDigit(code(text, listNext(text, first)))) return -1;
    return cuedList(text, out, i, v, (at) => {
      const d = digitsEnd(text, at);
      return d > at && d - at <= 3 ? d : -1;
    });
  }
  const part = anyWord(text, i, ['Part', 'PART'], false);
  if (part < 0) return -1;
  const v = gap(text, part);
  const d = digitsEnd(text, v);
  if (d === v || d - v > 3 || d === part) return -1;
  const end = appendix(text, d);
  const chain = paragraphChain(text, end);
  return chain > d ? push(out, text, i, chain) : -1;
}

/** Codes and criteria: "ASME Section XI", "ASME Code, Section III", "GDC 44", "General Design Criterion 17". */
function namedCode(text: string, i: number, out: Out): number {
  const asme = word(text, i, 'ASME', false);
  if (asme >= 0) {
    let j = asme;
    let om = false;
    for (let words = 0; words < 6; words++) {
      const k = gap(text, code(text, j) === COMMA ? j + 1 : j);
      const sec = anyWord(text, k, ['Section', 'SECTION']);
      if (sec >= 0) {
        const r = alnumEnd(text, gap(text, sec));
        const roman = text.slice(gap(text, sec), r);
        if (/^[IVX]{1,4}$/.test(roman)) return push(out, text, i, r);
        return -1;
      }
      const next = anyWord(text, k, ['Boiler', 'and', 'Pressure', 'Vessel', 'Code', '(BPV)', 'B&PV', 'OM']);
      if (next < 0) return -1;
      if (next === k + 2 && text.startsWith('OM', k)) om = true;
      j = next;
      // "ASME OM Code": the code of operation and maintenance, named whole unless a section follows.
      if (om && text.startsWith('Code', k) && anyWord(text, gap(text, code(text, j) === COMMA ? j + 1 : j), ['Section', 'SECTION']) < 0) return push(out, text, i, j);
    }
    return -1;
  }
  const gdc = anyWord(text, i, ['GDC', 'General Design Criterion', 'General Design Criteria'], false);
  if (gdc < 0) return -1;
  const v = gap(text, gdc);
  return cuedList(text, out, i, v, (at) => {
    const d = digitsEnd(text, at);
    return d > at && d - at <= 2 ? d : -1;
  });
}

/** Cues of NRC and plant documents, and the number each takes. */
function cuedReference(text: string, i: number, out: Out): number {
  // "IE Information Notice", "NRC Bulletin": the issuer's word before the cue is part of the name.
  let cueAt = i;
  const issuer = anyWord(text, i, ['IE', 'NRC'], false);
  if (issuer >= 0 && code(text, issuer) === 0x20) cueAt = issuer + 1;

  const named = namedDocument(text, i, cueAt, out);
  if (named >= 0) return named;
  const notice = anyWord(text, cueAt, NOTICE_CUES, false);
  if (notice >= 0) {
    const joined = code(text, notice) === HYPHEN ? notice + 1 : -1;
    const { span, value } = joined >= 0 ? { span: i, value: joined } : afterCue(text, i, notice);
    const end = cuedList(text, out, span, value, (at) => noticeNumber(text, at));
    if (end >= 0) return end;
  }
  const chapter = anyWord(text, cueAt, CHAPTER_CUES, false);
  if (chapter >= 0) {
    const { span, value } = afterCue(text, i, chapter);
    const end = cuedList(text, out, span, value, (at) => {
      const d = digitsEnd(text, at);
      return d - at === 4 ? appendix(text, d) : -1;
    });
    if (end >= 0) return end;
  }
  const proc = anyWord(text, cueAt, PROCEDURE_CUES, false);
  if (proc >= 0) {
    const { span, value } = afterCue(text, i, proc);
    const end = cuedList(text, out, span, value, (at) => {
      const d = digitsEnd(text, at);
      if (d - at !== 5) return -1;
      const e = code(text, d) === DOT && isDigit(code(text, d + 1)) ? digitsEnd(text, d + 1) : d;
      // A frequency or scope letter: "71111.05Q" (quarterly), "71111.21M".
      return isUpper(code(text, e)) && !isAlnum(code(text, e + 1)) ? e + 1 : e;
    });
    if (end >= 0) return end;
  }
  const docket = anyWord(text, cueAt, DOCKET_CUES, false);
  if (docket >= 0) {
    const { value } = afterCue(text, i, docket);
    // Docket numbers are written bare in the seed ("05000387", "50-387"), as LABELLING's examples.
    const end = cuedList(text, out, value, value, (at) => {
      const d = docketNumber(text, at);
      if (d >= 0) return d;
      const spaced = digitsEnd(text, at);
      return spaced - at === 3 ? spaced : -1;
    });
    if (end >= 0) return end;
  }
  const licence = anyWord(text, cueAt, LICENSE_CUES, false);
  if (licence >= 0) {
    const { value } = afterCue(text, i, licence);
    const field = afterCue(text, i, licence).span === value;
    const end = cuedList(text, out, value, value, (at) => licenceValue(text, at, field));
    if (end >= 0) return end;
  }
  const heading = anyWord(text, cueAt, ['EVENT NUMBERS', 'Event Numbers'], false);
  if (heading >= 0) {
    // "** EVENT NUMBERS **" and the line of numbers under it.
    let j = heading;
    while (j - heading < 40 && (isBlank(code(text, j)) || code(text, j) === 0x2a || code(text, j) === 0x0a || code(text, j) === 0x0d)) j++;
    let end = -1;
    for (;;) {
      const d = digitsEnd(text, j);
      if (d - j < 5 || d - j > 6 || !tokenEnds(text, d)) return end;
      end = push(out, text, j, d);
      j = d;
      while (isBlank(code(text, j))) j++;
    }
  }
  const issue = anyWord(text, cueAt, ISSUE_CUES, false);
  if (issue >= 0) {
    const { span, value } = afterCue(text, i, issue);
    const end = cuedList(text, out, span, value, (at) => {
      // "A-3", "A-46" (unresolved safety issues, task action plans), "191" (generic issues).
      const letter = isUpper(code(text, at)) && code(text, at + 1) === HYPHEN ? at + 2 : at;
      const d = digitsEnd(text, letter);
      return d > letter && d - letter <= 3 ? d : -1;
    });
    if (end >= 0) return end;
  }
  const event = anyWord(text, cueAt, EVENT_CUES, false);
  if (event >= 0) {
    const { value } = afterCue(text, i, event);
    const end = cuedList(text, out, value, value, (at) => {
      const d = digitsEnd(text, at);
      return d - at >= 5 && d - at <= 6 ? d : -1;
    });
    if (end >= 0) return end;
  }
  const numbered = anyWord(text, cueAt, NUMBERED_RECORD_CUES, false);
  if (numbered >= 0) {
    const { span, value } = afterCue(text, i, numbered);
    const short = text.startsWith('TR', cueAt) && numbered - cueAt === 2;
    const end = cuedList(text, out, span, value, (at) => {
      const d = digitsEnd(text, at);
      // "TR 4" is a transformer: a trouble report's number is a serial of five digits or more.
      return d - at >= (short ? 5 : 6) && d - at <= 10 ? d : -1;
    });
    if (end >= 0) return end;
  }
  const codeCase = anyWord(text, cueAt, ['Code Cases', 'Code Case', 'CODE CASE'], false);
  if (codeCase >= 0) {
    const { span, value } = afterCue(text, i, codeCase);
    const end = cuedList(text, out, span, value, (at) => codeCaseNumber(text, at));
    if (end >= 0) return end;
  }
  // "Section XI of the ASME Code": the section named before the code it belongs to.
  const section = anyWord(text, cueAt, ['Section', 'SECTION'], false);
  if (section >= 0) {
    const r = alnumEnd(text, gap(text, section));
    const roman = text.slice(gap(text, section), r);
    const of = /^[IVX]{1,4}$/.test(roman) ? anyWord(text, gap(text, r), ['of the ASME', 'of ASME', 'of the American Society of Mechanical'], false) : -1;
    if (of >= 0) return push(out, text, i, r);
  }
  return tokenCue(text, cueAt === i ? i : i, out);
}

// Records numbered by a serial of digits only (six to ten; a trouble report's five or more):
// work management notifications (NOTF), corrective action programme entries, trouble reports.
const NUMBERED_RECORD_CUES = [
  'Notifications', 'Notification', 'NOTIFICATION', 'NOTF', 'Corrective Action Program document', 'Corrective Action Program entry',
  'Corrective Action Program', 'Trouble Reports', 'Trouble Report', 'TR',
];

/** An ASME Code Case "N-513-3", "N-666", "N-513-3 (Revision 1)": where it ends, or -1. */
function codeCaseNumber(text: string, at: number): number {
  if (!isUpper(code(text, at)) || code(text, at + 1) !== HYPHEN) return -1;
  const d = digitsEnd(text, at + 2);
  if (d - at - 2 < 3 || d - at - 2 > 4) return -1;
  const r = code(text, d) === HYPHEN ? digitsEnd(text, d + 1) : d;
  return r - d - 1 <= 2 ? r : d;
}

/** Plant documents and other cues whose number is any identifier token ("CR 1370601", "Report No. 10CFR21-0094"). */
function tokenCue(text: string, i: number, out: Out): number {
  const cue = anyWord(text, i, TOKEN_CUES, false);
  if (cue < 0) return -1;
  // "CR-2026-00123": a joined number is the identifier families' (identifiers.ts), by its own grammar.
  if (code(text, cue) === HYPHEN) return -1;
  const n = numberWord(text, cue);
  let value = gap(text, n, code(text, n - 1) === COLON);
  // "Licensee Event Report (LER) 50-296/2019-001-00": the number alone, as the text names it.
  const acronym = bracketAcronym(text, n);
  let spanStart = i;
  if (acronym > n) spanStart = value = gap(text, numberWord(text, acronym));
  // "No.82-201": the OCR'd form with no blank after "No.".
  if (value === cue) return -1;
  const item = (at: number): number => {
    // "IR 05000275 /2019002": a report under a docket, read whole by its own grammar.
    const docket = docketNumber(text, at);
    const report = docket >= 0 ? docketReport(text, at, docket) : -1;
    if (report >= 0 && tokenEnds(text, report)) return report;
    const ler = lerNumber(text, at);
    if (ler >= 0 && tokenEnds(text, ler)) return ler;
    // "DOS 6600-12": a procedure's series letters, a blank, its number.
    const letters = alnumEnd(text, at);
    if (letters - at >= 2 && letters - at <= 4 && code(text, letters) === 0x20 && isDigit(code(text, letters + 1))) {
      let upper = true;
      for (let k = at; k < letters; k++) upper &&= isUpper(text.charCodeAt(k));
      if (upper) {
        const e = idToken(text, letters + 1);
        if (e >= 0) return e;
      }
    }
    const e = idToken(text, at, true);
    return e - at >= MIN_TOKEN ? e : -1;
  };
  return cuedList(text, out, spanStart, value, item);
}

/**
 * A licence number after its cue: a designator "NPF-47", "SNM-2010"; a materials licence of the
 * NRC or an Agreement State "45-35423-01", "700-383-1" (digit groups joined by hyphens); in a form
 * field ("License #: UT 1800062") a state's two letters, a blank and its serial.
 */
function licenceValue(text: string, at: number, field: boolean): number {
  if (isUpper(code(text, at))) {
    if (field && isUpper(code(text, at + 1)) && code(text, at + 2) === 0x20) {
      const d = digitsEnd(text, at + 3);
      if (d - at - 3 >= 5 && d - at - 3 <= 8) return d;
    }
    return idToken(text, at);
  }
  let j = digitsEnd(text, at);
  if (j - at < 2 || j - at > 3) return -1;
  let groups = 1;
  while (code(text, j) === HYPHEN && isDigit(code(text, j + 1)) && groups < 4) {
    const d = digitsEnd(text, j + 1);
    if (d - j - 1 > 6) return -1;
    j = d;
    groups++;
  }
  return groups >= 3 ? j : -1;
}

/**
 * A parenthesised list of docket numbers after a plant's name, "Cook 1, 2 (50-315, 50-316)",
 * "Dresden 1, 2, 3 (50-10, 50-237, 50-249)": each item a docket series and its serial (two to
 * five digits in a list whose numbers are all dockets; one of three or more), closed by ")".
 */
function docketList(text: string, i: number, out: Out): number {
  if (code(text, i - 1) !== OPEN) return -1;
  const item = (at: number): number => {
    const d = digitsEnd(text, at);
    if (d - at !== 2 || code(text, d) !== HYPHEN || !/^(?:50|52|70|72|30|40)$/.test(text.slice(at, d))) return -1;
    const n = digitsEnd(text, d + 1);
    return n - d - 1 >= 2 && n - d - 1 <= 5 ? n : -1;
  };
  const items: Array<[number, number]> = [];
  let long = false;
  for (let at = i; items.length < 40; ) {
    const e = item(at);
    if (e < 0) return -1;
    items.push([at, e]);
    long ||= e - at >= 6;
    if (code(text, e) === CLOSE) break;
    if (code(text, e) !== COMMA) return -1;
    at = gap(text, e + 1);
  }
  if (!long || code(text, items[items.length - 1]![1]) !== CLOSE) return -1;
  let end = -1;
  for (const [a, b] of items) end = push(out, text, a, b);
  return end;
}

/** A vendor inspection report under the NRC's vendor docket (999 and five digits): "99902109/2023-201", with a violation's serial "-02". */
function vendorReport(text: string, i: number): number {
  if (!text.startsWith('999', i) || digitsEnd(text, i) !== i + 8 || code(text, i + 8) !== SLASH) return -1;
  const y = digitsEnd(text, i + 9);
  if (y - i - 9 !== 4 || code(text, y) !== HYPHEN) return -1;
  let end = digitsEnd(text, y + 1);
  if (end - y - 1 !== 3) return -1;
  if (code(text, end) === HYPHEN && digitsEnd(text, end + 1) - end - 1 === 2) end += 3;
  return tokenEnds(text, end) ? end : -1;
}

// Kinds of an inspection finding numbered under its docket (IMC 0306): findings, non-cited
// violations, violations, apparent violations, unresolved items.
const FINDING_KINDS = ['FIN', 'NCV', 'VIO', 'AV', 'URI'];

/**
 * "05000528/FIN-2018008-03": a finding's docket, kind, report (year and serial) and item. A table
 * that lost its cell borders may glue the next cell's word to it ("-03Palo Verde"): the item's two
 * digits end it when a capitalised word follows.
 */
function findingNumber(text: string, docket: number): number {
  if (code(text, docket) !== SLASH) return -1;
  const k = docket + 1;
  const kind = FINDING_KINDS.find((w) => text.startsWith(w, k) && code(text, k + w.length) === HYPHEN);
  if (kind === undefined) return -1;
  const r = digitsEnd(text, k + kind.length + 1);
  if (r - k - kind.length - 1 !== 7 || code(text, r) !== HYPHEN) return -1;
  const item = digitsEnd(text, r + 1);
  if (item - r - 1 !== 2) return -1;
  return tokenEnds(text, item) || (isUpper(code(text, item)) && isLower(code(text, item + 1))) ? item : -1;
}

/**
 * A licensee's letter number by its place: a serial joined to its series letters, right before the
 * letter's date and its NRC addressee ("RBG-47266 July 23, 2012 U. S. Nuclear Regulatory
 * Commission", "U-604815 September 24, 2024 … Document Control Desk"); or a letter to the NRC
 * numbered by the sender, "NRC", the year and a serial ("AEP-NRC-2024-83").
 */
function letterNumber(text: string, i: number, wordEnd: number): number {
  if (wordEnd - i < 1 || wordEnd - i > 5) return -1;
  for (let k = i; k < wordEnd; k++) if (!isUpper(text.charCodeAt(k))) return -1;
  if (text.startsWith('NRC-', wordEnd + 1)) {
    const y = digitsEnd(text, wordEnd + 5);
    if (y - wordEnd - 5 !== 4 || code(text, y) !== HYPHEN) return -1;
    const s = digitsEnd(text, y + 1);
    return s - y - 1 >= 1 && s - y - 1 <= 4 && tokenEnds(text, s) ? s : -1;
  }
  const d = digitsEnd(text, wordEnd + 1);
  if (d - wordEnd - 1 < 5 || d - wordEnd - 1 > 6 || code(text, d) !== 0x20) return -1;
  const month = alnumEnd(text, d + 1);
  if (!MONTHS.has(text.slice(d + 1, month))) return -1;
  const day = digitsEnd(text, gap(text, month));
  if (day === gap(text, month) || day - gap(text, month) > 2 || code(text, day) !== COMMA) return -1;
  // The addressee block follows the date: a letter to the NRC, not a tag beside a date.
  const after = text.slice(day, day + ADDRESSEE_WINDOW);
  return after.includes('Regulatory Commission') || after.includes('Document Control Desk') ? d : -1;
}
const ADDRESSEE_WINDOW = 120;
const MONTHS = new Set(['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']);

// Quality assurance criteria of 10 CFR 50 Appendix B, named by their Roman numeral (I to XVIII).
const ROMAN_CRITERION = /^(?:X{0,1}(?:IX|IV|V?I{0,3}))$/;

/**
 * Documents named by their title, not a number: the NRC Enforcement Policy (with the section it
 * cites first, "Section 6.9, Paragraph d.9, of the NRC Enforcement Policy"), the Maintenance Rule
 * (10 CFR 50.65), Appendix B's criteria ("Criterion VII"), a state's statutes ("Minnesota Statute
 * 115.061"), an Event Notification System number ("ENS 57270"), a state's incident number field,
 * a docket-number field "DN: 50-400", a Notice of Violation by its number.
 */
function namedDocument(text: string, i: number, cueAt: number, out: Out): number {
  const policy = anyWord(text, cueAt, ['Enforcement Policy', 'ENFORCEMENT POLICY'], false);
  if (policy >= 0) return push(out, text, i, policy);
  const rule = anyWord(text, i, ['Maintenance Rule', 'MAINTENANCE RULE'], false);
  if (rule >= 0) return push(out, text, i, rule);
  const section = anyWord(text, i, ['Section'], false);
  if (section >= 0) {
    // "Section XI, "Test Control,"": a code's or Appendix B's section by its numeral and quoted title.
    const v = gap(text, section);
    const r = alnumEnd(text, v);
    if (r > v && ROMAN_CRITERION.test(text.slice(v, r)) && code(text, r) === COMMA && code(text, r + 1) === 0x20 && (code(text, r + 2) === 0x22 || code(text, r + 2) === 0x201c)) return push(out, text, i, r);
    const d = dotted(text, v, 1, false);
    let j = d;
    if (j >= 0 && code(text, j) === COMMA) {
      const para = word(text, gap(text, j + 1), 'Paragraph');
      const v = para >= 0 ? gap(text, para) : -1;
      // "Paragraph d.9": a letter, a dot, a number.
      const p = v >= 0 && isLower(code(text, v)) && code(text, v + 1) === DOT && isDigit(code(text, v + 2)) ? digitsEnd(text, v + 2) : -1;
      if (p >= 0) j = p;
    }
    if (j >= 0) {
      let k = gap(text, code(text, j) === COMMA ? j + 1 : j);
      const of = word(text, k, 'of the', false);
      k = of >= 0 ? gap(text, of) : -1;
      const nrc = k >= 0 ? word(text, k, 'NRC', false) : -1;
      const p = k >= 0 ? anyWord(text, nrc >= 0 ? gap(text, nrc) : k, ['Enforcement Policy'], false) : -1;
      if (p >= 0) return push(out, text, i, p);
    }
  }
  const criterion = anyWord(text, i, ['Criterion', 'CRITERION'], false);
  if (criterion >= 0) {
    const v = gap(text, criterion);
    const r = alnumEnd(text, v);
    const roman = text.slice(v, r);
    if (r > v && ROMAN_CRITERION.test(roman) && tokenEnds(text, r)) return push(out, text, i, r);
  }
  // "Minnesota Statute 115.061": the state's name (one capitalised word) and the statute's number.
  const name = alnumEnd(text, i);
  const statuteAt = text.startsWith('Statute', i) ? i : code(text, name) === 0x20 && isLower(code(text, i + 1)) ? name + 1 : -1;
  const statute = statuteAt >= 0 ? anyWord(text, statuteAt, ['Statutes', 'Statute'], false) : -1;
  if (statute >= 0) {
    const d = dotted(text, gap(text, statute), 1, false);
    if (d >= 0 && tokenEnds(text, d)) return push(out, text, i, d);
  }
  const ens = word(text, i, 'ENS', false);
  if (ens >= 0 && code(text, ens) === 0x20) {
    const d = digitsEnd(text, ens + 1);
    if (d - ens - 1 >= 4 && d - ens - 1 <= 6 && tokenEnds(text, d)) return push(out, text, i, d);
  }
  const incident = anyWord(text, i, ['Incident Number', 'Incident No.', 'Incident #'], false);
  if (incident >= 0) {
    const { value } = afterCue(text, i, incident);
    const d = digitsEnd(text, value);
    if (d - value >= 3 && d - value <= 10 && tokenEnds(text, d)) return push(out, text, value, d);
  }
  const dn = word(text, i, 'DN', false);
  if (dn >= 0 && code(text, dn) === COLON) {
    const v = gap(text, dn + 1);
    const d = docketNumber(text, v);
    if (d >= 0 && tokenEnds(text, d)) return push(out, text, v, d);
  }
  const nov = anyWord(text, i, ['Notice of Violation', 'NOTICE OF VIOLATION'], false);
  if (nov >= 0) {
    const v = gap(text, nov);
    const d = vendorReport(text, v);
    if (d >= 0) return push(out, text, i, d);
  }
  return -1;
}

/**
 * A procedure of a plant set written with a blank for its first hyphen: "EPIP 1-2", "EOP 3-1"
 * (series names of three letters or more; their number is digits, a hyphen, digits).
 */
function spacedProcedure(text: string, i: number, w: string, wordEnd: number): number {
  if (w.length < 3 || !PROCEDURE_PREFIXES.has(w) || code(text, wordEnd) !== 0x20) return -1;
  const a = digitsEnd(text, wordEnd + 1);
  if (a === wordEnd + 1 || a - wordEnd - 1 > 2 || code(text, a) !== HYPHEN) return -1;
  const b = digitsEnd(text, a + 1);
  return b > a + 1 && b - a - 1 <= 3 && tokenEnds(text, b) ? b : -1;
}

/** A Federal Register citation, volume "FR" page: "56 FR 40757". */
function federalRegister(text: string, i: number): number {
  const v = digitsEnd(text, i);
  if (v === i || v - i > 2 || !text.startsWith(' FR ', v)) return -1;
  const p = digitsEnd(text, v + 4);
  return p - v - 4 >= 3 && p - v - 4 <= 6 && tokenEnds(text, p) ? p : -1;
}
