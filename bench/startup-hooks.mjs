// Module hooks for bench/startup.mjs --modules: each module the loader loads is appended, by URL,
// to the file named in $RCA_BENCH_MODULE_LOG. Registered with --import (see startup.mjs).
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

// Imported on the main thread it registers itself; the loader's thread imports it for the hooks.
if (isMainThread && process.env.RCA_BENCH_MODULE_LOG) register(import.meta.url);

export async function load(url, context, next) {
  const result = await next(url, context);
  if (process.env.RCA_BENCH_MODULE_LOG) appendFileSync(process.env.RCA_BENCH_MODULE_LOG, `${url}\n`);
  return result;
}
