import type { DocSubtype, DocType } from '../contracts/vocabulary.js';
import { SECTION_ROLES } from '../contracts/vocabulary.js';
import { namesAForm } from './doc-type.js';
import type { LayoutSummary } from './layout.js';
import { stripMarkdown } from './section-path.js';
import { buildPattern, escapePattern } from '../runtime/patterns.js';

type RoleOf<T extends DocType> = (typeof SECTION_ROLES)[T][number];
type RoleRules<T extends DocType> = ReadonlyArray<readonly [RoleOf<T>, readonly string[]]>;

// DESIGN §2 keywords, singular where a plural "s"/"es" is accepted by the matcher
// ("immediate action" also matches "Immediate Actions"). A trailing "*" marks a word prefix
// ("applicab*" matches applicable, applicability). Added beyond the reference list:
// "precaution" (the usual partner of "limitations" in plant procedures), "appendices",
// "criterion", "close-out"/"close out", "lesson learned". The headings of the NRC's forms too: an
// EOP's "Entry Conditions/Symptoms" and "Note"; an LER's (NRC Form 366A) "Event Description",
// "Abstract", "Description of Occurrence", "Assessment of Safety Consequences", "Reportability",
// "Previous Similar Events", "Failed Component Information"; an event notification's "Event
// Text"; and OTHER's, from the standard formats of an inspection report (IMC 0611: "Inspection
// Scope", "Findings", "Assessment", "Enforcement", "Persons Contacted") and of a generic
// communication ("Addressees", "Purpose", "Description of Circumstances", "Discussion", "Actions
// Requested", "Required Response", "Technical Contacts").
const RULES: { readonly [T in DocType]: RoleRules<T> } = {
  SOP: [
    ['purpose', ['purpose']],
    ['scope', ['scope', 'applicab*']],
    ['references', ['reference']],
    ['definitions', ['definition', 'acronym']],
    ['preconditions', ['precondition', 'prerequisite', 'initial condition', 'entry condition', 'symptom']],
    ['constraints', ['caution', 'warning', 'hold', 'limit', 'limitation', 'precaution', 'note']],
    ['steps', ['procedure', 'step', 'instruction', 'method']],
    ['acceptance', ['acceptance', 'verification', 'criteria', 'criterion', 'tolerance']],
    ['records', ['record', 'log']],
    ['attachments', ['attachment', 'appendix', 'appendices']],
  ],
  CR: [
    ['header', ['condition report', 'cr', 'initiator', 'date']],
    ['description', ['problem', 'condition', 'description', 'issue', 'symptom', 'observation', 'event text', 'narrative', 'abstract', 'occurrence', 'background']],
    ['immediate_actions', ['immediate action', 'compensatory']],
    // An LER's analysis of the event is its assessment of the safety consequences (10 CFR 50.73(b)(3)).
    ['impact', ['impact', 'operability', 'safety significance', 'safety consequence', 'assessment of safety consequence', 'safety assessment', 'safety implication', 'safety analysis', 'event analysis', 'analysis of event', 'analysis of the event', 'safety system functional failure']],
    ['cause_statement', ['cause', 'apparent cause', 'root cause', 'cause analysis', 'cause statement', 'evaluation', 'assessment', 'discussion']],
    ['corrective_actions', ['corrective action', 'planned action', 'completed action', 'action taken', 'actions taken', 'action to prevent recurrence', 'actions to prevent recurrence', 'corrective measure']],
    ['evidence', ['attachment', 'enclosure', 'evidence', 'data', 'photo', 'failed component', 'component failure']],
    ['reportability', ['reportability', 'reportable', 'reporting requirement', 'reporting criteria', 'reporting criterion', 'reason for report', 'reason for reporting']],
    ['previous_events', ['previous event', 'previous similar event', 'similar event', 'previous occurrence', 'prior occurrence', 'prior similar event']],
  ],
  WO: [
    ['header', ['work order', 'wo', 'priority']],
    ['task', ['task', 'problem', 'description', 'request', 'scope']],
    ['steps', ['work step', 'instruction', 'procedure']],
    ['as_found', ['as found', 'as-found', 'finding']],
    ['work_performed', ['work performed', 'performed', 'completed']],
    ['as_left', ['as left', 'as-left']],
    ['verification', ['test', 'verification', 'result']],
    ['parts_tools', ['part', 'material', 'tool']],
    ['closeout', ['closeout', 'close-out', 'close out', 'note']],
  ],
  ECA: [
    ['event_summary', ['event summary', 'summary', 'background']],
    ['timeline', ['timeline', 'sequence of events']],
    ['evidence_items', ['evidence', 'data', 'inspection', 'test result']],
    ['rationale', ['analysis', 'discussion', 'evaluation']],
    ['causal_factors', ['causal factor', 'root cause', 'contributing', 'cause determination']],
    ['actions', ['corrective or preventive action', 'corrective action', 'preventive action', 'recommendation']],
    ['lessons', ['lessons learned', 'lesson learned']],
  ],
  OTHER: [
    ['header', ['letterhead']],
    ['summary', ['summary', 'executive summary', 'inspection summary', 'abstract', 'overview']],
    ['purpose', ['purpose', 'addressee', 'applicab*']],
    ['description', ['description', 'description of circumstances', 'circumstances', 'background', 'introduction', 'event description']],
    ['discussion', ['discussion', 'analysis', 'technical discussion']],
    ['inspection_scope', ['inspection scope', 'scope', 'areas inspected', 'inspection procedure']],
    ['finding', ['finding', 'violation', 'non-cited violation', 'noncited violation', 'observation']],
    ['assessment', ['assessment', 'significance', 'significance determination', 'screening']],
    ['enforcement', ['enforcement', 'notice of violation']],
    ['corrective_actions', ['corrective action', 'licensee action', 'licensee response']],
    ['requested_actions', ['requested action', 'actions requested', 'action requested', 'required action', 'actions required', 'required response', 'requested response']],
    ['references', ['reference', 'documents reviewed']],
    // An inspection's exit meeting (or interview) is the inspectors' meeting with the licensee's staff.
    ['contacts', ['contact', 'persons contacted', 'distribution', 'attendee', 'meeting', 'exit meeting', 'exit interview']],
  ],
};

