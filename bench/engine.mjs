// Shared set-up of the benchmarks that run against the engine tier's real llama-server: its
// launcher (a TypeScript test helper, compiled into bench/out/engine with tsc, as Node 20 cannot
// run .ts files) and a tagged input of the first `records` chunks of the written fixtures.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OUT, ROOT } from './measure.mjs';

/** { buildInfo, locateLlamaServer, MODEL_ALIAS, startLlamaServer } from test/engine/support. */
export async function loadEngine() {
  const engineDir = join(OUT, 'engine');
  mkdirSync(engineDir, { recursive: true });
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '--ignoreConfig', '--outDir', engineDir, '--rootDir', join(ROOT, 'test/engine/support'), '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--skipLibCheck', join(ROOT, 'test/engine/support/llama-server.ts')],
    { cwd: ROOT, stdio: 'inherit' },
  );
  return import(join(engineDir, 'llama-server.js'));
}

/** Writes the first `records` tagged chunks of three written fixtures (one SOP, one WO, one ECA) to `file`. */
export function taggedFixtures(file, records) {
  const lines = ['sop_afw_012', 'wo_2026_04567', 'eca_2026_0007'].flatMap((f) =>
    execFileSync(process.execPath, [join(ROOT, 'bin/rca-tag'), join(ROOT, `test/fixtures/written/${f}.jsonl`)], { encoding: 'utf8' }).trim().split('\n'),
  );
  writeFileSync(file, lines.slice(0, records).join('\n') + '\n');
  return lines.slice(0, records).length;
}
