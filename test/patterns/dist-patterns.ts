// The regular expressions of the built code, as V8 compiles them: every regex literal in dist/
// (read with acorn, so a literal in any expression counts), every call of the RegExp constructor,
// and every buildPattern site (src/runtime/patterns.ts) with its name.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as acorn from 'acorn';

export const DIST = join(import.meta.dirname, '..', '..', 'dist');

export interface LiteralPattern {
  /** dist-relative file and line, with the declared name when the literal initialises a const. */
  readonly where: string;
  readonly name: string | null;
  readonly source: string;
  readonly flags: string;
}

export interface DistPatterns {
  readonly literals: LiteralPattern[];
  /** `new RegExp(…)` / `RegExp(…)` calls: where they are. */
  readonly constructorCalls: string[];
  /** buildPattern('site', …) calls: the site names, and calls whose site is not a string literal. */
  readonly sites: string[];
  readonly unnamedSites: string[];
}

type Node = acorn.Node & Record<string, unknown>;

function* jsFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    // dist/bin holds the bundles: the same modules again.
    if (entry.isDirectory()) {
      if (path !== join(DIST, 'bin')) yield* jsFiles(path);
    } else if (/\.c?js$/.test(entry.name)) yield path;
  }
}

function walk(node: unknown, visit: (n: Node, parent: Node | null) => void, parent: Node | null = null): void {
  if (node === null || typeof node !== 'object') return;
  const n = node as Node;
  if (typeof n.type !== 'string') return;
  visit(n, parent);
  for (const key of Object.keys(n)) {
    const child = n[key];
    if (Array.isArray(child)) for (const c of child) walk(c, visit, n);
    else if (child !== null && typeof child === 'object') walk(child, visit, n);
  }
}

const isRegExpCallee = (callee: Node): boolean =>
  (callee.type === 'Identifier' && callee.name === 'RegExp') ||
  (callee.type === 'MemberExpression' && (callee.property as Node).type === 'Identifier' && (callee.property as Node).name === 'RegExp');

const isCallOf = (n: Node, names: ReadonlySet<string>): boolean =>
  n.type === 'CallExpression' && (n.callee as Node).type === 'Identifier' && names.has((n.callee as Node).name as string);

/**
 * Functions that pass their first parameter on as a buildPattern site (scan.ts's tokenRegex):
 * their callers name the sites.
 */
function forwarders(asts: Node[]): Set<string> {
  const names = new Set(['buildPattern']);
  for (const ast of asts) {
    walk(ast, (n) => {
      if (n.type !== 'FunctionDeclaration') return;
      const first = (n.params as Node[])[0];
      if (first?.type !== 'Identifier') return;
      walk(n.body, (inner) => {
        const arg = isCallOf(inner, names) ? (inner.arguments as Node[])[0] : undefined;
        if (arg?.type === 'Identifier' && arg.name === first.name) names.add((n.id as Node).name as string);
      });
    });
  }
  return names;
}

export function distPatterns(): DistPatterns {
  const literals: LiteralPattern[] = [];
  const constructorCalls: string[] = [];
  const sites: string[] = [];
  const unnamedSites: string[] = [];
  const parsed = [...jsFiles(DIST)].map((file) => {
    const text = readFileSync(file, 'utf8');
    return { rel: relative(DIST, file), ast: acorn.parse(text, { ecmaVersion: 'latest', sourceType: file.endsWith('.cjs') ? 'script' : 'module', locations: true }) as unknown as Node };
  });
  const builders = forwarders(parsed.map((p) => p.ast));
  for (const { rel, ast } of parsed) {
    walk(ast, (n, parent) => {
      const where = `dist/${rel}:${n.loc!.start.line}`;
      if (n.type === 'Literal' && n.regex) {
        const regex = n.regex as { pattern: string; flags: string };
        const name = parent?.type === 'VariableDeclarator' && (parent.id as Node).type === 'Identifier' ? ((parent.id as Node).name as string) : null;
        literals.push({ where, name, source: regex.pattern, flags: regex.flags });
      }
      if ((n.type === 'NewExpression' || n.type === 'CallExpression') && isRegExpCallee(n.callee as Node)) constructorCalls.push(where);
      if (isCallOf(n, builders)) {
        const first = (n.arguments as Node[])[0];
        if (first?.type === 'Literal' && typeof first.value === 'string') sites.push(first.value);
        else if (!forwardsItsSite(n, ast, builders)) unnamedSites.push(where);
      }
    });
  }
  return { literals, constructorCalls, sites, unnamedSites };
}

/** Is this call inside a forwarder, passing that function's own first parameter? */
function forwardsItsSite(call: Node, ast: Node, builders: ReadonlySet<string>): boolean {
  let inside = false;
  walk(ast, (n) => {
    if (n.type !== 'FunctionDeclaration' || !builders.has((n.id as Node).name as string)) return;
    const first = (n.params as Node[])[0];
    const arg = (call.arguments as Node[])[0];
    if (call.start >= n.start && call.end <= n.end && arg?.type === 'Identifier' && first?.type === 'Identifier' && arg.name === first.name) inside = true;
  });
  return inside;
}

/** The regex literal that initialises `const name` in a dist/ file (for the rewrites' property tests). */
export function literalNamed(file: string, name: string): RegExp {
  const found = distPatterns().literals.filter((l) => l.where.startsWith(`dist/${file}:`) && l.name === name);
  if (found.length !== 1) throw new Error(`${found.length} literals named ${name} in dist/${file}`);
  return new RegExp(found[0]!.source, found[0]!.flags);
}
