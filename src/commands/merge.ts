// rca merge: the last step of a corpus built in shards (several machines, each writing the output
// files of its share of the input files into one shared folder). The merged corpus is the folder
// itself; this checks that it is whole: every input record appears in exactly one output record,
// and no output record comes from nowhere. A record is known by what the chunk parser wrote: its
// fields other than those the rca stages add (so doc_id, chunk_id, the text and every upstream
// field), compared as canonical JSON, whatever the key order or the spacing of either file.
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { canonicalJson } from '../cache/cache-key.js';
import { inputFieldsOf } from '../tagging/added-fields.js';
import { EXIT } from '../runtime/exit-codes.js';
import { checkInputPaths } from '../runtime/options.js';
import type { OptionsSpec } from '../runtime/stage.js';
import { LineSplitter, type LineEvent } from '../runtime/line-splitter.js';
import { parseRecordLine } from '../runtime/record-line.js';
import { commandHelp, exitOnSignal, parseCommandArgs, type Command, type CommandIO } from './command.js';

const DEFAULT_MAX_REPORT = 20;

// --shards and --max-report are read by the command itself, for their own messages.
const OPTIONS = {
  inputs: { type: 'list', placeholder: 'DIR|FILE', help: 'input files, or folders of them' },
  outputs: { type: 'list', placeholder: 'DIR|FILE', help: 'output files, or folders of them' },
  'input-suffix': { type: 'string', placeholder: 'SUFFIX', default: '.chunks.jsonl', help: 'file names a folder of inputs contributes' },
  'output-suffix': { type: 'string', placeholder: 'SUFFIX', default: '.summarized.jsonl', help: 'file names a folder of outputs contributes' },
  shards: { type: 'string', placeholder: 'N', help: 'the corpus was built in N shards: name the shards to build again' },
  'max-report': { type: 'string', placeholder: 'N', default: String(DEFAULT_MAX_REPORT), help: 'problems reported per kind; the counts are always whole' },
  json: { type: 'boolean', help: 'print the counts as one JSON object on stdout' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionsSpec;

const USAGE = commandHelp(`Usage: rca merge --inputs DIR|FILE... --outputs DIR|FILE... [--shards N] [--max-report N] [--json]

Checks a corpus built in shards: every record of the input files must appear in exactly one
record of the output files, and every output record must come from an input record. A record is
matched by its own fields (doc_id, chunk_id, text and every other field the chunk parser wrote),
not by the fields rca adds, so the order of records and files does not matter. Reports each
problem on stderr with its file and line:
  missing      an input record no output holds (IN/x.chunks.jsonl:12: missing: ...)
  duplicated   an output record that another output record already holds
  unexpected   an output record that matches no input record
A folder stands for its files ending in --input-suffix (default .chunks.jsonl) or
--output-suffix (default .summarized.jsonl), as \`make corpus\` names them; files are taken as given.
An input line that is not a JSON object is reported and not expected in the outputs (the stages
reject it too). Nothing is written to stdout unless --json: the merged corpus is the output
folder itself (cat OUT/*.summarized.jsonl).
With --shards N (the N of \`make corpus SHARD=k/N\`; \`make corpus-verify\` passes the one
OUT/.settings recorded), the shards whose input files have missing records (a task that failed,
was never run, or stopped part-way) are named as the list to build again:
  rca merge: shards to build again: 3,7 (of 10), e.g. sbatch --array=3,7 JOB_SCRIPT

`,
  OPTIONS,
  `
Example:
  make corpus IN=chunks/ OUT=out/corpus/ SHARD=2/3      # on each of three machines, k = 1, 2, 3
  rca merge --inputs chunks/ --outputs out/corpus/      # then once, anywhere

Exit status:
  0    every input record appears exactly once, and nothing else
  1    records are missing, duplicated or unexpected
  2    usage error (an input or output file or folder that is missing or unreadable)
  3    a file fails while it is read
  130  interrupted (SIGINT/SIGTERM) before the end: the counts are not written
`,
);


const MAX_LINE_BYTES = 256 * 1024 * 1024;
const LABEL_CHARS = 80;

interface Expected {
  /** Where the input record is, once per copy (an input may hold the same record twice). */
  inputs: string[];
  label: string;
  /** Output locations that matched, in reading order. */
  outputs: string[];
}

export interface MergeReport {
  inputFiles: number;
  outputFiles: number;
  inputRecords: number;
  outputRecords: number;
  unreadableInputs: number;
  missing: number;
  duplicated: number;
  unexpected: number;
}

class ReadError extends Error {}

const command: Command = {
  name: 'merge',
  summary: 'check that the outputs of a sharded corpus build hold every input record exactly once (rca merge --help)',
  async run(io: CommandIO): Promise<number> {
    const say = (line: string) => io.stderr.write(`rca merge: ${line}\n`);
    // It writes only once everything is read: a signal ends it at once (the process ends after run).
    exitOnSignal(io, 'rca merge', 'the counts are not written');
    let parsed;
    try {
      parsed = parseCommandArgs(OPTIONS, io.argv, false);
    } catch (err) {
      say(`${(err as Error).message} (see rca merge --help)`);
      return EXIT.USAGE;
    }
    const { values } = parsed;
    if (values.help) {
      io.stdout.write(USAGE);
      return EXIT.OK;
    }
    const maxReport = Number(values['max-report']);
    if (!Number.isInteger(maxReport) || maxReport < 0) {
      say(Number.isInteger(maxReport) ? `--max-report must be at least 0, got ${maxReport}` : `--max-report expects a whole number, got '${values['max-report']}'`);
      return EXIT.USAGE;
    }
    const shards = values.shards === undefined ? null : Number(values.shards);
    if (shards !== null && (!Number.isSafeInteger(shards) || shards < 1)) {
      say(`--shards expects a whole number of at least 1, got '${values.shards}'`);
      return EXIT.USAGE;
    }
    let inputs: string[];
    let outputs: string[];
    try {
      inputs = expand(values.inputs, values['input-suffix'], '--inputs');
      outputs = expand(values.outputs, values['output-suffix'], '--outputs');
    } catch (err) {
      say((err as Error).message);
      return EXIT.USAGE;
    }

    const reported = { missing: 0, duplicated: 0, unexpected: 0 };
    const report = (kind: keyof typeof reported, line: string) => {
      if (reported[kind]++ < maxReport) say(line);
    };
    const counts: MergeReport = { inputFiles: inputs.length, outputFiles: outputs.length, inputRecords: 0, outputRecords: 0, unreadableInputs: 0, missing: 0, duplicated: 0, unexpected: 0 };
    const expected = new Map<string, Expected>();
    try {
      for (const file of inputs) {
        await eachRecord(file, (where, record, why) => {
          if (record === null) {
            counts.unreadableInputs++;
            say(`${where}: ${why ?? 'not a JSON object'}; not expected in the outputs`);
            return;
          }
          counts.inputRecords++;
          const fingerprint = fingerprintOf(record);
          const entry = expected.get(fingerprint);
          if (entry) entry.inputs.push(where);
          else expected.set(fingerprint, { inputs: [where], label: labelOf(record), outputs: [] });
        });
      }
      for (const file of outputs) {
        await eachRecord(file, (where, record, why) => {
          counts.outputRecords++;
          if (record === null) {
            counts.unexpected++;
            report('unexpected', `${where}: unexpected: ${why ?? 'not a JSON object'}`);
            return;
          }
          const entry = expected.get(fingerprintOf(record));
          if (entry === undefined) {
            counts.unexpected++;
            report('unexpected', `${where}: unexpected: matches no input record (${labelOf(record)})`);
            return;
          }
          entry.outputs.push(where);
          if (entry.outputs.length > entry.inputs.length) {
            counts.duplicated++;
            report('duplicated', `${where}: duplicated: ${entry.label} (input ${entry.inputs.join(', ')}) is already at ${entry.outputs.slice(0, entry.inputs.length).join(', ')}`);
          }
        });
      }
    } catch (err) {
      say(err instanceof ReadError ? err.message : `cannot read: ${(err as Error).message}`);
      return EXIT.FATAL;
    }
    const filesMissingRecords = new Set<string>();
    for (const entry of expected.values()) {
      for (const where of entry.inputs.slice(entry.outputs.length)) {
        counts.missing++;
        filesMissingRecords.add(where.slice(0, where.lastIndexOf(':')));
        report('missing', `${where}: missing: ${entry.label} is in no output file`);
      }
    }
    for (const kind of ['missing', 'duplicated', 'unexpected'] as const) {
      if (reported[kind] > maxReport) say(`… and ${reported[kind] - maxReport} more ${kind} (--max-report N shows more)`);
    }
    const whole = counts.missing + counts.duplicated + counts.unexpected === 0;
    say(
      `${counts.inputRecords} input ${plural(counts.inputRecords, 'record')} in ${counts.inputFiles} ${plural(counts.inputFiles, 'file')}, ` +
        `${counts.outputRecords} output ${plural(counts.outputRecords, 'record')} in ${counts.outputFiles} ${plural(counts.outputFiles, 'file')}: ` +
        (whole ? 'every input record appears exactly once' : `${counts.missing} missing, ${counts.duplicated} duplicated, ${counts.unexpected} unexpected`),
    );
    const rebuild = shards === null ? null : [...new Set([...filesMissingRecords].map((file) => shardOf(basename(file), shards)))].sort((a, b) => a - b);
    if (rebuild !== null && rebuild.length > 0) {
      say(`shards to build again: ${rebuild.join(',')} (of ${shards}), e.g. sbatch --array=${rebuild.join(',')} JOB_SCRIPT, or make corpus SHARD=k/${shards} for each`);
    }
    if (values.json) {
      io.stdout.write(
        `${JSON.stringify({
          input_files: counts.inputFiles,
          output_files: counts.outputFiles,
          input_records: counts.inputRecords,
          output_records: counts.outputRecords,
          unreadable_inputs: counts.unreadableInputs,
          missing: counts.missing,
          duplicated: counts.duplicated,
          unexpected: counts.unexpected,
          ...(rebuild === null ? {} : { shards, shards_to_rebuild: rebuild }),
          ok: whole,
        })}\n`,
      );
    }
    return whole ? EXIT.OK : EXIT.RECORDS_FAILED;
  },
};

export default command;

/**
 * The shard (1..n) of an input file under \`make corpus SHARD=k/n\`: the first 4 bytes of the
 * SHA-256 of its name, mod n. The Makefile computes the same (a test holds the two equal).
 */
export function shardOf(name: string, n: number): number {
  return (createHash('sha256').update(name, 'utf8').digest().readUInt32BE(0) % n) + 1;
}

/** A record's identity: its own fields (not those the stages add), as canonical JSON, hashed. */
function fingerprintOf(record: Record<string, unknown>): string {
  // The fields the stages write in their own shape are left out; an upstream value under one of
  // their names is compared under the name the stages keep it as (tag: embedding_text ->
  // upstream_embedding_text), so an input field a stage lost is a missing record.
  return createHash('sha256').update(canonicalJson(inputFieldsOf(record)), 'utf8').digest('base64');
}

function labelOf(record: Record<string, unknown>): string {
  const part = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value.length > LABEL_CHARS ? `${value.slice(0, LABEL_CHARS)}…` : value) : 'none');
  return `doc ${part(record.doc_id)} chunk ${part(record.chunk_id)}`;
}

