// Pattern half of the tag stage's NER seed: identifiers, measurements and time expressions found
// by regular expressions (the gazetteer fills the other seed fields).
//
// Each family is one precompiled regex run once over the text. Overlaps are then resolved by
// family priority: doc ref > alarm id > fm id > equipment id > temporal ref > measurement. A
// family may only keep spans that no higher family claimed, so "PAS-1234-HI" is an alarm and
// not also a tag, and "WO 12345678" never yields a number. Within a family every match already
// ends on a token edge, so no family yields a piece of a longer token (no "ECA-2026" beside
// "ECA-2026-0007", no "101 A" inside "VB-101A").

import type { Measurement } from '../contracts/chunk.js';
import { findAlarmIds, findDocRefs, findEquipmentIds, findFmIds } from './extractors/identifiers.js';
import { findMeasurements } from './extractors/measurements.js';
import type { Candidate } from './extractors/scan.js';
import { findTemporalRefs } from './extractors/temporal.js';

export interface PatternSpans {
  equipment_ids: string[];
  doc_refs: string[];
  alarm_ids: string[];
  measurements: Measurement[];
  temporal_refs: string[];
  fm_ids: string[];
}

/**
 * Characters of the text already claimed by a higher-priority family; allocated on the first
 * claim. Takes [start, end) unless any of it is claimed, and says whether it did.
 */
function claimer(length: number): (start: number, end: number) => boolean {
  let marks: Uint8Array | undefined;
  return (start, end) => {
    marks ??= new Uint8Array(length);
    for (let i = start; i < end; i += 1) if (marks[i] === 1) return false;
    marks.fill(1, start, end);
    return true;
  };
}

/** Keeps unclaimed candidates, first-seen order, one item per case-insensitive key. */
function keep<T>(candidates: readonly Candidate<T>[], claim: (start: number, end: number) => boolean): T[] {
  const items: T[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    if (!claim(candidate.start, candidate.end) || seen.has(candidate.key)) continue;
    seen.add(candidate.key);
    items.push(candidate.item);
  }
  return items;
}

export function extractPatterns(text: string): PatternSpans {
  const claims = claimer(text.length);
  // Order of these calls is the priority order; the object below is built afterwards so its key
  // order stays the field order callers expect.
  const doc_refs = keep(findDocRefs(text), claims);
  const alarm_ids = keep(findAlarmIds(text), claims);
  const fm_ids = keep(findFmIds(text), claims);
  const equipment_ids = keep(findEquipmentIds(text), claims);
  const temporal_refs = keep(findTemporalRefs(text), claims);
  const measurements = keep(findMeasurements(text), claims);
  return { equipment_ids, doc_refs, alarm_ids, measurements, temporal_refs, fm_ids };
}
