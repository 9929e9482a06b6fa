// rca's commands read their command lines through option tables, as the stages do: one parser
// (runtime/options.ts) and --help Options rows rendered from the table.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadCommand } from '../../src/cli/registry.js';

async function run(name: string, argv: string[]) {
  const command = await loadCommand(name);
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) => new Writable({ write: (chunk, _e, cb) => (append(String(chunk)), cb()) });
  const code = await command.run({ argv, stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)), env: { HOME: '/nonexistent' } });
  return { code, stdout, stderr };
}

// Each table's flags, as --help must list them (the stages' layout: short flag or four spaces).
const FLAGS: Record<string, string[]> = {
  cache: ['    --cache PATH', '    --older-than DURATION', '    --json', '-h, --help'],
  merge: ['    --inputs DIR|FILE', '    --outputs DIR|FILE', '    --input-suffix SUFFIX', '    --output-suffix SUFFIX', '    --shards N', '    --max-report N', '    --json', '-h, --help'],
  report: ['    --price PRICES', '    --chunk ID', '-o, --output FILE', '-h, --help'],
  schema: ['    --fields', '    --format VIEW', '    --list', '-h, --help'],
};

describe("rca commands' option tables", () => {
  it.each(Object.keys(FLAGS))('rca %s --help lists its table under Options, in the stages’ layout', async (name) => {
    const r = await run(name, ['--help']);
    expect(r.code).toBe(0);
    const options = r.stdout.split('\nOptions:\n')[1]!.split('\n\n')[0]!.split('\n');
    expect(options.map((line) => /^ {2}(-\w, | {4})--\S+(?: [A-Z|]+)?/.exec(line)?.[0].slice(2))).toEqual(FLAGS[name]);
  });

  it.each([
    ['cache', ['stats', '--bogus'], "rca cache: Unknown option '--bogus' (see rca cache --help)\n"],
    ['merge', ['--bogus'], "rca merge: Unknown option '--bogus' (see rca merge --help)\n"],
    ['report', ['OUT', '--bogus'], "rca report: Unknown option '--bogus' (see rca report --help)\n"],
  ])('rca %s: an unknown flag is one usage line', async (name, argv, stderr) => {
    expect(await run(name, argv)).toEqual({ code: 2, stdout: '', stderr });
  });

  it('a boolean reads as --no-<name> too, as for the stages', async () => {
    const r = await run('cache', ['stats', '--json', '--no-json', '--cache', '/nonexistent/c.sqlite']);
    expect(r).toEqual({ code: 0, stdout: expect.stringMatching(/^no cache at \/nonexistent\/c\.sqlite|entries/), stderr: '' });
  });
});
