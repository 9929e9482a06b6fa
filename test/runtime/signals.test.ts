// SIGTERM and SIGINT end every stage with status 130 and the records finished so far on stdout,
// also just after an adversarial record (an EOP step-table header's capital words, repeated cues,
// long runs). Standard input stays open, so the stage is waiting for more when the signal comes:
// only the signal can end it. The bound is generous and only catches a hang; the latency itself
// is measured by bench/adversarial.mjs.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
const through = (args: string[], input: string) => spawnSync(args[0]!, args.slice(1), { input, cwd: ROOT, maxBuffer: 1 << 30 }).stdout.toString();
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

// The longest path each stage has: one record of 16 MiB (the largest line accepted, less room for
// what the stages before it added) of the text the adversarial corpus attacks it with
// (bench/adversarial-text.mjs: tag is slowest on negation cues, prompt on the extractive attacks,
// the view stages on long tokens), between small records, stdin held open. The signal comes once
// the records before it are out, while the large one is at work (on the run's worker thread): the
// run ends with status 130 and exactly the records before it. The time bound only catches a hang;
// bench/adversarial.mjs --signal-mb 16 measures the latency.
describe('a signal ends every stage during a 16 MiB record built to be slow for it', async () => {
  const { familyText } = (await import(join(ROOT, 'bench/adversarial-text.mjs'))) as { familyText: (family: string, chars: number) => string };
  const LIMIT = 16 * 2 ** 20;
  // Room for what the stages before it add (tags, views: under 1 % of the text here).
  const ROOM = 256 * 1024;
  const rawLine = (family: string, chars: number) => JSON.stringify({ doc_id: 'BIG', chunk_id: 'BIG:1', text: familyText(family, chars).slice(0, chars), section_path: 'Procedure > Steps', page_start: 1 });
  // Escapes make a line longer than its text: scaled to fit.
  const bigRaw = (family: string) => rawLine(family, Math.floor((LIMIT * (LIMIT - ROOM)) / Buffer.byteLength(rawLine(family, LIMIT))));
  const lines = (out: string) => out.split('\n').filter((l) => l !== '');
  const smallRaw = sample.slice(0, 6);
  const smallTagged = lines(through([bin('rca-tag')], smallRaw.join('\n') + '\n'));
  const smallSummarized = lines(through([bin('rca-summarize'), '--backend', 'extractive', '--no-flatten'], smallTagged.join('\n') + '\n'));
  const negation = bigRaw('negation');
  const extractiveTagged = through([bin('rca-tag')], bigRaw('extractive') + '\n').trimEnd();
  const longTagged = through([bin('rca-tag')], bigRaw('long tokens') + '\n').trimEnd();
  const longSummarized = through([bin('rca-summarize'), '--backend', 'extractive', '--no-flatten'], longTagged + '\n').trimEnd();
  const around = (before: string[], big: string) => [...before, big, ...before].join('\n') + '\n';
  const chunkIds = (out: string[]) => out.map((l) => (JSON.parse(l) as { chunk_id: string }).chunk_id);

  const CASES: Array<[string, string[], string, string[] | null]> = [
    ['tag', [bin('rca-tag')], around(smallRaw, negation), smallRaw],
    ['tag --jobs 2', [bin('rca-tag'), '--jobs', '2'], around(smallRaw, negation), smallRaw],
    ['prompt', [bin('rca-prompt')], around(smallTagged, extractiveTagged), smallTagged],
    ['generate --backend extractive', [bin('rca-generate'), '--backend', 'extractive'], around(smallTagged, longTagged), smallTagged],
    ['summarize --backend extractive', [bin('rca-summarize'), '--backend', 'extractive'], around(smallTagged, longTagged), smallTagged],
    ['validate', [bin('rca-validate')], around(smallSummarized, longSummarized), smallSummarized],
    ['flatten', [bin('rca-flatten')], around(smallSummarized, longSummarized), smallSummarized],
    // Grouping stages write at the end of input, which never comes.
    ['count-sections', [bin('rca-count-sections')], around(smallTagged, longTagged), null],
    ['export', [bin('rca'), 'export'], around(smallTagged, longTagged), null],
    ['index', [bin('rca'), 'index', '--db', join(mkdtempSync(join(tmpdir(), 'rca-signals-')), 'index.sqlite')], around(smallTagged, longTagged), null],
  ];

  for (const [name, args, input, before] of CASES) {
    it(`${name}: SIGTERM during the 16 MiB record`, async () => {
      // Accepted as it is (--max-line-bytes 16 MiB), and as large as that allows.
      const largest = Math.max(...input.split('\n').map((l) => Buffer.byteLength(l)));
      expect(largest).toBeLessThanOrEqual(16 * 2 ** 20);
      expect(largest).toBeGreaterThan(15 * 2 ** 20);
      const r = await interruptedAfter(args, input, before?.length ?? null);
      expect(r.code, r.stderr).toBe(130);
      expect(r.stderr).toMatch(/interrupted after reading \d+ records?; \d+ records? written/);
      if (before === null) return;
      // The records before the large one, and whatever followed them before the signal, in order.
      const all = chunkIds([...before, ...(name.startsWith('tag') ? [negation] : []), ...before]);
      if (!name.startsWith('tag')) all.splice(before.length, 0, 'BIG:1');
      const written = chunkIds(r.lines);
      expect(written.length).toBeGreaterThanOrEqual(before.length);
      expect(written).toEqual(all.slice(0, written.length));
    }, 120_000);
  }

  // rca merge and rca report read files and write once all is read: a FIFO held open keeps them
  // reading, the 16 MiB record in it.
  for (const [name, args] of [
    ['merge', (fifo: string, other: string) => [bin('rca'), 'merge', '--inputs', fifo, '--outputs', other]],
    ['report', (fifo: string, other: string) => [bin('rca'), 'report', fifo, '--output', `${other}.html`]],
  ] as const) {
    it(`rca ${name}: SIGTERM while it reads a 16 MiB record`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rca-signals-'));
      const fifo = join(dir, 'in.jsonl');
      const other = join(dir, 'other.jsonl');
      writeFileSync(other, around(smallTagged, longTagged));
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      const child = spawn(args(fifo, other)[0]!, args(fifo, other).slice(1), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      // Opened when the command opens it to read; held open after the input, so only the signal ends it.
      const writer = createWriteStream(fifo);
      writer.on('error', () => {});
      await new Promise((resolve) => writer.write(around(smallSummarized, longSummarized), resolve));
      await new Promise((resolve) => setTimeout(resolve, 500));
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      child.kill('SIGTERM');
      // Its line comes at once; the process exits once the writer closes: a thread of libuv's pool
      // is blocked reading the FIFO, and Node waits for those threads at exit.
      while (!/interrupted; /.test(stderr)) await new Promise((resolve) => setTimeout(resolve, 20));
      writer.destroy();
      expect(await closed, stderr).toBe(130);
      expect(stderr).toMatch(/interrupted; (the counts are not written|no page is written)/);
    }, 120_000);
  }
});

/** Like interrupted(), but the signal goes once `records` lines are out and the large line is read (null: 3 s after the input is written). */
function interruptedAfter(args: string[], input: string, records: number | null): Promise<{ code: number | null; lines: string[]; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(args[0]!, args.slice(1), { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let sent = false;
    const send = () => {
      if (sent) return;
      sent = true;
      child.kill('SIGTERM');
    };
    // Both: the records before are out, and the input is written but for what the pipe holds
    // (64 KiB, less than the records after the large one), so the stage has read the large line.
    let written = false;
    const ready = () => !sent && written && records !== null && out.split('\n').length > records && send();
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      ready();
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdin.on('error', () => {});
    child.stdin.write(input, () => {
      written = true;
      if (records === null) setTimeout(send, 3000);
      else ready();
    });
    child.on('close', (code) => resolve({ code, lines: out.split('\n').filter((l) => l !== ''), stderr: err }));
  });
}
