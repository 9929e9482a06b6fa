// Shared set-up of the benchmarks that run against the engine tier's real llama-server: its
// launcher (a TypeScript test helper, compiled into bench/out/engine with tsc, as Node 20 cannot
// run .ts files) and a tagged input of the first `records` chunks of the written fixtures.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
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

/** Runs `rca-generate args < input > stdoutFile` (the build in `root`); resolves to the wall seconds it took (exit 0 or 1). */
export function runGenerate(args, input, stdoutFile = '/dev/null', root = ROOT) {
  return new Promise((resolve, reject) => {
    const inFd = openSync(input, 'r');
    const outFd = openSync(stdoutFile, 'w');
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [join(root, 'bin/rca-generate'), ...args], { cwd: ROOT, stdio: [inFd, outFd, 'pipe'] });
    closeSync(inFd);
    closeSync(outFd);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 || code === 1 ? resolve(Number(process.hrtime.bigint() - start) / 1e9) : reject(new Error(`rca-generate exited ${code}: ${stderr}`))));
  });
}

/**
 * A loopback proxy to `upstreamUrl` that passes every byte through unchanged and notes, for each
 * chat completion in the order it ended, the request body sent and the engine's `timings` (the
 * last streamed event's, or the one JSON reply's; undefined when the server sent none).
 * Resolves to { url, completions, close }.
 */
export async function startTimingsProxy(upstreamUrl) {
  const upstream = new URL(upstreamUrl);
  const completions = [];
  const proxy = createServer((req, res) => {
    const body = [];
    req.on('data', (d) => body.push(d));
    req.on('end', () => {
      const sent = Buffer.concat(body);
      const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        const reply = [];
        up.on('data', (d) => (reply.push(d), res.write(d)));
        up.on('end', () => {
          res.end();
          if (req.url?.endsWith('/chat/completions') && sent.length > 0) {
            completions.push({ body: JSON.parse(sent.toString('utf8')), timings: timingsOf(Buffer.concat(reply).toString('utf8')) });
          }
        });
      });
      out.on('error', () => res.destroy());
      out.end(sent);
    });
  });
  await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${proxy.address().port}`, completions, close: () => proxy.close() };
}

function timingsOf(text) {
  const events = text.startsWith('{') ? [text] : text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => l.slice(6));
  return events.map((e) => JSON.parse(e).timings).filter((t) => t !== undefined).at(-1);
}
