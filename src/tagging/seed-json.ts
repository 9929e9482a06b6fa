// JSON text of the fields the tag stage appends, written by hand. JSON.stringify walks these small
// objects generically and cost more per record than the whole gazetteer; the shapes here are fixed
// (the contracts' key order), so each one is a few concatenations. The output is exactly
// JSON.stringify's: a string that needs no escaping is quoted as it is, any other is handed to
// JSON.stringify itself.

import type { ChunkContext, Measurement, NegatedMention, NerSeed } from '../contracts/chunk.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const FIRST_PRINTABLE = 0x20;
const SURROGATE_FIRST = 0xd800;
const SURROGATE_LAST = 0xdfff;

/** JSON.stringify(value) for a string. */
export function jsonString(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    // Control characters, quote and backslash are escaped; lone surrogates are escaped too (paired
    // ones are not, but telling them apart is JSON.stringify's job on this rare path).
    if (code < FIRST_PRINTABLE || code === QUOTE || code === BACKSLASH || (code >= SURROGATE_FIRST && code <= SURROGATE_LAST)) {
      return JSON.stringify(value);
    }
  }
  return `"${value}"`;
}

/** JSON.stringify(values) for an array of strings. */
export function stringArrayJson(values: readonly string[]): string {
  if (values.length === 0) return '[]';
  let out = '[' + jsonString(values[0]!);
  for (let i = 1; i < values.length; i++) out += ',' + jsonString(values[i]!);
  return out + ']';
}

function labelledArray(spans: readonly { text: string; sub_label: string }[]): string {
  if (spans.length === 0) return '[]';
  let out = '[';
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i]!;
    out += `${i === 0 ? '' : ','}{"text":${jsonString(span.text)},"sub_label":${jsonString(span.sub_label)}}`;
  }
  return out + ']';
}

function measurementArray(measurements: readonly Measurement[]): string {
  if (measurements.length === 0) return '[]';
  let out = '[';
  for (let i = 0; i < measurements.length; i++) {
    const m = measurements[i]!;
    out += `${i === 0 ? '' : ','}{"value":${jsonString(m.value)},"unit":${jsonString(m.unit)},"text":${jsonString(m.text)}}`;
  }
  return out + ']';
}

function negatedArray(mentions: readonly NegatedMention[]): string {
  if (mentions.length === 0) return '[]';
  let out = '[';
  for (let i = 0; i < mentions.length; i++) {
    const m = mentions[i]!;
    out += `${i === 0 ? '' : ','}{"text":${jsonString(m.text)},"kind":${jsonString(m.kind)},"cue":${jsonString(m.cue)}}`;
  }
  return out + ']';
}

// Pages are integers or null (ContextBuilder guarantees it); an integer prints as JSON.stringify prints it.
function page(value: number | null): string {
  return value === null ? 'null' : String(value);
}

/** JSON.stringify(context), keys in ChunkContext order (doc_subtype always written, null when unknown). */
export function contextJson(c: ChunkContext): string {
  return (
    `{"doc_id":${jsonString(c.doc_id)},"doc_type":${jsonString(c.doc_type)},"doc_subtype":${c.doc_subtype == null ? 'null' : jsonString(c.doc_subtype)}` +
    `,"chunk_id":${jsonString(c.chunk_id)}` +
    `,"section_path":${jsonString(c.section_path)},"page_start":${page(c.page_start)},"page_end":${page(c.page_end)}` +
    `,"authority_level":${jsonString(c.authority_level)},"section_role":${jsonString(c.section_role)}}`
  );
}

/** JSON.stringify(seed) for a seed whose keys are in NerSeed order (the order the tag stage builds). */
export function nerSeedJson(s: NerSeed): string {
  return (
    `{"systems":${stringArrayJson(s.systems)},"equipment_ids":${stringArrayJson(s.equipment_ids)}` +
    `,"components":${stringArrayJson(s.components)},"mechanisms":${stringArrayJson(s.mechanisms)}` +
    `,"outcomes":${stringArrayJson(s.outcomes)},"surveillance_actions":${stringArrayJson(s.surveillance_actions)}` +
    `,"maintenance_actions":${stringArrayJson(s.maintenance_actions)},"properties":${stringArrayJson(s.properties)}` +
    `,"tools":${stringArrayJson(s.tools)},"fm_ids":${stringArrayJson(s.fm_ids)},"doc_refs":${stringArrayJson(s.doc_refs)}` +
    `,"alarm_ids":${stringArrayJson(s.alarm_ids)},"measurements":${measurementArray(s.measurements)}` +
    `,"temporal_refs":${stringArrayJson(s.temporal_refs)},"temporal_relations":${labelledArray(s.temporal_relations)}` +
    `,"temporal_qualifiers":${stringArrayJson(s.temporal_qualifiers)},"locations":${labelledArray(s.locations)}` +
    `,"conjectures":${stringArrayJson(s.conjectures)}` +
    (s.negated === undefined ? '}' : `,"negated":${negatedArray(s.negated)}}`)
  );
}
