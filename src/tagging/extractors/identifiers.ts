// Identifier families: document references, alarm ids, failure-mode ids and equipment tags.
// Each is one precompiled regex, tried where scan.ts says it may start; the forms follow DACKAR's
// default plant profile, extended where the profile's own examples or our data need it. A new
// form must keep the start shapes findStarts (scan.ts) marks, or extend them.

import { ALARM_ID, DOC_REF, EQUIPMENT_ID, type Family, FM_ID, type Found, tokenRegex, wholeMatchAt } from './scan.js';

const YEAR = '(?:19|20)\\d{2}';
const GAP = '[ \\t\\u00A0]+';

// Prefixes are upper case as in the profile: lower-case "in 2019-20" or "gl" are prose, not refs.
const DOC_REF_FORMS = [
  // The serial may follow a hard wrap after its hyphen ("CR-2019-\n01234").
  `CR-${YEAR}-(?:\\r?\\n)?\\d{3,8}`,
  // A corrective action record with its plant or site segment ("CR-IP3-2015-05952"), the serial
  // possibly cut from its hyphen by a line wrap ("CR-IP3-2015- 05952").
  `(?:CR|AR|NCR|PER|CAP)-[A-Z][A-Z0-9]{0,4}-${YEAR}-[ ]?\\d{3,8}`,
  'CR-\\d{5,8}',
  `CAP-?${YEAR}-\\d{3,8}`,
  'CAP-\\d{5,9}',
  `WO-${YEAR}-\\d{3,8}`,
  'WO-\\d{5,9}',
  `WO${GAP}\\d{5,9}`,
  'PM-\\d{4,8}',
  `PM${GAP}\\d{4,8}`,
  // Plant PM and task ids: PM-U2-CND-EXPJOINT-INSP-A, PM-U2-AIR-EJECTOR-SURV-Q.
  'PM(?:-[A-Z0-9]{1,12}){2,8}',
  // Numbered action items of a CR (CA-1, CA-12): tracked items a reader looks up, like documents.
  'CA-\\d{1,4}',
  `ECA-${YEAR}-\\d{3,6}`,
  '(?:ECA|EC|DCN|ECN)-\\d{4,7}',
  // Procedures may carry up to three plant/system segments before the number
  // (SOP-U2-CND-001, EOP-E-0) and dotted sub-numbers (OP-1234.2).
  '(?:EOP|AOP|GOP|SOP|FNP)(?:-[A-Z0-9]{1,6}){0,3}-\\d{1,5}(?:\\.\\d+)*',
  '(?:OP|MP|SP)(?:-[A-Z0-9]{1,6}){0,3}-\\d{2,5}(?:\\.\\d+)*',
  `LER(?:-|${GAP})\\d{3}-${YEAR}-\\d{3}`,
  `(?:GL|IN)(?:-|${GAP})${YEAR}-\\d{2,3}`,
  `(?:BUL-|BULLETIN${GAP})${YEAR}-\\d{2,3}`,
  `(?:SER|IER)-${YEAR}-\\d{2,4}`,
  'OE-\\d{4,6}',
  `(?:NCR|PER)-${YEAR}-\\d{3,7}`,
  'NCR-\\d{5,8}',
  'AR-\\d{5,8}',
];

// The profile's "kla_point" form ([A-Z]{1,4}-\d{4}) is left out on purpose: it is exactly the
// shape of instrument tags such as FT-1102, which are equipment.
const ALARM_FORMS = [
  'ALM-\\d{3,6}[A-Z]?',
  'ANN(?:UNC)?-[A-Z]-\\d{1,3}',
  `(?:WINDOW|Window)${GAP}[A-Z]-\\d{1,3}`,
  'P(?:AHH|ALL|AS|AH|AL)-\\d{3,6}(?:-(?:HI|LO))?',
  // Unit-train-condition tags: 1-RC-P-1A-HI-PRESS, 1-FW-LO-FLOW (the condition may be followed by
  // the process variable, which the profile's own example does but its pattern did not allow).
  '\\d-[A-Z]{2,6}(?:-[A-Z0-9]{1,6}){0,3}-(?:HI-HI|LO-LO|HI|LO|TRIP|ALARM|ACTUAT|SCRAM|SI|EFAS|AFAS)(?:-[A-Z]{2,8})?',
];

