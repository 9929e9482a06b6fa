// Shared set-up of the benchmarks that run a model stage against the fake Ollama server: the fake
// and the scripted model compiled from test/ (Node 20 cannot run .ts; types stripped, nothing
// else), and a tagged input of the first `records` chunks of the deterministic bench corpus.
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
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

const FAKE_DIR = join(OUT, 'fake');

/** { startFakeOllama, scriptedModel } from test/, compiled into bench/out/fake. */
export async function loadFakeModel() {
  const fakeDir = compileFakeModel();
  const { startFakeOllama } = await import(join(fakeDir, 'support/fake-ollama.js'));
  const { scriptedModel } = await import(join(fakeDir, 'generation/support/scripted-model.js'));
  return { startFakeOllama, scriptedModel };
}

/**
 * The fake Ollama with the scripted model in a process of its own (bench/fake-server.mjs), so it
 * takes no CPU from the benchmark's own process and its CPU is counted apart. Needs
 * compileFakeModel() first. `begin()` starts a count; `end()` resolves to { generations,
 * requests, cpuSeconds } since then; `close()` stops the server.
 */
export async function spawnFakeOllama(options) {
  const child = spawn(process.execPath, [join(ROOT, 'bench/fake-server.mjs'), FAKE_DIR, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the fake server exited early');
    return JSON.parse(value);
  };
  const { url } = await next();
  return {
    url,
    begin: async () => (child.stdin.write('begin\n'), next()),
    end: async () => (child.stdin.write('end\n'), next()),
    close: async () => {
      child.stdin.end('close\n');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve()));
    },
  };
}

/** Compiles the fake server and the scripted model from test/ into bench/out/fake; returns that folder. */
export function compileFakeModel() {
  const fakeDir = FAKE_DIR;
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
  return fakeDir;
}

/** The path of a file of `records` tagged chunks from the bench corpus (made with rca-tag). */
export function taggedInput(records) {
  mkdirSync(OUT, { recursive: true });
  const input = join(OUT, `generate-input-${records}.jsonl`);
  const chunks = execFileSync(process.execPath, [join(ROOT, 'bench/generate-corpus.mjs'), '--records', String(records), '--mb', '1000'], { maxBuffer: 1 << 30 });
  writeFileSync(input, execFileSync(process.execPath, [join(ROOT, 'bin/rca-tag')], { input: chunks, maxBuffer: 1 << 30 }));
  return input;
}
