import { accessSync, constants, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT_HELP, UsageError } from './exit-codes.js';
import type { OptionSpec, OptionsSpec, Stage } from './stage.js';
import { INPUT_OPTIONS } from './sources/index.js';

/** Options every stage takes; the runner handles them. */
const COMMON_OPTIONS = {
  rejects: { type: 'string', placeholder: 'FILE', writes: true, help: 'also write each rejected line as a JSON record {stage, source, line, code, message, input} to FILE' },
  stats: { type: 'string', placeholder: 'FILE', writes: true, help: 'write the run statistics as JSON to FILE at the end (counts, wall time, the slowest record)' },
  progress: { type: 'boolean', help: 'show a progress line on stderr (default: when stderr is a terminal; --no-progress to hide)' },
  'max-line-bytes': { type: 'number', placeholder: 'N', default: 16 * 1024 * 1024, min: 1, integer: true, help: 'reject longer input lines without buffering them' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
  version: { type: 'boolean', short: 'V', help: 'show the version' },
  ...INPUT_OPTIONS,
} as const satisfies OptionsSpec;

/**
 * The options of a stage whose records carry view flags (generate, summarize, validate). The
 * runner reads them: it alone turns a run into an exit status (exit-codes.ts, exitStatus).
 */
export const FLAG_OPTIONS = {
  'fail-on-flags': { type: 'boolean', default: false, help: 'a view kept with quality flags makes the exit status 1 (by default flags are warnings: the view is written with its flags, exit 0)' },
  'flags-ok': { type: 'boolean', default: false, help: 'flags are warnings, exit 0: the default, accepted so that scripts naming it keep working' },
} as const satisfies OptionsSpec;

export interface ParsedArgs {
  values: Record<string, unknown>;
  files: string[];
}

/** Parses argv against the stage's declared options plus the common ones. Throws UsageError. */
export function parseStageArgs(spec: OptionsSpec, argv: readonly string[]): ParsedArgs {
  return parseOptions({ ...spec, ...COMMON_OPTIONS }, argv, true);
}

/**
 * Parses argv against one option table, the same way for stages and for `rca` commands (which
 * take none of the common options): a boolean also reads as --no-<name>, numbers and choices are
 * checked. Throws UsageError.
 */
export function parseOptions(all: OptionsSpec, argv: readonly string[], allowPositionals: boolean): ParsedArgs {
  const config: NonNullable<Parameters<typeof parseArgs>[0]>['options'] = {};
  for (const [name, opt] of Object.entries(all)) {
    config[name] = {
      type: opt.type === 'boolean' ? 'boolean' : 'string',
      multiple: opt.type === 'list',
      ...(opt.short ? { short: opt.short } : {}),
    };
    if (opt.type === 'boolean') config[`no-${name}`] = { type: 'boolean' };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: joinNegativeValues(all, argv), options: config, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError(cleanParseError(err));
  }
  const values: Record<string, unknown> = {};
  for (const [name, opt] of Object.entries(all)) {
    const raw = (parsed.values as Record<string, unknown>)[name];
    if (opt.type === 'boolean' && (parsed.values as Record<string, unknown>)[`no-${name}`]) {
      values[name] = false;
      continue;
    }
    values[name] = raw === undefined ? defaultOf(opt) : convert(name, opt, raw);
  }
  return { values, files: parsed.positionals };
}

/**
 * Checks, without creating or truncating anything, that every file an option names for writing
 * (OptionSpec.writes: --rejects, --stats, ...) can be written: so a typo in a path is a usage
 * error before the first record, not a fatal one after the whole run. Throws UsageError.
 */
export function checkOutputPaths(spec: OptionsSpec, values: Record<string, unknown>): void {
  for (const [name, opt] of Object.entries({ ...spec, ...COMMON_OPTIONS } as OptionsSpec)) {
    if (!opt.writes) continue;
    const given = values[name];
    for (const path of Array.isArray(given) ? (given as string[]) : given === undefined ? [] : [String(given)]) {
      const problem = unwritable(path);
      if (problem) throw new UsageError(`cannot write --${name} file '${path}': ${problem}`);
    }
  }
}

/**
 * The one check of the files a stage or a command reads, made before the first record: each path
 * (not "-", stdin) must exist and be readable, and be a file, or a folder where `folders` says a
 * folder stands for its files (rca report OUT/, rca merge --inputs DIR). A problem is a UsageError
 * of one line (exit 2): a missing file, a folder given as a file and an unreadable file are all
 * the command line's fault, found before anything is read or written.
 */
export function checkInputPaths(paths: readonly string[], opts: { label?: string; folders?: boolean } = {}): void {
  const label = opts.label ?? 'input file';
  for (const path of paths) {
    if (path === '-') continue;
    const problem = unreadable(path, opts.folders === true);
    if (problem) throw new UsageError(`cannot read ${label} '${path}': ${problem}`);
  }
}

function unreadable(path: string, folders: boolean): string | null {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return folders ? 'no such file or folder' : 'no such file';
    return problemOf(code, err);
  }
  if (st.isDirectory() && !folders) return 'it is a folder, not a file';
  try {
    accessSync(path, constants.R_OK | (st.isDirectory() ? constants.X_OK : 0));
  } catch (err) {
    return problemOf((err as NodeJS.ErrnoException).code, err);
  }
  return null;
}

