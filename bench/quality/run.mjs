#!/usr/bin/env node
// npm run quality: runs every bench/quality/*.score.mjs in name order, one after the other, each
// printing its own table; the exit status is the worst of theirs (a missed target fails the run).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const scripts = readdirSync(here).filter((f) => f.endsWith('.score.mjs')).sort();
let status = 0;
for (const script of scripts) {
  const r = spawnSync(process.execPath, [join(here, script), ...process.argv.slice(2)], { stdio: 'inherit' });
  const code = r.status ?? 1;
  if (code !== 0) console.error(`quality: ${script} exited with status ${code}`);
  status = Math.max(status, code);
}
process.exitCode = status;
