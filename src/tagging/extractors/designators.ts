// Equipment designators as event reports write them without a hyphenated tag: a noun and its
// number ("Bus 3C", "EDG #2", "Feeder X12", "TR 4", "pump 52A", "Buses 2A and 3A"), or a train
// letter or number before the equipment's name ("'C' ESW pump", "\"B\" circulating water (CW)
// pump", "3A emergency diesel generator", "No. 12 SW strainer", "'A' through 'D' DGs").
//
// A hand scan from one finder regex of the few shapes that open them; each candidate reads forward
// a bounded number of words and never goes back, so a text costs one pass.

import { buildPattern } from '../../runtime/patterns.js';

export interface DesignatorSpan {
  start: number;
  end: number;
  text: string;
}

// Names of equipment a designator is written with (case-insensitive), the last word of the form
// "designator … name". A designator before any other word ("2A Reactor Protection System") is left
// to the lexicon.
const HEADS = new Set(
  ('pump pumps dg dgs edg edgs generator generators condenser condensers bus buses transformer transformers breaker breakers ' +
    'valve valves fan fans motor motors chiller chillers compressor compressors strainer strainers exchanger exchangers tank tanks ' +
    'battery batteries charger chargers inverter inverters switchgear cooler coolers filter filters feeder feeders heater heaters ' +
    'blower blowers sg sgs rcp rcps relay relays transmitter transmitters damper dampers detector detectors excore excores ' +
    // Plant acronyms of single machines, written with a train letter as often as the noun itself:
    // once-through steam generator, reactor / main / steam generator feed(water) pump.
    'otsg otsgs rfp rfps mfp mfps fwp fwps sgfp sgfps').split(' '),
);
// Nouns a plant writes its equipment numbers after: "Bus 3C", "EDG #2", "Feeder X12", "TR 4".
const NOUNS =
  'Feeder|FEEDER|Feeders|feeder|Bus|BUS|Buses|BUSES|bus|buses|DG|EDG|TR|Transformer|TRANSFORMER|transformer|Pump|PUMP|pump|' +
  'Breaker|BREAKER|breaker|Inverter|INVERTER|inverter|Charger|CHARGER|charger|Battery|BATTERY|battery|MCC|Fan|FAN|Chiller|' +
  'CHILLER|chiller|Compressor|COMPRESSOR|compressor|Diesel|DIESEL|RCP|SG|Penetration|PENETRATION|penetration';

// Where one may start: a quoted train letter, "No. 12", a unit/train number "3A" or "21", a
// division or train ("Division 1", "Train B"), or a noun.
const FINDER = buildPattern(
  'tagging/extractors/designators: FINDER',
  `['"\`*\u2018\u2019\u201C\u201D][A-Za-z]['"\`*\u2018\u2019\u201C\u201D]|\\b[Tt]he [A-H]\\s|\\b\\d-\\d\\b|\\bNo\\. ?\\d|\\b\\d[A-Z]{1,2}\\b|\\b[1-4]\\d\\b|\\b[A-H]-[A-Z]{2,5}\\b|\\b(?:Division|DIVISION|Train|TRAIN|Channel|CHANNEL|channel) |\\b(?:${NOUNS})\\b`,
  'g',
);

const isUpper = (c: number): boolean => c >= 0x41 && c <= 0x5a;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isLetter = (c: number): boolean => isUpper(c) || (c >= 0x61 && c <= 0x7a);
const isAlnum = (c: number): boolean => isLetter(c) || isDigit(c);
const QUOTES = new Set([0x27, 0x22, 0x60, 0x2018, 0x2019, 0x201c, 0x201d]);
// OCR reads a typed quote as "*": "Pump *C*" is "Pump 'C'".
const isQuote = (c: number): boolean => QUOTES.has(c) || c === 0x2a;