function problemOf(code: string | undefined, err: unknown): string {
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return code ?? String(err);
}

function unwritable(path: string): string | null {
  if (path === '') return 'empty path';
  let st;
  try {
    st = statSync(path);
  } catch {
    st = null;
  }
  if (st?.isDirectory()) return 'is a directory';
  try {
    // An existing file must be writable; a new one needs a folder it can be created in.
    if (st) accessSync(path, constants.W_OK);
    else {
      const dir = dirname(path);
      const parent = statSync(dir, { throwIfNoEntry: false });
      if (!parent) return `no folder '${dir}'`;
      if (!parent.isDirectory()) return `'${dir}' is not a folder`;
      accessSync(dir, constants.W_OK);
    }
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
  return null;
}

function defaultOf(opt: OptionSpec): unknown {
  // A boolean without a default stays undefined when not given, so "auto" can be told from "no".
  if (opt.type === 'boolean') return opt.default;
  if (opt.type === 'list') return Array.isArray(opt.default) ? [...opt.default] : [];
  return opt.default;
}

function convert(name: string, opt: OptionSpec, raw: unknown): unknown {
  if (opt.type === 'number') {
    const text = String(raw).trim();
    const n = Number(text);
    if (text === '' || !Number.isFinite(n)) throw new UsageError(`--${name} expects a number, got '${String(raw)}'`);
    if (opt.integer && !Number.isInteger(n)) throw new UsageError(`--${name} expects a whole number, got '${text}'`);
    if (opt.min !== undefined && n < opt.min) throw new UsageError(`--${name} must be at least ${opt.min}, got ${text}`);
    return n;
  }
  if (opt.choices) {
    const items = opt.type === 'list' ? (raw as string[]) : [raw as string];
    for (const item of items) {
      if (!opt.choices.includes(item)) {
        throw new UsageError(`--${name} must be one of ${opt.choices.join(', ')}; got '${item}'`);
      }
    }
  }
  return raw;
}

// A number: -1, -0.5, -.5, -1e3 (what Number() reads; the option's own check says the rest).
const NEGATIVE_NUMBER = /^-(?:\d|\.\d)/;

/**
 * parseArgs takes a value that starts with '-' for an option, and refuses it ("argument is
 * ambiguous"): a negative number after an option that takes a value is that option's value, so
 * `--max-depth -1` gets rca's own range message and `--keep-alive -1` or `--seed -1` just work.
 * Joined as parseArgs reads a value of its own: `--name=-1`, `-o-1`. Nothing after `--` is touched.
 */
function joinNegativeValues(all: OptionsSpec, argv: readonly string[]): string[] {
  const takesValue = new Set<string>();
  for (const [name, opt] of Object.entries(all)) {
    if (opt.type === 'boolean') continue;
    takesValue.add(`--${name}`);
    if (opt.short) takesValue.add(`-${opt.short}`);
  }
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      args.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    if (takesValue.has(arg) && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      args.push(arg.startsWith('--') ? `${arg}=${next}` : `${arg}${next}`);
      i++;
      continue;
    }
    args.push(arg);
  }
  return args;
}