interface Matcher {
  readonly re: RegExp;
  /** keyword (without "*") → [rule index, role] */
  readonly keywords: ReadonlyMap<string, readonly [number, string]>;
}

const LEFT = '(?<![\\p{L}\\p{N}])';
const RIGHT = '(?![\\p{L}\\p{N}])';

// One regex per doc type: whole-word keywords (plural allowed) in group 1, word prefixes in
// group 2. Longest first so each position reports its longest keyword.
function buildMatcher(rules: ReadonlyArray<readonly [string, readonly string[]]>): Matcher {
  const keywords = new Map<string, readonly [number, string]>();
  const words: string[] = [];
  const prefixes: string[] = [];
  rules.forEach(([role, list], ruleIndex) => {
    for (const entry of list) {
      const isPrefix = entry.endsWith('*');
      const keyword = isPrefix ? entry.slice(0, -1) : entry;
      // A keyword listed under two roles belongs to the earlier rule, as ties do.
      if (!keywords.has(keyword)) keywords.set(keyword, [ruleIndex, role]);
      (isPrefix ? prefixes : words).push(keyword);
    }
  });
  const byLength = (a: string, b: string): number => b.length - a.length;
  const alternatives = [`(${words.sort(byLength).map(escapePattern).join('|')})(?:e?s)?${RIGHT}`];
  if (prefixes.length > 0) alternatives.push(`(${prefixes.sort(byLength).map(escapePattern).join('|')})\\p{L}*`);
  return { re: buildPattern('tagging/section-role: keywords', `${LEFT}(?:${alternatives.join('|')})`, 'gu'), keywords };
}

// Each doc type's matcher is built on its first title: parsing a Unicode-aware regex costs a
// fraction of a millisecond, and a run on empty input needs none.
const matchers = new Map<DocType, Matcher>();

function matcherOf(docType: DocType): Matcher | undefined {
  let matcher = matchers.get(docType);
  if (matcher === undefined && Object.hasOwn(RULES, docType)) {
    matcher = buildMatcher(RULES[docType]);
    matchers.set(docType, matcher);
  }
  return matcher;
}

// "1.", "4.2", "4.2.1)", "A.", "IV." — letters need punctuation so a leading word is never eaten.
// "Step 3:" is kept: "step" is itself an SOP keyword.
const NUMBERING_RE = /^(?:\d+(?:\.\d+)*[.):]?|[a-z][.)]|[ivxlc]+[.)])\s+/;
const WHITESPACE_RE = /\s+/g;

// Machine-written headings: `corrective_actions`, `as-left-condition`, `rootCauseDetermination`.
// Built on the first such heading (Unicode-aware: costly to parse, and most headings have spaces).
let machineNameRes: { snakeKebab: RegExp; camel: RegExp } | undefined;
const machineNameRegexes = () => (machineNameRes ??= { snakeKebab: /(?<=[\p{L}\p{N}])[_-]+(?=[\p{L}\p{N}])|_+/gu, camel: /(?<=\p{Ll})(?=\p{Lu})/gu });

function comparableTitle(title: string): string {
  const plain = stripMarkdown(title).normalize('NFC');
  // Hyphens between words become spaces only in a heading without spaces: "as-found" and
  // "as found" are both keywords, but "Post-Maintenance Test" keeps its compound.
  let words: string;
  if (plain.includes(' ')) words = plain.replace(/_+/g, ' ');
  else {
    const { snakeKebab, camel } = machineNameRegexes();
    words = plain.replace(camel, ' ').replace(snakeKebab, ' ');
  }
  return capitalOcr(words).replace(WHITESPACE_RE, ' ').trim().toLowerCase().replace(NUMBERING_RE, '');
}

/**
 * OCR reads a capital I as a small l inside an all-capitals heading ("DESCRlPTION OF EVENT"): an
 * "l" between two capitals is an I. A hand scan; mixed-case words never have "l" between capitals.
 */
function capitalOcr(text: string): string {
  if (!text.includes('l')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    out += ch === 'l' && i > 0 && isCapital(text.charCodeAt(i - 1)) && isCapital(text.charCodeAt(i + 1)) ? 'I' : ch;
  }
  return out;
}

/**
 * Role of a section from its title (the last path segment) and doc type. The longest matching
 * keyword wins, ties go to the earlier rule: the reference's first-match made
 * "Work Order Description" a header and "Update …" a CR header.
 */
