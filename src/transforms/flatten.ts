import { keepUpstream } from '../tagging/added-fields.js';
import { asUsage } from '../runtime/exit-codes.js';
import { AppendedJson, appendMembers, defineStage, hasLargeString, RawJson, type JsonObject, type Outcome, type RecordMeta } from '../runtime/stage.js';
import { embeddingTexts } from '../views/flatten-view.js';
import { ViewFieldTally } from '../views/view-field-tally.js';
import { parseViewFields, ViewListError, type ViewFields } from '../views/view-types.js';

const EMBEDDING_TEXT = ['embedding_text'];

export default defineStage({
  name: 'flatten',
  summary: 'add the embedding text of each view: one "LABEL: value" line per non-empty field',
  description: `Adds embedding_text {retrieval_summary: "...", rca_frame: "..."} to each record.
  retrieval_summary: SCOPE, SYSTEMS, EQUIPMENT, COMPONENTS, SYMPTOMS/OUTCOMES, MECHANISMS,
                     DIAGNOSTICS, ACTIONS, NUMBERS/LIMITS, KEYWORDS (items joined with ", ")
  rca_frame:         OBSERVED, HYPOTHESES, TESTS, ACTIONS, CONSTRAINTS (items joined with "; ")
Empty fields give no line; a missing or empty view gives "". Whitespace inside a value (newlines
included) becomes one space, so each field is exactly one line; list items with no letter or
digit ("", "-----") and items that are neither strings nor numbers are left out.
--combined also writes embedding_text.combined: "SECTION: <section path>" followed by both
views' lines, for one embedding per chunk ("" when both views are empty).
An input embedding_text of another shape (DACKAR's processed records hold the chunk's text there,
a string) is kept as upstream_embedding_text, in its place; rca's own is replaced.`,
  examples: [
    'rca-flatten < validated.jsonl > embeddable.jsonl',
    'rca-flatten --combined --from-fields retrieval_summary_json,rca_frame_json enriched.jsonl',
  ],
  options: {
    'from-fields': {
      type: 'list',
      placeholder: 'FIELDS',
      help: 'record fields holding the views: FIELD,FIELD for retrieval_summary then rca_frame, or VIEW=FIELD [default: retrieval_summary,rca_frame]',
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
