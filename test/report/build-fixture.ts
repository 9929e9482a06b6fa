// A small corpus build for the report tests: the tagged DACKAR sample plus one hostile chunk
// (markup and an onerror attribute in its text), through the extractive backend, with a stats file.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import generate from '../../src/transforms/generate.js';
import { runInProcess } from '../support/run-in-process.js';
import report from '../../src/commands/report.js';

export const HOSTILE_ID = 'chunk:hostile';
export const HOSTILE_TEXT = 'Pump P-101A tripped. <script>document.title="pwned";window.__pwned=1</script><img src=x onerror="document.title=\'pwned\';window.__pwned=2"> Vibration 6.2 mils.';

export async function buildFixture(): Promise<{ dir: string; report: string; stderr: string; code: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'rca-report-'));
  const sample = readFileSync('test/golden/summarize/extractive-dackar-sample/input.jsonl', 'utf8').trim().split('\n');
  const base = JSON.parse(sample[1]!);
  const hostile = { ...base, chunk_id: HOSTILE_ID, text: HOSTILE_TEXT, context: { ...base.context, chunk_id: HOSTILE_ID } };
  const input = [...sample, JSON.stringify(hostile)].join('\n') + '\n';
  const statsPath = join(dir, 'cr.stats.json');
  const r = await runInProcess(generate, [input], ['--backend', 'extractive', '--flags-ok', '--stats', statsPath]);
  if (r.code !== 0) throw new Error(`generate failed: ${r.stderr}`);
  writeFileSync(join(dir, 'cr.summarized.jsonl'), r.stdout);
  const out = new PassThrough();
  const err: Buffer[] = [];
  const errStream = new PassThrough();
  errStream.on('data', (b: Buffer) => err.push(b));
  const code = await report.run({ argv: [dir, '--chunk', HOSTILE_ID], stdout: out, stderr: errStream, env: {} });
  return { dir, report: join(dir, 'report.html'), stderr: Buffer.concat(err).toString('utf8'), code };
}
