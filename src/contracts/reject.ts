import { z } from 'zod';

/** What `--rejects FILE` receives for every refused input line (written by the runner). */
export const RejectRecord = z
  .strictObject({
    stage: z.string().describe('the stage that refused the line, e.g. "tag"'),
    source: z.string().describe('"stdin" or the input file path'),
    line: z.number().int().describe('1-based physical line number in that source (for a record of a JSON document: its 1-based position in the records array)'),
    at: z.string().optional().describe('for a record of a JSON document: where it sits, e.g. "chunks[12]"'),
    code: z.string().describe('BAD_JSON, NOT_OBJECT, NESTING_TOO_DEEP, BAD_UTF8, LINE_TOO_LONG, or a stage-specific code'),
    message: z.string().describe('one-line explanation'),
    input: z.string().describe('the line as read (a preview for over-long or non-UTF-8 lines; a document\'s record as JSON)'),
  })
  .describe('a rejected input line');
export type RejectRecord = z.infer<typeof RejectRecord>;
