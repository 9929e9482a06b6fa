// Sentences that read as prose but say nothing of the event: what a federal form prints on every
// copy (the paperwork-burden notice, the legend of the Energy Industry Identification System
// codes), a listing of part numbers, a list of people and their titles (an inspection report's
// "persons contacted", a signature block run into one line), and a line an OCR pass garbled past
// reading. The extractive views take no item from them. Each test is a single pass over the
// sentence's words.

// The Paperwork Reduction Act notice every NRC and OMB-cleared form carries.
const PAPERWORK_NOTICE_RE = /\b(?:burden (?:estimate|per response)|information collections?|OMB control number|Paperwork Reduction Act)\b/i;
// The LER form's footnote on the EIIS codes in brackets or braces ("… codes appear as [XX]").
const EIIS_NAME_RE = /\b(?:Energy Industry Identification System|EIIS)\b/;
const CODES_RE = /\bcodes?\b/i;
// A person as reports list them (personsIn), opening the sentence with a capitalised title after
// its comma ("L. Barnes, Regulatory Assurance Supervisor").
const PERSON_FIRST_RE = /^\p{Lu}\.(?: ?\p{Lu}\.)* ?\p{Lu}[\p{Ll}'’-]+, \p{Lu}\p{Ll}+ \p{Lu}/u;

// A listing of parts: it cites part, model or serial numbers and has no verb that would make it a
// sentence ("Connecting rod: part numbers 16600736, 16600737"; "Fuel injector pump P/N 9041367").
const PART_NUMBER_RE = /\b(?:part (?:numbers?|nos?\.)|P\/Ns?|model (?:numbers?|nos?\.)|serial (?:numbers?|nos?\.)|S\/Ns?)(?![\p{L}])/iu;
// Auxiliaries and modals, and the past forms that report what happened, mark a clause.
const AUXILIARIES = new Set(['is', 'are', 'was', 'were', 'be', 'been', 'being', 'has', 'have', 'had', 'will', 'would', 'shall', 'should', 'may', 'might', 'can', 'could', 'must', 'do', 'does', 'did']);

function hasFiniteVerb(sentence: string): boolean {
  for (const word of sentence.toLowerCase().split(/[^a-z]+/)) {
    if (AUXILIARIES.has(word)) return true;
    if (word.length > 4 && word.endsWith('ed')) return true;
  }
  return false;
}

/** Whether a sentence is form text, a list of people or OCR noise rather than something the document reports. */
export function isFormText(sentence: string): boolean {
  if (PAPERWORK_NOTICE_RE.test(sentence)) return true;
  if (EIIS_NAME_RE.test(sentence) && CODES_RE.test(sentence)) return true;
  if (PERSON_FIRST_RE.test(sentence)) return true;
  if (personsIn(sentence) >= 2) return true;
  if (PART_NUMBER_RE.test(sentence) && !hasFiniteVerb(sentence)) return true;
  return isGarbled(sentence);
}

/**
 * The people a text names as reports list them: initials, a surname and a comma ("M. J. Wallace,",
 * "P.L. Barnes,"). A hand scan: a run of initials is read once, a start inside it would read the
 * same run's tail and stop where it stopped.
 */
export function personsIn(text: string): number {
  let n = 0;
  let i = 0;
  while (i < text.length) {
    if (!isUpper(text.charCodeAt(i)) || text.charCodeAt(i + 1) !== 0x2e || (i > 0 && isAlnum(text.charCodeAt(i - 1)))) {
      i++;
      continue;
    }
    // Initials: a capital and a dot, each but the first after an optional space.
    let j = i + 2;
    for (;;) {
      const k = text.charCodeAt(j) === 0x20 ? j + 1 : j;
      if (isUpper(text.charCodeAt(k)) && text.charCodeAt(k + 1) === 0x2e) j = k + 2;
      else break;
    }
    // The surname: a capital, lower-case letters (an apostrophe or hyphen among them), then a comma.
    let k = text.charCodeAt(j) === 0x20 ? j + 1 : j;
    if (isUpper(text.charCodeAt(k))) {
      k++;
      const from = k;
      while (k < text.length && (isLower(text.charCodeAt(k)) || NAME_MARKS.has(text.charCodeAt(k)))) k++;
      if (k > from && text.charCodeAt(k) === 0x2c) n++;
    }
    i = Math.max(j, i + 1);
  }
  return n;
}
const NAME_MARKS = new Set([0x27, 0x2019, 0x2d]);

// A word OCR broke: capitals where no name or unit has them ("MEEhJM6", "gTIFICATIOri"; not
// "McGuire", "FitzPatrick", "DeLaval", "kV", "mmHg", "degF"), a capitalised word run into digits
// ("Rp64", "Ul1"; not "1B", "P-101A", "Rev4"), or a mark no word holds between two letters
// ("Bolt.ing", "2n:rican", "Regons{bl"; not "U.S.", "O'Brien", "and/or", "FM_AIR_INLEAK").
const MIN_GARBLED_WORDS = 2;

/** Two garbled words or more, and at least one word in ten: the line is noise to a reader. */
export function isGarbled(sentence: string): boolean {
  let words = 0;
  let garbled = 0;
  let i = 0;
  const n = sentence.length;
  while (i < n) {
    while (i < n && isSpace(sentence.charCodeAt(i))) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && !isSpace(sentence.charCodeAt(i))) i++;
    words++;
    if (isGarbledWord(sentence, start, i)) garbled++;
  }
  return garbled >= MIN_GARBLED_WORDS && garbled * 10 >= words;
}

