import type { ChunkContext } from '../contracts/chunk.js';
import { checkerFor } from '../contracts/checkers.js';
import { asUsage, FatalError, UsageError } from '../runtime/exit-codes.js';
import { FLAG_OPTIONS } from '../runtime/options.js';
import { defineStage, hasLargeString, RawJson, type FlaggedView, type JsonObject, type LineAdapter, type OffThreadRunner, type Outcome, type RecordMeta } from '../runtime/stage.js';
import { kernelOf } from '../runtime/off-thread.js';
import type { EvidenceOptions } from '../views/evidence.js';
import { chunkTextOf } from '../tagging/chunk-fields.js';
import { ContextBuilder } from '../tagging/context.js';
import { negatedMentions } from '../views/claims.js';
import type { ClaimChecker } from '../views/claim-model.js';
import { chunkViewItems, GroundingTally, viewEvidenceJson, type ViewEvidence } from '../views/evidence.js';
import { GroundingText } from '../views/grounding.js';
import { validateView, type ViewValidation } from '../views/validate-view.js';
import { isPlainObject } from '../contracts/json.js';
import { isMapOf, skippingParse } from '../runtime/record-line.js';
import { keepUpstream } from '../tagging/added-fields.js';
import { CHUNK_VIEWS_SAID, parseViewFields, ViewListError, type ViewFields } from '../views/view-types.js';
import { VIEW_TYPES, type ViewType } from '../contracts/vocabulary.js';
import { ViewFieldTally } from '../views/view-field-tally.js';

