import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import command from '../../src/commands/schema.js';
import { jsonSchemaOf, RECORD_KINDS } from '../../src/contracts/index.js';

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) => new Writable({ write: (chunk, _e, cb) => (append(String(chunk)), cb()) });
  const code = await command.run({ argv, stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)), env: {} });
  return { code, stdout, stderr };
}

describe('rca schema', () => {
  it('--list names every record kind, one per line', async () => {
    const r = await run(['--list']);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n').map((l) => l.split(/\s+/)[0])).toEqual(Object.keys(RECORD_KINDS));
  });

  it.each(Object.keys(RECORD_KINDS))('prints the JSON Schema of %s', async (kind) => {
    const r = await run([kind]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(jsonSchemaOf(RECORD_KINDS[kind as keyof typeof RECORD_KINDS].schema));
  });

  it.each<[string[], string]>([
    [[], 'rca schema: which record kind? (rca schema --list)\n'],
    [['frame'], `rca schema: unknown record kind 'frame' (known: ${Object.keys(RECORD_KINDS).join(', ')})\n`],
    [['rca_frame', 'ner_seed'], "rca schema: expected one record kind or --list, got 'rca_frame ner_seed' (see rca schema --help)\n"],
    [['--all'], "rca schema: expected one record kind or --list, got '--all' (see rca schema --help)\n"],
  ])('%j is a usage error', async (argv, message) => {
    const r = await run(argv);
    expect(r).toEqual({ code: 2, stdout: '', stderr: message });
  });

  it('--fields chunk lists every chunk field the stages read, each with its use', async () => {
    const { CHUNK_FIELDS } = await import('../../src/tagging/chunk-fields.js');
    const r = await run(['--fields', 'chunk']);
    expect(r.code).toBe(0);
    const rows = r.stdout.trimEnd().split('\n').map((l) => /^(\S+)\s+([^:]+): (.+)$/.exec(l));
    expect(rows.every((m) => m !== null)).toBe(true);
    const fields = rows.map((m) => m![1]);
    for (const field of [...CHUNK_FIELDS, 'context', 'ner_seed', 'tag_flags']) expect(fields).toContain(field);
    expect(r.stdout).toMatch(/^section +string: a lone heading/m);
    expect(r.stdout).toMatch(/^page_start +integer \| string \| null: first page/m);
  });

  it('--help shows the usage', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: rca schema <kind>');
  });
});
