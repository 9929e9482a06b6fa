import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { appendPoint, LineWriter } from '../../src/runtime/output.js';
import { AppendedJson, appendMembers } from '../../src/runtime/stage.js';
import { runInProcess } from '../support/run-in-process.js';
import { echoStage } from '../support/stages.js';

/** What a writer wrote, as bytes. */
async function written(fill: (w: LineWriter) => void | Promise<void>): Promise<Buffer> {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(Buffer.from(c)));
  const writer = new LineWriter(stream, () => {});
  await fill(writer);
  await writer.end();
  return Buffer.concat(chunks);
}

const MEMBERS = '"context":{"doc_id":"d"},"ner_seed":{"systems":["AFW – “pump”"]},"tag_flags":[]';

// Lines a stage may get: JSON.parse accepts each. Their bytes path must equal the string path.
const LINES = [
  '{"a":1}',
  '{}',
  '{ }',
  '{\t}',
  '{ "a" : 1 , "b" : [ 1 , 2 ] }',
  '{"a":1}   ',
  '{"a":1}\t \t',
  '{"a":1 \t }',
  '{"a":1,"a":2}',
  '{"b":2,"a":1}',
  '{"text":"\\u00e9\\n\\"q\\" \\ud83d\\ude00"}',
  '{"text":"é – ° ≥ ’ 😀 \u2028"}',
  '{"text":"ends with a brace }"}',
  '{"nested":{"x":{}}}',
  `{"long":"${'x'.repeat(40_000)}"}`,
  `{"long":"${'é'.repeat(20_000)}"}`,
];

describe('LineWriter', () => {
  it('writes pushed lines as UTF-8, one per line, in order', async () => {
    const lines = ['{"a":"é"}', 'x'.repeat(70_000), '{"b":"😀"}', 'é'.repeat(50_000), '{}'];
    const out = await written((w) => lines.forEach((l) => w.push(l)));
    expect(out.toString('utf8')).toBe(lines.map((l) => l + '\n').join(''));
  });

  it('appends members from the input bytes exactly as the string path does', async () => {
    for (const line of LINES) {
      expect(() => JSON.parse(line)).not.toThrow();
      const viaBytes = await written((w) => w.pushAppended(line, MEMBERS, Buffer.from(line, 'utf8')));
      const viaString = await written((w) => w.push(appendMembers(line, MEMBERS)));
      expect(viaBytes.equals(viaString), line.slice(0, 60)).toBe(true);
      expect(new AppendedJson(line, MEMBERS).json).toBe(appendMembers(line, MEMBERS));
    }
  });

  it('keeps many appended lines intact across batch boundaries', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => LINES[i % LINES.length]!);
    const viaBytes = await written(async (w) => {
      for (const line of many) {
        w.pushAppended(line, MEMBERS, Buffer.from(line, 'utf8'));
        if (w.needsFlush) await w.flush();
      }
    });
    const expected = many.map((l) => appendMembers(l, MEMBERS) + '\n').join('');
    expect(viaBytes.equals(Buffer.from(expected, 'utf8'))).toBe(true);
  });

  it('falls back to the string path where the bytes do not end the way JSON does', async () => {
    // Not JSON's whitespace after the brace: the string path trims it, the byte scan does not try.
    for (const line of ['{"a":1}\u00a0', '{"a":1}\u2028', '{"a":1}\v', 'not json']) {
      expect(appendPoint(Buffer.from(line, 'utf8'))).toBe(-1);
      const viaBytes = await written((w) => w.pushAppended(line, MEMBERS, Buffer.from(line, 'utf8')));
      expect(viaBytes.toString('utf8')).toBe(appendMembers(line, MEMBERS) + '\n');
    }
  });

  it('uses the string when no bytes were kept', async () => {
    const out = await written((w) => w.pushAppended('{ "a": 1 }', MEMBERS, undefined));
    expect(out.toString('utf8')).toBe(`{ "a": 1,${MEMBERS}}\n`);
  });

  it('counts what it handed to the stream', async () => {
    const stream = new PassThrough();
    stream.resume();
    const writer = new LineWriter(stream, () => {});
    writer.push('{}');
    writer.pushAppended('{}', '"a":1', Buffer.from('{}'));
    writer.pushAppended(`{"x":"${'y'.repeat(40_000)}"}`, '"a":1', Buffer.from(`{"x":"${'y'.repeat(40_000)}"}`));
    expect(writer.written).toBe(0);
    await writer.flush();
    expect(writer.written).toBe(3);
  });
});

/** A stdout on a full disk: the first `room` bytes are taken, every write after them fails with ENOSPC. */
function fullDisk(room: number): { stream: Writable; taken: Buffer[] } {
  const taken: Buffer[] = [];
  let used = 0;
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      if (used + chunk.length > room) return cb(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' }));
      used += chunk.length;
      taken.push(Buffer.from(chunk));
      cb();
    },
  });
  return { stream, taken };
}

describe('a full disk (ENOSPC)', () => {
  it('is said once and is fatal; the count line says no record was written when none was', async () => {
    const disk = fullDisk(0);
    const r = await runInProcess(echoStage, ['{"id":1}\n{"id":2}\n{"id":3}\n'], [], { stdout: disk.stream });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('rca-echo: cannot write output: ENOSPC: no space left on device, write\nrca-echo: stopped after reading 3 records; 0 records written\n');
  });

  it('counts exactly the records of the batches the disk took', async () => {
    // Records of 1 KiB: batches of 64 KiB; the disk takes two batches and refuses the third.
    const input = Array.from({ length: 1000 }, (_, id) => JSON.stringify({ id, pad: 'x'.repeat(1000) })).join('\n') + '\n';
    const disk = fullDisk(150 * 1024);
    const r = await runInProcess(echoStage, [input], [], { stdout: disk.stream });
    expect(r.code).toBe(3);
    const onDisk = Buffer.concat(disk.taken).toString('utf8');
    const whole = onDisk.split('\n').length - 1;
    expect(whole).toBeGreaterThan(100);
    expect(r.stderr).toMatch(new RegExp(`; ${whole} records written\n$`));
  });
});
