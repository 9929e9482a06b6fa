// The import graph of src/: every relative specifier of every .ts (and .cts) file (static imports and
// re-exports, `import type` included, and dynamic import()), resolved to the file it names. Read
// with two regular expressions rather than a parser: the sources are formatted (each statement
// starts a line), and the layers test holds what they find against a looser reading (any quoted
// relative path after `from` or `import`), so a statement they missed would show.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface ImportEdge {
  from: string;
  to: string;
}

// `import … from '…'`, `import '…'`, `export … from '…'`, at the start of a line.
const STATIC_RE = /^(?:import|export)\b[^;'"]*?['"](\.{1,2}\/[^'"]+)['"]/gm;
const DYNAMIC_RE = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

export function sourceFiles(srcDir: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') || entry.name.endsWith('.cts')) files.push(path);
    }
  };
  walk(srcDir);
  return files.sort();
}

/** Any quoted relative path after `from` or `import(`/`import ` in a file, however it is laid out. */
export function looseSpecifiers(text: string): Set<string> {
  return new Set([...text.matchAll(/\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!));
}

/** The specifiers importGraph reads in a file. */
export function specifiersOf(text: string): Set<string> {
  return new Set([...text.matchAll(STATIC_RE), ...text.matchAll(DYNAMIC_RE)].map((m) => m[1]!));
}

/** Edges between files, as paths relative to srcDir (e.g. "views/validate-view.ts"). */
export function importGraph(srcDir: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(srcDir)) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set([...specifiersOf(text)].map((spec) => relative(srcDir, resolve(dirname(file), spec.replace(/\.js$/, '.ts')))));
    for (const to of targets) edges.push({ from: relative(srcDir, file), to });
  }
  return edges;
}

/** The top folder under src/ a file is in ("runtime" for runtime/sources/jsonl-source.ts). */
export function folderOf(path: string): string {
  const slash = path.indexOf('/');
  return slash < 0 ? '.' : path.slice(0, slash);
}

/** Strongly connected components of more than one file (Tarjan): the import cycles. */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, []);
    next.get(from)!.push(to);
    if (!next.has(to)) next.set(to, []);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node)!) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
