import { EventEmitter } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseRecordLine } from '../../src/runtime/record-line.js';
import { runStage } from '../../src/runtime/runner.js';
import { defineStage, type JsonObject, type Outcome, type Processor } from '../../src/runtime/stage.js';
import { echoStage } from '../support/stages.js';
import { runInProcess } from '../support/run-in-process.js';

/** echoStage's behaviour, but taking raw lines: it parses them itself with parseRecordLine. */
const rawEchoStage = defineStage({
  name: 'echo',
  summary: 'test stage',
  examples: [],
  options: {},
  create: (): Processor => ({
    process: () => {
      throw new Error('process() must not be called with the raw line adapter');
    },
    lines: {
      kind: 'raw',
      take(line, meta): Outcome {
        const parsed = parseRecordLine(line);
        if (parsed.reject) return { reject: parsed.reject };
        return { records: [{ ...parsed.record, seen: meta.line }] };
      },
    },
  }),
});

describe('parseRecordLine', () => {
  it.each([
    ['{"a":1}', { record: { a: 1 } }],
    ['{}', { record: {} }],
    ['[1]', { reject: { code: 'NOT_OBJECT', message: 'expected a JSON object, got an array' } }],
    ['null', { reject: { code: 'NOT_OBJECT', message: 'expected a JSON object, got null' } }],
    ['"x"', { reject: { code: 'NOT_OBJECT', message: 'expected a JSON object, got string' } }],
    ['42', { reject: { code: 'NOT_OBJECT', message: 'expected a JSON object, got number' } }],
    ['true', { reject: { code: 'NOT_OBJECT', message: 'expected a JSON object, got boolean' } }],
    ['{"a":', { reject: { code: 'BAD_JSON', message: expect.stringContaining('JSON') } }],
    ['nope', { reject: { code: 'BAD_JSON', message: expect.stringContaining('not valid JSON') } }],
  ])('%s', (line, expected) => {
    expect(parseRecordLine(line)).toEqual(expected);
  });
});

describe('runner: stages that take raw lines (the raw line adapter)', () => {
  const inputs: Array<[string, Array<string | Buffer>]> = [
    ['BOM, CRLF, blank lines, no final newline', ['\uFEFF{"id":1,"t":"é中😀"}\r\n\r\n   \n{"id":2}\n{"id":3}']],
    ['every kind of bad line', ['{"id":1}\nnope\n[1,2]\nnull\n"x"\n42\n{"id":\n{"id":8}\n']],
    ['bad UTF-8 and an over-long line', [Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), `{"id":"${'x'.repeat(300)}"}\n`, '{"id":3}\n']],
    ['one byte at a time', [...Buffer.from('{"a":"ü"}\n{"b":2}\n')].map((b) => Buffer.from([b]))],
  ];

  it.each(inputs)('gives what the runner gives when it parses: %s', async (_name, chunks) => {
    const argv = ['--max-line-bytes', '200'];
    const parsedByRunner = await runInProcess(echoStage, chunks, argv);
    const parsedByStage = await runInProcess(rawEchoStage, chunks, argv);
    expect(parsedByStage).toEqual(parsedByRunner);
  });

  it('hands over the line as read, without BOM or CR, with its source and line number', async () => {
    const seen: Array<[string, string, number]> = [];
    const stage = defineStage({
      name: 'spy',
      summary: 'test stage',
      examples: [],
      options: {},
      create: (): Processor => ({
        process: () => ({}),
        lines: {
          kind: 'raw',
          take(line, meta) {
            seen.push([line, meta.source, meta.line]);
            expect(meta.raw).toBe(line);
            return {};
          },
        },
      }),
    });
    await runInProcess(stage, ['\uFEFF{"a":1}\r\n\n  {"b":2} \r\n']);
    expect(seen).toEqual([
      ['{"a":1}', 'stdin', 1],
      ['  {"b":2} ', 'stdin', 3],
    ]);
  });
});

