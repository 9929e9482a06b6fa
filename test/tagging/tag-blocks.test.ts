// `rca-tag --jobs N` takes its input in blocks of bytes: whatever the edges of the input (rejects,
// CRLF, a BOM, bad UTF-8, records larger than a block or than the block path takes, no final
// newline, nothing at all), every --jobs writes the same stdout, stderr, --rejects file and exit
// status as --jobs 1, whether the input comes in one read or in many.
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runStage } from '../../src/runtime/runner.js';
import { BLOCK_BYTES, BlockSource, LONG_LINE_BYTES } from '../../src/runtime/sources/block-source.js';
import type { SourceEvent } from '../../src/runtime/sources/index.js';
import tag from '../../src/transforms/tag.js';
import { runBin } from '../support/golden.js';
import { runInProcess } from '../support/run-in-process.js';
import { noWorkerTag } from './support/tag-stages.js';

const tmp = mkdtempSync(join(tmpdir(), 'rca-tag-blocks-'));
const line = (o: object) => JSON.stringify(o);
const chunk = (n: number, extra: object = {}) =>
  line({ chunk_id: `c${n}`, doc_id: n % 3 === 0 ? 'a1b2c3d4e5f6' : `CR-2026-${Math.floor(n / 40)}`, section_path: 'Report > Findings', text: `Pump P-${n % 50}A vibration ${n % 9}.2 mils; see WO-2026-${n}. The seal may have failed.`, ...extra });

/** Lines of every kind, CRLF on some, a BOM first, no newline at the end. */
function edgeCorpus(): Buffer {
  const parts: Buffer[] = [Buffer.from('\uFEFF')];
  const add = (text: string, end = '\n') => parts.push(Buffer.from(text + end));
  for (let n = 0; n < 1500; n++) {
    if (n % 97 === 5) add('{"chunk_id": "broken", "text": ');
    if (n % 101 === 7) add('[1,2,3]');
    if (n % 103 === 9) add('null');
    if (n % 107 === 11) add('   ');
    if (n % 109 === 13) add('');
    if (n % 113 === 15) parts.push(Buffer.from('{"text":"bad \xff\xfe bytes"}\n', 'latin1'));
    if (n % 127 === 17) add(`${'['.repeat(150)}${']'.repeat(150)}`);
    if (n === 300) add(chunk(n, { text: `Larger than a block: P-101A. ${'The bearing ran hot. '.repeat(Math.ceil((BLOCK_BYTES * 1.5) / 21))}` }));
    if (n === 700) add(chunk(n, { text: `Larger than the block path takes: P-102B. ${'Seal leak. '.repeat(Math.ceil((LONG_LINE_BYTES * 1.2) / 11))}` }));
    if (n === 900) add(chunk(n, { context: { stale: true }, ner_seed: [] }));
    add(chunk(n), n % 5 === 0 ? '\r\n' : '\n');
  }
  add(chunk(9999), '');
  return Buffer.concat(parts);
}

const reads = (bytes: Buffer, size: number) => {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
};

describe('--jobs: the edges of an input in blocks', () => {
  const corpus = edgeCorpus();

  it.each([
    ['the default', []],
    ['--max-line-bytes 3000 (too-long lines inside blocks)', ['--max-line-bytes', '3000']],
    ['--doc-type detect', ['--doc-type', 'detect']],
  ])('%s: --jobs 1, 2 and 3 write the same stdout, stderr, rejects and status', (_name, args) => {
    const run = (jobs: string) => {
      const rejects = join(tmp, `rejects-${jobs}-${args.join('')}.jsonl`);
      const r = runBin('tag', [...args, '--jobs', jobs, '--rejects', rejects], corpus);
      return { ...r, rejects: readFileSync(rejects, 'utf8') };
    };
    const one = run('1');
    expect(one.code).toBe(1);
    expect(one.stdout.split('\n').length).toBeGreaterThan(1500);
    expect(one.stderr).toMatch(/BAD_JSON/);
    expect(one.stderr).toMatch(/BAD_UTF8/);
    expect(one.stderr).toMatch(/NESTING_TOO_DEEP/);
    for (const jobs of ['2', '3']) {
      const many = run(jobs);
      expect(many.stderr).toBe(one.stderr);
      expect(many.rejects).toBe(one.rejects);
      expect(many.code).toBe(one.code);
      expect(many.stdout === one.stdout).toBe(true);
    }
  });

  it.each([
    ['in one read', corpus.length],
    ['in reads of 100 KB', 100 * 1024],
    ['in reads of 7 KB (a block per read)', 7 * 1024],
    ['in reads of 333 bytes', 333],
  ])('%s: the same as --jobs 1, also with no worker', async (_name, size) => {
    const one = await runInProcess(tag, reads(corpus, size), ['--jobs', '1']);
    for (const [stage, argv] of [[tag, ['--jobs', '2']], [tag, ['--jobs', '3']], [noWorkerTag, []]] as const) {
      const many = await runInProcess(stage, reads(corpus, size), [...argv]);
      expect(many.stderr).toBe(one.stderr);
      expect(many.code).toBe(one.code);
      expect(many.stdout === one.stdout).toBe(true);
    }
  });

  it.each([
    ['empty', ''],
    ['blank lines only', '\n\r\n   \n'],
    ['one record, no final newline', chunk(1)],
    ['one record, CRLF', `${chunk(1)}\r\n`],
    ['a JSON array on one line (the document hint)', '[{"chunk_id":"a","text":"x"}]\n'],
    ['a BOM and one bad line', '\uFEFF{"a":\n'],
  ])('%s: the same with --jobs 1, 2 and 3', (_name, input) => {
    const one = runBin('tag', ['--jobs', '1'], input);
    for (const jobs of ['2', '3']) {
      const many = runBin('tag', ['--jobs', jobs], input);
      expect(many.stdout).toBe(one.stdout);
      expect(many.stderr).toBe(one.stderr);
      expect(many.code).toBe(one.code);
    }
  });
});