/** A quoted train letter at i ("'C'", "‘B’", OCR "*C*"; `lower` also "*c*"): its end, or -1. */
function quotedLetter(text: string, i: number, lower: boolean): number {
  const c = code(text, i + 1);
  if (!isQuote(code(text, i)) || !isQuote(code(text, i + 2))) return -1;
  if (!isUpper(c) && !(lower && c >= 0x61 && c <= 0x7a)) return -1;
  return isAlnum(code(text, i + 3)) ? -1 : i + 3;
}

function code(text: string, i: number): number {
  return i >= 0 && i < text.length ? text.charCodeAt(i) : -1;
}

function blanks(text: string, i: number): number {
  let j = i;
  while (code(text, j) === 0x20 || code(text, j) === 0x09 || code(text, j) === 0xa0) j++;
  return j;
}

/** A designator after a noun: "3C", "2", "12A", "X12", "W96" (three digits at most): its end, or -1. */
function numberDesignator(text: string, i: number): number {
  // "Transformer 1X03", "bus 1AD2": a unit digit, one or two letters, then the number.
  if (isDigit(code(text, i)) && isUpper(code(text, i + 1))) {
    let k = i + 1;
    while (isUpper(code(text, k)) && k - i <= 2) k++;
    let d = k;
    while (isDigit(code(text, d))) d++;
    if (d > k && d - k <= 3 && !isAlnum(code(text, d)) && !((code(text, d) === 0x2d || code(text, d) === 0x2e || code(text, d) === 0x2f) && isAlnum(code(text, d + 1)))) return d;
  }
  let j = i;
  let letters = 0;
  while (isUpper(code(text, j)) && letters < 2) {
    j++;
    letters++;
  }
  const d = j;
  while (isDigit(code(text, j))) j++;
  if (j === d || j - d > 3) return -1;
  let suffix = 0;
  while (isUpper(code(text, j)) && suffix < 2) {
    j++;
    suffix++;
  }
  const c = code(text, j);
  if (isAlnum(c) || ((c === 0x2d || c === 0x2e || c === 0x2f || c === 0x3a) && isAlnum(code(text, j + 1)))) return -1;
  return j;
}

/** A designator before a name: a quoted letter, "No. 12", "3A", "2-1", "the B": its end, or -1. */
function leadingDesignator(text: string, i: number): number {
  const c = code(text, i);
  // "the A RHR pump", "the B train RHR pump": a train letter after the article (the span starts at the letter).
  if (c === 0x54 || c === 0x74) {
    if (text.startsWith('he ', i + 1) && isUpper(code(text, i + 4)) && (code(text, i + 5) === 0x20 || code(text, i + 5) === 0x0a)) return i + 5;
  }
  // "the 2-1 diesel generator": unit 2's first, as plants that number trains by unit write it.
  if (isDigit(c) && code(text, i + 1) === 0x2d && isDigit(code(text, i + 2)) && !isAlnum(code(text, i + 3))) {
    const before = code(text, i - 1);
    if (before !== 0x2d && before !== 0x2f && before !== 0x2e) return i + 3;
  }
  if (isQuote(c)) return quotedLetter(text, i, false);
  if (c === 0x4e && text.startsWith('No.', i)) {
    const n = blanks(text, i + 3);
    let j = n;
    while (isDigit(code(text, j))) j++;
    if (j === n || j - n > 3) return -1;
    if (isUpper(code(text, j)) && !isAlnum(code(text, j + 1))) j++;
    return isAlnum(code(text, j)) ? -1 : j;
  }
  // "3A", and "2AB" (a swing train shared by trains A and B).
  if (isDigit(c) && isUpper(code(text, i + 1))) {
    const k = isUpper(code(text, i + 2)) ? i + 3 : i + 2;
    return isAlnum(code(text, k)) ? -1 : k;
  }
  // "Division 1", "Division II", "Train B", "channel C": a safety division, train or channel before the equipment's name.
  if (c === 0x44 || c === 0x54 || c === 0x43 || c === 0x63) {
    const w = wordEnd(text, i);
    const name = text.slice(i, w).toLowerCase();
    if (name !== 'division' && name !== 'train' && name !== 'channel') return -1;
    const d = blanks(text, w);
    const e = wordEnd(text, d);
    return e > d && DIVISIONS.has(text.slice(d, e)) ? e : -1;
  }
  return -1;
}

