import type { AuthorityLevel, DocSubtype, DocType } from '../contracts/vocabulary.js';
import { DOC_SUBTYPES, DOC_TYPES } from '../contracts/vocabulary.js';
import { buildPattern, escapePattern } from '../runtime/patterns.js';

export interface DocTypeEvidence {
  docName?: string | undefined;
  sourcePath?: string | undefined;
  docId?: string | undefined;
  /** The document's title as its first chunk's section path gives it (the path, headings joined). */
  title?: string | undefined;
  text?: string | undefined;
}

const TEXT_WINDOW = 4000;

// Written by hand instead of `\b`: `_` is a word character for `\b`, and file names such as
// "example_CR_2026_00123" put ids right after an underscore.
const LEFT = '(?<![\\p{L}\\p{N}])';
const RIGHT = '(?![\\p{L}\\p{N}])';
const ID_SEP = '[-_ ]?';

// The leftmost strong mention in the evidence wins. At each word start (not after a letter or
// digit: `_` counts as a separator, since file names such as "example_CR_2026_00123" put ids right
// after an underscore) the types are tried in DESIGN §2 order (SOP, CR, WO, ECA), then the document
// kinds outside the vocabulary (an FMEA, a bulletin, an operating-experience report, a NUREG),
// which are OTHER. Each is an id — a type then a number ("CR-12345", "SOP 101") or a plant-style
// id of separated segments one of which holds a digit ("SOP-U2-CND-001", "CR:SEC:2026:1042") —
// or a phrase that is a whole word ("condition report", plural allowed).
//
// A scan, not the one regex it replaces (`(?<![\p{L}\p{N}])(?:(s?op(?:[-_ ]?\d+(?![\p{L}\p{N}])|(?:[-_:][\p{L}\p{N}]+)*?[-_:]\p{L}*\p{N}))|…)`,
// held equal by test/patterns/rewrites.property.test.ts): that regex read a chain of segments to
// its end from every type word in it ("cr-cr-cr-…" was quadratic); here whether a chain holds a
// digit is worked out once per separator.
const STRONG_TYPES: ReadonlyArray<{ type: DocType; ids: readonly string[]; phrases: readonly string[] }> = [
  { type: 'SOP', ids: ['sop', 'op'], phrases: [] },
  { type: 'CR', ids: ['cr'], phrases: ['condition report', 'condition reports'] },
  { type: 'WO', ids: ['wo'], phrases: ['work order', 'work orders'] },
  { type: 'ECA', ids: ['eca'], phrases: ['causal evaluation', 'causal evaluations', 'event causal'] },
  {
    type: 'OTHER',
    ids: ['fmea', 'bulletin', 'oe', 'inpo', 'nureg', 'ler', 'ier', 'soer'],
    phrases: ['fmea', 'failure mode and effects', 'failure modes and effects', 'bulletin', 'operating experience'],
  },
];
const ALNUM_RE = /[\p{L}\p{N}]/u;
const NUMBER_RE = /\p{N}/u;

/** The code point at `i` as a string (both halves of a pair). */
function codePointAt(text: string, i: number): string {
  const code = text.codePointAt(i)!;
  return code > 0xffff ? text.slice(i, i + 2) : text[i]!;
}

/** Is there a letter or digit just before `i`? */
function alnumBefore(text: string, i: number): boolean {
  if (i === 0) return false;
  const low = text.charCodeAt(i - 1);
  const from = low >= 0xdc00 && low <= 0xdfff && i >= 2 ? i - 2 : i - 1;
  return ALNUM_RE.test(codePointAt(text, from));
}

class StrongScan {
  // Per separator position: 1 when the chain of segments from it holds a digit, 0 when not.
  private readonly chain = new Map<number, number>();
  constructor(private readonly text: string) {}

