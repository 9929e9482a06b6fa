// Shared set-up of the benchmarks that run a model stage against the fake Ollama server: the fake
// and the scripted model compiled from test/ (Node 20 cannot run .ts; types stripped, nothing
// else), and a tagged input of the first `records` chunks of the deterministic bench corpus.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OUT, ROOT } from './measure.mjs';

/** Exits with a message when the stage the benchmark runs is not built. */
export function requireBuilt(stage) {
  if (!existsSync(join(ROOT, `dist/transforms/${stage}.js`))) {
    console.error('bench: not built yet — run: npm run build');
    process.exit(2);
  }
}

/** { startFakeOllama, scriptedModel } from test/, compiled into bench/out/fake. */
export async function loadFakeModel() {
  const fakeDir = join(OUT, 'fake');
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      '--ignoreConfig',
      '--outDir', fakeDir,
      '--rootDir', join(ROOT, 'test'),
      '--module', 'nodenext',
      '--moduleResolution', 'nodenext',
      '--target', 'es2022',
      '--types', 'node',
      '--skipLibCheck',
      join(ROOT, 'test/support/fake-ollama.ts'),
      join(ROOT, 'test/generation/support/scripted-model.ts'),
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  const { startFakeOllama } = await import(join(fakeDir, 'support/fake-ollama.js'));
  const { scriptedModel } = await import(join(fakeDir, 'generation/support/scripted-model.js'));
  return { startFakeOllama, scriptedModel };
}

/** The path of a file of `records` tagged chunks from the bench corpus (made with rca-tag). */
export function taggedInput(records) {
  mkdirSync(OUT, { recursive: true });
  const input = join(OUT, `generate-input-${records}.jsonl`);
  const chunks = execFileSync(process.execPath, [join(ROOT, 'bench/generate-corpus.mjs'), '--records', String(records), '--mb', '1000'], { maxBuffer: 1 << 30 });
  writeFileSync(input, execFileSync(process.execPath, [join(ROOT, 'bin/rca-tag')], { input: chunks, maxBuffer: 1 << 30 }));
  return input;
}