export function isGarbledWord(text: string, start: number, end: number): boolean {
  // Only the word's inside counts: brackets, quotes and punctuation around it are the sentence's.
  while (start < end && !isAlnum(text.charCodeAt(start))) start++;
  while (end > start && !isAlnum(text.charCodeAt(end - 1))) end--;
  if (end - start < 3) return false;
  const address = isAddressLike(text, start, end);
  const upperFirst = isUpper(text.charCodeAt(start));
  // Capitals seen after the first letter, and the lower-case-to-capital turns.
  let innerCapitals = 0;
  let turns = 0;
  let capitalRun = 0;
  for (let i = start + 1; i < end; i++) {
    const c = text.charCodeAt(i);
    const prev = text.charCodeAt(i - 1);
    if (isUpper(c) && isLower(prev)) {
      turns++;
      // "MEEhJM6": capitals, a lower-case letter, capitals again; "McDonAld": a second turn.
      if ((upperFirst && innerCapitals > 0) || turns > 1) return true;
    }
    if (isUpper(c)) {
      innerCapitals++;
      capitalRun++;
    } else {
      // "gTIFICATIOri": a lower-case word with a run of capitals in its middle ("mmHg", "degF" are units).
      if (isLower(c) && !upperFirst && turns > 0 && capitalRun >= 2) return true;
      capitalRun = 0;
    }
    if (isDigit(c) && isLower(prev) && upperFirst && isLower(text.charCodeAt(start + 1)) && i - start <= 2) return true;
    if (!address && i < end - 1 && !isAlnum(c) && !WORD_MARKS.has(c)) {
      const next = text.charCodeAt(i + 1);
      // A dot between lower-case letters is a word's only past an abbreviation's first letter ("e.g").
      if (isLower(prev) && isLower(next) && (c !== 0x2e || (i - start >= 2 && end - i > 2))) return true;
      if (c !== 0x2e && isLetterCode(prev) && isLetterCode(next)) return true;
    }
  }
  return false;
}

// Marks a word holds between its letters: hyphen, apostrophes, slash, ampersand, underscore.
const WORD_MARKS = new Set([0x2d, 0x27, 0x2019, 0x2f, 0x26, 0x5f]);

// An e-mail or web address, or a file name: its dots and marks are its own.
const FILE_SUFFIXES = new Set(['gov', 'com', 'org', 'net', 'edu', 'mil', 'pdf', 'htm', 'html', 'txt', 'doc', 'docx', 'xls', 'xlsx']);

function isAddressLike(text: string, start: number, end: number): boolean {
  const word = text.slice(start, end);
  if (word.includes('@') || word.startsWith('www')) return true;
  const dot = word.lastIndexOf('.');
  return dot > 0 && FILE_SUFFIXES.has(word.slice(dot + 1).toLowerCase());
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0xa0;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
// Outside ASCII the letter classes are the regex engine's ("température" is one word).
const UPPER_RE = /\p{Lu}/u;
const LOWER_RE = /\p{Ll}/u;
const LETTER_RE = /\p{L}/u;
const isUpper = (c: number): boolean => (c < 0x80 ? c >= 0x41 && c <= 0x5a : UPPER_RE.test(String.fromCharCode(c)));
const isLower = (c: number): boolean => (c < 0x80 ? c >= 0x61 && c <= 0x7a : LOWER_RE.test(String.fromCharCode(c)));
const isLetterCode = (c: number): boolean => (c < 0x80 ? (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) : LETTER_RE.test(String.fromCharCode(c)));
const isAlnum = (c: number): boolean => isDigit(c) || isLetterCode(c);