// Consecutive chunks usually share their section, and section titles repeat across documents of a
// type ("Purpose", "Immediate Actions"), so answers are remembered per doc type; each memo is
// cleared when full, so memory stays bounded whatever the input.
const ROLE_MEMO_LIMIT = 4096;
const roleMemos = new Map<DocType, Map<string, string>>();

export function sectionRole(docType: DocType, title: string): string {
  let memo = roleMemos.get(docType);
  if (memo === undefined) roleMemos.set(docType, (memo = new Map()));
  let role = memo.get(title);
  if (role === undefined) {
    role = computeRole(docType, title);
    if (memo.size >= ROLE_MEMO_LIMIT) memo.clear();
    memo.set(title, role);
  }
  return role;
}

export interface RoleInPath {
  role: string;
  /** The role is the nearest ancestor's: the section has none of its own. */
  inherited: boolean;
}

// A header names the document: its subsections do not inherit it, nor the chunks after it.
export const NOT_INHERITED: ReadonlySet<string> = new Set(['unknown', 'header']);

/**
 * Roles a chunk's shape gives that the chunks after it continue, as a heading's would: a finding's
 * paragraphs (IMC 0611: its description, significance and enforcement run on over a page break
 * without a heading of their own).
 */
export const CARRIED_BY_SHAPE: ReadonlySet<string> = new Set(['finding', 'assessment', 'enforcement']);

/**
 * The role of the last segment of a section path; when it has none, the nearest ancestor's
 * ("6. Procedure > 6.1 Pump Start" is steps), marked inherited.
 */
export function sectionRoleInPath(docType: DocType, segments: readonly string[], subtype: DocSubtype | null = null): RoleInPath {
  // A first segment that names the document's form is its title, not a section
  // ("Information Notice No. 90-39: Recent Problems …", "E-3 STEAM GENERATOR TUBE RUPTURE").
  const first = segments.length > 0 && namesAForm(segments[0]!) ? 1 : 0;
  const roleAt = (i: number): string => (isSubjectLine(segments[i]!) ? 'unknown' : formRole(docType, subtype, segments[i]!));
  const own = segments.length > first ? roleAt(segments.length - 1) : 'unknown';
  if (own !== 'unknown') {
    // A report's summary has its own "Scope:" and "Results:" (or "Areas Inspected:"): under a
    // summary they are the summary's parts, not the report's inspection scope.
    if (own === 'inspection_scope') {
      for (let i = segments.length - 2; i >= first; i--) if (roleAt(i) === 'summary') return { role: 'summary', inherited: true };
    }
    return { role: own, inherited: false };
  }
  for (let i = segments.length - 2; i >= first; i--) {
    const role = roleAt(i);
    if (!NOT_INHERITED.has(role)) return { role, inherited: true };
  }
  return { role: own, inherited: false };
}

/**
 * A letter's subject line ("SUBJECT: NOTICE OF VIOLATION (NRC INSPECTION REPORT …)", "RE: …")
 * names what the whole letter is about, not a section of it: its words give no role.
 */
function isSubjectLine(segment: string): boolean {
  const t = segment.trimStart().slice(0, 8).toLowerCase();
  return t.startsWith('subject:') || t.startsWith('subj:') || t.startsWith('re:');
}

/**
 * A heading's role in a document of a known form. An inspection report's numbered section ("1R15
 * Operability Determinations (71111.15)", "4OA3 Follow-up of Events") holds what was inspected
 * under one inspection procedure, its scope and its findings: its words name the area inspected,
 * not a part of the report, so it gives no role of its own (chunkRole falls back on it) unless they
 * name the inspectors' meetings or a violation ("4OA6 Meetings, Including Exit", "4OA7
 * Licensee-Identified Violations"). Under a finding, an inspection report's bare "Description"
 * and "Analysis" are the finding's description and its significance assessment (the finding
 * format of IMC 0611).
 */
function formRole(docType: DocType, subtype: DocSubtype | null, heading: string): string {
  const role = sectionRole(docType, heading);
  if (docType !== 'OTHER' || subtype !== 'IR') return role;
  if (reportSectionCode(heading)) return role === 'contacts' || role === 'finding' ? role : 'unknown';
  if (role === 'description' || role === 'discussion') {
    const plain = comparableTitle(heading).replace(TRAILING_MARK_RE, '');
    if (plain === 'description') return 'finding';
    if (plain === 'analysis') return 'assessment';
  }
  return role;
}
const TRAILING_MARK_RE = /[.:]$/;

/**
 * An inspection report's section code opening a heading: a digit, one to three capitals, a digit
 * or two ("1R15", "4OA3", "2RS1", "1EP6"), then a blank.
 */
function reportSectionCode(heading: string): boolean {
  const t = heading.trimStart();
  if (!isDigitCode(t.charCodeAt(0))) return false;
  let k = 1;
  while (k < 4 && isUpperCode(t.charCodeAt(k))) k++;
  if (k === 1) return false;
  const digits = k;
  while (k < digits + 2 && isDigitCode(t.charCodeAt(k))) k++;
  return k > digits && t.charCodeAt(k) === 0x20;
}
const isDigitCode = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isUpperCode = (c: number): boolean => c >= 0x41 && c <= 0x5a;