export default defineStage({
  name: 'validate',
  summary: 'stamp trusted provenance on each view, check it against its contract and the chunk text, add flags',
  description: `For each view present on a record (${CHUNK_VIEWS_SAID.list}; null counts as absent):
  1. chunk_id, doc_type, view_type and citations are overwritten from the trusted context, in place
     (a record without context gets it built exactly as rca-tag would);
  2. the view is checked: keys and types of the contract; list items are plain strings with some
     content, each once, not serialised lists or objects; no keys outside the contract (dropped);
     quality gates; grounding: every entities.equipment_ids item and every phrase in double quotes
     must occur in the chunk text (case and whitespace ignored);
  3. every item is located in the chunk text (evidence) and its claims checked: numbers and plant
     ids must be the text's; a number keeps its unit and comparator; an item keeps the polarity of
     the clause it comes from (and states no mention ner_seed.negated rules out); systems and
     components are ones the text (or the document's path and title) names; a claim no clause
     supports is flagged. With --check-claims MODEL a model is asked about each claim too.
Adds:
  flags                  {<view>: [flag, ...]}: [] is a pass
  provenance_fixed       {<view>: [path, ...]}: trusted fields whose stored value was wrong and replaced
  provenance_normalised  {<view>: [path, ...]}: trusted fields stored in another writing (a section
                         path with markdown emphasis, page -1 for unknown): replaced, not forged
  evidence               {<view>: {items: [{field, index, role, match, score, spans, checks}], grounding}}:
                         where each item is supported in the text (rca schema view_evidence)
A view with flags is written with them and named on stderr (the first 5 of each view, then a
count); the exit status stays 0 unless --fail-on-flags. Flags: bad_view_type, missing_<key>, scope_not_str, <list>_not_list,
entities_not_object, entities_<k>_missing_or_not_list, citations_not_object,
citations_<k>_missing, citations_<k>_wrong_type, view_not_object, <list>_item_not_string,
<list>_item_blank, <list>_item_duplicate, <list>_item_stringified, unexpected_key_<key>,
scope_too_short, few_keywords, boilerplate, empty_frame, ungrounded_number:<n>[ in "<item>"],
ungrounded_equipment_id:<id>, ungrounded_id:<id>, ungrounded_quote:<phrase>,
unsupported_item:<field>[<i>], wrong_unit:<quantity>, contradicted_comparator:<quantity>,
negation_mismatch:<sentence>, ruled_out:<mention>, novel_entity:<name>, weak_grounding:<share>,
model_unsupported:<field>[<i>].`,
  examples: [
    'rca-validate < generated.jsonl > validated.jsonl',
    `rca-validate --from-fields ${CHUNK_VIEWS_SAID.fromFieldsExample} enriched.jsonl`,
    "rca-validate --fail-on-flags generated.jsonl | jq -c '{chunk_id, flags}'   # exit 1 when a view is flagged",
  ],
  options: {
    'from-fields': {
      type: 'list',
      placeholder: 'FIELDS',
      help: CHUNK_VIEWS_SAID.fromFields,
    },
    ...FLAG_OPTIONS,
    'check-claims': {
      type: 'string',
      placeholder: 'MODEL',
      help: 'also ask MODEL (served by Ollama at --claims-host) whether the chunk text supports each claim; the answer goes on the item\'s evidence (model_check), a "no" adds model_unsupported:<field>[<i>] [default: off]',
    },
    'claims-host': {
      type: 'string',
      placeholder: 'URL',
      help: 'the Ollama server of --check-claims [default: $OLLAMA_HOST, else http://127.0.0.1:11434]',
    },
    'grounding-floor': {
      type: 'number',
      placeholder: 'SHARE',
      default: 0,
      help: 'flag weak_grounding:<share> on a view whose share of items with exact or normalised support is below SHARE (0 to 1) [default: 0, off]',
    },
  },
  async create(options, setup) {
    const floor = options['grounding-floor'];
    if (!(floor >= 0 && floor <= 1)) throw new UsageError(`--grounding-floor must be a share from 0 to 1, got ${floor}`);
    const model = options['check-claims'];
    if (model === undefined && options['claims-host'] !== undefined) throw new UsageError('--claims-host works with --check-claims MODEL');
    let checker: ClaimChecker | null = null;
    if (model !== undefined) {
      if (model.trim() === '') throw new UsageError('--check-claims needs a model name');
      // Loaded only here: a validate run without the model check never loads a client.
      const [{ createOllamaClient }, { ClaimChecker: Checker }, { ModelError }] = await Promise.all([import('../llm/ollama-client.js'), import('../views/claim-model.js'), import('../llm/model-client.js')]);
      const host = options['claims-host'] ?? setup.env.OLLAMA_HOST ?? 'http://127.0.0.1:11434';
      const client = createOllamaClient({ host });
      try {
        await client.preflight(model);
      } catch (err) {
        if (err instanceof ModelError) throw new FatalError(`--check-claims: ${err.message}`);
        throw err;
      }
      checker = new Checker(client, model);
    }
    return new Validator(asUsage(() => parseViewFields(options['from-fields']), [ViewListError]), floor, checker, options['from-fields'].length > 0, setup.offThread);
  },
});

// What process() writes on every record it keeps, with the shape of each: an input value of
// another shape is the upstream's, kept under its upstream_ name.
const REPLACED_MEMBERS = ['flags', 'provenance_fixed', 'provenance_normalised', 'evidence'];
const MEMBER_SHAPES: Readonly<Record<string, 'strings' | 'objects'>> = { flags: 'strings', provenance_fixed: 'strings', provenance_normalised: 'strings', evidence: 'objects' };

class Validator {
  private readonly contexts = new ContextBuilder({ docTypeMode: 'auto', authority: null });
  private records = 0;
  private viewsChecked = 0;
  private viewsFlagged = 0;
  private readonly flagCounts = new Map<string, number>();

  private readonly tally: ViewFieldTally;
  private readonly grounding = new GroundingTally();

  constructor(
    private readonly fields: ViewFields,
    private readonly floor = 0,
    private readonly checker: ClaimChecker | null = null,
    fieldsGiven = false,
    private readonly offThread?: OffThreadRunner,
  ) {
    this.tally = new ViewFieldTally(fields, fieldsGiven);
    const views = new Set(Object.values(fields));
    const replaced = new Set(REPLACED_MEMBERS.filter((key) => !views.has(key)));
    this.replaced = replaced;
    // A line's record without the members written anew: their values are checked, not built. A
    // member skipped is one this stage writes anew: only where it is null or in rca's own shape may
    // it go unread; anything else there is an upstream value, kept (process() renames it).
    this.lines = skippingParse(replaced, (line, key, at) => line.startsWith('null', at) || isMapOf(line, at, MEMBER_SHAPES[key]!));
    // Model checks are slow: several records' checks may wait for their turn in input order.
    this.window = checker === null ? undefined : 8;
  }