function plural(n: number, one: string): string {
  return n === 1 ? one : `${one}s`;
}

// Folders stand for their files with the suffix, sorted so reports come in a stable order.
function expand(paths: readonly string[], suffix: string, option: string): string[] {
  if (paths.length === 0) throw new Error(`${option} is needed (see rca merge --help)`);
  const files: string[] = [];
  for (const path of paths) {
    checkInputPaths([path], { label: option, folders: true });
    if (!statSync(path).isDirectory()) {
      files.push(path);
      continue;
    }
    const found = readdirSync(path)
      .filter((name) => name.endsWith(suffix))
      .sort()
      .map((name) => join(path, name));
    if (found.length === 0) throw new Error(`${option}: no *${suffix} files in '${path}'`);
    checkInputPaths(found, { label: `${option} file` });
    files.push(...found);
  }
  return [...new Set(files)];
}

// Line by line as the stages read them (CRLF, BOM, blank lines, UTF-8 across chunks), so a
// line number here is the one a stage's message would give.
async function eachRecord(file: string, each: (where: string, record: Record<string, unknown> | null, why?: string) => void): Promise<void> {
  const splitter = new LineSplitter(MAX_LINE_BYTES);
  const events: LineEvent[] = [];
  const flush = () => {
    for (const event of events) {
      const where = `${file}:${event.line}`;
      if (event.kind !== 'line') {
        each(where, null);
        continue;
      }
      // As the stages parse it: a line nested too deep is refused before anything recurses into it.
      const parsed = parseRecordLine(event.text);
      each(where, parsed.record ?? null, parsed.reject?.code === 'NESTING_TOO_DEEP' ? `${parsed.reject.code}: ${parsed.reject.message}` : undefined);
    }
    events.length = 0;
  };
  try {
    for await (const chunk of createReadStream(file)) {
      splitter.push(chunk as Buffer, events);
      flush();
    }
  } catch (err) {
    throw new ReadError(`cannot read '${file}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  splitter.end(events);
  flush();
}
