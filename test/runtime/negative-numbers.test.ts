// A negative number after an option that takes a value is that option's value: parseArgs alone
// would refuse it as "ambiguous" (it takes anything starting with '-' for an option), so the
// parser joins it first and the option's own check gives rca's range message.
import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../src/runtime/options.js';
import type { OptionsSpec } from '../../src/runtime/stage.js';

const SPEC = {
  'max-depth': { type: 'number', default: 8, min: 1, integer: true, help: '' },
  timeout: { type: 'number', default: 120, min: 0, help: '' },
  seed: { type: 'number', default: 42, integer: true, help: '' },
  'keep-alive': { type: 'string', default: '30m', help: '' },
  output: { type: 'string', short: 'o', help: '' },
  model: { type: 'string', help: '' },
  views: { type: 'list', help: '' },
  json: { type: 'boolean', help: '' },
} as const satisfies OptionsSpec;

const parse = (argv: string[]) => parseOptions(SPEC, argv, true);
const refusal = (argv: string[]) => {
  try {
    parse(argv);
  } catch (err) {
    return (err as Error).message;
  }
  return null;
};

describe('negative numbers on the command line', () => {
  it.each([
    [['--max-depth', '-1'], '--max-depth must be at least 1, got -1'],
    [['--timeout', '-5'], '--timeout must be at least 0, got -5'],
    [['--timeout', '-0.5'], '--timeout must be at least 0, got -0.5'],
    [['--timeout', '-.5'], '--timeout must be at least 0, got -.5'],
    [['--max-depth', '-1.5'], "--max-depth expects a whole number, got '-1.5'"],
    [['--max-depth=-1'], '--max-depth must be at least 1, got -1'],
  ])('%j: %s', (argv, message) => {
    expect(refusal(argv)).toBe(message);
  });

  it.each([
    [['--seed', '-1'], { seed: -1 }],
    [['--keep-alive', '-1'], { 'keep-alive': '-1' }],
    [['-o', '-2'], { output: '-2' }],
    [['--views', '-1', '--views', '-2'], { views: ['-1', '-2'] }],
    [['--timeout', '0', 'a.jsonl'], { timeout: 0 }],
  ])('%j is taken as given', (argv, values) => {
    expect(parse(argv).values).toMatchObject(values);
  });

  it('only after an option that takes a value, and never after --', () => {
    expect(parse(['--json', '--', '-1']).files).toEqual(['-1']);
    expect(parse(['--', '--seed', '-1']).files).toEqual(['--seed', '-1']);
    expect(refusal(['--json', '-1'])).toBe("Unknown option '-1'");
  });

  it('any other value that starts with a dash gets a message that says how to give it', () => {
    expect(refusal(['--model', '-x'])).toBe("--model needs a value: what follows it starts with '-' and is read as an option (a value that starts with '-' is written --model=-VALUE)");
    expect(parse(['--model=-x']).values.model).toBe('-x');
  });
});

describe('rca merge reads --max-report itself, with the same range message', () => {
  it('--max-report -1', async () => {
    const { Writable } = await import('node:stream');
    const { loadCommand } = await import('../../src/cli/registry.js');
    let stderr = '';
    const sink = (append: (s: string) => void) => new Writable({ write: (chunk, _e, cb) => (append(String(chunk)), cb()) });
    const code = await (await loadCommand('merge')).run({ argv: ['--max-report', '-1', '--inputs', 'x', '--outputs', 'y'], stdout: sink(() => {}), stderr: sink((s) => (stderr += s)), env: {} });
    expect(code).toBe(2);
    expect(stderr).toBe('rca merge: --max-report must be at least 0, got -1\n');
  });
});
