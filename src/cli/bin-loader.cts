// Start-up of bin/rca-<stage>: the stage's one-file build (dist/bin/rca-<stage>.cjs, written by
// scripts/bundle-bins.mjs from the tsc output) compiled with its V8 code cache, instead of resolving
// and compiling its 25–75 ES modules one by one. A missing cache, or one V8 rejects (another Node
// version or other V8 flags), means a normal compile; a build without the bundle runs dist/cli/main.js.
// CommonJS, as are the bin/ wrappers (bin/package.json): an ES module entry costs Node's ESM loader
// and node:fs/promises (with readline) before the first line of rca runs.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

// Defence in depth behind the ReDoS check (test/patterns/linear.test.ts): a regex that backtracks
// more than V8's limit (50,000 backtracks) is finished by V8's linear-time engine instead. It only
// covers patterns that engine can run (no lookaround, back-reference, `i` or `u` flag, large
// counted repetition: BENCHMARKS.md, "Linear time"). Set before any bundle is compiled, here in
// the one module every bin and the code-cache run (writeCodeCache) start from, so the caches are
// made under the flags the bins run with.
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

interface BinBundle {
  runStageBin(stageName: string): Promise<void>;
  runDispatcher(): Promise<void>;
}

type ModuleWrapper = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string,
  importModule: (specifier: string) => Promise<unknown>,
) => void;

// The bundle's import() of what it leaves out (npm packages loaded on first use): a script compiled
// from a code cache has lost V8's dynamic-import options, so import() there would fail.
const importModule = (specifier: string): Promise<unknown> => import(specifier);

// A bundle's name: `rca-<stage>` (bin/rca-<stage>, and `rca <stage>`), `rca.<command>` (`rca
// <command>`), `rca` (the dispatcher's own: help, version, usage errors).
const bundleFile = (name: string): string => join(__dirname, '..', 'bin', `${name}.cjs`);
const cacheFile = (name: string): string => join(__dirname, '..', 'bin', `${name}.cache`);

function readOptional(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export interface LoadedBundle {
  script: Script;
  bundle: BinBundle;
  /** true: V8 refused the cache (other version or flags) and compiled the source; undefined: no cache. */
  cacheRejected: boolean | undefined;
}

/** The named bundle compiled (with its code cache, if asked and present) and evaluated as a
 *  CommonJS module; undefined when the build has no such bundle, or an older one than the tsc output
 *  (a bare `tsc` after `npm run build`: tsc rewrites every file, main.js among them). */
export function loadBundle(name: string, useCache: boolean): LoadedBundle | undefined {
  const file = bundleFile(name);
  const built = statSync(file, { throwIfNoEntry: false });
  if (!built || built.mtimeMs < statSync(join(__dirname, 'main.js')).mtimeMs) return undefined;
  const source = readFileSync(file);
  const cachedData = useCache ? readOptional(cacheFile(name)) : undefined;
  const script = new Script(`(function (exports, require, module, __filename, __dirname, __rcaImport) {${source.toString('utf8')}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} };
  (script.runInThisContext() as ModuleWrapper)(module.exports, createRequire(file), module, file, dirname(file), importModule);
  return { script, bundle: module.exports as BinBundle, cacheRejected: script.cachedDataRejected };
}

/** Entry point of `bin/rca-<stage>`. */
export async function runStageBin(stageName: string): Promise<void> {
  const loaded = loadBundle(`rca-${stageName}`, true);
  if (loaded) return loaded.bundle.runStageBin(stageName);
  const main = await import('./main.js');
  return main.runStageBin(stageName);
}

/** The bundle `rca <argv>` runs: its stage's or its command's when the build has one by that name,
 *  else the dispatcher's own. Each holds all of dist/cli/main.js, so every one dispatches alike. */
export function dispatcherBundleName(argv: readonly string[]): string {
  const first = argv[0];
  if (first === undefined || !/^[a-z][a-z-]*$/.test(first)) return 'rca';
  for (const name of [`rca-${first}`, `rca.${first}`]) if (statSync(bundleFile(name), { throwIfNoEntry: false })) return name;
  return 'rca';
}

/** Entry point of `bin/rca`. */
export async function runDispatcherBin(): Promise<void> {
  const loaded = loadBundle(dispatcherBundleName(process.argv.slice(2)), true);
  if (loaded) return loaded.bundle.runDispatcher();
  const main = await import('./main.js');
  return main.runDispatcher();
}

/** Build time (scripts/code-cache-run.mjs): run the bundle without a cache (as bin/rca-<stage>
 *  `stage`, or as bin/rca) and, at exit, write the code cache of everything the run compiled. */
export function writeCodeCache(name: string, entry: { stage: string } | 'dispatcher'): void {
  const loaded = loadBundle(name, false);
  if (!loaded) throw new Error(`no ${bundleFile(name)}: run scripts/bundle-bins.mjs`);
  process.on('exit', () => writeFileSync(cacheFile(name), loaded.script.createCachedData()));
  void (entry === 'dispatcher' ? loaded.bundle.runDispatcher() : loaded.bundle.runStageBin(entry.stage));
}
