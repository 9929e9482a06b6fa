// The top of the program: the bin entry points. Everything below is reached from here.
import { readFileSync } from 'node:fs';
import { EXIT, EXIT_HELP } from '../runtime/exit-codes.js';
import { messageOf, runStage } from '../runtime/runner.js';
import type { Stage } from '../runtime/stage.js';
import { commandNames, loadCommand, loadStage, stageNames, summaryOf } from './registry.js';

/** Entry point of `bin/rca-<stage>`. */
export async function runStageBin(stageName: string): Promise<void> {
  process.exitCode = await runNamedStage(stageName, process.argv.slice(2));
}

/** Entry point of `bin/rca`: `rca <stage> [options]`. */
export async function runDispatcher(): Promise<void> {
  const [first, ...rest] = process.argv.slice(2);
  // Asked for, the help is the output (stdout, 0); bare `rca` is a usage error (stderr, 2).
  if (first === undefined) {
    process.stderr.write(dispatcherHelp());
    process.exitCode = EXIT.USAGE;
    return;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(dispatcherHelp());
    return;
  }
  if (first === '--version' || first === '-V') {
    process.stdout.write(`rca ${version()}\n`);
    return;
  }
  if (commandNames().includes(first)) {
    routeConsoleToStderr();
    const command = await loadCommand(first);
    process.exitCode = await command.run({ argv: rest, stdout: process.stdout, stderr: process.stderr, env: process.env });
    return;
  }
  if (!stageNames().includes(first)) {
    process.stderr.write(`rca: unknown command '${first}' (see rca --help)\n`);
    process.exitCode = EXIT.USAGE;
    return;
  }
  process.exitCode = await runNamedStage(first, rest);
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
