#!/usr/bin/env node
// Used by scripts/bundle-bins.mjs: `node scripts/code-cache-run.mjs <stage> [options]` on empty
// stdin runs dist/bin/rca-<stage>.cjs as its bin would and writes its V8 code cache at exit.
import { createRequire } from 'node:module';

const { writeCodeCache } = createRequire(import.meta.url)('../dist/cli/bin-loader.cjs');

const [stage] = process.argv.splice(2, 1);
writeCodeCache(stage);