/**
 * Where a chunk's role comes from: `section`, its section path or a heading it opens a section with
 * (also when that heading names no role); `shape`, what the chunk plainly is (a field block, a step
 * table, a letter, a finding's opening words); `open`, nothing of its own (plain prose read as the
 * description, or an unheaded procedure passage): a chunk that continues the section before it may
 * take that section's role instead (ContextBuilder decides, in input order).
 */
export type RoleSource = 'section' | 'shape' | 'open';

export interface ChunkRole extends RoleInPath {
  source: RoleSource;
}

/**
 * The role of a chunk: its section path's (sectionRoleInPath), else the first heading the chunk
 * itself opens a section with (a parser that cut at the heading may not have put it in the path),
 * else what the chunk is as its form makes plain (roleByShape).
 */
export function chunkRole(docType: DocType, subtype: DocSubtype | null, segments: readonly string[], layout: LayoutSummary, text = ''): ChunkRole {
  // OTHER's roles are the parts of the NRC forms it holds (inspection reports, generic
  // communications); an OTHER of no known form (an FMEA, a vendor's bulletin) has none.
  if (docType === 'OTHER' && subtype === null) return { role: 'unknown', inherited: false, source: 'shape' };
  const inPath = sectionRoleInPath(docType, segments, subtype);
  if (inPath.role !== 'unknown') return { ...inPath, source: 'section' };
  // A letter's closing ("Sincerely," and the signature, its enclosures and copies) is whom the
  // letter is from and to: a signature block's office name ("Office of Inspection and
  // Enforcement") is no heading.
  if (docType === 'OTHER' && opensOnClosing(text)) return { role: 'contacts', inherited: false, source: 'shape' };
  let opensSection = false;
  // In an inspection report's numbered section, what no heading or shape says otherwise is what
  // was inspected.
  const inspected = subtype === 'IR' && (segments.some(reportSectionCode) || layout.headings.some(reportSectionCode));
  let first = true;
  for (const heading of layout.headings) {
    if (namesAForm(heading)) continue;
    // The chunk's first heading opens its section; a later one counts only as a heading is
    // written ("Addressees:", "4.2 Cause"), not a letterhead line or a field's value in capitals.
    const written = SECTION_HEADING_RE.test(heading);
    if (first || written) {
      const role = formRole(docType, subtype, heading);
      if (role !== 'unknown') return { role, inherited: false, source: 'section' };
    }
    if (written) opensSection = true;
    first = false;
  }
  const shape = roleByShape(docType, subtype, layout, text);
  if (shape.open && inspected) return { role: 'inspection_scope', inherited: false, source: 'section' };
  if (shape.open && opensSection) return { role: shape.role, inherited: false, source: 'section' };
  return { role: shape.role, inherited: false, source: shape.open ? 'open' : 'shape' };
}

/** A label ending in a colon, or a numbered heading ("4.2 Cause", "B. ENTRY CONDITIONS"). */
const SECTION_HEADING_RE = /:\s*$|^(?:\d+(?:\.\d+)*\.?|[A-Z][.)])\s/;

/** How many characters of a chunk's opening the cues below read. */
const CUE_CHARS = 200;
/** How far the first sentence of an opening is read for the cues that ask what it says. */
const SENTENCE_CHARS = 400;

/**
 * A chunk with no heading of its own, by its shape, when the document's form is known (a subtype:
 * without one, nothing says what unheaded text is). Of a report or notice (CR, OTHER): mostly form
 * fields, letterhead or other non-prose lines, or a cover letter, is the header; a generic
 * communication opens with its addressees ("All holders of operating licenses …") and its purpose;
 * an inspection finding's paragraphs say what they are in their first words (IMC 0611: "The
 * inspectors identified …" is the finding, "… the significance …" its assessment, "… Inspection
 * Procedure …" the scope); other prose is the event's description. Of a procedure (SOP): a step
 * table, or prose made mostly of instructions, is the steps. `open`: the role is only what is
 * left (prose read as a description, a passage of no known kind), which a section continued from
 * the chunk before outranks.
 */
