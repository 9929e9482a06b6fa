// The parse line adapter (Processor.lines): a stage may parse its lines itself (rca-validate leaves out the members it
// writes anew); the runner then hands it each line's text and treats what comes back as it treats
// parseRecordLine's answer: records go to process(), refusals are rejects with their line numbers.
import { describe, expect, it } from 'vitest';
import { parseRecordLine, parseRecordLineSkipping } from '../../src/runtime/record-line.js';
import { defineStage, type JsonObject } from '../../src/runtime/stage.js';
import { runInProcess } from '../support/run-in-process.js';

function stageWith(parse: ((line: string) => ReturnType<typeof parseRecordLine>) | undefined, seen: string[]) {
  return defineStage({
    name: 'parse-line',
    summary: 'test stage',
    examples: [],
    options: {},
    create() {
      return {
        ...(parse === undefined ? {} : { lines: { kind: 'parse' as const, parse: (line: string) => (seen.push(line), parse(line)) } }),
        process: (record: JsonObject) => ({ records: [{ ...record, evidence: 'new' }] }),
      };
    },
  });
}

const INPUT = ['{"id":1,"evidence":{"old":[1,2]}}', '{"id":2,"evidence":{"old":tru}}', '[1]', '{"id":3}', '{"id":4,"evidence":' + '['.repeat(120) + ']'.repeat(120) + '}'].join('\n') + '\n';

describe('the parse line adapter', () => {
  it('is used in place of parseRecordLine, for every line', async () => {
    const seen: string[] = [];
    const r = await runInProcess(stageWith((line) => parseRecordLineSkipping(line, new Set(['evidence'])), seen), [INPUT]);
    expect(seen).toEqual(INPUT.trimEnd().split('\n'));
    expect(r.stdout).toBe('{"id":1,"evidence":"new"}\n{"id":3,"evidence":"new"}\n');
    expect(r.code).toBe(1);
  });

  it('gives the same output, rejects and messages as parsing the whole line', async () => {
    const skipping = await runInProcess(stageWith((line) => parseRecordLineSkipping(line, new Set(['evidence'])), []), [INPUT]);
    const whole = await runInProcess(stageWith(undefined, []), [INPUT]);
    expect(skipping).toEqual(whole);
    expect(whole.stderr).toContain('stdin:2: BAD_JSON: ');
    expect(whole.stderr).toContain('stdin:3: NOT_OBJECT: expected a JSON object, got an array');
    expect(whole.stderr).toContain('stdin:5: NESTING_TOO_DEEP: ');
  });
});
