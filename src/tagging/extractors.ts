// Pattern half of the tag stage's NER seed: identifiers, measurements and time expressions found
// by regular expressions (the gazetteer fills the other seed fields).
//
// Each family is one precompiled regex. One character pass (findStarts) marks where each family
// may start, and each family's regex is tried there only, in order, exactly as one global scan of
// that regex would meet them: after a match the next try is past its end, after a rejected match
// it is the next marked position. Overlaps are then resolved by family priority: doc ref > alarm
// id > fm id > equipment id > temporal ref > measurement. A family may only keep spans that no
// higher family claimed, so "PAS-1234-HI" is an alarm and not also a tag, and "WO 12345678" never
// yields a number. Within a family every match already ends on a token edge, so no family yields a
// piece of a longer token (no "ECA-2026" beside "ECA-2026-0007", no "101 A" inside "VB-101A").

import type { Measurement } from '../contracts/chunk.js';
import { alarmIds, docRefs, equipmentIds, fmIds } from './extractors/identifiers.js';
import { measurements, spelledMeasurements } from './extractors/measurements.js';
import { referenceSpans } from './extractors/references.js';
import { plainDesignators } from './extractors/designators.js';
import { type Family, findStarts, StartLists } from './extractors/scan.js';
import { temporalRefs } from './extractors/temporal.js';
import { buildPattern } from '../runtime/patterns.js';

export interface PatternSpans {
  equipment_ids: string[];
  doc_refs: string[];
  alarm_ids: string[];
  measurements: Measurement[];
  temporal_refs: string[];
  fm_ids: string[];
}

// Scratch space reused across calls (the stage handles one record at a time): the start lists,
// and per-character claim marks. A character is claimed when its mark equals the current call's
// generation, so the marks are cleared only once every 255 texts.
const starts = new StartLists();
let claimMarks = new Uint8Array(1024);
let generation = 0;

function beginClaims(length: number): void {
  if (claimMarks.length < length) claimMarks = new Uint8Array(Math.max(length, claimMarks.length * 2));
  generation++;
  if (generation === 256) {
    claimMarks.fill(0);
    generation = 1;
  }
}

/** Takes [start, end) unless any of it is claimed, and says whether it did. */
function claim(start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (claimMarks[i] === generation) return false;
  claimMarks.fill(generation, start, end);
  return true;
}

// Up to this many kept keys are compared one by one, which beats hashing fresh strings into a Set
// for the few items a chunk has; past it a Set takes over, so a long text stays linear.
const LINEAR_DEDUP_LIMIT = 16;

/**
 * The family's matches in text order, as a global scan of its regex finds them, keeping those no
 * higher family claimed; first-seen order, one item per case-insensitive key.
 */
function collect<T>(family: Family<T>, text: string, startsOut?: number[]): T[] {
  const items: T[] = [];
  const keys: string[] = [];
  let seen: Set<string> | null = null;
  const positions = starts.listOf(family.bit);
  const count = starts.countOf(family.bit);
  let from = 0;
  for (let k = 0; k < count; k++) {
    const start = positions[k]!;
    if (start < from) continue;
    const found = family.at(text, start);
    if (found === null) continue;
    from = found.end;
    // The span is claimed even when its key is a repeat, as a first occurrence would be.
    if (!claim(start, found.end)) continue;
    const key = found.key;
    if (seen === null) {
      if (keys.includes(key)) continue;
      keys.push(key);
      if (keys.length > LINEAR_DEDUP_LIMIT) seen = new Set(keys);
    } else {
      if (seen.has(key)) continue;
      seen.add(key);
    }
    items.push(found.item);
    startsOut?.push(start);
  }
  return items;
}

