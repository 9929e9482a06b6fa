#!/usr/bin/env node
// Build step after tsc (npm run build): one CommonJS file per bin entry, bundled from the tsc output
// in dist/ (which stays the source of truth: tests import it), and a V8 code cache of it taken after
// a run on empty input, so that a bin starts by reading two files instead of resolving and compiling
// 20–110 ES modules. Per stage, dist/bin/rca-<stage>.cjs (bin/rca-<stage>, and `rca <stage>`); per
// rca command, dist/bin/rca.<command>.cjs (`rca <command>`); dist/bin/rca.cjs for the rest of `rca`
// (its help, version and usage errors). The bins load them through dist/cli/bin-loader.cjs; without
// them, they import dist/cli/main.js.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const OUT = join(DIST, 'bin');
// The stages are the bin/rca-<stage> wrappers.
const STAGES = readdirSync(join(ROOT, 'bin')).filter((f) => f.startsWith('rca-')).map((f) => f.slice('rca-'.length)).sort();
// Packages with no CommonJS entry are bundled in (a require() of them fails on Node 20 before 20.19);
// every other package stays external and loads from node_modules when first needed.
const BUNDLED_PACKAGES = new Set(['p-queue', 'p-timeout', 'eventemitter3']);
// The rca commands, from the registry tsc just wrote.
const { commandNames } = await import(join(DIST, 'cli', 'registry.js'));
// A code-cache run per stage: the options that decide which modules a run loads at start.
const CACHE_RUN_ARGS = { generate: ['--backend', 'extractive'], summarize: ['--backend', 'extractive'] };
// And per rca command: what its run takes (the command's name first); --help by default.
const COMMAND_CACHE_ARGS = { schema: ['retrieval_summary'] };
// Each bundle: its name, the one stage or command module of the registry it holds (none: the
// dispatcher's own), and the arguments of scripts/code-cache-run.mjs that take its cache.
const BUNDLES = [
  ...STAGES.map((stage) => ({ name: `rca-${stage}`, keep: `../transforms/${stage}.js`, cacheRun: [`rca-${stage}`, ...(CACHE_RUN_ARGS[stage] ?? [])] })),
  ...commandNames().map((command) => ({
    name: `rca.${command}`,
    keep: `../commands/${command}.js`,
    cacheRun: ['--dispatcher', `rca.${command}`, command, ...(COMMAND_CACHE_ARGS[command] ?? ['--help'])],
  })),
  { name: 'rca', keep: undefined, cacheRun: ['--dispatcher', 'rca', '--help'] },
];

/** Per bundle: the registry's stages and commands but the one it is for stay out of it (loaded from
 *  dist/ on the rare run that reaches them: `rca --help` reaches none); import.meta.url becomes the URL of the dist/ module it was written in,
 *  so data files and workers resolve as they do from dist/. */
function binPlugin(keep) {
  const registry = join(DIST, 'cli', 'registry.js');
  const isExternal = (spec, importer) => {
    if (spec.startsWith('.')) return importer === registry && /^\.\.\/(transforms|commands)\//.test(spec) && spec !== keep;
    if (spec.startsWith('node:')) return true;
    return !BUNDLED_PACKAGES.has(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
  };
  return {
    name: 'rca-bin',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => (args.kind !== 'entry-point' && isExternal(args.path, args.importer) ? { path: args.path, external: true } : undefined));
      b.onLoad({ filter: /\.js$/ }, (args) => {
        if (!args.path.startsWith(DIST)) return undefined;
        const self = JSON.stringify(relative(DIST, args.path).split('\\').join('/'));
        const source = readFileSync(args.path, 'utf8')
          .replaceAll('import.meta.url', `__rcaModuleUrl(${self})`)
          // import() of a module left out of the bundle goes through the loader's own import():
          // V8 drops a script's dynamic-import host options when it comes from a code cache.
          .replace(/\bimport\('([^']+)'\)/g, (call, spec) =>
            isExternal(spec, args.path) ? `__rcaImport(${spec.startsWith('.') ? `new URL('${spec}', __rcaModuleUrl(${self})).href` : `'${spec}'`})` : call,
          );
        return { contents: source, loader: 'js' };
      });
    },
  };
}

rmSync(OUT, { recursive: true, force: true });
for (const { name, keep } of BUNDLES) {
  await build({
    stdin: { contents: `export { runDispatcher, runStageBin } from './cli/main.js';\n`, resolveDir: DIST, sourcefile: `${name}-entry.js` },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: join(OUT, `${name}.cjs`),
    banner: {
      js: [
        '"use strict";',
        // __rcaImport: the loader's import() (see bin-loader.cts); __rcaModuleUrl: the URL of a dist/ module.
        'var __rcaDistUrl = require("node:url").pathToFileURL(require("node:path").join(__dirname, "..", "/")).href;',
        'var __rcaModuleUrl = (p) => __rcaDistUrl + p;',
      ].join('\n'),
    },
    plugins: [binPlugin(keep)],
    logLevel: 'warning',
    legalComments: 'none',
  });
  const bundle = readFileSync(join(OUT, `${name}.cjs`), 'utf8');
  if (/\bimport\(/.test(bundle)) throw new Error(`${name}.cjs: an import() left in the bundle would fail under vm.Script`);
}
// The code cache: each bundle run once on empty input, writing the cache of what that run compiled.
for (const { name, cacheRun } of BUNDLES) {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'code-cache-run.mjs'), ...cacheRun], { input: '', cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0 || !existsSync(join(OUT, `${name}.cache`))) throw new Error(`code cache of ${name}: exit ${r.status}: ${r.stderr}`);
}