  /**
   * `[-_ ]?\d+(?![\p{L}\p{N}])` at `i`: a number that ends where its word does. One that runs on
   * into more letters or digits is a model or part designation ("OP 38TD8-1/8" is an engine
   * model, not procedure OP 38); a plant id of separated segments is plantIdAt's.
   */
  private numberAt(i: number): boolean {
    const t = this.text;
    const digit = (k: number) => k < t.length && t.charCodeAt(k) >= 0x30 && t.charCodeAt(k) <= 0x39;
    let k = digit(i) ? i : (t[i] === '-' || t[i] === '_' || t[i] === ' ') && digit(i + 1) ? i + 1 : -1;
    if (k < 0) return false;
    while (digit(k)) k++;
    return k >= t.length || !ALNUM_RE.test(codePointAt(t, k));
  }

  /** `(?:[-_:][\p{L}\p{N}]+)*?[-_:]\p{L}*\p{N}` at `i`: a chain of separated segments, one holding a digit. */
  private plantIdAt(i: number): boolean {
    const t = this.text;
    const visited: number[] = [];
    let result = 0;
    let p = i;
    for (;;) {
      const known = this.chain.get(p);
      if (known !== undefined) {
        result = known;
        break;
      }
      if (p >= t.length || (t[p] !== '-' && t[p] !== '_' && t[p] !== ':')) break;
      visited.push(p);
      let q = p + 1;
      let digit = false;
      while (q < t.length) {
        const ch = codePointAt(t, q);
        if (!ALNUM_RE.test(ch)) break;
        if (NUMBER_RE.test(ch)) digit = true;
        q += ch.length;
      }
      if (digit) {
        result = 1;
        break;
      }
      // An empty segment ends the chain.
      if (q === p + 1) break;
      p = q;
    }
    for (const v of visited) this.chain.set(v, result);
    return result === 1;
  }

  /** The type whose id or phrase starts at `i`, in group order; null when none does. */
  typeAt(i: number): DocType | null {
    const t = this.text;
    for (const { type, ids, phrases } of STRONG_TYPES) {
      for (const id of ids) {
        if (t.startsWith(id, i) && (this.numberAt(i + id.length) || this.plantIdAt(i + id.length))) return type;
      }
      for (const phrase of phrases) {
        const end = i + phrase.length;
        if (t.startsWith(phrase, i) && (end >= t.length || !ALNUM_RE.test(codePointAt(t, end)))) return type;
      }
    }
    return null;
  }
}

/** The first strong mention's type in `haystack` (lower case), or null. */
export function strongType(haystack: string): DocType | null {
  const scan = new StrongScan(haystack);
  for (let i = 0; i < haystack.length; i++) {
    // Every id and phrase starts with a letter in a..w: a cheap test before the word-start test.
    const code = haystack.charCodeAt(i);
    if (code < 0x61 || code > 0x77 || alnumBefore(haystack, i)) continue;
    const found = scan.typeAt(i);
    if (found !== null) return found;
  }
  return null;
}

const HINTS: ReadonlyArray<readonly [string, DocType]> = [
  ['standard operating procedure', 'SOP'],
  ['operating procedure', 'SOP'],
  ['procedure', 'SOP'],
  ['sop', 'SOP'],
  ['condition report', 'CR'],
  ['cr-', 'CR'],
  ['work order', 'WO'],
  ['wo-', 'WO'],
  ['event causal analysis', 'ECA'],
  ['causal evaluation', 'ECA'],
  ['root cause', 'ECA'],
  ['eca-', 'ECA'],
];
const HINT_TYPE = new Map<string, DocType>(HINTS);

// Phrases ending in a letter are whole words (an optional plural "s" allowed); "cr-"-style
// prefixes end in a hyphen and need only the left boundary. Longest first so the alternation
// prefers "operating procedure" over "procedure" at the same position.
function buildHintRe(): RegExp {
  const sorted = [...HINTS.map(([phrase]) => phrase)].sort((a, b) => b.length - a.length);
  const words = sorted.filter((p) => /\p{L}$/u.test(p)).map(escapePattern);
  const prefixes = sorted.filter((p) => !/\p{L}$/u.test(p)).map(escapePattern);
  return buildPattern('tagging/doc-type: hint', `${LEFT}(?:(${words.join('|')})s?${RIGHT}|(${prefixes.join('|')}))`, 'gu');
}
let hintRe: RegExp | undefined;


