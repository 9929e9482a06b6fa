import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/golden.js';

// Everything a module loads at run time, following relative imports through the source tree
// (static and dynamic). Type-only imports are left out: tsc erases them.
function importGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/^\s*(?:import|export)\s(?!type\s)[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'|import\('([^']+)'\)/gm)) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else packages.add(spec);
    }
  };
  visit(join(ROOT, entry));
  return { files: [...files], packages: [...packages] };
}

describe('fast-path modules do not load zod (it costs ~46 ms at start-up)', () => {
  it.each(['src/transforms/flatten.ts', 'src/views/flatten-view.ts', 'src/views/json-recovery.ts', 'src/views/grounding.ts', 'src/views/text-cut.ts'])('%s', (entry) => {
    const graph = importGraph(entry);
    expect(graph.files.length).toBeGreaterThan(0);
    expect(graph.packages.filter((p) => p === 'zod' || p.startsWith('zod/'))).toEqual([]);
  });

  it('the walker does see zod where it is used', () => {
    expect(importGraph('src/commands/schema.ts').packages).toContain('zod');
  });
});
