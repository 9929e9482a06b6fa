// npm run new:view NAME: a view scaffolded into a copy of the tree builds, and the tests that
// iterate over the registered views pass with it among them (no network, no model).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/golden.js';

// The tests that hold every registered view to the same rules: a scaffolded view must pass them
// as it is, and each must name it in its results.
const VIEW_GENERIC_TESTS = [
  'test/views/kinds.test.ts',
  'test/contracts/views.test.ts',
  'test/contracts/json-schemas.test.ts',
  'test/generation/format-bounds.test.ts',
  'test/views/flatten-view.test.ts',
  'test/views/prompt-text.test.ts',
  'test/layers.test.ts',
  'test/views/view-types.test.ts',
  'test/contracts/schema-command.test.ts',
  'test/generation/config.test.ts',
] as const;

// The tests that run the stages against the fake servers take their views and counts from
// VIEW_TYPES too, but take minutes, too long to run here again. They were run with a view
// scaffolded (npm run new:view zz_probe in a copy of the tree, npm run build, npm test): all
// passed but the goldens, the docs' --help blocks and README's demo table, which carry the new
// view once npm run golden and npm run docs are run and the table is copied. The files:
//   test/generation/{generate,cache,views-per-request,extractive,openai,hosts,bins,corpus-build}.test.ts
//   test/reliability/{hostile-input,crash-resume,fault-soak}.test.ts

const NAME = 'probe_notes';
const COPIED = ['src', 'scripts', 'data', 'bin', 'test/support', 'package.json', 'tsconfig.json', 'tsconfig.test.json', 'vitest.config.ts', 'ARCHITECTURE.md'];

describe('npm run new:view', () => {
  const copy = mkdtempSync(join(tmpdir(), 'rca-new-view-'));
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: copy, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });

  it(
    'scaffolds a view that builds and passes the view-generic tests',
    () => {
      for (const path of [...COPIED, ...VIEW_GENERIC_TESTS]) cpSync(join(ROOT, path), join(copy, path), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));

      const scaffold = run(['scripts/new-view.mjs', NAME]);
      expect(scaffold.status, scaffold.stderr).toBe(0);
      expect(existsSync(join(copy, 'src/views/kinds/probe-notes.ts'))).toBe(true);
      expect(readFileSync(join(copy, 'src/contracts/json-schemas.generated.ts'), 'utf8')).toContain(`"const": "${NAME}"`);
      // A second run refuses: the view exists.
      expect(run(['scripts/new-view.mjs', NAME]).status).toBe(2);

      const build = run([join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
      expect(build.status, build.stdout + build.stderr).toBe(0);

      const report = join(copy, 'results.json');
      const tests = run([join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...VIEW_GENERIC_TESTS, '--reporter=json', `--outputFile=${report}`]);
      const results = JSON.parse(readFileSync(report, 'utf8')) as { numFailedTests: number; testResults: { name: string; assertionResults: { fullName: string; status: string }[] }[] };
      const failed = results.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === 'failed').map((a) => a.fullName));
      expect(failed, tests.stdout.slice(-4000)).toEqual([]);
      expect(tests.status).toBe(0);
      // Every file ran, and the new view is among the cases the iterating tests made.
      expect(results.testResults.map((f) => f.name.slice(copy.length + 1)).sort()).toEqual([...VIEW_GENERIC_TESTS].sort());
      const named = results.testResults.filter((f) => f.assertionResults.some((a) => a.fullName.includes(NAME))).map((f) => f.name.slice(copy.length + 1));
      expect(named.length).toBeGreaterThanOrEqual(4);
    },
    600_000,
  );
});