function hintType(haystack: string): DocType | null {
  let best: DocType | null = null;
  let bestLength = 0;
  const re = (hintRe ??= buildHintRe());
  re.lastIndex = 0;
  for (let match = re.exec(haystack); match !== null; match = re.exec(haystack)) {
    const phrase = match[1] ?? match[2] ?? '';
    // Strictly longer only: on equal length the earlier phrase in the evidence keeps the win.
    if (phrase.length > bestLength) {
      best = HINT_TYPE.get(phrase) ?? null;
      bestLength = phrase.length;
    }
    // Step one character, not past the match, so a longer phrase starting inside this one is seen.
    re.lastIndex = match.index + 1;
  }
  return best;
}

/**
 * The document's own identity first: its name, then its source path, then its id, each on its own
 * (a strong id in it, else a type phrase such as "Procedure"); only then what its text says (the
 * first strong id by position in the first 4,000 characters, else the longest type phrase). So an
 * FMEA whose text cites "SOP-U2-CND-001" stays OTHER, and "Condenser Vacuum Procedure" responding
 * to a CR stays an SOP.
 */
export function detectDocType(evidence: DocTypeEvidence): DocType {
  return detectDocForm(evidence).type;
}

/** A document's type and its finer kind (null when its form does not say). */
export interface DocForm {
  type: DocType;
  subtype: DocSubtype | null;
}

/**
 * The doc type and subtype of a document, from its first chunk. The document's own form first: a
 * form names itself in its title or opening lines ("Event Notification Report", "Licensee Event
 * Report", "NRC Form 366", "IE Circular No. 81-02", "Inspection Report", "EOP:", a procedure
 * numbered E-/ES-/ECA-/FR- …; the earliest such marker wins, see FORM_MARKERS), so `cr78016.html`
 * that opens "IE Circular No. 78-16" is a circular, not a CR. Then its own identity (name, source
 * path, id: DESIGN §2's strong ids and hints, and NRC's own names: `LER-2019-001`, an event report
 * page `20191017en.html`), and its title (the first section path segment) the same way; then the
 * rule an event report is made under (10 CFR 50.73: an LER, 50.72: an event notification), a
 * supplier's letter about a part (Part 21), an LER it cites by number (its cover letter), a
 * procedure's section headings (a procedure's form beats the ids it cites), then what its text
 * says (§2).
 */
export function detectDocForm(evidence: DocTypeEvidence): DocForm {
  const text = typeof evidence.text === 'string' ? evidence.text : '';
  const title = typeof evidence.title === 'string' ? evidence.title : '';
  const marked = formMarked(title, text);
  if (marked !== null) return formOf(marked);
  for (const own of [evidence.docName, evidence.sourcePath, evidence.docId, title]) {
    if (typeof own !== 'string' || own === '') continue;
    const lower = own.toLowerCase();
    const named = nrcName(lower);
    if (named !== null) return formOf(named);
    const found = strongType(lower) ?? hintType(lower);
    if (found !== null) return { type: found, subtype: subtypeOfName(found, lower) };
  }
  if (text === '') return { type: 'OTHER', subtype: null };
  const opening = text.slice(0, FORM_WINDOW).toLowerCase();
  const reported = reportedUnder(opening);
  if (reported !== null) return formOf(reported);
  // A letter's form beats a procedure id its subject line happens to hold.
  if (componentNoticeToNrc(opening)) return formOf('PART21');
  // An opening that cites an LER by its number and names no other form is the LER's cover letter.
  if (lerNumberAt(opening) >= 0) return formOf('LER');
  if (hasProcedureHeadings(text.slice(0, TEXT_WINDOW))) return formOf('PROC');
  const lower = text.slice(0, TEXT_WINDOW).toLowerCase();
  const found = strongType(lower) ?? hintType(lower);
  if (found !== null) return { type: found, subtype: found === 'SOP' ? 'PROC' : null };
  return { type: 'OTHER', subtype: null };
}

