// What `rca --help` and `rca schema <kind>` print without loading the stages or zod: the registry's
// table of summaries and the generated JSON Schemas, held here to the stages' and zod's own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { commandNames, loadCommand, loadStage, stageNames, summaryOf } from '../../src/cli/registry.js';
import { RECORD_KINDS, jsonSchemaOf, type RecordKind } from '../../src/contracts/index.js';
import { JSON_SCHEMAS } from '../../src/contracts/json-schemas.generated.js';
import { ROOT } from '../support/golden.js';

const tmp = mkdtempSync(join(tmpdir(), 'rca-registry-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

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

// Start-up time is measured by bench/startup.mjs; what keeps it short is asserted here: what `rca
// --help` and `rca schema <kind>` load, run from the ES modules of dist/ (followed as they load) and
// from their bundles (the module list esbuild writes into each).
describe('what the dispatcher loads to start', () => {
  const loadedBy = (args: string[]): string[] => {
    const log = join(tmp, 'modules.txt');
    rmSync(log, { force: true });
    const entry = join(tmp, 'rca-modules.mjs');
    writeFileSync(entry, `import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/cli/main.js')).href)}).then((m) => m.runDispatcher());\n`);
    const r = spawnSync(process.execPath, ['--import', join(ROOT, 'test/support/module-log.mjs'), entry, ...args], {
      cwd: ROOT,
      input: '',
      env: { ...process.env, RCA_MODULE_LOG: log },
    });
    expect(r.status).toBe(0);
    return [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))].map((url) => url.slice(url.indexOf('/', 'file://'.length)));
  };
  const bundled = (name: string): string[] =>
    [...readFileSync(join(ROOT, `dist/bin/${name}.cjs`), 'utf8').matchAll(/^\/\/ (\S+)$/gm)].map((m) => `/${m[1]}`);

  it('rca --help: no stage, no command, no package', () => {
    for (const modules of [loadedBy(['--help']), bundled('rca')]) {
      expect(modules.some((path) => path.endsWith('/dist/cli/main.js'))).toBe(true);
      expect(modules.filter((path) => /\/dist\/(transforms|commands|contracts|views|tagging)\//.test(path) || path.includes('/node_modules/'))).toEqual([]);
    }
  });

  it('rca schema <kind>: its own command and the generated schemas, not zod', () => {
    const loaded = loadedBy(['schema', 'retrieval_summary']);
    expect(loaded.filter((path) => /\/dist\/commands\//.test(path))).toEqual([expect.stringMatching(/\/dist\/commands\/(command|schema)\.js$/), expect.stringMatching(/\/dist\/commands\/(command|schema)\.js$/)]);
    expect(loaded.some((path) => path.endsWith('/dist/contracts/json-schemas.generated.js'))).toBe(true);
    expect(loaded.filter((path) => path.includes('/node_modules/') || path.endsWith('/dist/contracts/index.js') || /\/dist\/transforms\//.test(path))).toEqual([]);
    const inBundle = bundled('rca.schema');
    expect(inBundle.filter((path) => /\/dist\/(commands|transforms)\//.test(path)).sort()).toEqual(['/dist/commands/command.js', '/dist/commands/schema.js']);
  });
});
