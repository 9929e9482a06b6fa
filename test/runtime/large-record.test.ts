// One record of many megabytes: the runner and the extractive backend hold a few copies of it,
// not one per step. Peak RSS ≤ 100 MB + 4 × the record (the bound bench/large-record-memory.mjs
// measures at 15 and 50 MB); the pieces the large-record paths work in give the same bytes.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractiveView } from '../../src/views/extractive.js';
import { jsonParts } from '../../src/runtime/json-parts.js';
import { LineSplitter, type LineEvent } from '../../src/runtime/line-splitter.js';
import { GroundingText, normaliseForGrounding, NORMALISE_PIECE_CHARS } from '../../src/views/grounding.js';
import { ROOT, runBin } from '../support/golden.js';
import { peakRssProbe } from '../support/peak-rss.js';

const SAMPLE = join(ROOT, 'test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl');
const MB = 1e6;

describe('large-record paths give the same bytes as the plain ones', () => {
  it('jsonParts joins to JSON.stringify, escapes and surrogate pairs at piece boundaries included', () => {
    const unit = 'a "quoted" \\ tab\t new\nline 😀 é 中 \u0001 ';
    for (let shift = 0; shift < 3; shift++) {
      const big = 'x'.repeat(shift) + unit.repeat(Math.ceil((1 << 20) / unit.length) + 5000);
      const rec = { id: 1, text: big, nested: { a: [1, 'b', null] }, gone: undefined, tail: '😀' };
      expect([...jsonParts(rec)].join('')).toBe(JSON.stringify(rec));
    }
  });

  it('normaliseForGrounding in pieces equals the normalisation of the whole text at once', () => {
    const unit = 'Pump P\u2011101A  TRIPPED\u00a0at 1,175 rpm;\n\n ﬁlter ΣΑΣ don\u2019t  \t';
    const text = `  ${unit.repeat(Math.ceil((3 * NORMALISE_PIECE_CHARS) / unit.length))}  `;
    const whole = text.normalize('NFKC').toLowerCase().replace(/[\u2010\u2011\u2012\u2212]/g, '-').replace(/[\u2018\u2019\u02bc]/g, "'").replace(/\s+/g, ' ').trim();
    expect(normaliseForGrounding(text)).toBe(whole);
  });

  it('GroundingText finds in its pieces what a search of the whole normalised text finds, across piece ends too', () => {
    const unit = 'Pump P-101A tripped at 1,175 rpm; the "suction strainer" was clogged.\n  Bearing B2 at 6.2 mils ';
    const text = unit.repeat(Math.ceil((4 * NORMALISE_PIECE_CHARS) / unit.length));
    const whole = normaliseForGrounding(text);
    const reference = (needle: string, glued: RegExp): boolean => {
      if (needle === '') return false;
      for (let at = whole.indexOf(needle); at >= 0; at = whole.indexOf(needle, at + 1)) {
        const before = at > 0 ? whole[at - 1]! : '';
        const after = whole[at + needle.length] ?? '';
        if (glued.test(needle[0]!) && before !== '' && glued.test(before)) continue;
        if (glued.test(needle.at(-1)!) && after !== '' && glued.test(after)) continue;
        return true;
      }
      return false;
    };
    const grounding = new GroundingText(text);
    let checked = 0;
    for (let k = 1; k < 4; k++) {
      for (let at = k * NORMALISE_PIECE_CHARS - 60; at < k * NORMALISE_PIECE_CHARS + 120; at += 3) {
        for (const length of [1, 2, 5, 11, 23, 40]) {
          const needle = whole.slice(at, at + length);
          expect(grounding.hasPhrase(needle), needle).toBe(reference(normaliseForGrounding(needle), /[\p{L}\p{N}_]/u));
          expect(grounding.hasIdentifier(needle), needle).toBe(reference(normaliseForGrounding(needle), /[\p{L}\p{N}_-]/u));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
    expect([grounding.hasNumber('1,175'), grounding.hasNumber('6.2'), grounding.hasNumber('175'), grounding.hasNumber('101')]).toEqual([true, true, false, false]);
  });

  it('a line over many chunks is decoded as it arrives, UTF-8 split anywhere, BOM and CR removed', () => {
    const line = '{"t":"' + 'é中😀 abc '.repeat(20_000) + '"}';
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(line + '\r\n' + line + '\n')]);
    for (const size of [1, 7, 4096]) {
      const splitter = new LineSplitter(64 * 1024 * 1024);
      const events: LineEvent[] = [];
      for (let i = 0; i < bytes.length; i += size) splitter.push(bytes.subarray(i, i + size), events);
      splitter.end(events);
      expect(events).toEqual([
        { kind: 'line', line: 1, text: line },
        { kind: 'line', line: 2, text: line },
      ]);
    }
  });

  it('refuses bad UTF-8 in a line over many chunks, with a preview, and goes on', () => {
    const bytes = Buffer.concat([Buffer.from('{"t":"' + 'a'.repeat(100_000)), Buffer.from([0xff]), Buffer.from('"}\n{"ok":1}\n')]);
    const splitter = new LineSplitter(64 * 1024 * 1024);
    const events: LineEvent[] = [];
    for (let i = 0; i < bytes.length; i += 65536) splitter.push(bytes.subarray(i, i + 65536), events);
    splitter.end(events);
    expect(events).toEqual([
      { kind: 'bad-utf8', line: 1, preview: '{"t":"' + 'a'.repeat(194) },
      // Within one chunk, the line's bytes come with it (a view of the chunk, for the output path).
      { kind: 'line', line: 2, text: '{"ok":1}', bytes: Buffer.from('{"ok":1}') },
    ]);
  });

  it('the extractive views of a text repeated many times are those of the text once (only units that can matter are kept)', () => {
    const tagged = JSON.parse(runBin('tag', [], readFileSync(SAMPLE)).stdout.split('\n')[1]!) as { context: never; ner_seed: never; text: string };
    const input = (text: string) => ({ context: tagged.context, nerSeed: tagged.ner_seed, text });
    for (const view of ['retrieval_summary', 'rca_frame'] as const) {
      expect(extractiveView(view, input(Array(2000).fill(tagged.text).join('\n\n')))).toEqual(extractiveView(view, input(tagged.text)));
    }
  });
});

describe('peak memory on one 15 MB record', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'rca-large-'));
  const tagged = runBin('tag', [], readFileSync(SAMPLE)).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const texts = tagged.map((r) => String(r.text)).join('\n\n');
  let text = '';
  while (text.length < 15 * MB) text += `${texts}\n\n`;
  const file = join(tmp, 'big.tagged.jsonl');
  writeFileSync(file, JSON.stringify({ ...tagged[1], text: text.slice(0, 15 * MB) }) + '\n');
  const recordMb = readFileSync(file).length / MB;

  async function peakOf(stage: string, args: string[]): Promise<{ code: number | null; peakMb: number; lines: number }> {
    const probe = peakRssProbe();
    const input = openSync(file, 'r');
    const child = spawn(process.execPath, [join(ROOT, 'bin', `rca-${stage}`), ...args, '--max-line-bytes', String(64 * MB)], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...probe.env },
      stdio: [input, 'pipe', 'pipe'],
    });
    closeSync(input);
    let lines = 0;
    child.stdout!.on('data', (d: Buffer) => (lines += d.toString('latin1').split('\n').length - 1));
    child.stderr!.resume();
    // 'close': the process has exited and its output has been read to the end.
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    // The probe gives MiB; the bound is in MB, as the record's size is.
    return { code, peakMb: probe.peakMb() * 1.048576, lines };
  }

  it('rca-flatten stays within 100 MB + 4 × the record', async () => {
    const r = await peakOf('flatten', []);
    expect(r.code).toBeLessThanOrEqual(1);
    expect(r.lines).toBe(1);
    expect(r.peakMb, `peak ${r.peakMb.toFixed(0)} MB for a ${recordMb.toFixed(1)} MB record`).toBeLessThanOrEqual(100 + 4 * recordMb);
  });

  // The record's views are made on the run's worker thread (runtime/off-thread.ts), whose heap
  // does not share this thread's: its own V8 heap and modules (~20 MB), its copy of the text, and
  // its grounding text come on top (BENCHMARKS.md, "One very large record").
  it('rca-generate stays within 100 MB + 4 × the record, plus the worker thread: 40 MB + 2 × the record', async () => {
    const r = await peakOf('generate', ['--backend', 'extractive']);
    expect(r.code).toBeLessThanOrEqual(1);
    expect(r.lines).toBe(1);
    expect(r.peakMb, `peak ${r.peakMb.toFixed(0)} MB for a ${recordMb.toFixed(1)} MB record`).toBeLessThanOrEqual(100 + 4 * recordMb + 40 + 2 * recordMb);
  });
});

