// Dependencies point down only: the layers of ARCHITECTURE.md ("Layers") held against the import
// graph of src/. No cycle, no arrow up or sideways, except the ones listed below while they last.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderOf, importCycles, importGraph, looseSpecifiers, sourceFiles, specifiersOf, type ImportEdge } from './support/import-graph.js';
import { ROOT } from './support/golden.js';

const SRC = join(ROOT, 'src');

// Arrows that break the layers today, each to be removed, not added to. The test fails when one
// of them is gone, so the list is emptied as the code is fixed.
const ALLOWED_ARROWS: readonly string[] = [];

// Import cycles today (each the sorted files of one cycle).
const ALLOWED_CYCLES: readonly string[] = [];

/** The layer table of ARCHITECTURE.md: folder → its layer number. */
function layers(): Map<string, number> {
  const doc = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const block = /<!-- layers:[^\n]*-->\n```text\n([^]*?)```/.exec(doc);
  if (!block) throw new Error('ARCHITECTURE.md has no layers block');
  const table = new Map<string, number>();
  for (const line of block[1]!.trimEnd().split('\n')) {
    const row = /^(\d+) {2}([a-z]+(?: [a-z]+)*) {2,}\S/.exec(line);
    if (!row) throw new Error(`unreadable layers row: ${line}`);
    for (const folder of row[2]!.split(' ')) table.set(folder, Number(row[1]));
  }
  return table;
}

function arrowsAgainst(table: Map<string, number>, edges: readonly ImportEdge[]): string[] {
  const wrong: string[] = [];
  for (const { from, to } of edges) {
    const [a, b] = [folderOf(from), folderOf(to)];
    if (a === b) continue;
    if (!(table.get(a)! > table.get(b)!)) wrong.push(`${from} -> ${to}`);
  }
  return wrong.sort();
}

describe('layers', () => {
  const edges = importGraph(SRC);
  const table = layers();

  it('every folder of src/ is on exactly one layer of the table, and every folder named exists', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    expect([...table.keys()].sort()).toEqual(folders);
    expect(sourceFiles(SRC).filter((f) => folderOf(f.slice(SRC.length + 1)) === '.')).toEqual([]);
  });

  it('reads every relative import of every file (against a looser reading) and each resolves to a file', () => {
    const files = new Set(sourceFiles(SRC).map((f) => f.slice(SRC.length + 1)));
    for (const file of files) {
      const text = readFileSync(join(SRC, file), 'utf8');
      expect([...specifiersOf(text)].sort(), file).toEqual([...looseSpecifiers(text)].sort());
    }
    expect(edges.filter((e) => !files.has(e.to))).toEqual([]);
    expect(edges.length).toBeGreaterThan(400);
  });

  it('no import points up or sideways, beyond the listed arrows; each listed arrow still exists', () => {
    const wrong = arrowsAgainst(table, edges);
    expect(wrong.filter((arrow) => !ALLOWED_ARROWS.includes(arrow)), 'arrows against the layers (ARCHITECTURE.md "Layers")').toEqual([]);
    expect(ALLOWED_ARROWS.filter((arrow) => !wrong.includes(arrow)), 'gone: remove from ALLOWED_ARROWS').toEqual([]);
  });

  it('no import cycle beyond the listed ones; each listed cycle still exists', () => {
    const cycles = importCycles(edges).map((c) => c.join(' '));
    expect(cycles.filter((c) => !ALLOWED_CYCLES.includes(c)), 'import cycles').toEqual([]);
    expect(ALLOWED_CYCLES.filter((c) => !cycles.includes(c)), 'gone: remove from ALLOWED_CYCLES').toEqual([]);
  });

  // Inside views/: the kinds (views/kinds/) are the declarations the machinery reads; they import
  // nothing else of views/, so a view's declaration never depends on how it is checked or built.
  it('views/kinds/ imports nothing of views/ outside itself', () => {
    const up = edges.filter(({ from, to }) => from.startsWith('views/kinds/') && to.startsWith('views/') && !to.startsWith('views/kinds/'));
    expect(up.map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
  });

  it('catches what it must: an arrow up, one sideways, and a cycle', () => {
    const made: ImportEdge[] = [
      { from: 'runtime/a.ts', to: 'views/b.ts' },
      { from: 'cache/c.ts', to: 'sections/d.ts' },
      { from: 'views/b.ts', to: 'views/e.ts' },
      { from: 'views/e.ts', to: 'views/b.ts' },
      { from: 'cli/main.ts', to: 'runtime/a.ts' },
    ];
    expect(arrowsAgainst(table, made)).toEqual(['cache/c.ts -> sections/d.ts', 'runtime/a.ts -> views/b.ts']);
    expect(importCycles(made)).toEqual([['views/b.ts', 'views/e.ts']]);
  });
});