const NO_HEADS: ReadonlySet<string> = new Set();
const DIVISIONS = new Set(['1', '2', '3', '4', 'I', 'II', 'III', 'IV', 'A', 'B', 'C', 'D']);

/** A plant's two-digit unit-and-train number before a name ("21 charging pump", "the 23 EDG"): its end, or -1. */
function numberedName(text: string, i: number): number {
  const before = code(text, i - 1);
  // Not a number's part ("1,215", "3.21", "May 21, 2019" keeps its comma after).
  if (before === 0x2c || before === 0x2e || before === 0x2f || before === 0x3a || before === 0x2d) return -1;
  return isDigit(code(text, i + 1)) && code(text, i + 2) === 0x20 ? i + 2 : -1;
}

/** One word at i (letters, digits, inner hyphens) or a short bracketed aside "(CW)": its end, or -1. */
function wordEnd(text: string, i: number): number {
  if (code(text, i) === 0x28) {
    const close = text.indexOf(')', i);
    return close > i && close - i <= 40 && !text.slice(i, close).includes('\n') ? close + 1 : -1;
  }
  let j = i;
  while (isAlnum(code(text, j)) || (code(text, j) === 0x2d && isAlnum(code(text, j + 1)))) j++;
  return j > i ? j : -1;
}

// "'A' component cooling water (CCW) heat exchanger": up to six words, a bracketed acronym one of them.
const MAX_NAME_WORDS = 6;

// Words that end the name before any head: the designator then qualifies nothing equipment-like.
const STOPS = new Set('the a an of to in on at by for from with was were is are be been and or as that which this it its'.split(' '));
// After a bare number, a unit or a time word makes it a quantity ("12 inch valve", "30 day tank").
const QUANTITY_WORDS = new Set(
  ('inch inches in foot feet ft volt volts v kv percent degree degrees gallon gallons gpm psig psi hp horsepower ton tons amp ' +
    'amps year years month months week weeks day days hour hours minute minutes second seconds times').split(' '),
);

/** Blanks and at most one line break (a hard wrap inside the name). */
function wrapGap(text: string, i: number): number {
  let j = blanks(text, i);
  if (code(text, j) === 0x0d) j++;
  if (code(text, j) === 0x0a) j = blanks(text, j + 1);
  return j;
}

/** "'C' Emergency Service Water (ESW) pump": from a leading designator to the head noun within six words. */
function namedAfter(text: string, start: number, designatorEnd: number, singular: boolean, heads: ReadonlySet<string>): number {
  let j = designatorEnd;
  // "'A' through 'D' DGs", "'A' and 'B' ESW pumps": a second designator joins the first.
  const join = blanks(text, j);
  for (const word of ['through', 'and', 'or', 'thru']) {
    if (text.startsWith(word, join) && !isAlnum(code(text, join + word.length))) {
      const second = leadingDesignator(text, blanks(text, join + word.length));
      if (second > 0) j = second;
      break;
    }
  }
  // The last head within the name's words: "3A Standby Steam Generator Feed Pump" ends at "Pump", not "Generator".
  let last = -1;
  for (let words = 0; words < MAX_NAME_WORDS; words++) {
    const w = wrapGap(text, j);
    if (w === j && words > 0) break;
    const e = wordEnd(text, w);
    if (e < 0) break;
    const lower = text.slice(w, e).toLowerCase();
    if (singular && words === 0 && QUANTITY_WORDS.has(lower)) return -1;
    if (HEADS.has(lower) || heads.has(lower)) {
      // A bare number before a plural counts things ("23 pumps"): only a singular name is one item.
      if (singular && lower.endsWith('s') && !lower.endsWith('ss') && lower !== 'bus') return last;
      last = e;
    } else if (STOPS.has(lower)) {
      // "diesel generator", "heat exchanger": the head is the last word, read on; a function word ends the name.
      break;
    }
    j = e;
  }
  if (last < 0) return -1;
  // "Feed Pump (SBSGFP)": the acronym the text gives the name right after it is part of the item.
  const open = blanks(text, last);
  if (code(text, open) === 0x28 && open - last <= 1) {
    let k = open + 1;
    while (isUpper(code(text, k))) k++;
    if (k - open > 2 && code(text, k) === 0x29) return k + 1;
  }
  return last;
}

