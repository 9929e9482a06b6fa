// The README's demo table is what `make demo` prints: the test runs the demo (into a temporary
// folder, DEMO_OUT) and holds the README's block to the table it printed, byte for byte.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnShell } from '../generation/support/spawn.js';
import { ROOT } from '../support/golden.js';

/** The table of a demo run's stdout: its header line to its total line. */
function tableOf(text: string): string {
  const lines = text.split('\n');
  const from = lines.findIndex((l) => l.startsWith('document '));
  const to = lines.findIndex((l, i) => i > from && l.startsWith('total '));
  return lines.slice(from, to + 1).join('\n');
}

describe('README: the demo', () => {
  it('shows the table make demo prints', async () => {
    const out = mkdtempSync(join(tmpdir(), 'rca-demo-'));
    // -o dist/.built: the bins are built already; make must not rebuild them under a running test.
    const r = await spawnShell(`make -s -o dist/.built demo DEMO_OUT='${out}'`);
    expect(r.code).toBe(0);
    const printed = tableOf(r.stdout);
    expect(printed).toMatch(/^document .*\n(.*\n)+total .*$/);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /prints a table\nper document:\n\n```\n([^]*?)\n```/.exec(readme)?.[1];
    expect(block, 'README.md: the fenced table after "prints a table per document:"').toBeDefined();
    expect(block).toBe(printed);
  }, 120_000);
});
