// `node --import ./test/support/module-log.mjs ...` appends the URL of every file module the
// process resolves to the file named by RCA_MODULE_LOG: tests count what a bin loads to start.
import { appendFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { register } from 'node:module';

// Imported on the main thread, this registers itself; in the hooks thread it is the hook.
if (isMainThread) register(import.meta.url);

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.startsWith('file:') && process.env.RCA_MODULE_LOG) appendFileSync(process.env.RCA_MODULE_LOG, `${resolved.url}\n`);
  return resolved;
}
