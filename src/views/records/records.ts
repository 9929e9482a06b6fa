// The record kind of each view kind's `reads`: a `reads` without one fails to compile.
import type { ViewKind } from '../kinds/kind.js';
import { CHUNK_RECORDS } from './chunk-records.js';
import type { RecordKind } from './record-kind.js';
import { SECTION_RECORDS } from './section-records.js';

export const RECORD_KINDS = {
  chunk: CHUNK_RECORDS,
  section: SECTION_RECORDS,
} as const satisfies { readonly [R in ViewKind['reads']]: RecordKind<any, any, Extract<ViewKind, { reads: R }>> };

/** A record kind as generation drives it: the input types are the record kind's own business. */
export type AnyRecordKind = RecordKind<unknown, unknown, ViewKind>;

export function recordKindOf(kind: ViewKind): AnyRecordKind {
  return RECORD_KINDS[kind.reads] as unknown as AnyRecordKind;
}
