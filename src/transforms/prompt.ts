import { keepUpstream } from '../tagging/added-fields.js';
import { AppendedJson, appendMembers, defineStage, hasLargeString, RawJson, type JsonObject, type OffThreadRunner, type Outcome, type RecordMeta } from '../runtime/stage.js';
import { readTaggedChunk, seedKeysOf, type TaggedChunk } from '../views/records/chunk-records.js';
import { buildPrompt, compactHead, compactSharedEscaped, jsonEscaped as escaped, promptHead, promptSharedEscaped, promptTail, type EscapedParts } from '../views/prompt-text.js';
import { parseRecordLine } from '../runtime/record-line.js';
import { decodeOutcome, encodeOutcome, kernelOf, type PortableOutcome } from '../runtime/off-thread.js';
import { cutText } from '../views/text-cut.js';
import { canonicalMembers, type CanonicalMembers } from '../runtime/json-spans.js';
import type { ChunkContext, NerSeed } from '../contracts/chunk.js';
import type { DocType } from '../contracts/vocabulary.js';
import type { TextCut } from '../views/text-cut.js';
import { asUsage } from '../runtime/exit-codes.js';
import { CHUNK_VIEWS_SAID, parseViewList, ViewListError } from '../views/view-types.js';
import { NER_SEED_KEYS, PROMPT_STYLES, VIEW_TYPES, type PromptStyle, type ViewType } from '../contracts/vocabulary.js';

// What this stage writes: an input value of another shape under these names is kept (added-fields.ts).
const PROMPT_FIELDS = ['prompts', 'prompt_truncation'];

export default defineStage({
  name: 'prompt',
  summary: `add the model prompt of each view (${CHUNK_VIEWS_SAID.list}) to each tagged chunk`,
  description: `Reads records written by rca-tag (it needs context, ner_seed and text) and adds:
  prompts            ${CHUNK_VIEWS_SAID.object}: the full prompt text of each view
  prompt_truncation  null, or {text_chars, kept_chars, cut_at} when --max-chars cut the chunk text
Each prompt is what rca-generate sends for the view with the same --prompt-style. compact (the
default): the extraction contract, a task paragraph for the doc type and view, the empty output
JSON of the content fields and what each input line means (the same for every chunk of the doc
type: an engine's prefix cache serves it), then the section path and role when known, the NER
seed's non-empty lists, what the text rules out, and the chunk text (no chunk id: the model writes
none, and the record carries it). dackar: the contract, the task, the eight CONTEXT lines, the whole NER
seed, the chunk text and the empty output JSON of the whole view with the trusted citations.
The same record always gives the same bytes. A record without a valid context or ner_seed, or
without text, is rejected (NOT_TAGGED, BAD_CONTEXT, BAD_NER_SEED, NO_TEXT).`,
  examples: [
    'rca-tag < chunks.jsonl | rca-prompt > prompts.jsonl',
    'rca-prompt --views rca_frame --max-chars 4000 tagged.jsonl',
    "rca-prompt tagged.jsonl | jq -r '.prompts.retrieval_summary' | head -40",
  ],
  options: {
    views: {
      type: 'list',
      placeholder: 'VIEWS',
      default: [...VIEW_TYPES],
      help: `comma-separated views to write prompts for (${VIEW_TYPES.join(', ')})`,
    },
    'max-chars': {
      type: 'number',
      placeholder: 'N',
      min: 1,
      integer: true,
      help: 'cut the chunk text to N characters at a sentence or word boundary (default: no cut)',
    },
    'prompt-style': {
      type: 'string',
      placeholder: 'STYLE',
      default: 'compact',
      choices: PROMPT_STYLES,
      help: "the prompts' layout, as rca-generate --prompt-style: compact (content fields only, the chunk-independent part first) or dackar (the seed project's layout)",
    },
  },
  create(options, setup) {
    const views = asUsage(() => parseViewList(options.views), [ViewListError]);
    return new Prompter(views, options['max-chars'], options['prompt-style'] as PromptStyle, setup.offThread);
  },
});

/** rca-prompt on the run's worker thread (runtime/off-thread.ts): a large line's outcome, made by a
 *  Prompter of the same options (it keeps no state across records), as the runner writes it. */
export function promptLines(setup: PromptSetup): (input: { line: string; meta: RecordMeta }) => PortableOutcome {
  const prompter = new Prompter(setup.views, setup.maxChars, setup.style);
  return ({ line, meta }) => encodeOutcome(prompter.promptLine(line, meta));
}

