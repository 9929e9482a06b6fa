import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { delayStage, echoStage } from '../support/stages.js';
import { runInProcess } from '../support/run-in-process.js';

const lines = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('runner: line splitting', () => {
  const input = '\uFEFF{"id":1,"t":"é中😀"}\r\n\r\n   \n{"id":2,"t":"x"}\n{"id":3}';
  const whole = Buffer.from(input);

  it('handles BOM, CRLF, blank lines and no final newline', async () => {
    const r = await runInProcess(echoStage, [whole]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      { id: 1, t: 'é中😀', seen: 1 },
      { id: 2, t: 'x', seen: 4 },
      { id: 3, seen: 5 },
    ]);
    expect(r.stderr).toBe('');
  });

  it('gives the same output when fed one byte at a time (UTF-8 split across chunks)', async () => {
    const bytes = [...whole].map((b) => Buffer.from([b]));
    const a = await runInProcess(echoStage, [whole]);
    const b = await runInProcess(echoStage, bytes);
    expect(b.stdout).toBe(a.stdout);
    expect(b.code).toBe(0);
  });

  it.each([2, 3, 5, 7, 11])('gives the same output for chunks of %i bytes', async (size) => {
    const chunks: Buffer[] = [];
    for (let i = 0; i < whole.length; i += size) chunks.push(whole.subarray(i, i + size));
    expect((await runInProcess(echoStage, chunks)).stdout).toBe((await runInProcess(echoStage, [whole])).stdout);
  });
});