/** "LER", an optional "No."/"Number", then a number (a digit): where the first such citation starts, or -1. */
function lerNumberAt(lower: string): number {
  for (let at = wordAt(lower, 'ler'); at >= 0; at = wordAt(lower, 'ler', at + 1)) {
    let k = at + 3;
    if (lower[k] === 's') k++;
    if (lower[k] === '-' || lower[k] === '_') k++;
    while (lower[k] === ' ') k++;
    if (lower.startsWith('no.', k)) k += 3;
    else if (lower.startsWith('number', k)) k += 6;
    while (lower[k] === ' ') k++;
    if (isDigitAt(lower, k)) return at;
  }
  return -1;
}

/**
 * An event report that names no form but the rule it reports under: 10 CFR 50.73 (a Licensee Event
 * Report) or 50.72 (an event notification), whichever the opening cites first.
 */
function reportedUnder(lower: string): DocSubtype | null {
  let at = lower.indexOf('50.7');
  for (; at >= 0; at = lower.indexOf('50.7', at + 1)) {
    if (alnumBefore(lower, at) && !/cfr$/.test(lower.slice(Math.max(0, at - 3), at))) continue;
    const next = lower[at + 4];
    if ((next === '3' || next === '2') && !ALNUM_RE.test(lower[at + 5] ?? ' ')) return next === '3' ? 'LER' : 'EN';
  }
  return null;
}

/**
 * A letter to the NRC (its Document Control Desk, or the Commission in the address block) whose
 * subject line names a component by its part, model or serial number: a supplier's notification of
 * a defect in a basic component it supplied (10 CFR 21.21), the one kind of NRC correspondence that
 * is about a part rather than a docket.
 */
function componentNoticeToNrc(lower: string): boolean {
  if (!lower.includes('document control desk') && !lower.includes('nuclear regulatory commission')) return false;
  const subject = subjectLine(lower);
  return subject !== null && COMPONENT_IDS.some((id) => wordAt(subject, id) >= 0);
}
/** How a subject line names a component. */
const COMPONENT_IDS = ['part number', 'part no', 'p/n', 'model number', 'model no', 'serial number', 'serial no'];

/** A letter's subject line (to its end, and the line after it: subjects wrap), or null. OCR may leave "Subject," or "Subj ect:". */
function subjectLine(lower: string): string | null {
  for (let at = lower.indexOf('subj'); at >= 0; at = lower.indexOf('subj', at + 1)) {
    if (alnumBefore(lower, at)) continue;
    let k = at + 4;
    if (lower[k] === ' ') k++;
    if (lower.startsWith('ect', k)) k += 3;
    else if (lower[k] !== '.' && lower[k] !== ':') continue;
    if (lower[k] !== ':' && lower[k] !== ',' && lower[k] !== '.' && lower[k] !== ';') continue;
    const first = lower.indexOf('\n', k);
    const second = first < 0 ? -1 : lower.indexOf('\n', first + 1);
    return lower.slice(k + 1, second < 0 ? lower.length : second);
  }
  return null;
}

/** The doc type each subtype belongs to (LABELLING.md's kinds: DACKAR's condition-report family for event reports). */
export const TYPE_OF_SUBTYPE: Readonly<Record<DocSubtype, DocType>> = {
  EN: 'CR',
  LER: 'CR',
  PART21: 'CR',
  IR: 'OTHER',
  IN: 'OTHER',
  GL: 'OTHER',
  BULLETIN: 'OTHER',
  CIRCULAR: 'OTHER',
  NUREG: 'OTHER',
  EOP: 'SOP',
  PROC: 'SOP',
};

/** A form as a small integer (tag --jobs sends the forms its lines assumed): a type alone, or a subtype (with its type). */
export function formIndex(form: DocForm): number {
  return form.subtype === null ? DOC_TYPES.indexOf(form.type) : DOC_TYPES.length + DOC_SUBTYPES.indexOf(form.subtype);
}

export function formAt(index: number): DocForm {
  return index < DOC_TYPES.length ? { type: DOC_TYPES[index]!, subtype: null } : formOf(DOC_SUBTYPES[index - DOC_TYPES.length]!);
}