interface PromptSetup {
  views: readonly ViewType[];
  maxChars: number | undefined;
  style: PromptStyle;
}

const PROMPT_KERNEL = kernelOf(import.meta.url, 'promptLines');

/**
 * What a canonical line (canonicalMembers) holds ready: the text's escaped form where the text is
 * the record's `text` (chunkTextOf's first choice), and the seed's JSON where its keys are in
 * seedJson's order (the 18, then `negated`, which seedJson leaves out and the line ends with).
 */
function knownParts(raw: string, line: CanonicalMembers, record: JsonObject, nerSeed: NerSeed): EscapedParts {
  const known: EscapedParts = {};
  const t = line.keys.indexOf('text');
  if (t >= 0 && typeof record.text === 'string') known.text = raw.slice(line.starts[t]! + 1, line.ends[t]! - 1);
  const s = line.keys.indexOf('ner_seed');
  const keys = s < 0 ? null : seedKeysOf(nerSeed);
  if (keys !== null) {
    const seed = raw.slice(line.starts[s]!, line.ends[s]!);
    if (keys.length === NER_SEED_KEYS.length) known.seedJson = seed;
    else {
      const negated = `,"negated":${JSON.stringify(nerSeed.negated)}}`;
      if (seed.endsWith(negated)) known.seedJson = seed.slice(0, seed.length - negated.length) + '}';
    }
  }
  return known;
}

const MARKER = /\\"@rca-slot:([^@]*)@\\"/g;

/**
 * A view's output skeleton (promptTail) escaped, as a template: made once from a context whose
 * every value is a marker string, filled per record with the escaped JSON of the context's values
 * (the pretty-printed skeleton puts any plain value where the marker's JSON was). A context value
 * that is not a string, number, boolean or null is left to promptTail.
 */
class TailTemplate {
  private readonly parts: string[] = [];
  private readonly keys: string[] = [];

  constructor(view: ViewType) {
    const markers = new Proxy({}, { get: (_, key) => `@rca-slot:${String(key)}@` }) as ChunkContext;
    const text = escaped(promptTail(view, markers));
    let from = 0;
    for (const m of text.matchAll(MARKER)) {
      this.parts.push(text.slice(from, m.index));
      this.keys.push(m[1]!);
      from = m.index + m[0].length;
    }
    this.parts.push(text.slice(from));
  }

  fill(context: ChunkContext): string | null {
    let out = this.parts[0]!;
    for (let i = 0; i < this.keys.length; i++) {
      const value = (context as unknown as Record<string, unknown>)[this.keys[i]!];
      if (value !== null && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return null;
      out += escaped(JSON.stringify(value)) + this.parts[i + 1]!;
    }
    return out;
  }
}

/**
 * What the stage writes for a tagged record, said plainly: the record with `prompts` (each view's
 * buildPrompt) and `prompt_truncation` last, fields of those names keeping their place (an
 * upstream value there kept as upstream_*). Prompter writes these bytes without rebuilding the
 * record where it can; test/views/prompt-routes.test.ts holds every route to this.
 */
export function promptedRecord(record: JsonObject, chunk: TaggedChunk, views: readonly ViewType[], maxChars: number | undefined, style: PromptStyle): JsonObject {
  const prompts: Partial<Record<ViewType, string>> = {};
  let truncation: TextCut | null = null;
  for (const view of views) {
    const built = buildPrompt(chunk.context, chunk.nerSeed, chunk.text, view, { maxChars, style });
    prompts[view] = built.prompt;
    // Every view cuts the same text the same way: one record of it is enough.
    truncation = built.truncated;
  }
  return { ...keepUpstream(record, PROMPT_FIELDS), prompts, prompt_truncation: truncation };
}

class Prompter {
  /** promptHead escaped, per doc type and view: the contract and task text, the same for every record. */
  private readonly heads = new Map<string, string>();
  private readonly tails = new Map<ViewType, TailTemplate>();
  private readonly setup: PromptSetup;

  constructor(
    private readonly views: readonly ViewType[],
    private readonly maxChars: number | undefined,
    private readonly style: PromptStyle = 'compact',
    private readonly offThread?: OffThreadRunner,
  ) {
    this.setup = { views, maxChars, style };
  }

