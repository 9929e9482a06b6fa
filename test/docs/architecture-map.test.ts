// ARCHITECTURE.md's folder map is held to the tree: every folder under src/, at any depth, has its
// line, and every folder the map names exists. The two top-level docs stay short enough to read.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/golden.js';

/** The folders the map names (each line's first word, ending in `/`), in order. */
export function mapFolders(doc: string): string[] {
  const block = /<!-- folder-map:[^\n]*-->\n```text\n([^]*?)```/.exec(doc);
  if (!block) throw new Error('ARCHITECTURE.md has no folder-map block');
  return block[1]!
    .split('\n')
    .map((line) => /^(\S+\/)\s/.exec(line)?.[1])
    .filter((folder): folder is string => folder !== undefined)
    .map((folder) => folder.slice(0, -1));
}

function foldersUnder(dir: string, prefix: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => [`${prefix}/${e.name}`, ...foldersUnder(join(dir, e.name), `${prefix}/${e.name}`)]);
}

describe('ARCHITECTURE.md: the folder map', () => {
  const named = mapFolders(readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8'));

  it('names folders, each once', () => {
    expect(named.length).toBeGreaterThan(15);
    expect(named.filter((f, i) => named.indexOf(f) !== i)).toEqual([]);
  });

  it('lists every folder under src/, at every depth', () => {
    const missing = foldersUnder(join(ROOT, 'src'), 'src').filter((f) => !named.includes(f));
    expect(missing, 'folders of src/ missing from the map').toEqual([]);
  });

  it('names only folders that exist', () => {
    const gone = named.filter((f) => !(existsSync(join(ROOT, f)) && statSync(join(ROOT, f)).isDirectory()));
    expect(gone, 'folders in the map that do not exist').toEqual([]);
  });

  it('catches a missing and a stale line', () => {
    const doc = '<!-- folder-map: x -->\n```text\nsrc/a/    one\n  detail line\nsrc/b/c/  two\n```\n';
    expect(mapFolders(doc)).toEqual(['src/a', 'src/b/c']);
    expect(() => mapFolders('no map')).toThrow(/no folder-map block/);
  });
});

describe('the top-level docs stay short', () => {
  it.each([
    ['ARCHITECTURE.md', 20 * 1024],
    ['BENCHMARKS.md', 40 * 1024],
  ] as const)('%s is at most %i bytes', (page, limit) => {
    expect(statSync(join(ROOT, page)).size).toBeLessThanOrEqual(limit);
  });
});