const FM_ID_FORMS = ['FM(?:_[A-Z0-9]+)+', 'FM-\\d{1,4}[A-Z]?'];

// Candidate shape only; isEquipmentId decides. Upper-case letters only, so hyphenated English
// ("in-leakage", "year-2026") never qualifies and case is kept exactly as written. Segments are
// joined by "-", or after a unit-prefixed system by the "*" some plants write before the
// instrument (2RCS*PT455). The "*" form is its own alternative: a "[-*]" class in the common form
// doubles the cost of this regex, which runs at every hyphenated upper-case token.
const EQUIPMENT_SHAPE = ['[A-Z0-9]+(?:-[A-Z0-9]+)+', '\\d[A-Z]{1,5}\\*[A-Z0-9]+(?:-[A-Z0-9]+)*'];

const DOC_REF_RE = tokenRegex('tagging/extractors/identifiers: DOC_REF_RE', DOC_REF_FORMS);
const ALARM_RE = tokenRegex('tagging/extractors/identifiers: ALARM_RE', ALARM_FORMS);
const FM_ID_RE = tokenRegex('tagging/extractors/identifiers: FM_ID_RE', FM_ID_FORMS);
const EQUIPMENT_RE = tokenRegex('tagging/extractors/identifiers: EQUIPMENT_RE', EQUIPMENT_SHAPE);

// First segments that name a document, an alarm, a standard or a part of a document: such a token
// is never equipment even when its doc-ref or alarm form did not match in full (CR-2026 alone,
// PM-U2-CND-EXPJOINT-INSP-A, NUREG-0800).
const NOT_EQUIPMENT_PREFIXES = new Set([
  'CR', 'CAP', 'WO', 'PM', 'ECA', 'EC', 'DCN', 'ECN', 'SOP', 'OP', 'MP', 'SP', 'EOP', 'AOP', 'GOP',
  'FNP', 'LER', 'GL', 'IN', 'BUL', 'FM', 'CA', 'LCO', 'TS', 'RG', 'BULLETIN', 'SER', 'IER', 'OE', 'NCR', 'PER', 'AR', 'FMEA',
  'ALM', 'ANN', 'ANNUNC', 'WINDOW', 'PAS', 'PAH', 'PAL', 'PAHH', 'PALL',
  'NUREG', 'ASME', 'IEEE', 'ANSI', 'ASTM', 'ISO', 'EPRI', 'NEI', 'NFPA', 'API', 'TECH',
  'REV', 'STEP', 'TABLE', 'FIG', 'FIGURE', 'ATTACHMENT', 'APPENDIX', 'SECTION', 'PAGE', 'NOTE', 'ITEM',
  // An LER's EIIS component codes ("[EIIS-AB-SG]", OCR "EI1S"), and NRC licence designators.
  'EIIS', 'EI1S', 'DPR', 'NPF', 'CPPR', 'CPR', 'SNM', 'SUA', 'SMB',
  // Westinghouse EOP-set names read without their dot ("ES-1", "ECA-1"), and the NRC's buildings
  // in its mail addresses (One and Two White Flint North, the New Executive Office Building).
  'ES', 'ECA', 'OWFN', 'TWFN', '3WFN', 'NEOB',
]);

// Reactor types as event notifications give them (RX TYPE: GE-4, W-4-LP, CE, B&W-L-LP): a vendor
// and a generation number, never equipment.
const REACTOR_VENDORS = new Set(['GE', 'W', 'CE', 'BW']);

// Numbered list items written like tags (corrective actions CA-1, CA-2 in a CR's action table).
const NUMBERED_ITEM_PREFIXES = new Set(['CA']);

// Nuclides are written like tags and are frequent in plant documents.
const NUCLIDES = new Set([
  'H-3', 'C-14', 'N-16', 'CO-58', 'CO-60', 'KR-85', 'SR-90', 'I-131', 'I-133', 'I-135', 'XE-133',
  'XE-135', 'CS-134', 'CS-137', 'U-235', 'U-238', 'PU-239', 'AM-241',
]);