describe('--jobs: blocks in flight are bounded', () => {
  it('a slow consumer holds the reader to a few blocks ahead', async () => {
    // Records of one length: the lines written say how many input bytes are done.
    const record = (n: number) => `${chunk(n, { pad: 'x'.repeat(600 - chunk(n).length - 10) })}\n`;
    const size = Buffer.byteLength(record(0));
    for (const n of [1, 99, 12345]) expect(Buffer.byteLength(record(n))).toBe(size);
    const total = Math.ceil((8 * 2 ** 20) / size);
    let produced = 0;
    let bytesRead = 0;
    const stdin = new Readable({
      read() {
        if (produced >= total) return this.push(null);
        const lines: string[] = [];
        for (let k = 0; k < 100 && produced < total; k++) lines.push(record(produced++));
        const bytes = Buffer.from(lines.join(''));
        bytesRead += bytes.length;
        this.push(bytes);
      },
    });
    let written = 0;
    let maxAhead = 0;
    const stdout = new Writable({
      highWaterMark: 16 * 1024,
      write(piece: Buffer, _e, cb) {
        for (const byte of piece) if (byte === 0x0a) written++;
        maxAhead = Math.max(maxAhead, bytesRead - written * size);
        setTimeout(cb, 2);
      },
    });
    const stats = join(tmp, 'stats-bounded.json');
    const code = await runStage(tag, 'rca-tag', {
      argv: ['--jobs', '2', '--stats', stats], stdin, stdout, stderr: new Writable({ write(_c, _e, cb) { cb(); } }), env: {}, signals: new EventEmitter(), version: 't',
    });
    expect(code).toBe(0);
    expect(written).toBe(total);
    expect(JSON.parse(readFileSync(stats, 'utf8')).blocks_on_workers).toBeGreaterThan(0);
    // The window (three blocks per worker and two finished ahead), the block being cut, the
    // stream's own buffers: a dozen blocks, whatever the input's size.
    expect(maxAhead).toBeLessThan(12 * BLOCK_BYTES);
  });
});

describe('BlockSource: blocks of whole lines', () => {
  /** Pushes `bytes` in reads of `size`; returns the blocks and line events, in order. */
  function cut(bytes: Buffer, size: number, blockBytes: number): SourceEvent[] {
    const source = new BlockSource('stdin', 16 * 2 ** 20, blockBytes);
    const out: SourceEvent[] = [];
    for (const piece of reads(bytes, size)) source.push(Buffer.from(piece), out);
    source.end(out);
    return out;
  }

  const lines = Array.from({ length: 3000 }, (_, n) => `{"n":${n},"pad":"${'x'.repeat((n * 37) % 500)}"}`);
  lines[1234] = `{"long":"${'y'.repeat(3 * LONG_LINE_BYTES)}"}`;
  const input = Buffer.from(lines.join('\n') + '\n');

  it.each([64 * 1024, 5000, 100_000, input.length])('reads of %i bytes: every byte once, in order, line numbers true', (size) => {
    const events = cut(input, size, 32 * 1024);
    const seen: string[] = [];
    for (const event of events) {
      if (event.kind === 'block') {
        const text = Buffer.from(event.block.bytes).toString('utf8');
        // Whole lines, numbered from where the block starts.
        expect(text.endsWith('\n')).toBe(true);
        expect(event.block.bytes.byteOffset).toBe(0);
        expect(event.block.bytes.buffer.byteLength).toBe(event.block.bytes.length);
        const first = text.slice(0, text.indexOf('\n'));
        expect(first).toBe(lines[event.block.lineBefore]);
        seen.push(text);
      } else if (event.kind === 'line') {
        // The long line, arriving over several reads, leaves the block path.
        expect(size).toBeLessThan(LONG_LINE_BYTES);
        expect(event.line).toBe(1235);
        expect(event.text).toBe(lines[1234]);
        seen.push(`${event.text}\n`);
      } else {
        throw new Error(`unexpected ${event.kind}`);
      }
    }
    expect(seen.join('')).toBe(input.toString('utf8'));
    expect(events.some((e) => e.kind === 'line')).toBe(size < LONG_LINE_BYTES);
    // Blocks are cut near the block size, not per read.
    if (size >= 32 * 1024) expect(events.length).toBeLessThan(input.length / (32 * 1024) + 4);
  });

  it('a short read sends the complete lines at once (a slow pipe is not held back)', () => {
    const source = new BlockSource('stdin', 1000, 1 << 20);
    const out: SourceEvent[] = [];
    source.push(Buffer.from('{"a":1}\n{"b":'), out);
    expect(out).toHaveLength(1);
    expect(out[0]!.kind === 'block' && Buffer.from(out[0]!.block.bytes).toString()).toBe('{"a":1}\n');
    source.push(Buffer.from('2}'), out);
    source.end(out);
    expect(out).toHaveLength(2);
    expect(out[1]!.kind === 'block' && [out[1]!.block.lineBefore, Buffer.from(out[1]!.block.bytes).toString()]).toEqual([1, '{"b":2}']);
  });
});