/**
 * Acronyms the text defines for a head noun ("Steam Generator Feed Pump (SGFP)", "Pump *c* (FWP
 * 'C')"): lower case, each also a head of this text's designators.
 */
export function definedHeads(text: string): Set<string> {
  const out = new Set<string>();
  for (let open = text.indexOf('('); open >= 0; open = text.indexOf('(', open + 1)) {
    let k = open + 1;
    while (isUpper(code(text, k))) k++;
    const letters = k - open - 1;
    if (letters < 2 || letters > 6 || isAlnum(code(text, k)) && code(text, k) !== 0x73) continue;
    // The word before "(", past a quoted train letter ("Pump *c* (FWP 'C')").
    let e = open;
    while (e > 0 && code(text, e - 1) === 0x20) e--;
    if (e >= 3 && quotedLetter(text, e - 3, true) === e) {
      e -= 3;
      while (e > 0 && code(text, e - 1) === 0x20) e--;
    }
    let b = e;
    while (b > 0 && isLetter(code(text, b - 1))) b--;
    if (b < e && HEADS.has(text.slice(b, e).toLowerCase())) {
      const acronym = text.slice(open + 1, k).toLowerCase();
      out.add(acronym).add(acronym + 's');
    }
  }
  return out;
}

/** "Bus 3C", "EDG #2", "Buses 2A and 3A": a noun, an optional "#" or "No.", the number; a list after it. */
function numberedAfter(text: string, start: number, nounEnd: number, out: DesignatorSpan[]): number {
  let j = blanks(text, nounEnd);
  if (j === nounEnd) return -1;
  if (code(text, j) === 0x23) j = blanks(text, j + 1);
  else if (text.startsWith('No.', j)) j = blanks(text, j + 3);
  const end = numberDesignator(text, j);
  if (end < 0) return -1;
  out.push({ start, end, text: text.slice(start, end) });
  let last = end;
  for (;;) {
    let k = last;
    if (code(text, k) === 0x2c) k++;
    k = blanks(text, k);
    const sep = ['and/or', 'and', 'or', '&'].find((word) => text.startsWith(word, k) && !isAlnum(code(text, k + word.length)));
    if (sep === undefined) {
      if (k === last || code(text, last) !== 0x2c) return last;
    } else k = blanks(text, k + sep.length);
    const next = numberDesignator(text, k);
    if (next < 0 || !isDigit(code(text, k)) && !isDigit(code(text, k + 1))) return last;
    out.push({ start: k, end: next, text: text.slice(k, next) });
    last = next;
  }
}

/** Start of the head word that ends right before `end` (after one blank), or -1 when that word heads nothing. */
function headBefore(text: string, end: number, heads: ReadonlySet<string>): number {
  const e = code(text, end - 1) === 0x20 ? end - 1 : -1;
  if (e < 0) return -1;
  let b = e;
  while (b > 0 && isLetter(code(text, b - 1))) b--;
  if (b === e || isAlnum(code(text, b - 1)) || code(text, b - 1) === 0x2d) return -1;
  const lower = text.slice(b, e).toLowerCase();
  return HEADS.has(lower) || heads.has(lower) ? b : -1;
}

// Words of a capitalised name read back from its head: "Main Feedwater Pump 'C'".
const MAX_BACK_WORDS = 3;