const HYPHEN = 45;
const STAR = 42;
const DIGIT_0 = 48;
const DIGIT_9 = 57;

// A unit digit and system letters (1SI, 2RCS), or a unit digit and a GE BWR system code, a letter
// and two digits (1E51, 2E11, 1B21).
const UNIT_PREFIXED_RE = /^\d(?:[A-Z]{1,5}|[A-Z]\d{2})$/;

// One pass over the characters (the shape regex guarantees only A-Z, 0-9 and inner hyphens):
// this runs for every hyphenated upper-case token, dates included, so it avoids split and regexes.
function isEquipmentId(id: string): boolean {
  let hyphens = 0;
  let letters = 0;
  let digits = 0;
  let lastSegmentDigits = 0;
  let lastSegmentLetters = 0;
  let firstSegmentEnd = -1;
  for (let i = 0; i < id.length; i += 1) {
    const code = id.charCodeAt(i);
    if (code === HYPHEN || code === STAR) {
      hyphens += 1;
      if (firstSegmentEnd < 0) firstSegmentEnd = i;
      lastSegmentDigits = 0;
      lastSegmentLetters = 0;
    } else if (code >= DIGIT_0 && code <= DIGIT_9) {
      digits += 1;
      lastSegmentDigits += 1;
    } else {
      letters += 1;
      lastSegmentLetters += 1;
    }
  }
  if (digits === 0 || letters === 0) return false; // dates, ranges, HI-HI
  const first = id.slice(0, firstSegmentEnd);
  if (NOT_EQUIPMENT_PREFIXES.has(first) || NUCLIDES.has(id)) return false;
  if (REACTOR_VENDORS.has(first) && id.length > firstSegmentEnd + 1 && isSingleDigitSegment(id, firstSegmentEnd + 1)) return false;
  // OCR'd regulation and report names ("1 OCFR21-0094", "NIJREG-0844") are documents.
  if (first.includes('CFR') || first.endsWith('REG')) return false;
  // One letter and five digits or more is a document or serial number (a letter's "U-604815"), not a tag.
  if (hyphens === 1 && firstSegmentEnd === 1 && lastSegmentLetters === 0 && lastSegmentDigits >= 5) return false;
  if (hyphens > 1) return true; // AFW-P-101, 1-RC-P-1A, U2-CND-HOTWELL
  // Two segments must read PREFIX-NUMBER: P-101A, MOV-204A, FT-1102. A one-letter prefix needs a
  // three-digit number or a train letter after the number (P-101, P-2A), so grid and window
  // labels (A-1, B-2, A-14) are not tags.
  // A unit digit may lead the system letters (1SI-8801A, 2RCS*PT455); a bare number may not (12-34A).
  const startsWithDigit = id.charCodeAt(0) <= DIGIT_9;
  if (startsWithDigit && !UNIT_PREFIXED_RE.test(first)) return false;
  if (NUMBERED_ITEM_PREFIXES.has(first) || lastSegmentDigits === 0) return false;
  if (startsWithDigit) return true;
  // A letter and a digit, then one or two digits ("E5-18", "B2-11"): a page of a lettered part or
  // a grid cell, numbered like A-14.
  if (firstSegmentEnd === 2 && letters === 1 && lastSegmentDigits <= 2 && lastSegmentLetters === 0) return false;
  return firstSegmentEnd > 1 || lastSegmentDigits >= 3 || lastSegmentLetters > 0;
}

// Numbers of a part, not of plant equipment: "model number 0-007-C-42", "Pt No N69-921", "P/N 123-45A".
const NUMBER_CUES = new Set(['model', 'part', 'pt', 'serial', 'catalog', 'cat', 'p/n', 's/n', 'type', 'style', 'drawing', 'dwg', 'lot', 'heat', 'batch', 'order']);
const NUMBER_WORDS = new Set(['no', 'no.', 'nos', 'nos.', 'number', 'numbers', '#', 'num', 'num.']);