function roleByShape(docType: DocType, subtype: DocSubtype | null, layout: LayoutSummary, text: string): { role: string; open: boolean } {
  if (docType === 'SOP') {
    if (subtype === null) return OPEN('unknown');
    // An EOP's lettered sections ("A. PURPOSE", "B. ENTRY CONDITIONS/SYMPTOMS") where OCR lost the
    // line breaks and spaces ("…PAGE2of19A.PURPOSE-Thisprocedure…"): the first one names the chunk.
    const lettered = letteredSection(text);
    if (lettered !== null) return SHAPE(lettered);
    // A step table's head that holds only its CAUTION and NOTE blocks, no numbered step yet: the
    // constraints the steps are read under.
    if (cautionsOnly(text)) return SHAPE('constraints');
    const instructions = layout.proseLines >= 2 && layout.instructionLines * 2 >= layout.proseLines;
    if (layout.stepTable || instructions) return SHAPE('steps');
    return OPEN('unknown');
  }
  // Without a known form, nothing says what an unheaded chunk is.
  if (subtype === null || (docType !== 'CR' && docType !== 'OTHER')) return OPEN('unknown');
  if (layout.proseChars + layout.otherChars === 0) return OPEN('unknown');
  // A letter's distribution (the licensees a memorandum went to, its enclosures and copies) is
  // non-prose like a letterhead, but it closes the letter: its contacts.
  if (docType === 'OTHER' && layout.proseChars < layout.otherChars && distributionLine(text)) return SHAPE('contacts');
  // A written report's label run into its paragraph ("B. Cause: The technician …", "Safety
  // Significance: There was …") names that part, as it would on a line of its own; the layout
  // reads such a line as a field, so this comes before the header.
  if (docType === 'CR' && subtype !== 'EN') {
    const runIn = runInReportHeading(firstLine(text).replace(WHITESPACE_RE, ' '));
    if (runIn !== null) return SHAPE(runIn);
  }
  if (layout.proseChars < layout.otherChars) return SHAPE('header');
  // The cues read the paragraph's opening across its hard line breaks ("The finding was evaluated
  // using Phase 1 of the At-Power\nSDP, … very low safety significance").
  const lead = leadOf(text, layout.opening, true, SENTENCE_CHARS);
  const opening = lead.slice(0, CUE_CHARS);
  // What a paragraph opens on is what its first sentence says, however long the sentence is
  // (up to SENTENCE_CHARS).
  const stop = lead.indexOf('. ');
  const sentence = stop < 0 ? lead : lead.slice(0, stop + 1);
  // A field block flattened into one line ("State: TX NRC Notified by: … Emergency Class: …"), the
  // paperwork notice printed on a federal form (NRC Form 366's burden statement), a transmittal
  // letter's opening ("Enclosed is …"): the form's or the letter's own parts, the header.
  if (fieldLabels(layout.opening) >= INLINE_FIELDS || formNotice(text) || TRANSMITTAL_RE.test(opening)) return SHAPE('header');
  if (docType === 'CR') {
    // An event report's unheaded paragraph that opens on the event's safety significance or on its
    // reportability is that part of the report (an LER's "Assessment of Safety Consequences", a
    // Part 21 report's evaluation of a substantial safety hazard).
    if (SAFETY_CUES.some((cue) => opening.includes(cue) || sentence.includes(cue))) return SHAPE('impact');
    if (opening.includes('reportability')) return SHAPE('reportability');
  }
  // The other parts of a written report (an LER's narrative, a Part 21 report), by what the
  // paragraph's first sentence says: the event's safety consequences ("… no effect on the health
  // and safety of the public"), its reportability ("This event is reportable under …", "This
  // report is submitted pursuant to …"), its cause ("The cause of the event was …"), the actions
  // taken ("Corrective actions include …", "… to prevent recurrence"), the previous similar
  // events. Not an event notification's: its event text is one description, whatever a paragraph
  // of it opens on ("The cause of the trip was …" reports what the licensee said).
  if (docType === 'CR' && subtype !== 'EN') {
    if (MORE_SAFETY_CUES.some((cue) => sentence.includes(cue))) return SHAPE('impact');
    if (REPORTABILITY_CUES.some((cue) => sentence.includes(cue))) return SHAPE('reportability');
    if (opensOnCause(sentence) || causedBy(sentence) || (CAUSE_FINDING_CUES.some((cue) => sentence.includes(cue)) && FINDING_VERBS.some((verb) => sentence.includes(verb)))) return SHAPE('cause_statement');
    if (sentence.startsWith('corrective action') || RECURRENCE_CUES.some((cue) => sentence.includes(cue))) return SHAPE('corrective_actions');
    if (PREVIOUS_EVENT_CUES.some((cue) => sentence.includes(cue))) return SHAPE('previous_events');
  }
  if (docType === 'OTHER') {
    if (subtype === 'IN' || subtype === 'GL' || subtype === 'BULLETIN' || subtype === 'CIRCULAR') {
      // A heading run into its paragraph ("Addressees All holders …", "Discussion OVERVIEW The …").
      const runIn = RUN_IN_HEADINGS.find(([heading]) => opening.startsWith(heading) && isCapital(leadOf(text, layout.opening, false).charCodeAt(heading.length)));
      if (runIn !== undefined) return SHAPE(runIn[1]);
      if (opening.startsWith('all ') || opening.includes('to all ') || PURPOSE_CUES.some((cue) => opening.includes(cue))) return SHAPE('purpose');
      // A generic communication closes on whom to ask ("If you have any questions about …, please
      // contact …"); what it asks of its addressees opens "Addressees are requested to …".
      if (CONTACT_CUES.some((cue) => sentence.includes(cue))) return SHAPE('contacts');
      if (REQUEST_CUES.some((cue) => sentence.includes(cue))) return SHAPE('requested_actions');
    }
    if (subtype === 'IR') {
      // A finding's enforcement paragraph (the requirement, "Contrary to the above, …", the
      // Enforcement Policy that makes it non-cited), before the finding's own words it repeats; an
      // NRC letter on the licensee's reply to a violation is about the licensee's actions.
      // A finding the licensee identified opens by saying so ("The following issue of very low
      // safety significance (Green) was identified by the licensee …"), before its significance.
      if (LICENSEE_IDENTIFIED_CUES.some((cue) => sentence.includes(cue))) return SHAPE('finding');
      // An older report's inspection summary lists the areas inspected and then the results; OCR
      // may break the label ("Areas' Inspected:").
      if (inspectionSummary(text)) return SHAPE('summary');
      // A notice of violation opens on its form's title ("APPENDIX A NOTICE OF VIOLATION …").
      if (ENFORCEMENT_CUES.some((cue) => sentence.includes(cue)) || opening.slice(0, NOV_TITLE_CHARS).includes('notice of violation')) return SHAPE('enforcement');
      if (sentence.includes('your ') && sentence.includes('violation') && RESPONSE_CUES.some((cue) => sentence.includes(cue))) return SHAPE('corrective_actions');
      // An NRC letter's opening on the inspection it refers to is the letter's summary of it.
      if (COVER_LETTER_CUES.some((cue) => sentence.startsWith(cue))) return SHAPE('summary');
      if (opening.includes('inspectors identified') || opening.includes('self-reveal') || opening.includes('non-cited violation')) return SHAPE('finding');
      // A violation statement opens on the requirement it cites ("10 CFR 50, Appendix B, Criterion
      // XVII requires, in part, that …").
      if (REQUIREMENT_CUES.some((cue) => sentence.includes(cue))) return SHAPE('finding');
      if (opening.includes('significance') || opening.includes('more than minor')) return SHAPE('assessment');
      if (opening.includes('inspection procedure') || opening.includes('inspectors reviewed')) return SHAPE('inspection_scope');
    }
  }
  if (layout.letter) return SHAPE('header');
  return OPEN('description');
}