  process(record: JsonObject, meta?: RecordMeta): Outcome | Promise<Outcome> {
    // A large line is prompted on the run's worker thread (parsed there again), so the escaping
    // and copying that grow with its text never hold up a signal; its bytes are not sent.
    if (meta !== undefined && this.offThread?.takes(meta.raw)) {
      const { source, line, at } = meta;
      const sent: RecordMeta = { source, line, raw: meta.raw, ...(at === undefined ? {} : { at }) };
      return this.offThread.run<PortableOutcome>(PROMPT_KERNEL, this.setup, { line: meta.raw, meta: sent }).then(decodeOutcome);
    }
    return this.fromRecord(record, meta, meta === undefined ? null : canonicalMembers(meta.raw));
  }

  /** process()'s work on the worker thread: the line parsed as the runner parses it. */
  promptLine(line: string, meta: RecordMeta): Outcome {
    const parsed = parseRecordLine(line);
    if (parsed.reject) return { reject: parsed.reject };
    return this.fromRecord(parsed.record, meta, canonicalMembers(line));
  }

  private fromRecord(record: JsonObject, meta: RecordMeta | undefined, line: CanonicalMembers | null): Outcome {
    // The chunk views' own reader: the same codes and messages as rca-generate.
    const read = readTaggedChunk(record);
    if (!read.ok) return { reject: { code: read.code, message: read.message } };
    const { context, nerSeed, text } = read.value;
    if (Object.hasOwn(record, 'prompts') || Object.hasOwn(record, 'prompt_truncation') || hasLargeString(record)) {
      return { records: [promptedRecord(record, read.value, this.views, this.maxChars, this.style)] };
    }
    // The line as read is kept only where it is what JSON.stringify would write (no spacing,
    // escapes or number forms of another writer, no keys reordered): the output is then the same.
    // Where the scan proves that, the seed's JSON and the text's escaped form are slices of it.
    const known = line === null ? {} : knownParts(meta!.raw, line, record, nerSeed);
    const { shared: middle, truncated } = this.style === 'compact' ? this.compactMiddle(context, nerSeed, text, known) : promptSharedEscaped(context, nerSeed, text, { maxChars: this.maxChars }, known);
    const members = this.members(context, middle, truncated);
    if (line !== null || (meta !== undefined && JSON.stringify(record) === meta.raw)) return { records: [new AppendedJson(meta!.raw, members, meta!.bytes)] };
    return { records: [new RawJson(appendMembers(JSON.stringify(record), members))] };
  }

  /** The compact prompt's chunk part, escaped (the text's escaped form taken from the line where it is known). */
  private compactMiddle(context: ChunkContext, nerSeed: NerSeed, text: string, known: EscapedParts): { shared: string; truncated: TextCut | null } {
    const { text: chunkText, cut } = cutText(text, this.maxChars);
    const escapedText = cut === null && known.text !== undefined ? known.text : escaped(chunkText);
    return { shared: compactSharedEscaped(context, nerSeed, escapedText), truncated: cut };
  }

  /**
   * The two new members. They go last, so the record's JSON is its own JSON with them appended;
   * each prompt is head \n shared \n tail, and a JSON string of a concatenation is the
   * concatenation of the escaped parts (a newline between them is never half of a surrogate
   * pair). The shared part, most of each prompt, is escaped once for all views.
   */
  private members(context: ChunkContext, middle: string, truncated: TextCut | null): string {
    let members = '"prompts":{';
    for (let i = 0; i < this.views.length; i++) {
      const view = this.views[i]!;
      members +=
        this.style === 'compact'
          ? `${i === 0 ? '' : ','}"${view}":"${this.head(context.doc_type, view)}\\n${middle}"`
          : `${i === 0 ? '' : ','}"${view}":"${this.head(context.doc_type, view)}\\n${middle}\\n${this.tail(view, context)}"`;
    }
    return members + `},"prompt_truncation":${JSON.stringify(truncated)}`;
  }

  /** The record with its prompts in place of the fields of the same names (they keep their place). */
  private tail(view: ViewType, context: ChunkContext): string {
    let template = this.tails.get(view);
    if (template === undefined) {
      template = new TailTemplate(view);
      this.tails.set(view, template);
    }
    return template.fill(context) ?? escaped(promptTail(view, context));
  }

  private head(docType: DocType, view: ViewType): string {
    const key = `${docType}\n${view}`;
    let head = this.heads.get(key);
    if (head === undefined) {
      head = escaped(this.style === 'compact' ? compactHead(docType, view) : promptHead(docType, view));
      this.heads.set(key, head);
    }
    return head;
  }
}