/**
 * "Main Feedwater Pump 'C'", "FWP 'C'", OCR "pump *c*": a quoted train letter after its head
 * noun. A capitalised head takes the capitalised words before it (not before `from`). [start, end) or null.
 */
function namedBefore(text: string, quote: number, from: number, heads: ReadonlySet<string>): [number, number] | null {
  const end = quotedLetter(text, quote, true);
  if (end < 0) return null;
  let start = headBefore(text, quote, heads);
  if (start < from) return null;
  if (!isUpper(code(text, start))) return [start, end];
  for (let words = 0; words < MAX_BACK_WORDS; words++) {
    const e = start - 1;
    if (code(text, e) !== 0x20) break;
    let b = e;
    while (b > 0 && isLetter(code(text, b - 1))) b--;
    if (b === e || b < from || !isUpper(code(text, b)) || isAlnum(code(text, b - 1)) || STOPS.has(text.slice(b, e).toLowerCase())) break;
    start = b;
  }
  return [start, end];
}

/** "B-EDG", "B-EDG No. 4": a train letter hyphened to a head acronym, with the machine's number. Its end, or -1. */
function letterHyphenHead(text: string, i: number, heads: ReadonlySet<string>): number {
  if (!isUpper(code(text, i)) || code(text, i + 1) !== 0x2d || isAlnum(code(text, i - 1)) || code(text, i - 1) === 0x2d) return -1;
  const e = wordEnd(text, i + 2);
  if (e < 0 || code(text, e) === 0x2d) return -1;
  const lower = text.slice(i + 2, e).toLowerCase();
  if (!HEADS.has(lower) && !heads.has(lower)) return -1;
  let j = blanks(text, e);
  if (j === e) return e;
  if (code(text, j) === 0x23) j++;
  else if ((code(text, j) === 0x4e || code(text, j) === 0x6e) && text.startsWith('o.', j + 1)) j = blanks(text, j + 3);
  else return e;
  let d = j;
  while (isDigit(code(text, d)) && d - j < 2) d++;
  return d > j && !isAlnum(code(text, d)) ? d : e;
}

/** The plain equipment designators of a text, in text order, never overlapping. */
export function plainDesignators(text: string): DesignatorSpan[] {
  const out: DesignatorSpan[] = [];
  const heads = text.includes('(') ? definedHeads(text) : NO_HEADS;
  FINDER.lastIndex = 0;
  let from = 0;
  for (let m = FINDER.exec(text); m !== null; m = FINDER.exec(text)) {
    const start = m.index;
    if (start < from) continue;
    const number = isDigit(code(text, start)) && isDigit(code(text, start + 1)) ? numberedName(text, start) : -1;
    const lead = number > 0 ? number : leadingDesignator(text, start);
    let end = -1;
    if (lead > 0) {
      const named = namedAfter(text, start, lead, number > 0, heads);
      if (named > 0) {
        // "the B RHR pump": the item starts at the letter, not the article.
        const from = text.startsWith('he ', start + 1) && (code(text, start) === 0x54 || code(text, start) === 0x74) ? start + 4 : start;
        // A name wrapped over two lines is one item: its blanks collapsed.
        out.push({ start: from, end: named, text: text.slice(from, named).replace(/\s+/g, ' ') });
        end = named;
      }
    }
    if (end < 0 && isQuote(code(text, start))) {
      const span = namedBefore(text, start, from, heads);
      if (span !== null) {
        out.push({ start: span[0], end: span[1], text: text.slice(span[0], span[1]) });
        end = span[1];
      }
    } else if (lead > 0) {
      // A designator before no name: nothing.
    } else if (code(text, start + 1) === 0x2d && !isDigit(code(text, start))) {
      end = letterHyphenHead(text, start, heads);
      if (end > 0) out.push({ start, end, text: text.slice(start, end) });
    } else if (!isDigit(code(text, start))) {
      end = numberedAfter(text, start, start + m[0].length, out);
    }
    if (end > start) FINDER.lastIndex = from = end;
  }
  return out;
}