const SHAPE = (role: string) => ({ role, open: false });

/** How far into a chunk an inspection summary's two labels are looked for. */
const SUMMARY_LABEL_CHARS = 1200;

/** "Areas Inspected:" then "Results:" near the chunk's start, read past OCR's stray apostrophes and hyphens. */
function inspectionSummary(text: string): boolean {
  let plain = '';
  const head = text.slice(0, SUMMARY_LABEL_CHARS).toLowerCase();
  for (let i = 0; i < head.length; i++) {
    const ch = head[i]!;
    if (ch === "'") continue;
    plain += ch === '-' || ch === '\n' || ch === '\t' ? ' ' : ch;
  }
  const areas = plain.indexOf('areas inspected');
  return areas >= 0 && plain.indexOf('results:', areas) > areas;
}

/** "Label:" pairs in a line of prose from this many on are a field block flattened into one line. */
const INLINE_FIELDS = 4;

/** Field labels in a text: a capitalised word (or up to three more) then a colon and a blank, counted by a hand scan. */
function fieldLabels(text: string): number {
  let count = 0;
  for (let colon = text.indexOf(':'); colon > 0; colon = text.indexOf(':', colon + 1)) {
    const after = text.charCodeAt(colon + 1);
    if (!(after === 0x20 || Number.isNaN(after))) continue;
    // The word before the colon, and a capital opening it or one of the (at most three) words before.
    let start = colon;
    while (start > 0 && LETTER_RE.test(text[start - 1]!)) start--;
    if (start === colon) continue;
    let capital = UPPER_RE.test(text[start]!);
    for (let words = 0; !capital && words < 3 && start > 1 && text[start - 1] === ' '; words++) {
      let before = start - 1;
      while (before > 0 && LETTER_RE.test(text[before - 1]!)) before--;
      if (before === start - 1) break;
      start = before;
      capital = UPPER_RE.test(text[start]!);
    }
    if (capital) count++;
  }
  return count;
}
const LETTER_RE = /\p{L}/u;
const UPPER_RE = /\p{Lu}/u;

/** How far into a chunk a form's paperwork notice is looked for. */
const NOTICE_CHARS = 3000;
/** The words of the paperwork notice a federal form prints (Paperwork Reduction Act, OMB control number): two of them. */
const NOTICE_PHRASES = ['burden estimate', 'burden per response', 'information collection', 'omb control number', 'paperwork reduction act'];

function formNotice(text: string): boolean {
  const head = text.slice(0, NOTICE_CHARS).toLowerCase();
  let found = 0;
  for (const phrase of NOTICE_PHRASES) if (head.includes(phrase)) found++;
  return found >= 2;
}

// A letter that transmits a report: it opens by saying what it encloses.
const TRANSMITTAL_RE = /^(?:enclosed (?:is|are|please find)|attached (?:is|are)|transmitted herewith)\b/;

// What an event report says about the event's safety significance.
const SAFETY_CUES = ['substantial safety hazard', 'safety significance', 'safety consequences', 'safety implications'];
const MORE_SAFETY_CUES = ['health and safety of the public', 'safety system functional failure', 'loss of safety function'];
// How an event report says why it is made (10 CFR 50.72, 50.73, Part 21).
const REPORTABILITY_CUES = ['is reportable', 'was reportable', 'not reportable', 'reportable under', 'reportable pursuant', 'reportable per ', 'submitted pursuant', 'being reported', 'reported pursuant', 'reported under', 'reporting criteri'];
const RECURRENCE_CUES = ['prevent recurrence', 'preclude recurrence', 'prevent a recurrence', 'prevent reoccurrence'];
const PREVIOUS_EVENT_CUES = ['previous similar', 'prior similar', 'similar events', 'previous occurrences', 'similar occurrences'];
const CONTACT_CUES = ['if you have any questions', 'if you have questions', 'requires no specific action or written response'];
const REQUEST_CUES = ['are requested to', 'is requested to', 'are required to submit', 'is required to submit'];
const ENFORCEMENT_CUES = ['contrary to the above', 'contrary to this', 'enforcement policy', 'treated as a non-cited', 'treated as an ncv', 'enforcement conference', 'determined that violations', 'determined that a violation'];
/** How far into an opening a notice of violation's title is looked for. */
const NOV_TITLE_CHARS = 40;
const LICENSEE_IDENTIFIED_CUES = ['identified by the licensee', 'licensee-identified', 'licensee identified'];
const COVER_LETTER_CUES = ['this refers to ', 'this letter refers to ', 'this letter transmits ', 'this refers to the '];
const REQUIREMENT_CUES = ['requires, in part', 'required, in part', 'requires in part', 'required in part'];
// How a generic communication says what it is for ("The NRC is issuing this information notice to
// alert addressees to …").
const PURPOSE_CUES = ['purpose of this', 'purposes of this', 'is issuing this', 'to alert addressees', 'to alert recipients'];
/** A generic communication's headings as a page runs them into their paragraph, and their roles. */
const RUN_IN_HEADINGS: ReadonlyArray<readonly [string, string]> = [
  ['addressees ', 'purpose'], ['purpose ', 'purpose'], ['description of circumstances ', 'description'], ['background ', 'description'],
  ['discussion ', 'discussion'], ['requested actions ', 'requested_actions'], ['actions requested ', 'requested_actions'], ['required response ', 'requested_actions'],
];