function formOf(subtype: DocSubtype): DocForm {
  return { type: TYPE_OF_SUBTYPE[subtype], subtype };
}

/** A type found by a strong id or hint in a name: an SOP is a plant procedure; an OTHER named "bulletin …" or "NUREG-…" is one. */
function subtypeOfName(type: DocType, lower: string): DocSubtype | null {
  if (type === 'SOP') return 'PROC';
  if (type !== 'OTHER') return null;
  if (wordAt(lower, 'nureg') >= 0) return 'NUREG';
  return null;
}

// NRC's own document names: an LER by its number ("LER-2019-001-01"), an event notification report
// page by its date ("20191017en.html").
function nrcName(lower: string): DocSubtype | null {
  const ler = wordAt(lower, 'ler');
  if (ler >= 0) {
    let k = ler + 3;
    if (lower[k] === '-' || lower[k] === '_' || lower[k] === ' ') k++;
    if (isDigitAt(lower, k)) return 'LER';
  }
  // The last path segment: eight digits and "en".
  const name = lower.slice(lower.lastIndexOf('/') + 1);
  if (name.length >= 10 && name.slice(8, 10) === 'en' && !ALNUM_RE.test(name[10] ?? ' ') && /^\d{8}$/.test(name.slice(0, 8))) return 'EN';
  return null;
}

const isDigitAt = (text: string, i: number): boolean => i < text.length && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39;

