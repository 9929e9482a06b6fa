#!/usr/bin/env node
// Used by scripts/bundle-bins.mjs: on empty stdin, `node scripts/code-cache-run.mjs rca-<stage>
// [options]` runs dist/bin/rca-<stage>.cjs as bin/rca-<stage> would, and `node
// scripts/code-cache-run.mjs --dispatcher <bundle> [rca arguments]` runs dist/bin/<bundle>.cjs as
// bin/rca would; either writes the bundle's V8 code cache at exit.
import { createRequire } from 'node:module';

const { writeCodeCache } = createRequire(import.meta.url)('../dist/cli/bin-loader.cjs');

const dispatcher = process.argv[2] === '--dispatcher';
if (dispatcher) process.argv.splice(2, 1);
const [bundle] = process.argv.splice(2, 1);
writeCodeCache(bundle, dispatcher ? 'dispatcher' : { stage: bundle.slice('rca-'.length) });
