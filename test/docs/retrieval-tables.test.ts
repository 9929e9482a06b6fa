// docs/retrieval.md's real-text section shows what `make eval-retrieval` prints: the test builds
// the index into a temporary folder (DEMO_OUT) and holds each of the page's two tables there to
// the rows of the set it measured, figure for figure.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnShell } from '../generation/support/spawn.js';
import { ROOT } from '../support/golden.js';

const TEXT: Record<string, Record<string, string>> = {
  flat: { text: 'raw text (**baseline**)', views: 'views', 'text+views': 'text + views' },
  hierarchical: { text: 'raw text + section summaries', views: 'views + section summaries', 'text+views': 'text + views + section summaries' },
};

/** rca eval-retrieval's text tables as the page's markdown rows, per set. */
function markdownRows(stdout: string): Map<string, string[]> {
  const sets = new Map<string, string[]>();
  let rows: string[] = [];
  let split = '';
  for (const line of stdout.split('\n')) {
    const header = /^(\S+), written questions, (dev|test) \(/.exec(line);
    if (header) {
      rows = sets.get(header[1]!) ?? sets.set(header[1]!, []).get(header[1]!)!;
      split = header[2]!;
      continue;
    }
    const [mode, text, r1, r5, r10, mrr, ndcg, vs, miss = ''] = line.trim().split(/\s+/);
    if (mode !== 'flat' && mode !== 'hierarchical') continue;
    const label = mode === 'hierarchical' && text === 'text' ? 'hierarchical (default)' : mode;
    const delta = vs === 'baseline' ? '—' : vs!.replace('-', '−');
    rows.push(`| ${split} | ${label} | ${TEXT[mode]![text!]} | ${r1} | ${r5} | ${r10} | ${mrr} | ${ndcg} | ${delta} | ${miss} |`);
  }
  return sets;
}

/** The page's tables after the real-text heading, in order: each its rows without the header. */
function pageTables(page: string): string[][] {
  const section = page.slice(page.indexOf('## Measured on the real text'), page.indexOf('## Cost'));
  const tables: string[][] = [];
  let current: string[] | null = null;
  for (const line of section.split('\n')) {
    if (line.startsWith('| split |')) tables.push((current = []));
    else if (line.startsWith('| dev |') || line.startsWith('| test |')) current!.push(line);
    else if (!line.startsWith('|')) current = null;
  }
  return tables;
}

describe('docs/retrieval.md: the real-text measurement', () => {
  it('shows the tables make eval-retrieval prints, the real-text set then the sample set', async () => {
    const out = mkdtempSync(join(tmpdir(), 'rca-eval-retrieval-'));
    // -o dist/.built: the bins are built already; make must not rebuild them under a running test.
    const r = await spawnShell(`make -s -o dist/.built eval-retrieval DEMO_OUT='${out}'`);
    expect(r.code, r.stderr).toBe(0);
    const printed = markdownRows(r.stdout);
    expect([...printed.keys()]).toEqual(['sample', 'realtext']);
    const tables = pageTables(readFileSync(join(ROOT, 'docs', 'retrieval.md'), 'utf8'));
    expect(tables).toEqual([printed.get('realtext'), printed.get('sample')]);
  }, 120_000);
});
