// `npm run quality`: runs every bench/quality/*.score.mjs in turn (name order), each printing its
// own section; arguments are passed on. Exits non-zero when a scorer fails.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const here = fileURLToPath(new URL('.', import.meta.url));
let status = 0;
for (const file of readdirSync(here).filter((f) => f.endsWith('.score.mjs')).sort()) {
  const run = spawnSync(process.execPath, [join(here, file), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(`quality: ${file} exited with ${run.status ?? run.signal}`);
    status = 1;
  }
}
process.exit(status);