  readonly window: number | undefined;
  /** Members every record gets anew (a view read from one of them is not among them). */
  private readonly replaced: ReadonlySet<string>;
  /** Lines are parsed without the members in `replaced`. */
  readonly lines: LineAdapter;

  process(record: JsonObject, meta?: RecordMeta): Outcome | Promise<Outcome> {
    let context: ChunkContext;
    let text: string;
    if (record.context !== undefined) {
      const problem = checkerFor('chunk_context')(record.context, 'context');
      if (problem) return { reject: { code: 'BAD_CONTEXT', message: problem } };
      context = record.context as ChunkContext;
      text = chunkTextOf(record) ?? '';
    } else {
      // Views produced elsewhere are audited against the provenance tag would have given them.
      const facts = this.contexts.build(record);
      context = facts.context;
      text = facts.text;
    }

    this.records++;
    this.tally.see(record);
    const out: JsonObject = keepUpstream({ ...record }, [...this.replaced]);
    const negated = negatedMentions(record.ner_seed);
    // Names a view may take from the document rather than the chunk: its path, id and title.
    const contextText = [context.section_path, context.doc_id, ...['doc_name', 'doc_title', 'title'].flatMap((k) => (typeof record[k] === 'string' ? [record[k] as string] : []))];
    const views: ViewToCheck[] = [];
    for (const view of VIEW_TYPES) {
      const field = this.fields[view];
      const value = field === undefined ? undefined : record[field];
      if (isPlainObject(value)) views.push({ view, value });
    }
    const job: ViewsCheck = { views, context, text, options: { negated, floor: this.floor, context: contextText } };
    const complete = (checks: ViewValidation[]) => this.complete(record, out, context, text, checks);
    // A large record's views are checked on the run's worker thread (the grounding text is built there).
    if (views.length > 0 && meta !== undefined && this.offThread?.takes(meta.raw)) return this.offThread.run<ViewValidation[]>(VALIDATE_KERNEL, KERNEL_SETUP, job).then(complete);
    return complete(checkViews(job));
  }

  /** The record with its checked views (checks: one per object view, in VIEW_TYPES order). */
  private complete(record: JsonObject, out: JsonObject, context: ChunkContext, text: string, checks: ViewValidation[]): Outcome | Promise<Outcome> {
    const flags: Partial<Record<ViewType, string[]>> = {};
    const fixed: Partial<Record<ViewType, string[]>> = {};
    const normalised: Partial<Record<ViewType, string[]>> = {};
    const evidence: Partial<Record<ViewType, ViewEvidence>> = {};
    let next = 0;
    for (const view of VIEW_TYPES) {
      const field = this.fields[view];
      if (field === undefined) continue;
      const value = record[field];
      if (value === undefined || value === null) continue;
      let result: { flags: string[]; fixed: string[]; normalised: string[] };
      if (isPlainObject(value)) {
        const checked = checks[next++]!;
        out[field] = checked.view;
        evidence[view] = checked.evidence;
        this.grounding.add(checked.evidence);
        result = checked;
      } else {
        result = { flags: ['view_not_object'], fixed: [], normalised: [] };
      }
      flags[view] = result.flags;
      fixed[view] = result.fixed;
      normalised[view] = result.normalised;
    }
    out.flags = flags;
    out.provenance_fixed = fixed;
    out.provenance_normalised = normalised;
    out.evidence = evidence;
    const finish = (): Outcome => {
      const flagged: FlaggedView[] = [];
      for (const view of VIEW_TYPES) {
        const viewFlags = flags[view];
        if (viewFlags === undefined) continue;
        this.count(viewFlags);
        if (viewFlags.length > 0) flagged.push({ view, flags: viewFlags });
      }
      return flagged.length > 0 ? { records: [out], flagged } : { records: [out] };
    };
    if (this.checker === null || Object.keys(evidence).length === 0) {
      const outcome = finish();
      // The record as JSON.stringify would write it, its evidence serialised by viewEvidenceJson
      // (a record holding a string of megabytes stays an object: the runner writes it in pieces).
      if (!hasLargeString(out)) outcome.records = [new RawJson(recordJson(out, evidence))];
      return outcome;
    }
    const checker = this.checker;
    return (async () => {
      for (const view of VIEW_TYPES) {
        const ev = evidence[view];
        if (ev === undefined) continue;
        const values = new Map(chunkViewItems(view, out[this.fields[view]!] as JsonObject).map(([field, index, value]) => [`${field}[${index}]`, value]));
        const added = await checker.checkItems(text, ev.items, (item) => values.get(`${item.field}[${item.index}]`) ?? '');
        flags[view] = [...new Set([...flags[view]!, ...added])];
      }
      return finish();
    })();
  }