/** Whether the token at `start` follows a part, model or serial cue (and its "No.", "#" or ":"). */
function afterNumberCue(text: string, start: number): boolean {
  let j = start;
  for (let words = 0; words < 3; words++) {
    while (j > 0 && ' \t(:#'.includes(text[j - 1]!)) j--;
    if (j === 0) return false;
    let k = j;
    while (k > 0 && /[A-Za-z./]/.test(text[k - 1]!) && j - k < 12) k--;
    const word = text.slice(k, j).toLowerCase();
    if (NUMBER_CUES.has(word)) return true;
    if (!NUMBER_WORDS.has(word)) return false;
    j = k;
  }
  return false;
}

// Nouns a plant writes an equipment number after ("breaker 52-1A3", "relay 27-1A", "transformer
// T-21", "penetration X-12"): after one, a device-number tag or a short letter-number tag is
// equipment though it reads alone like a grid cell or a range.
const EQUIPMENT_NOUNS = new Set([
  'breaker', 'breakers', 'relay', 'relays', 'transformer', 'transformers', 'penetration', 'penetrations', 'valve', 'valves', 'pump',
  'pumps', 'switch', 'switches', 'transmitter', 'transmitters', 'fuse', 'fuses', 'damper', 'dampers', 'motor', 'mov', 'aov', 'sov',
  'cubicle', 'panel', 'cabinet', 'inverter', 'charger', 'bus', 'feeder', 'snubber', 'snubbers', 'hanger', 'support',
]);

/** Whether the token at `start` follows an equipment noun ("breaker 52-1A3"), a blank between. */
function afterEquipmentNoun(text: string, start: number): boolean {
  let j = start;
  while (j > 0 && (text[j - 1] === ' ' || text[j - 1] === '\t')) j--;
  if (j === start) return false;
  let k = j;
  while (k > 0 && /[A-Za-z]/.test(text[k - 1]!) && j - k < 14) k--;
  return k < j && EQUIPMENT_NOUNS.has(text.slice(k, j).toLowerCase());
}

/** A tag an equipment noun vouches for: letters and digits both, no document prefix ("52-1A3", "T-21", "X-12"). */
function isNamedTag(id: string): boolean {
  let letters = 0;
  let digits = 0;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c >= DIGIT_0 && c <= DIGIT_9) digits++;
    else if (c !== HYPHEN && c !== STAR) letters++;
  }
  const dash = id.indexOf('-');
  const first = dash < 0 ? id : id.slice(0, dash);
  return digits > 0 && letters > 0 && !NOT_EQUIPMENT_PREFIXES.has(first) && !NUCLIDES.has(id);
}

function isSingleDigitSegment(id: string, at: number): boolean {
  const code = id.charCodeAt(at);
  if (code < DIGIT_0 || code > DIGIT_9) return false;
  const next = id.charCodeAt(at + 1);
  return Number.isNaN(next) || next === HYPHEN;
}

export const docRefs: Family<string> = {
  bit: DOC_REF,
  regex: DOC_REF_RE,
  at: (text, start) => wholeMatchAt(DOC_REF_RE, text, start),
};

export const alarmIds: Family<string> = {
  bit: ALARM_ID,
  regex: ALARM_RE,
  at: (text, start) => wholeMatchAt(ALARM_RE, text, start),
};

export const fmIds: Family<string> = {
  bit: FM_ID,
  regex: FM_ID_RE,
  at: (text, start) => wholeMatchAt(FM_ID_RE, text, start),
};

export const equipmentIds: Family<string> = {
  bit: EQUIPMENT_ID,
  regex: EQUIPMENT_RE,
  at(text: string, start: number): Found<string> | null {
    EQUIPMENT_RE.lastIndex = start;
    if (!EQUIPMENT_RE.test(text)) return null;
    const end = EQUIPMENT_RE.lastIndex;
    const item = text.slice(start, end);
    if (afterNumberCue(text, start)) return null;
    return isEquipmentId(item) || (afterEquipmentNoun(text, start) && isNamedTag(item)) ? { end, key: item.toLowerCase(), item } : null;
  },
};
