// Turning one input line into a record, shared by the runner and by stages that take raw lines
// (Processor.processRaw), possibly on other threads: one implementation, so a line is accepted or
// refused with the same code and message whoever parses it.
import type { JsonObject } from './stage.js';

export interface LineReject {
  code: 'BAD_JSON' | 'NOT_OBJECT';
  message: string;
}

export type ParsedLine = { record: JsonObject; reject?: undefined } | { record?: undefined; reject: LineReject };

export function parseRecordLine(text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { reject: { code: 'BAD_JSON', message: messageOf(err) } };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    return { reject: { code: 'NOT_OBJECT', message: `expected a JSON object, got ${kind}` } };
  }
  return { record: value as JsonObject };
}

/** The first line of an error's message: messages on stderr are one line each, never a stack. */
export function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]!;
}