describe('runner: close()', () => {
  function closingStage(behaviour: (record: JsonObject) => Outcome | Promise<Outcome>) {
    const calls: string[] = [];
    const stage = defineStage({
      name: 'closing',
      summary: 'test stage',
      examples: [],
      options: {},
      create: (): Processor => ({
        window: 4,
        process: behaviour,
        finish: () => (calls.push('finish'), {}),
        interrupt: () => void calls.push('interrupt'),
        close: async () => {
          await new Promise((r) => setTimeout(r, 1));
          calls.push('close');
        },
      }),
    });
    return { stage, calls };
  }

  it.each([
    ['a complete input', (r: JsonObject) => ({ records: [r] }), 0, ['finish', 'close']],
    ['a fatal outcome', (r: JsonObject) => (r.id === 2 ? { fatal: 'gone' } : { records: [r] }), 3, ['close']],
    ['an exception', (r: JsonObject) => { if (r.id === 2) throw new Error('boom'); return { records: [r] }; }, 3, ['close']],
    ['a stop outcome', async (r: JsonObject) => (r.id === 2 ? { stop: 'unsorted' } : { records: [r] }), 1, ['close']],
  ] as const)('is called once, last, after %s', async (_name, behaviour, code, calls) => {
    const s = closingStage(behaviour);
    const r = await runInProcess(s.stage, ['{"id":1}\n{"id":2}\n{"id":3}\n']);
    expect(r.code).toBe(code);
    expect(s.calls).toEqual(calls);
  });

  it('is called after an interrupt', async () => {
    const s = closingStage(async (r) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return { records: [r] };
    });
    const signals = new EventEmitter();
    let sent = 0;
    const stdin = Readable.from(
      (async function* () {
        for (;;) {
          if (++sent === 10) setImmediate(() => signals.emit('SIGINT'));
          yield Buffer.from(`{"id":${sent}}\n`);
          await new Promise((resolve) => setTimeout(resolve, 1));
          if (sent > 1000) return;
        }
      })(),
    );
    const code = await runStage(s.stage, 'rca-closing', { argv: [], stdin, stdout: sink(), stderr: sink(), env: {}, signals, version: 't' });
    expect(code).toBe(130);
    expect(s.calls).toEqual(['interrupt', 'close']);
  });

  it('a failing close() is reported and changes nothing written', async () => {
    const stage = defineStage({
      name: 'badclose',
      summary: 'test stage',
      examples: [],
      options: {},
      create: (): Processor => ({
        process: (r) => ({ records: [r] }),
        close: () => {
          throw new Error('cannot let go');
        },
      }),
    });
    const r = await runInProcess(stage, ['{"id":1}\n']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"id":1}\n');
    expect(r.stderr).toBe('rca-badclose: cannot close: cannot let go\n');
  });
});

describe('runner: slow input', () => {
  it('writes asynchronous outcomes as they finish, without waiting for more input', async () => {
    const stage = defineStage({
      name: 'later',
      summary: 'test stage',
      examples: [],
      options: {},
      create: (): Processor => ({
        window: 8,
        process: async (r) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          return { records: [r] };
        },
      }),
    });
    const written: string[] = [];
    let release!: () => void;
    const outputSeen = new Promise<void>((resolve) => (release = resolve));
    const stdout = new Writable({
      write(chunk, _e, cb) {
        written.push(String(chunk));
        release();
        cb();
      },
    });
    // The second line comes only once the first one's outcome is out: a runner that waited for
    // more input before writing would never finish.
    const stdin = Readable.from(
      (async function* () {
        yield Buffer.from('{"id":1}\n');
        await outputSeen;
        yield Buffer.from('{"id":2}\n');
      })(),
    );
    const code = await runStage(stage, 'rca-later', { argv: [], stdin, stdout, stderr: sink(), env: {}, signals: new EventEmitter(), version: 't' });
    expect(code).toBe(0);
    expect(written.join('')).toBe('{"id":1}\n{"id":2}\n');
  });
});

function sink(): Writable {
  return new Writable({
    write(_c, _e, cb) {
      cb();
    },
  });
}