// Regulatory and standard references ("10 CFR 50.59", "NUREG-1801", "Reg Guide 1.97", "IEEE
// 323-1974", "TECH-SPEC-3.7.2", "Tech Spec 3.7.5", "LCO 3.0.3") are doc refs. Their forms have
// spaces, lower case and leading digits the start finder does not look for, so they are one global
// regex run first (behind a cheap test), and claim their spans before every other family.
const REGULATORY_RE = buildPattern(
  'tagging/extractors: REGULATORY_RE',
  '(?<![A-Za-z0-9_.\\-])(?:' +
    [
      // OCR reads the U of typewritten reports as "IJ": "NIJREG-0844".
      'N(?:U|IJ)REG(?:/CR)?[- \\u00A0]\\d{3,5}',
      '\\d{1,2}[ \\u00A0]?CFR[ \\u00A0](?:Part[ \\u00A0])?\\d{1,3}(?:\\.\\d+)*(?:\\([a-z0-9]{1,3}\\))*',
      '(?:Reg(?:ulatory)?\\.?[ \\u00A0]Guide|RG)(?:[ \\u00A0]\\(RG\\))?[ \\u00A0]\\d{1,2}\\.\\d{1,3}',
      '(?:IEEE|ANSI|ASME|ASTM|NFPA)(?:[ \\u00A0]Std\\.?)?[ \\u00A0]?-?[A-Z]?\\d{1,5}(?:[.-]\\d{1,4})*',
      '(?:TECH-SPEC|Tech(?:nical)?\\.?[ \\u00A0]Spec(?:ification)?s?|TS|LCO|SR)[ \\u00A0-]?\\d{1,2}(?:\\.\\d{1,2}){1,3}',
    ].join('|') +
    ')(?![A-Za-z0-9_]|[.\\-]\\d)',
  'g',
);
// Every form holds one of these: a cheap test before the full regex. One alternation of the
// literals is one pass over the text, half the time of fourteen substring searches (measured on
// the text-heavy bench corpus).
const REGULATORY_HINTS = /CFR|NUREG|NIJREG|Reg|RG|IEEE|ANSI|ASME|ASTM|NFPA|TECH-SPEC|Tech|TS|LCO|SR/;

/**
 * The references that claim their spans before every family: those read by their grammar
 * (references.ts: cue words, CFR sections with subparagraphs, dockets, licences, procedures),
 * then the regulatory regex's forms where they overlap none of them. [start, end) and the text,
 * in order (they never overlap).
 */
export function documentReferences(text: string): Array<{ start: number; end: number; text: string }> {
  const read = referenceSpans(text);
  if (!REGULATORY_HINTS.test(text)) return read;
  const out: Array<{ start: number; end: number; text: string }> = [];
  let k = 0;
  REGULATORY_RE.lastIndex = 0;
  for (let m = REGULATORY_RE.exec(text); m !== null; m = REGULATORY_RE.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    while (k < read.length && read[k]!.end <= start) out.push(read[k++]!);
    if (k < read.length && read[k]!.start < end) continue;
    out.push({ start, end, text: m[0] });
  }
  while (k < read.length) out.push(read[k++]!);
  return out;
}

/** Equipment in text order: hyphenated tags (the family) and the plain designators ("Bus 3C", "'C' ESW pump"). */
function collectEquipment(text: string): string[] {
  const starts: number[] = [];
  const tags = collect(equipmentIds, text, starts);
  const plain = plainDesignators(text);
  if (plain.length === 0) return tags;
  const merged: Array<{ start: number; text: string }> = tags.map((t, k) => ({ start: starts[k]!, text: t }));
  for (const d of plain) if (claim(d.start, d.end)) merged.push({ start: d.start, text: d.text });
  merged.sort((a, b) => a.start - b.start);
  const out: string[] = [];
  for (const { text: id } of merged) if (!out.some((o) => o.toLowerCase() === id.toLowerCase())) out.push(id);
  return out;
}

/** Measurements in text order: numbers with their unit (the family) and the spelled-out ones ("two inches"). */
function collectMeasurements(text: string): Measurement[] {
  const starts: number[] = [];
  const found = collect(measurements, text, starts);
  const spelled = spelledMeasurements(text);
  if (spelled.length === 0) return found;
  const merged: Array<{ start: number; item: Measurement }> = found.map((item, k) => ({ start: starts[k]!, item }));
  for (const s of spelled) if (claim(s.start, s.end)) merged.push({ start: s.start, item: s.item });
  merged.sort((a, b) => a.start - b.start);
  const out: Measurement[] = [];
  for (const { item } of merged) if (!out.some((o) => o.text.toLowerCase() === item.text.toLowerCase())) out.push(item);
  return out;
}