// The option's name runs to the first blank or quote; what follows it starts with a blank, so the
// two runs cannot trade characters (linear).
const AMBIGUOUS = /^Option '(-[^' ]+)(?: [^']*)?' argument is ambiguous\./;

function cleanParseError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // Any other value starting with '-' (--model -x): say how to give it, in rca's words.
  const ambiguous = AMBIGUOUS.exec(message);
  if (ambiguous) return `${ambiguous[1]} needs a value: what follows it starts with '-' and is read as an option (a value that starts with '-' is written ${ambiguous[1]}=-VALUE)`;
  // parseArgs explains how to pass a positional that starts with '-'; keep the first sentence only.
  return withoutPositionalHint(message.split('\n')[0]!);
}

export function renderHelp(stage: Stage, tool: string): string {
  const lines: string[] = [];
  lines.push(`${tool} — ${stage.summary}`, '', `Usage: ${tool} [options] [FILE...]`, '');
  lines.push(`Reads JSON Lines, or JSON documents with their records in an array (--input-format), from the FILEs (or stdin; "-" is stdin) and writes ${stage.writes ?? 'JSON Lines to stdout'}.`);
  if (stage.description) lines.push('', stage.description.trim());
  lines.push('', 'Options:');
  lines.push(...optionLines(stage.options, COMMON_OPTIONS));
  if (stage.examples.length) {
    lines.push('', 'Examples:', ...stage.examples.map((e) => `  ${e}`));
  }
  lines.push('', EXIT_HELP, '');
  return lines.join('\n');
}

/** The Options rows of a --help, one per declared option, for stages and commands alike. */
export function optionLines(...specs: OptionsSpec[]): string[] {
  const rows = specs.flatMap((spec) => Object.entries(spec)).map(([name, opt]) => {
    const flag = `${opt.short ? `-${opt.short}, ` : '    '}--${name}${opt.type === 'boolean' ? '' : ` ${opt.placeholder ?? (opt.type === 'number' ? 'N' : 'VALUE')}`}`;
    let help = opt.help;
    if (opt.choices) help += ` (one of: ${opt.choices.join(', ')})`;
    if (opt.type === 'list') help += ' (repeatable)';
    if (opt.default !== undefined && opt.type !== 'boolean') help += ` [default: ${Array.isArray(opt.default) ? opt.default.join(',') : String(opt.default)}]`;
    return [flag, help] as const;
  });
  const width = Math.min(34, Math.max(...rows.map(([f]) => f.length)) + 2);
  return rows.map(([flag, help]) => (flag.length + 2 > width ? `  ${flag}\n  ${' '.repeat(width)}${help}` : `  ${flag.padEnd(width)}${help}`));
}

const POSITIONAL_HINT = '. To specify a positional argument';
const LINE_TERMINATOR_RE = /[\r\u2028\u2029]/g;

/** Node's message without its "To specify a positional argument…" tail: the first hint with no line break after it, as `/\. To specify….*$/` would cut, in one pass. */
export function withoutPositionalHint(line: string): string {
  let lastBreak = -1;
  for (const m of line.matchAll(LINE_TERMINATOR_RE)) lastBreak = m.index;
  let at = line.indexOf(POSITIONAL_HINT);
  while (at >= 0 && at + POSITIONAL_HINT.length <= lastBreak) at = line.indexOf(POSITIONAL_HINT, at + 1);
  return at < 0 ? line : line.slice(0, at);
}