describe('runner: rejects and exit status', () => {
  it.each([
    ['not json', '{"id":1}\nnope\n{"id":3}\n', 'stdin:2: BAD_JSON:'],
    ['array', '[1,2]\n', 'stdin:1: NOT_OBJECT: expected a JSON object, got an array'],
    ['string', '"x"\n', 'stdin:1: NOT_OBJECT: expected a JSON object, got string'],
    ['null', 'null\n', 'stdin:1: NOT_OBJECT: expected a JSON object, got null'],
    ['number', '42\n', 'stdin:1: NOT_OBJECT: expected a JSON object, got number'],
    ['truncated', '{"id":\n', 'stdin:1: BAD_JSON:'],
  ])('rejects %s with a line number, continues, exits 1', async (_name, input, expected) => {
    const r = await runInProcess(echoStage, [input]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`rca-echo: ${expected}`);
    expect(r.stderr).toMatch(/rca-echo: 1 of \d+ records rejected\n$/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('keeps the failure status after later good records (sticky)', async () => {
    const input = 'bad\n' + Array.from({ length: 50 }, (_, i) => `{"id":${i}}`).join('\n') + '\n';
    const r = await runInProcess(echoStage, [input]);
    expect(r.code).toBe(1);
    expect(lines(r.stdout)).toHaveLength(50);
    expect(r.stderr).toContain('1 of 51 records rejected');
  });

  it('rejects invalid UTF-8 but accepts a literal U+FFFD', async () => {
    const bad = Buffer.concat([Buffer.from('{"id":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]);
    const r = await runInProcess(echoStage, [bad, '{"id":"\uFFFD"}\n']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('stdin:1: BAD_UTF8: line is not valid UTF-8');
    expect(lines(r.stdout)).toEqual([{ id: '\uFFFD', seen: 2 }]);
  });

  it('rejects an over-long line without buffering it and goes on', async () => {
    const huge = '{"id":"' + 'x'.repeat(5000) + '"}\n';
    const chunks = [huge.slice(0, 1000), huge.slice(1000, 3000), huge.slice(3000), '{"id":2}\n'];
    const r = await runInProcess(echoStage, chunks, ['--max-line-bytes', '100']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`stdin:1: LINE_TOO_LONG: line of ${huge.length - 1} bytes exceeds --max-line-bytes 100`);
    expect(lines(r.stdout)).toEqual([{ id: 2, seen: 2 }]);
  });

  it('records a failed record as exit 1 with its warning', async () => {
    const r = await runInProcess(echoStage, ['{"id":1}\n{"id":2}\n'], ['--fail', '1']);
    expect(r.code).toBe(1);
    expect(lines(r.stdout)).toHaveLength(2);
    expect(r.stderr).toBe('rca-echo: stdin:1: record 1 failed\n');
  });

  it.each([
    [['--nope'], "Unknown option '--nope'"],
    [['--count', 'x'], '--count expects a number'],
    [['--count', '0'], '--count must be at least 1'],
    [['--count', '1.5'], '--count expects a whole number'],
    [['missing-file.jsonl'], "cannot read input file 'missing-file.jsonl'"],
  ])('usage error %j exits 2 with one line', async (argv, message) => {
    const r = await runInProcess(echoStage, [''], argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('prints help with the exit codes, and the version', async () => {
    const help = await runInProcess(echoStage, [''], ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: rca-echo [options] [FILE...]');
    expect(help.stdout).toContain('130  interrupted');
    expect(help.stdout).toContain('--rejects FILE');
    const version = await runInProcess(echoStage, [''], ['--version']);
    expect(version.stdout).toBe('rca-echo 0.0.0-test\n');
  });
});

describe('runner: fatal errors', () => {
  it('an exception inside a transform is exit 3 with one line, no stack, earlier records written', async () => {
    const { defineStage } = await import('../../src/runtime/stage.js');
    const throwing = defineStage({
      name: 'boom',
      summary: 'test stage',
      examples: [],
      options: {},
      create: () => ({
        process(record) {
          if (record.id === 2) throw new Error('kaboom\n    at somewhere (file.js:1:1)');
          return { records: [record] };
        },
      }),
    });
    const r = await runInProcess(throwing, ['{"id":1}\n{"id":2}\n{"id":3}\n']);
    expect(r.code).toBe(3);
    expect(lines(r.stdout)).toEqual([{ id: 1 }]);
    expect(r.stderr).toContain('rca-boom: stdin:2: INTERNAL_ERROR: kaboom\n');
    expect(r.stderr).toContain('rca-boom: stdin:2: fatal: internal error: kaboom\n');
    expect(r.stderr).not.toContain('at somewhere');
  });

  it('a failing create() (e.g. unreachable dependency) is exit 3 with its message', async () => {
    const { defineStage } = await import('../../src/runtime/stage.js');
    const { FatalError } = await import('../../src/runtime/exit-codes.js');
    const failing = defineStage({
      name: 'dep',
      summary: 'test stage',
      examples: [],
      options: {},
      create: () => {
        throw new FatalError('cannot reach the thing');
      },
    });
    const r = await runInProcess(failing, ['{"id":1}\n']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('rca-dep: cannot reach the thing\n');
  });
});

describe('runner: ordered asynchronous processing', () => {
  it('keeps input order with random latencies and bounds work in flight by the window', async () => {
    const { stage, stats } = delayStage((r) => ((Number(r.id) * 7919) % 13) + 1, 4);
    const input = Array.from({ length: 60 }, (_, i) => `{"id":${i}}\n`).join('');
    const r = await runInProcess(stage, [input]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout).map((x) => x.id)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(stats().maxInFlight).toBeLessThanOrEqual(4);
    expect(stats().maxInFlight).toBeGreaterThan(1);
  });

  it('on SIGINT stops reading, writes completed records in order, exits 130', async () => {
    const signals = new EventEmitter();
    const { stage } = delayStage(() => 5, 4);
    let sent = 0;
    const { Readable } = await import('node:stream');
    const stdinChunks = async function* () {
      for (;;) {
        sent++;
        if (sent === 20) setImmediate(() => signals.emit('SIGINT'));
        yield Buffer.from(`{"id":${sent}}\n`);
        await new Promise((r) => setTimeout(r, 1));
        if (sent > 10_000) return;
      }
    };
    const { runStage } = await import('../../src/runtime/runner.js');
    const out: string[] = [];
    const err: string[] = [];
    const code = await runStage(stage, 'rca-delay', {
      argv: [],
      stdin: Readable.from(stdinChunks()),
      stdout: new Writable({ write(c, _e, cb) { out.push(String(c)); cb(); } }),
      stderr: new Writable({ write(c, _e, cb) { err.push(String(c)); cb(); } }),
      env: {},
      signals,
      version: 't',
    });
    expect(code).toBe(130);
    const ids = lines(out.join('')).map((x) => Number(x.id));
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    expect(sent).toBeLessThan(100);
    expect(err.join('')).toContain('interrupted after');
  });
});

describe('runner: the summary after an interrupt', () => {
  it('says how many records were read and how many were written', async () => {
    // Records take long enough that the window is full of unfinished ones when the signal comes.
    const signals = new EventEmitter();
    const { stage } = delayStage((r) => (Number(r.id) <= 4 ? 1 : 200), 16);
    const { Readable } = await import('node:stream');
    const input = Array.from({ length: 30 }, (_, i) => `{"id":${i + 1}}\n`).join('');
    const stdin = new Readable({ read() {} });
    stdin.push(input);
    const { runStage } = await import('../../src/runtime/runner.js');
    const out: string[] = [];
    const err: string[] = [];
    const stdout = new Writable({
      write(c, _e, cb) {
        out.push(String(c));
        // The first outcomes are out: interrupt while the others are still being worked on.
        if (lines(out.join('')).length >= 4) signals.emit('SIGINT');
        cb();
      },
    });
    const code = await runStage(stage, 'rca-delay', {
      argv: [], stdin, stdout, stderr: new Writable({ write(c, _e, cb) { err.push(String(c)); cb(); } }), env: {}, signals, version: 't',
    });
    expect(code).toBe(130);
    const written = lines(out.join('')).length;
    const summary = /rca-delay: interrupted after reading (\d+) records; (\d+) records? written\n$/.exec(err.join(''));
    expect(summary).not.toBeNull();
    expect(Number(summary![2])).toBe(written);
    expect(Number(summary![1])).toBeGreaterThanOrEqual(written);
  });
});

describe('runner: backpressure', () => {
  it('stops reading while stdout is full (bounded memory with a slow consumer)', async () => {
    let produced = 0;
    const { Readable } = await import('node:stream');
    const record = `{"id":1,"pad":"${'x'.repeat(1000)}"}\n`;
    const stdin = new Readable({
      read() {
        if (produced >= 5000) return this.push(null);
        produced++;
        this.push(record);
      },
    });
    let written = 0;
    let maxAhead = 0;
    const stdout = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _e, cb) {
        written += chunk.length;
        maxAhead = Math.max(maxAhead, produced * record.length - written);
        setTimeout(cb, 1); // a slow consumer
      },
    });
    const { runStage } = await import('../../src/runtime/runner.js');
    const code = await runStage(echoStage, 'rca-echo', {
      argv: [], stdin, stdout, stderr: new Writable({ write(_c, _e, cb) { cb(); } }), env: {}, version: 't',
    });
    expect(code).toBe(0);
    expect(written).toBeGreaterThan(5000 * record.length);
    // The producer never ran more than a few hundred KB ahead of the consumer (5 MB in total).
    expect(maxAhead).toBeLessThan(600 * 1024);
  });
});

describe('runner: --stats and --progress', () => {
  it('names the slowest record after the progress line when it took a second or more', async () => {
    const { stage } = delayStage((r) => (r.id === 2 ? 1100 : 1));
    const input = '{"id":1}\n{"id":2}\n{"id":3}\n';
    const r = await runInProcess(stage, [input], ['--progress']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/: slowest record: stdin:2, 1\.\d s\n/);
    // Without the progress line stderr holds no time: runs stay comparable.
    expect((await runInProcess(stage, [input])).stderr).not.toMatch(/slowest record/);
    expect((await runInProcess(stage, ['{"id":1}\n'], ['--progress'])).stderr).not.toMatch(/slowest record/);
  });

  it('writes run statistics as JSON with --stats FILE', async () => {
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'rca-stats-')), 'stats.json');
    const r = await runInProcess(echoStage, ['{"id":1}\nbad\n{"id":3}\n'], ['--stats', file]);
    expect(r.code).toBe(1);
    const stats = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(stats).toMatchObject({ stage: 'echo', records: 3, rejected: 1, exit_status: 1 });
    expect(typeof stats.wall_seconds).toBe('number');
    // The slowest record is one that was read as a record (line 1 or 3), with its time.
    const slowest = stats.slowest_record as { source: string; line: number; seconds: number };
    expect(slowest.source).toBe('stdin');
    expect([1, 3]).toContain(slowest.line);
    expect(slowest.seconds).toBeGreaterThanOrEqual(0);
  });

  it.each([
    [['--stats', '/nonexistent-folder/stats.json'], "cannot write --stats file '/nonexistent-folder/stats.json': no folder '/nonexistent-folder'"],
    [['--stats', '.'], "cannot write --stats file '.': is a directory"],
    [['--rejects', 'package.json/rejects.jsonl'], "cannot write --rejects file 'package.json/rejects.jsonl': 'package.json' is not a folder"],
    [['--report', '/nonexistent-folder/r.txt'], "cannot write --report file '/nonexistent-folder/r.txt': no folder '/nonexistent-folder'"],
  ])('checks every output path %j before the first record is read (exit 2)', async (argv, message) => {
    const { defineStage } = await import('../../src/runtime/stage.js');
    let created = 0;
    // A stage option declared as written (writes: true) is checked like the common ones.
    const stage = defineStage({
      name: 'out',
      summary: 'test stage',
      examples: [],
      options: { report: { type: 'string', placeholder: 'FILE', writes: true, help: 'a file written at the end' } },
      create: () => {
        created++;
        return { process: (record) => ({ records: [record] }) };
      },
    });
    const r = await runInProcess(stage, ['{"id":1}\n'], argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`rca-out: ${message}\n`);
    expect(created).toBe(0);
  });

  it('draws a progress line with --progress and clears it before messages and at the end', async () => {
    const { stage } = delayStage(() => 20, 1);
    const input = Array.from({ length: 20 }, (_, i) => `{"id":${i}}\n`).join('') + 'bad\n';
    const r = await runInProcess(stage, [input], ['--progress']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\r\x1b\[Krca-delay: \d+ records, [\d.]+\/s/);
    expect(r.stderr).toContain('\r\x1b[Krca-delay: stdin:21: BAD_JSON:');
    expect(r.stderr.endsWith('rca-delay: 1 of 21 records rejected\n')).toBe(true);
  });

  it('draws no progress line unless asked (stderr is not a terminal here)', async () => {
    const r = await runInProcess(echoStage, ['{"id":1}\n']);
    expect(r.stderr).toBe('');
  });
});
