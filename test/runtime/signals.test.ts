// SIGTERM and SIGINT end every stage with status 130 and the records finished so far on stdout,
// also just after an adversarial record (an EOP step-table header's capital words, repeated cues,
// long runs). Standard input stays open, so the stage is waiting for more when the signal comes:
// only the signal can end it. The bound is generous and only catches a hang; the latency itself
// is measured by bench/adversarial.mjs.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/golden.js';

const bin = (name: string) => join(ROOT, 'bin', name);
const sample = readFileSync(join(ROOT, 'examples/sample-corpus.jsonl'), 'utf8').split('\n').filter((l) => l !== '').slice(0, 6);
const hostile = [
  'STEP ACTION/EXPECTED RESPONSE RESPONSE NOT OBTAINED '.repeat(200),
  'no '.repeat(5000),
  `\u201c${' '.repeat(20000)}x`,
  '**a '.repeat(3000),
  '1,'.repeat(10000),
].join('\n');
const raw = [...sample, JSON.stringify({ doc_id: 'EOP-1', chunk_id: 'EOP-1:7', text: hostile, section_path: 'EOP > Steps' })].join('\n') + '\n';
const through = (args: string[], input: string) => spawnSync(args[0]!, args.slice(1), { input, cwd: ROOT, maxBuffer: 1 << 28 }).stdout.toString();
const tagged = through([bin('rca-tag')], raw);
const summarized = through([bin('rca-summarize'), '--backend', 'extractive', '--no-flatten'], tagged);
const sections = through([bin('rca-count-sections')], tagged);

const STAGES: Array<[string, string[], string]> = [
  ['tag', [bin('rca-tag')], raw],
  ['prompt', [bin('rca-prompt')], tagged],
  ['generate --backend extractive', [bin('rca-generate'), '--backend', 'extractive'], tagged],
  ['validate', [bin('rca-validate')], summarized],
  ['flatten', [bin('rca-flatten')], summarized],
  ['count-sections', [bin('rca-count-sections')], tagged],
  ['summarize --backend extractive', [bin('rca-summarize'), '--backend', 'extractive'], tagged],
  ['export', [bin('rca'), 'export'], sections + tagged],
];

function interrupted(args: string[], input: string, signal: NodeJS.Signals): Promise<{ code: number | null; lines: string[]; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(args[0]!, args.slice(1), { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let sent = false;
    const send = () => {
      if (sent) return;
      sent = true;
      child.kill(signal);
    };
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      // Once every record given has come out (or a grouping stage has had time to read them all).
      if (out.split('\n').length > input.split('\n').length - 1) send();
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // Grouping stages (count-sections, export) write at the end of input, which never comes.
    setTimeout(send, 3000);
    child.on('close', (code) => resolve({ code, lines: out.split('\n').filter((l) => l !== ''), stderr: err }));
    child.stdin.write(input);
  });
}

describe('a signal ends every stage, with the finished records written', () => {
  for (const [name, args, input] of STAGES) {
    it(`${name}: SIGTERM after an adversarial record`, async () => {
      const r = await interrupted(args, input, 'SIGTERM');
      expect(r.code, r.stderr).toBe(130);
      expect(r.stderr).toMatch(/interrupted after reading \d+ records?; \d+ records? written/);
      for (const line of r.lines) expect(() => JSON.parse(line)).not.toThrow();
      const records = input.split('\n').filter((l) => l !== '').length;
      if (!name.startsWith('count-sections') && !name.startsWith('export')) expect(r.lines.length).toBe(records);
    }, 120_000);
  }

  it('tag: SIGINT too', async () => {
    const r = await interrupted([bin('rca-tag')], raw, 'SIGINT');
    expect(r.code).toBe(130);
    expect(r.lines.length).toBe(raw.split('\n').filter((l) => l !== '').length);
  }, 120_000);
});

describe('a record that keeps the thread starts after the finished records are written', () => {
  it('tag: SIGKILL during a 6 MB record leaves the records before it on stdout', async () => {
    const big = JSON.stringify({ doc_id: 'BIG', chunk_id: 'BIG:1', text: 'The pump P-101A tripped at 5 psig; no leakage was found. '.repeat(110_000) });
    const input = sample.join('\n') + '\n' + big + '\n';
    const r = await new Promise<{ lines: string[]; signal: NodeJS.Signals | null }>((resolve) => {
      const child = spawn(bin('rca-tag'), [], { cwd: ROOT, stdio: ['pipe', 'pipe', 'ignore'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        child.kill('SIGKILL');
      });
      child.on('close', (_code, signal) => resolve({ lines: out.split('\n').filter((l) => l !== ''), signal }));
      child.stdin.on('error', () => {});
      child.stdin.end(input);
    });
    expect(r.signal).toBe('SIGKILL');
    expect(r.lines.map((l) => (JSON.parse(l) as { chunk_id: string }).chunk_id)).toEqual(sample.map((l) => (JSON.parse(l) as { chunk_id: string }).chunk_id));
  }, 120_000);
});
