// What `rca --help` and `rca schema <kind>` print without loading the stages or zod: the registry's
// table of summaries and the generated JSON Schemas, held here to the stages' and zod's own.
import { describe, expect, it } from 'vitest';
import { commandNames, loadCommand, loadStage, stageNames, summaryOf } from '../../src/cli/registry.js';
import { RECORD_KINDS, jsonSchemaOf, type RecordKind } from '../../src/contracts/index.js';
import { JSON_SCHEMAS } from '../../src/contracts/json-schemas.generated.js';

describe('the registry table of summaries', () => {
  it.each(stageNames())('stage %s: the summary it declares', async (name) => {
    expect(summaryOf(name)).toBe((await loadStage(name)).summary);
  });

  it.each(commandNames())('command %s: the summary it declares', async (name) => {
    expect(summaryOf(name)).toBe((await loadCommand(name)).summary);
  });

  it('has no summary of a name it does not know', () => {
    expect(() => summaryOf('no-such-stage')).toThrow(/no summary/);
  });
});

describe('rca schema prints the generated JSON Schemas', () => {
  it('the record kinds, in the same order', () => {
    expect(Object.keys(JSON_SCHEMAS)).toEqual(Object.keys(RECORD_KINDS));
  });

  it.each(Object.keys(RECORD_KINDS) as RecordKind[])('%s: byte for byte the zod contract (else run: npm run contracts)', (kind) => {
    expect(JSON.stringify(JSON_SCHEMAS[kind], null, 2)).toBe(JSON.stringify(jsonSchemaOf(RECORD_KINDS[kind].schema), null, 2));
  });
});