/** The first index of `word` in `text` that starts a word (no letter or digit before it), or -1. */
function wordAt(text: string, word: string, from = 0): number {
  for (let i = text.indexOf(word, from); i >= 0; i = text.indexOf(word, i + 1)) {
    if (!alnumBefore(text, i)) return i;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// The document's own form.

/** How far into the text a form's own markers are looked for: its title block and opening lines. */
export const FORM_WINDOW = 1500;

/** After the phrase: anything (word end), a colon (a form field label), an NRC number ("86-01"), a serial number of 4 to 6 digits ("57270"). */
type MarkerTail = 'word' | 'colon' | 'number' | 'serial';

/**
 * What a document's own form shows, per subtype, lower case. A marker counts where it starts a
 * word; `colon` markers are field labels, `number` markers are an NRC series name followed by its
 * number ("Bulletin No. 86-01", "IE Circular 81-02"), so a citation of a vendor's bulletin is none.
 */
const FORM_MARKERS: ReadonlyArray<readonly [DocSubtype, string, MarkerTail]> = [
  ['EN', 'event notification report', 'word'],
  ['EN', 'event notification', 'word'],
  ['EN', 'event number', 'colon'],
  ['EN', 'hq ops officer', 'word'],
  ['EN', 'nrc notified by', 'word'],
  // The Event Notification System's own number, as its list pages print it ("ENS 57270").
  ['EN', 'ens', 'serial'],
  // The Headquarters Operations Officer's words: how the licensee reported, and whom the officer
  // then notified (a regional duty officer "R1DO", DHS, FEMA, the NICC) at the end of the report.
  ['EN', 'the following information was provided by the licensee', 'word'],
  ['EN', 'headquarters operations officer', 'word'],
  ['EN', 'notified dhs', 'word'],
  ['EN', 'notified fema', 'word'],
  ['EN', 'notified r1do', 'word'],
  ['EN', 'notified r2do', 'word'],
  ['EN', 'notified r3do', 'word'],
  ['EN', 'notified r4do', 'word'],
  ['LER', 'licensee event report', 'word'],
  ['LER', 'nrc form 366', 'word'],
  ['LER', 'ler number', 'word'],
  ['LER', 'reportable occurrence', 'word'],
  // NRC Form 366's burden statement and its OMB control number, printed on the form's first page.
  ['LER', 'reported lessons learned are incorporated into the licensing process', 'word'],
  ['LER', '3150-0104', 'word'],
  ['PART21', 'part 21', 'word'],
  ['PART21', '10 cfr 21', 'word'],
  ['PART21', '10cfr21', 'word'],
  ['PART21', '10cfr 21', 'word'],
  ['PART21', '10 cfr part 21', 'word'],
  ['PART21', '50.55(e)', 'word'],
  ['PART21', 'construction deficiency', 'word'],
  ['PART21', 'defects and non-compliance', 'word'],
  ['PART21', 'defects and noncompliance', 'word'],
  ['PART21', 'substantial safety hazard', 'word'],
  ['PART21', 'reportable defect', 'word'],
  // 10 CFR 21.21's own words for what a supplier evaluates and reports.
  ['PART21', 'deviation or failure to comply', 'word'],
  ['PART21', 'defect or failure to comply', 'word'],
  ['IR', 'inspection report', 'word'],
  ['IR', 'inspection reports', 'word'],
  ['IR', 'notice of violation', 'word'],
  ['IR', 'inspection summary', 'word'],
  ['IR', 'areas inspected', 'word'],
  ['IR', 'inspection conducted', 'word'],
  // The field block of an inspection report's cover page.
  ['IR', 'inspection at', 'colon'],
  ['IR', 'inspection dates', 'colon'],
  ['IR', 'dates of inspection', 'word'],
  ['IR', 'inspectors identified', 'word'],
  ['IR', 'inspector identified', 'word'],
  ['IR', 'non-cited violation', 'word'],
  ['IR', 'noncited violation', 'word'],
  ['IR', 'systematic assessment of licensee performance', 'word'],
  // The words of an inspection finding (NRC Inspection Manual Chapter 0611).
  ['IR', 'self-revealed', 'word'],
  ['IR', 'self-revealing', 'word'],
  ['IR', 'performance deficiency', 'word'],
  ['IR', 'cross-cutting aspect', 'word'],
  ['IR', 'very low safety significance', 'word'],
  // The words of the significance determination process (IMC 0609) that rates a finding.
  ['IR', 'significance determination', 'word'],
  ['IR', 'inspection procedure', 'word'],
  ['IR', 'inspectors', 'colon'],
  ['IR', 'inspector', 'colon'],
  ['IN', 'information notice', 'word'],
  ['GL', 'generic letter', 'word'],
  ['BULLETIN', 'bulletin', 'number'],
  ['BULLETIN', 'ie bulletin', 'word'],
  ['BULLETIN', 'nrc bulletin', 'word'],
  ['CIRCULAR', 'circular', 'number'],
  ['CIRCULAR', 'ie circular', 'word'],
  ['EOP', 'eop', 'colon'],
  ['EOP', 'emergency operating procedure', 'word'],
  ['EOP', 'abnormal operating procedure', 'word'],
  ['EOP', 'emergency procedure', 'word'],
  ['EOP', 'abnormal procedure', 'word'],
  ['EOP', 'off-normal procedure', 'word'],
  ['EOP', 'abnormal operating', 'word'],
  ['EOP', 'response not obtained', 'word'],
  ['EOP', 'action/expected response', 'word'],
];
// A report's own title may also be a NUREG's: only at the very start of the title or text.
const NUREG_OPENING = 'nureg-';

/** Whether a heading names a document's form ("Information Notice No. 90-39: …", "E-3 STEAM GENERATOR TUBE RUPTURE"): a title, not a section. */
export function namesAForm(heading: string): boolean {
  // Asked of every chunk's title and headings, which repeat across a document's chunks.
  let named = formNames.get(heading);
  if (named === undefined) {
    named = formMarked(heading, '') !== null;
    if (formNames.size >= FORM_NAME_MEMO) formNames.clear();
    formNames.set(heading, named);
  }
  return named;
}
const FORM_NAME_MEMO = 4096;
const formNames = new Map<string, boolean>();

/** The subtype whose marker comes first in the title or the opening window, or null. */
function formMarked(title: string, text: string): DocSubtype | null {
  const window = `${title}\n${text.slice(0, FORM_WINDOW)}`;
  const lower = window.toLowerCase();
  let best: DocSubtype | null = null;
  let bestAt = Number.POSITIVE_INFINITY;
  for (const [subtype, phrase, tail] of FORM_MARKERS) {
    const at = markerAt(lower, phrase, tail);
    if (at >= 0 && at < bestAt) {
      best = subtype;
      bestAt = at;
    }
  }
  const eop = eopNumberAt(lower, title.length);
  if (eop >= 0 && eop < bestAt) {
    best = 'EOP';
    bestAt = eop;
  }
  if (lower.trimStart().startsWith(NUREG_OPENING) && bestAt > 0) best ??= 'NUREG';
  // An event notification that reports a defect or noncompliance is a Part 21 report.
  if (best === 'EN' && FORM_MARKERS.some(([subtype, phrase, tail]) => subtype === 'PART21' && markerAt(lower, phrase, tail) >= 0)) best = 'PART21';
  return best;
}

function markerAt(lower: string, phrase: string, tail: MarkerTail): number {
  for (let at = wordAt(lower, phrase); at >= 0; at = wordAt(lower, phrase, at + 1)) {
    const end = at + phrase.length;
    if (tail === 'word' ? !ALNUM_RE.test(lower[end] ?? ' ') : tail === 'colon' ? colonAfter(lower, end) : tail === 'serial' ? serialAfter(lower, end) : numberAfter(lower, end)) return at;
  }
  return -1;
}

/** Blanks, then a colon. */
function colonAfter(lower: string, end: number): boolean {
  let k = end;
  while (k < lower.length && k - end < 16 && (lower[k] === ' ' || lower[k] === '\t')) k++;
  return lower[k] === ':';
}

/** Blanks (or "#"), then 4 to 6 digits and a word end. */
function serialAfter(lower: string, end: number): boolean {
  let k = end;
  while (lower[k] === ' ' || lower[k] === '#') k++;
  if (k === end) return false;
  const start = k;
  while (isDigitAt(lower, k)) k++;
  return k - start >= 4 && k - start <= 6 && !ALNUM_RE.test(lower[k] ?? ' ');
}

/** "s", "no."/"nos.", blanks, then an NRC number: a year of two digits or four, a hyphen, two digits ("79-05c", "86-01", "2012-01"). */
function numberAfter(lower: string, end: number): boolean {
  let k = end;
  if (lower[k] === 's') k++;
  while (lower[k] === ' ') k++;
  if (lower.startsWith('no.', k) || lower.startsWith('nos.', k)) {
    k += lower[k + 2] === '.' ? 3 : 4;
    while (lower[k] === ' ') k++;
  }
  const year = isDigitAt(lower, k + 2) && isDigitAt(lower, k + 3) ? 4 : 2;
  const hyphen = k + year;
  return isDigitAt(lower, k) && isDigitAt(lower, k + 1) && lower[hyphen] === '-' && isDigitAt(lower, hyphen + 1) && isDigitAt(lower, hyphen + 2);
}

/**
 * A procedure number of a Westinghouse-style EOP set: E-0, E-3, ES-1.2, ECA-0.0, FR-S.1 (or a plant
 * EOP or AOP number, EOP-1.0, AOP-13, in the title), with an
 * optional unit ("3-ECA-0.0"); in the title, or in an opening that calls itself an EOP or an
 * emergency or abnormal procedure. A plant id such as ECA-2026-0007 (four digits) is none.
 */
const EOP_PREFIXES = ['eca-', 'es-', 'fr-', 'e-', 'eop-', 'aop-'];

function eopNumberAt(lower: string, titleLength: number): number {
  // In the text, only in an emergency or abnormal procedure's opening (a page id "ES-1" is no EOP).
  const procedure = wordAt(lower, 'eop') >= 0 || (lower.includes('procedure') && (lower.includes('emergency') || lower.includes('abnormal')));
  for (const prefix of EOP_PREFIXES) {
    // An EOP or AOP number ("EOP-1.0", "2-AOP-13") names the procedure in its title only: a text
    // cites the EOP set's numbers, and a procedure that cites one is not one.
    const titleOnly = prefix === 'eop-' || prefix === 'aop-';
    for (let at = lower.indexOf(prefix); at >= 0 && !(titleOnly && at >= titleLength); at = lower.indexOf(prefix, at + 1)) {
      // A word start, or a unit number and a hyphen before it ("3-eca-0.0").
      const before = at === 0 ? ' ' : lower[at - 1]!;
      const unit = before === '-' && at >= 2 && isDigitAt(lower, at - 2) && (at === 2 || !ALNUM_RE.test(lower[at - 3]!));
      if (ALNUM_RE.test(before) || (before === '-' && !unit)) continue;
      let k = at + prefix.length;
      if (prefix === 'fr-' && ALNUM_RE.test(lower[k] ?? ' ') && !isDigitAt(lower, k) && lower[k + 1] === '.') k += 2;
      let digits = 0;
      while (isDigitAt(lower, k) && digits < 3) {
        k++;
        digits++;
      }
      if (digits === 0 || digits > 2) continue;
      if (lower[k] === '.' && isDigitAt(lower, k + 1)) {
        k++;
        while (isDigitAt(lower, k)) k++;
      }
      if (ALNUM_RE.test(lower[k] ?? ' ') || (lower[k] === '-' && isDigitAt(lower, k + 1))) continue;
      if (at < titleLength || procedure) return at;
    }
  }
  return -1;
}

// Section headings of a plant procedure, as procedures print them (capitals): two of them in a
// document's opening make it a procedure when nothing else says what it is.
const PROCEDURE_HEADINGS = ['PURPOSE', 'SCOPE', 'PREREQUISITES', 'PRECAUTIONS', 'LIMITATIONS', 'INSTRUCTIONS', 'ACCEPTANCE CRITERIA', 'ATTACHMENTS', 'INITIAL CONDITIONS'];

function hasProcedureHeadings(text: string): boolean {
  let found = 0;
  for (const heading of PROCEDURE_HEADINGS) {
    for (let at = text.indexOf(heading); at >= 0; at = text.indexOf(heading, at + 1)) {
      if (alnumBefore(text, at) || ALNUM_RE.test(text[at + heading.length] ?? ' ')) continue;
      found++;
      break;
    }
    if (found >= 2) return true;
  }
  return false;
}

const DOC_TYPE_SET: ReadonlySet<string> = new Set(DOC_TYPES);

export function isDocType(value: unknown): value is DocType {
  return typeof value === 'string' && DOC_TYPE_SET.has(value);
}

/** Case-insensitive and trimmed; null for anything outside the vocabulary (e.g. "BULLETIN"). */
export function normaliseDocType(value: unknown): DocType | null {
  if (typeof value !== 'string') return null;
  const upper = value.trim().toUpperCase();
  return isDocType(upper) ? upper : null;
}

// Upstream names of the four types, beside their codes.
const UPSTREAM_NAMES = new Map<string, DocType>([
  ['procedure', 'SOP'],
  ['standard operating procedure', 'SOP'],
  ['operating procedure', 'SOP'],
  ['condition report', 'CR'],
  ['work order', 'WO'],
  ['event causal analysis', 'ECA'],
  ['event causal evaluation', 'ECA'],
  ['causal evaluation', 'ECA'],
]);

/**
 * The doc type an upstream `doc_type` value states: a type of the vocabulary (or its name,
 * "Condition Report"); any other kind ("FMEA", "BULLETIN") is OTHER, never the type of what the
 * document cites; null when there is no value (blank or not a string) and the type is detected.
 */
export function upstreamDocType(value: unknown): DocType | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  const known = normaliseDocType(trimmed);
  if (known !== null) return known;
  const name = trimmed.toLowerCase().replace(/[\s_-]+/g, ' ');
  return UPSTREAM_NAMES.get(name) ?? UPSTREAM_NAMES.get(name.replace(/s$/, '')) ?? 'OTHER';
}

/** SOP: mandatory; a generic letter or bulletin (it requests actions): guidance; otherwise informational. */
export function authorityFor(docType: DocType, subtype: DocSubtype | null = null): AuthorityLevel {
  if (docType === 'SOP') return 'mandatory';
  return subtype === 'GL' || subtype === 'BULLETIN' ? 'guidance' : 'informational';
}
