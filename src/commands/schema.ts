import { commandHelp, parseCommandArgs, type Command, type CommandIO } from './command.js';
import { EXIT } from '../runtime/exit-codes.js';
import type { OptionsSpec } from '../runtime/stage.js';
import { VIEW_NAMES } from '../contracts/vocabulary.js';

const OPTIONS = {
  fields: { type: 'boolean', help: "list the record kind's fields instead of its schema" },
  format: { type: 'string', placeholder: 'VIEW', help: 'print the structured-output format sent to the model for VIEW' },
  list: { type: 'boolean', help: 'list the record kinds' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionsSpec;
const VIEWS = VIEW_NAMES;

const USAGE = commandHelp(`Usage: rca schema <kind>            print the JSON Schema (draft 2020-12) of a record kind
       rca schema --fields <kind>   list its fields, one a line, with what each is used for
       rca schema --format <view>   print the structured-output format sent to the model for a view
       rca schema --list            list the record kinds

The schemas are generated from the same definitions the stages validate with, so they are
exact. The format of a view (${VIEWS.join(', ')}) is its schema with
the grammar bounds the server enforces: maxLength on every string, maxItems on every list, and
the minima the validator demands. It is sent as Ollama's "format" and as the OpenAI-compatible
"response_format": {"type": "json_schema", "json_schema": {"schema": ...}}, byte for byte.
`,
  OPTIONS,
  `Example:
  rca schema rca_frame > rca_frame.schema.json
  rca schema --fields chunk     # every chunk field the stages read
`,
);

const command: Command = {
  name: 'schema',
  summary: 'print the JSON Schema of a record kind (rca schema --list names them)',
  async run(io: CommandIO): Promise<number> {
    const say = (line: string) => io.stderr.write(`rca schema: ${line}\n`);
    const args = [...io.argv];
    const formatUsage = (got: readonly string[]) => say(`--format expects one view (${VIEWS.join(', ')}), got '${got.join(' ')}'`);
    const kindUsage = (got: readonly string[]) =>
      say(got.length === 0 ? 'which record kind? (rca schema --list)' : `expected one record kind or --list, got '${got.join(' ')}' (see rca schema --help)`);
    let parsed;
    try {
      parsed = parseCommandArgs(OPTIONS, args, true);
    } catch {
      // A command line the table refuses (an unknown flag, --format without a view) is read as
      // what it starts with, so it gets the message of that request.
      if (args[0] === '--format') formatUsage(args.slice(1));
      else kindUsage(args[0] === '--fields' ? args.slice(1) : args);
      return EXIT.USAGE;
    }
    const { values, positionals } = parsed;
    if (values.help) {
      io.stdout.write(USAGE);
      return EXIT.OK;
    }
    if (values.format !== undefined) {
      const view = values.format;
      if (positionals.length > 0 || values.fields || values.list || !VIEWS.includes(view as (typeof VIEWS)[number])) {
        formatUsage([view, ...positionals]);
        return EXIT.USAGE;
      }
      // The very object the requests carry (one per view for the run): what a dry run shows too.
      const { formatOf } = await import('../generation/requests.js');
      io.stdout.write(JSON.stringify(formatOf(view as (typeof VIEWS)[number]), null, 2) + '\n');
      return EXIT.OK;
    }
    if (values.list) {
      if (positionals.length > 0 || values.fields) {
        kindUsage(args);
        return EXIT.USAGE;
      }
      // Loaded only here (the kinds' summaries): zod costs start-up time the rest does without.
      const { RECORD_KINDS } = await import('../contracts/index.js');
      const width = Math.max(...Object.keys(RECORD_KINDS).map((k) => k.length)) + 2;
      for (const [name, kind] of Object.entries(RECORD_KINDS)) io.stdout.write(`${name.padEnd(width)}${kind.summary}\n`);
      return EXIT.OK;
    }
    const fields = values.fields === true;
    if (positionals.length !== 1) {
      kindUsage(positionals);
      return EXIT.USAGE;
    }
    const name = positionals[0]!;
    // The generated JSON Schemas (npm run contracts): the zod contracts' own, in their order, held
    // equal to them byte for byte by test/cli/registry.test.ts, without loading zod.
    const { JSON_SCHEMAS } = await import('../contracts/json-schemas.generated.js');
    if (!Object.hasOwn(JSON_SCHEMAS, name)) {
      say(`unknown record kind '${name}' (known: ${Object.keys(JSON_SCHEMAS).join(', ')})`);
      return EXIT.USAGE;
    }
    const schema = JSON_SCHEMAS[name as keyof typeof JSON_SCHEMAS] as Schema;
    if (fields) {
      const rows = fieldRows(schema, '');
      const width = Math.max(...rows.map(([field]) => field.length)) + 2;
      for (const [field, type, use] of rows) io.stdout.write(`${field.padEnd(width)}${type}: ${use}\n`);
      return EXIT.OK;
    }
    io.stdout.write(JSON.stringify(schema, null, 2) + '\n');
    return EXIT.OK;
  },
};

type Schema = { properties?: Record<string, Schema>; description?: string; type?: string | string[]; anyOf?: Schema[]; items?: Schema };

/** [dotted field, type, description] of each property, nested objects' properties too (document.sourceId). */
function fieldRows(schema: Schema, prefix: string): [string, string, string][] {
  const rows: [string, string, string][] = [];
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    rows.push([prefix + key, typeOf(property), property.description ?? '']);
    if (property.properties) rows.push(...fieldRows(property, `${prefix}${key}.`));
  }
  return rows;
}

function typeOf(s: Schema): string {
  if (s.anyOf) return [...new Set(s.anyOf.map(typeOf))].join(' | ');
  if (s.type === 'array') return `array of ${s.items ? typeOf(s.items) : 'any'}`;
  if (Array.isArray(s.type)) return s.type.join(' | ');
  return s.type ?? 'any';
}

export default command;
