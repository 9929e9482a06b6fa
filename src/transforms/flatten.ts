import { keepUpstream } from '../tagging/added-fields.js';
import { asUsage } from '../runtime/exit-codes.js';
import { AppendedJson, appendMembers, defineStage, hasLargeString, RawJson, type JsonObject, type Outcome, type RecordMeta } from '../runtime/stage.js';
import { embeddingTexts } from '../views/flatten-view.js';
import { ViewFieldTally } from '../views/view-field-tally.js';
import { VIEW_TYPES } from '../contracts/vocabulary.js';
import { VIEW_KINDS } from '../views/kinds/index.js';
import { CHUNK_VIEWS_SAID, parseViewFields, ViewListError, type ViewFields } from '../views/view-types.js';

const EMBEDDING_TEXT = ['embedding_text'];
const HELP_WIDTH = 100;
const LABELS_AT = 21;

/** A view's flatten layout, as --help says it: its labels in order, wrapped under the view's name. */
function layoutHelp(view: (typeof VIEW_TYPES)[number]): string {
  const { fields, separator } = VIEW_KINDS[view].flatten;
  const words = [...fields.map(([label], i) => (i < fields.length - 1 ? `${label},` : label)), `(items joined with "${separator}")`];
  const lines: string[] = [];
  let line = `  ${view}:`.padEnd(LABELS_AT - 1);
  for (const word of words) {
    if (line.trim().endsWith(':') || line.length + 1 + word.length <= HELP_WIDTH) line += ` ${word}`;
    else {
      lines.push(line);
      line = `${' '.repeat(LABELS_AT)}${word}`;
    }
  }
  return [...lines, line].join('\n');
}

export default defineStage({
  name: 'flatten',
  summary: 'add the embedding text of each view: one "LABEL: value" line per non-empty field',
  description: `Adds embedding_text ${CHUNK_VIEWS_SAID.object} to each record.
${VIEW_TYPES.map(layoutHelp).join('\n')}
Empty fields give no line; a missing or empty view gives "". Whitespace inside a value (newlines
included) becomes one space, so each field is exactly one line; list items with no letter or
digit ("", "-----") and items that are neither strings nor numbers are left out.
--combined also writes embedding_text.combined: "SECTION: <section path>" followed by both
views' lines, for one embedding per chunk ("" when both views are empty).
An input embedding_text of another shape (DACKAR's processed records hold the chunk's text there,
a string) is kept as upstream_embedding_text, in its place; rca's own is replaced.`,
  examples: [
    'rca-flatten < validated.jsonl > embeddable.jsonl',
    `rca-flatten --combined --from-fields ${CHUNK_VIEWS_SAID.fromFieldsExample} enriched.jsonl`,
  ],
  options: {
    'from-fields': {
      type: 'list',
      placeholder: 'FIELDS',
      help: CHUNK_VIEWS_SAID.fromFields,
    },
    combined: {
      type: 'boolean',
      default: false,
      help: 'also write embedding_text.combined: the section path and both views in one text',
    },
  },
  create(options) {
    return new Flattener(asUsage(() => parseViewFields(options['from-fields']), [ViewListError]), options.combined, options['from-fields'].length > 0);
  },
});

class Flattener {
  private readonly tally: ViewFieldTally;

  constructor(
    private readonly fields: ViewFields,
    private readonly combined: boolean,
    fieldsGiven = false,
  ) {
    this.tally = new ViewFieldTally(fields, fieldsGiven);
  }

  process(record: JsonObject, meta?: RecordMeta): Outcome {
    this.tally.see(record);
    const texts = embeddingTexts(record, this.fields, this.combined);
    // An embedding_text of the input keeps its place and is replaced: the record is rebuilt (and
    // one with a very long string stays an object, written in pieces).
    // An upstream embedding_text (DACKAR's string) is kept as upstream_embedding_text, in its place.
    if (Object.hasOwn(record, 'embedding_text') || hasLargeString(record)) return { records: [{ ...keepUpstream(record, EMBEDDING_TEXT), embedding_text: texts }] };
    // Otherwise the new key goes last: the record's own JSON with one member appended, and the line
    // as read where it is that JSON (no spacing, escapes or number forms of another writer).
    const members = `"embedding_text":${JSON.stringify(texts)}`;
    const json = JSON.stringify(record);
    if (meta !== undefined && json === meta.raw) return { records: [new AppendedJson(meta.raw, members, meta.bytes)] };
    return { records: [new RawJson(appendMembers(json, members))] };
  }

  /** As rca-validate warns: a field named for the views that no record has. */
  summary(): string[] {
    return this.tally.summary();
  }
}