  private count(flags: readonly string[]): void {
    this.viewsChecked++;
    if (flags.length === 0) return;
    this.viewsFlagged++;
    for (const flag of flags) {
      const kind = flag.includes(':') ? flag.slice(0, flag.indexOf(':')) : flag;
      this.flagCounts.set(kind, (this.flagCounts.get(kind) ?? 0) + 1);
    }
  }

  summary(): string[] {
    const lines = [...this.tally.summary(), ...(this.viewsFlagged > 0 ? [`${this.viewsFlagged} of ${this.viewsChecked} views flagged`] : [])];
    const line = this.grounding.line();
    if (line !== null) lines.push(line);
    return lines;
  }

  progress(): string {
    return `${this.viewsChecked} views checked, ${this.viewsFlagged} flagged`;
  }

  stats(): Record<string, unknown> {
    return {
      views_checked: this.viewsChecked,
      views_flagged: this.viewsFlagged,
      flag_counts: Object.fromEntries([...this.flagCounts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      grounding: this.grounding.toJson(),
    };
  }
}

interface ViewToCheck {
  view: ViewType;
  value: JsonObject;
}

/** A record's object views, what they are checked against, and how. Plain data: it may go to the worker thread. */
interface ViewsCheck {
  views: ViewToCheck[];
  context: ChunkContext;
  text: string;
  options: EvidenceOptions;
}

/** rca-validate's work that grows with the text: one grounding text, each view checked against it (in place). */
function checkViews({ views, context, text, options }: ViewsCheck): ViewValidation[] {
  if (views.length === 0) return [];
  const grounding = new GroundingText(text);
  return views.map(({ view, value }) => validateView(view, value, context, grounding, options));
}

/** checkViews on the run's worker thread (runtime/off-thread.ts); it needs no set-up. */
export function validateViews(): (job: ViewsCheck) => ViewValidation[] {
  return checkViews;
}

const VALIDATE_KERNEL = kernelOf(import.meta.url, 'validateViews');
const KERNEL_SETUP = {};

/** JSON.stringify(record), with its `evidence` member (the object `evidence`) written by viewEvidenceJson. */
export function recordJson(record: JsonObject, evidence: Partial<Record<ViewType, ViewEvidence>>): string {
  let out = '{';
  for (const key of Object.keys(record)) {
    let value: string | undefined;
    if (key === 'evidence' && record[key] === evidence) {
      value = '{';
      for (const view of Object.keys(evidence) as ViewType[]) value += `${value.length > 1 ? ',' : ''}${JSON.stringify(view)}:${viewEvidenceJson(evidence[view]!)}`;
      value += '}';
    } else value = JSON.stringify(record[key]);
    // JSON.stringify leaves out a member whose value has no JSON form (undefined).
    if (value === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${value}`;
  }
  return `${out}}`;
}