/** The opening of a chunk's first prose line and the lines after it, blanks collapsed, `chars` long (lower case unless asked). */
function leadOf(text: string, opening: string, lower = true, chars = CUE_CHARS): string {
  if (opening === '') return '';
  const at = text.indexOf(opening);
  const from = at < 0 ? opening : text.slice(at, at + chars * 2);
  const lead = from.replace(WHITESPACE_RE, ' ').slice(0, chars);
  return lower ? lead.toLowerCase() : lead;
}

/** A run-in heading is followed by its paragraph's capital ("Addressees All holders …"), not by a verb ("Addressees are requested …"). */
const isCapital = (c: number): boolean => c >= 0x41 && c <= 0x5a;

/** The complimentary close of a letter, lower case, as it opens a line. */
const CLOSINGS = ['sincerely', 'very truly yours', 'respectfully', 'yours truly', 'cordially'];

/** The chunk's first non-blank line is a letter's closing. */
function opensOnClosing(text: string): boolean {
  const first = firstLine(text).toLowerCase();
  return CLOSINGS.some((closing) => first.startsWith(closing));
}

function firstLine(text: string): string {
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    const line = (end < 0 ? text.slice(start) : text.slice(start, end)).trim();
    if (line !== '' || end < 0) return line;
    start = end + 1;
  }
}

/** A line of a letter's closing: its enclosures, copies or distribution ("Enclosure:", "cc:", "Distribution:"). */
const DISTRIBUTION_LABELS = ['enclosure:', 'enclosures:', 'cc:', 'cc w/', 'distribution:', 'distribution -'];

function distributionLine(text: string): boolean {
  for (const line of text.split('\n')) {
    const t = line.trim().toLowerCase();
    if (DISTRIBUTION_LABELS.some((label) => t.startsWith(label))) return true;
  }
  return false;
}

/** An EOP's lettered section headings (A. to H.), spaces optional, and their roles. */
const LETTERED_SECTIONS: ReadonlyArray<readonly [string, string]> = [
  ['PURPOSE', 'purpose'], ['ENTRYCONDITIONS', 'preconditions'], ['SYMPTOMS', 'preconditions'], ['PREREQUISITES', 'preconditions'],
  ['INITIALCONDITIONS', 'preconditions'], ['PRECAUTIONS', 'constraints'], ['REFERENCES', 'references'],
];

/**
 * The role of the first lettered section heading in a chunk ("A. PURPOSE", "B.ENTRYCONDITIONS"),
 * read with blanks removed, in capitals as the form prints it; null when there is none.
 */
function letteredSection(text: string): string | null {
  const squeezed = text.replace(WHITESPACE_RE, '');
  let best: string | null = null;
  let bestAt = Number.POSITIVE_INFINITY;
  for (const [heading, role] of LETTERED_SECTIONS) {
    for (let at = squeezed.indexOf(heading); at >= 0 && at < bestAt; at = squeezed.indexOf(heading, at + 1)) {
      // "A." to "H." just before it, not inside a word ("…SAFETYINJECTION.PURPOSE" has no letter mark).
      const letter = squeezed.charCodeAt(at - 2);
      const before = at >= 3 ? squeezed.charCodeAt(at - 3) : 0x20;
      if (squeezed[at - 1] === '.' && letter >= 0x41 && letter <= 0x48 && !(before >= 0x41 && before <= 0x5a) && !(before >= 0x61 && before <= 0x7a)) {
        best = role;
        bestAt = at;
        break;
      }
    }
  }
  return best;
}

/**
 * A procedure passage that holds a CAUTION, NOTE or WARNING block (a line opening on the word, in
 * capitals, after any frame of asterisks) and no numbered step line.
 */
function cautionsOnly(text: string): boolean {
  let caution = false;
  for (const line of text.split('\n')) {
    const t = line.replace(FRAME_RE, '');
    if (t.startsWith('CAUTION') || t.startsWith('NOTE') || t.startsWith('WARNING')) caution = true;
    if (STEP_NUMBER_RE.test(line)) return false;
  }
  return caution;
}
const FRAME_RE = /^[\s*x%o-]*/;
/** A numbered step opening a line ("3.", "- 1.", "12 VERIFY …"), not a page number. */
const STEP_NUMBER_RE = /^\s*(?:-\s*)?[1-9]\d?(?:\.|\s+[A-Z]{3,})/;
const RESPONSE_CUES = ['in response to', 'your response', 'your reply', 'reply to'];

