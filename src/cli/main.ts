// The top of the program: the bin entry points. Everything below is reached from here.
import { readFileSync } from 'node:fs';
import { EXIT, EXIT_HELP } from '../runtime/exit-codes.js';
import { OutputGuard } from '../runtime/output.js';
import { messageOf } from '../runtime/record-line.js';
import { runStage } from '../runtime/runner.js';
import type { Stage } from '../runtime/stage.js';
import { commandNames, loadCommand, loadStage, stageNames, summaryOf } from './registry.js';

/** Entry point of `bin/rca-<stage>`. */
export async function runStageBin(stageName: string): Promise<void> {
  const out = guardStandardStreams();
  process.exitCode = await withOutput(out, `rca-${stageName}`, await runNamedStage(stageName, process.argv.slice(2)));
}

/** Entry point of `bin/rca`: `rca <stage> [options]`. */
export async function runDispatcher(): Promise<void> {
  const out = guardStandardStreams();
  const [first, ...rest] = process.argv.slice(2);
  const tool = first !== undefined && commandNames().includes(first) ? `rca ${first}` : first !== undefined && stageNames().includes(first) ? `rca-${first}` : 'rca';
  process.exitCode = await withOutput(out, tool, await dispatch(first, rest));
}

async function dispatch(first: string | undefined, rest: string[]): Promise<number> {
  // Asked for, the help is the output (stdout, 0); bare `rca` is a usage error (stderr, 2).
  if (first === undefined) {
    process.stderr.write(dispatcherHelp());
    return EXIT.USAGE;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(dispatcherHelp());
    return EXIT.OK;
  }
  if (first === '--version' || first === '-V') {
    process.stdout.write(`rca ${version()}\n`);
    return EXIT.OK;
  }
  if (commandNames().includes(first)) {
    routeConsoleToStderr();
    const command = await loadCommand(first);
    return command.run({ argv: rest, stdout: process.stdout, stderr: process.stderr, env: process.env, signals: process });
  }
  if (!stageNames().includes(first)) {
    process.stderr.write(`rca: unknown command '${first}' (see rca --help)\n`);
    return EXIT.USAGE;
  }
  return runNamedStage(first, rest);
}

/**
 * Every write to stdout, a stage's records, a command's output or a --help, goes through stdout's
 * one OutputGuard (runtime/output.ts), taken here before the first write: a reader gone away
 * (`| head -1`) is a quiet end, as in the stages. stderr gets one too, so that a closed stderr is
 * no crash either (there is nowhere left to say anything).
 */
function guardStandardStreams(): OutputGuard {
  OutputGuard.of(process.stderr);
  return OutputGuard.of(process.stdout);
}

/** The run's status, once its output is out: a write failure nobody said yet (ENOSPC) is said and is fatal. */
async function withOutput(out: OutputGuard, tool: string, code: number): Promise<number> {
  await out.settled();
  if (out.error === null || out.reported) return code;
  out.reported = true;
  process.stderr.write(`${tool}: cannot write output: ${messageOf(out.error)}\n`);
  return code === EXIT.INTERRUPTED ? code : EXIT.FATAL;
}

async function runNamedStage(stageName: string, argv: string[]): Promise<number> {
  routeConsoleToStderr();
  const tool = `rca-${stageName}`;
  let stage: Stage;
  try {
    stage = await loadStage(stageName);
  } catch (err) {
    process.stderr.write(`${tool}: fatal: cannot load stage: ${messageOf(err)}\n`);
    return EXIT.FATAL;
  }
  // A second Ctrl-C means "now": the first one lets completed records be written.
  let signals = 0;
  const hardStop = () => {
    if (++signals > 1) process.exit(EXIT.INTERRUPTED);
  };
  process.on('SIGINT', hardStop);
  process.on('SIGTERM', hardStop);
  return runStage(stage, tool, {
    argv,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    signals: process,
    version: version(),
  });
}

/** Libraries (ollama-js among them) may print to stdout; stdout carries records only. */
function routeConsoleToStderr(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

function dispatcherHelp(): string {
  // From the registry's table of summaries: loading every stage to ask would cost the help 110 modules.
  const stages = stageNames().map((name) => ({ name, summary: summaryOf(name) }));
  const commands = commandNames().map((name) => ({ name, summary: summaryOf(name) }));
  const width = Math.max(...[...stages, ...commands].map((s) => s.name.length)) + 2;
  return [
    'rca — Unix filters for nuclear-plant reliability documents (JSON Lines in, JSON Lines out)',
    '',
    'Usage: rca <stage> [options] [FILE...]     (same as rca-<stage> [options] [FILE...])',
    '       rca <stage> --help',
    '',
    'Stages:',
    ...stages.map((s) => `  ${s.name.padEnd(width)}${s.summary}`),
    ...(commands.length ? ['', 'Commands:', ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`)] : []),
    '',
    'Example:',
    '  cat chunks.jsonl | rca-tag > tagged.jsonl',
    '',
    EXIT_HELP,
    '',
  ].join('\n');
}

let cachedVersion: string | undefined;
function version(): string {
  cachedVersion ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cachedVersion;
}