/** The doc refs of a text in text order: the references claimed first, and the identifier family's. */
function collectDocRefs(text: string): string[] {
  const refs = documentReferences(text);
  for (const ref of refs) claim(ref.start, ref.end);
  const starts: number[] = [];
  const found = collect(docRefs, text, starts);
  const merged: Array<{ start: number; text: string }> = refs.map((r) => ({ start: r.start, text: r.text }));
  if (found.length > 0) {
    for (let k = 0; k < found.length; k++) merged.push({ start: starts[k]!, text: found[k]! });
    merged.sort((a, b) => a.start - b.start);
  }
  const out: string[] = [];
  for (const { text: ref } of merged) {
    const key = ref.toLowerCase();
    if (!out.some((r) => r.toLowerCase() === key)) out.push(ref);
  }
  return out;
}

// An equipment tag written after "annunciator", "alarm" or "window" names an alarm point
// ("Annunciator ALB-04", "alarm 1-AR-B4").
// The blank before the optional word belongs to that word: two blank runs either side of an
// optional group would trade characters on a long blank run.
const ALARM_CONTEXT_RE = /(?:annunciators?|alarms?|annunciation|window)(?:[ \t\u00A0]*(?:window|panel|point|no\.?|#))?[ \t\u00A0]*$/i;
const ALARM_CONTEXT_CHARS = 32;

// "P-101A/B" names two pumps: the second member is the first with its last letter replaced.
const SIBLING_RE = /^\/([A-Z])(?![A-Za-z0-9_-])/;

const ALARM_WORD_RE = /alarm|annunc|window/i;

/** Equipment tags in alarm context move to `alarms`; "P-101A/B" adds P-101B after P-101A. */
export function refineEquipment(text: string, equipment: string[], alarms: string[]): string[] {
  // Most texts have neither an alarm word nor a "/": nothing to look at.
  const alarmWords = equipment.length > 0 && ALARM_WORD_RE.test(text);
  if (!alarmWords && (equipment.length === 0 || !text.includes('/'))) return equipment;
  const kept: string[] = [];
  for (const id of equipment) {
    const at = text.indexOf(id);
    if (alarmWords && at > 0 && ALARM_CONTEXT_RE.test(text.slice(Math.max(0, at - ALARM_CONTEXT_CHARS), at))) {
      if (!alarms.includes(id)) alarms.push(id);
      continue;
    }
    kept.push(id);
    // SIBLING_RE opens with "/" and the id must end in a capital: two character tests spare most ids the slice and the regex.
    const last = id.charCodeAt(id.length - 1);
    const sibling =
      at >= 0 && last >= 0x41 && last <= 0x5a && text.charCodeAt(at + id.length) === 0x2f ? SIBLING_RE.exec(text.slice(at + id.length, at + id.length + 3)) : null;
    if (sibling !== null) {
      const member = id.slice(0, -1) + sibling[1]!;
      if (!equipment.includes(member) && !kept.includes(member)) kept.push(member);
    }
  }
  return kept;
}

/** The pattern spans of a text. */
export function extractPatterns(text: string): PatternSpans {
  findStarts(text, starts);
  beginClaims(text.length);
  // Order of these calls is the priority order; the object below is built afterwards so its key
  // order stays the field order callers expect.
  const doc_refs = collectDocRefs(text);
  const alarm_ids = collect(alarmIds, text);
  const fm_ids = collect(fmIds, text);
  const equipment_ids = refineEquipment(text, collectEquipment(text), alarm_ids);
  const temporal_refs = collect(temporalRefs, text);
  const measurement_list = collectMeasurements(text);
  return { equipment_ids, doc_refs, alarm_ids, measurements: measurement_list, temporal_refs, fm_ids };
}