/** How many words of an opening a cause's subject may have before "cause": "The most probable root cause of …". */
const CAUSE_SUBJECT_WORDS = 4;
/** The verb or preposition after a cause as the subject of a sentence. */
const CAUSE_NEXT: ReadonlySet<string> = new Set(['of', 'was', 'is', 'were', 'are', 'for', 'has', 'had', 'appears', 'appeared']);

/** An opening whose subject is a cause ("The cause of the event was …", "The apparent cause was …", "Root causes were …"). */
function opensOnCause(opening: string): boolean {
  const words = opening.split(' ', CAUSE_SUBJECT_WORDS + 2);
  for (let i = 0; i < Math.min(words.length - 1, CAUSE_SUBJECT_WORDS + 1); i++) {
    const word = words[i]!;
    if ((word === 'cause' || word === 'causes') && CAUSE_NEXT.has(words[i + 1]!)) return true;
  }
  return false;
}
const OPEN = (role: string) => ({ role, open: true });

/** How many words of an opening a caused event may have before "was caused by": "This event was caused by …". */
const CAUSED_SUBJECT_WORDS = 5;
const CAUSED_VERBS: ReadonlySet<string> = new Set(['was', 'were', 'is', 'are']);
const CAUSED_PARTICIPLES: ReadonlySet<string> = new Set(['caused', 'attributed']);

/** An opening that says what caused its subject ("This event was caused by personnel error", "The failure is attributed to …"). */
function causedBy(opening: string): boolean {
  const words = opening.split(' ', CAUSED_SUBJECT_WORDS + 2);
  for (let i = 1; i < Math.min(words.length - 1, CAUSED_SUBJECT_WORDS + 1); i++) {
    if (CAUSED_VERBS.has(words[i]!) && CAUSED_PARTICIPLES.has(words[i + 1]!)) return true;
  }
  return false;
}

/**
 * A cause evaluation reported by what it found ("The root cause evaluation (RCE) of this event
 * determined that …", "A root cause evaluation concluded that …"), even behind a form caption
 * run into the line: the sentence names the evaluation and a verb of finding.
 */
const CAUSE_FINDING_CUES = ['root cause evaluation', 'apparent cause evaluation', 'cause evaluation (', 'root cause analysis', 'cause determination'];
const FINDING_VERBS = ['determined', 'concluded', 'identified', 'found that', 'revealed'];

/** How many words a run-in label of an event report may have ("Assessment of Safety Consequences:"). */
const RUN_IN_WORDS = 6;
/** A lettered or numbered mark before a heading ("B.", "3)", "IV."). */
const HEADING_MARK_RE = /^(?:[A-Z]|\d{1,2}|[IVX]{1,4})[.)]$/;

/**
 * The role a label run into a report's paragraph names, or null: a short label up to a colon, after
 * any lettered or numbered mark ("Safety Significance: There …", "B. Cause: The …"), read with the
 * CR headings' keywords. (A heading in capitals run into its paragraph, "CAUSE OF EVENT The cause
 * …", is one of the layout's headings already.)
 */
function runInReportHeading(lead: string): string | null {
  const words = lead.split(' ', RUN_IN_WORDS + 2);
  const start = words.length > 1 && HEADING_MARK_RE.test(words[0]!) ? 1 : 0;
  const label: string[] = [];
  for (let i = start; i < Math.min(words.length - 1, start + RUN_IN_WORDS); i++) {
    const word = words[i]!;
    if (word.endsWith(':') && word.length > 1) {
      label.push(word.slice(0, -1));
      // A label then its sentence, not a field and its value ("Cause: 1" is a form's).
      return isCapital(words[i + 1]!.charCodeAt(0)) ? headingRole(label.join(' ')) : null;
    }
    label.push(word);
  }
  return null;
}

/** A heading's CR role, when the heading names a part of the report (not a description's catch-all words). */
function headingRole(heading: string): string | null {
  const role = sectionRole('CR', heading);
  return role === 'unknown' || role === 'header' ? null : role;
}


function computeRole(docType: DocType, title: string): string {
  const matcher = matcherOf(docType);
  if (matcher === undefined) return 'unknown';
  const text = comparableTitle(title);
  if (text === '') return 'unknown';

  let bestRole = 'unknown';
  let bestLength = 0;
  let bestRule = Number.POSITIVE_INFINITY;
  const { re, keywords } = matcher;
  re.lastIndex = 0;
  for (let match = re.exec(text); match !== null; match = re.exec(text)) {
    const keyword = match[1] ?? match[2] ?? '';
    const hit = keywords.get(keyword);
    if (hit !== undefined) {
      const [ruleIndex, role] = hit;
      if (keyword.length > bestLength || (keyword.length === bestLength && ruleIndex < bestRule)) {
        bestRole = role;
        bestLength = keyword.length;
        bestRule = ruleIndex;
      }
    }
    // Step one character so a longer keyword starting inside this match is still seen.
    re.lastIndex = match.index + 1;
  }
  return bestRole;
}
