import { keepUpstream } from '../tagging/added-fields.js';
import { AppendedJson, appendMembers, defineStage, hasLargeString, LARGE_STRING_CHARS, RawJson, type JsonObject, type LineAdapter, type OffThreadRunner, type Outcome, type RecordMeta } from '../runtime/stage.js';
import { isTaggedContext, NOT_A_TAGGED_SEED, readTaggedChunk, seedKeysOf, seedShapeIn, WITHOUT_NEGATED } from '../views/records/chunk-records.js';
import { buildPrompt, compactHead, compactSharedEscaped, jsonEscaped as escaped, promptHead, promptSharedEscaped, promptTail, sharedEscaped, type EscapedParts } from '../views/prompt-text.js';
import { parseRecordLine } from '../runtime/record-line.js';
import { decodeOutcome, encodeOutcome, kernelOf, type PortableOutcome } from '../runtime/off-thread.js';
import { cutText } from '../views/text-cut.js';
import { canonicalMembers, type CanonicalMembers } from '../runtime/json-spans.js';
import type { ChunkContext, NegatedMention, NerSeed } from '../contracts/chunk.js';
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
default): the extraction contract, a task paragraph for the doc type and view and the empty output
JSON of the content fields (the same for every chunk of the doc type: an engine's prefix cache
serves it), then the section path and role, the NER seed's non-empty lists, what the text rules
out, and the chunk text. dackar: the contract, the task, the eight CONTEXT lines, the whole NER
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

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEGATED_MEMBER = ',"negated":';

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

  process(record: JsonObject, meta?: RecordMeta): Outcome {
    return this.fromRecord(record, meta, meta === undefined ? null : canonicalMembers(meta.raw));
  }

  /**
   * The lines come unparsed (the `raw` line adapter).
   * A line that is its record's own JSON and holds a context and a seed in rca-tag's shape and a
   * text is prompted from the line: the context is the only member parsed, the seed's JSON and
   * the text's escaped form are slices of the line. Any other line is parsed as the runner parses
   * (the same rejects) and goes the ordinary way.
   */
  readonly lines: LineAdapter = { kind: 'raw', take: (line, meta) => this.takeLine(line, meta) };

  private takeLine(line: string, meta: RecordMeta): Outcome | Promise<Outcome> {
    // A large line is prompted on the run's worker thread; the line's bytes are not sent (the
    // output is the same text without them).
    if (this.offThread?.takes(line)) {
      const { source, line: number, at } = meta;
      const sent: RecordMeta = { source, line: number, raw: line, ...(at === undefined ? {} : { at }) };
      return this.offThread.run<PortableOutcome>(PROMPT_KERNEL, this.setup, { line, meta: sent }).then(decodeOutcome);
    }
    return this.promptLine(line, meta);
  }

  /** takeLine's work, on this thread. */
  promptLine(line: string, meta: RecordMeta): Outcome {
    const members = canonicalMembers(line);
    const quick = members === null ? null : this.fromLine(line, members, meta);
    if (quick !== null) return quick;
    const parsed = parseRecordLine(line);
    if (parsed.reject) return { reject: parsed.reject };
    return this.fromRecord(parsed.record, meta, members);
  }

  /** The outcome from the line alone, or null where the ordinary path is to decide (it may reject). */
  private fromLine(line: string, members: CanonicalMembers, meta: RecordMeta): Outcome | null {
    const { keys, starts, ends } = members;
    const c = keys.indexOf('context');
    const s = keys.indexOf('ner_seed');
    const t = keys.indexOf('text');
    if (c < 0 || s < 0 || t < 0 || keys.includes('prompts') || keys.includes('prompt_truncation')) return null;
    // A string's JSON is at least as long as the string: under the mark, no string is large.
    for (let i = 0; i < keys.length; i++) if (ends[i]! - starts[i]! >= LARGE_STRING_CHARS) return null;
    // chunkTextOf's first choice; a text of another type leaves the choice to it.
    if (line.charCodeAt(starts[t]!) !== QUOTE) return null;
    const context = JSON.parse(line.slice(starts[c], ends[c])) as unknown;
    if (!isTaggedContext(context)) return null;
    const negatedAt = seedShapeIn(line, starts[s]!, ends[s]!);
    if (negatedAt === NOT_A_TAGGED_SEED) return null;
    let seed = line.slice(starts[s], ends[s]);
    let negated: NegatedMention[] = [];
    if (negatedAt !== WITHOUT_NEGATED) {
      // seedJson leaves `negated` out.
      seed = line.slice(starts[s], negatedAt) + '}';
      const list = line.slice(negatedAt + NEGATED_MEMBER.length, ends[s]! - 1);
      if (list !== '[]') negated = JSON.parse(list) as NegatedMention[];
    }
    let text = line.slice(starts[t]! + 1, ends[t]! - 1);
    let truncated: TextCut | null = null;
    const first = text.charCodeAt(0);
    // A text that starts with a visible ASCII character (not an escape) is not blank; any other is read to know.
    if (this.maxChars !== undefined || !(first > 0x20 && first < 0x7f && first !== BACKSLASH)) {
      const whole = JSON.parse(line.slice(starts[t], ends[t])) as string;
      if (whole.trim() === '') return null;
      const cut = cutText(whole, this.maxChars);
      if (cut.cut !== null) {
        text = escaped(cut.text);
        truncated = cut.cut;
      }
    }
    const middle =
      this.style === 'compact'
        ? compactSharedEscaped(context as ChunkContext, JSON.parse(line.slice(starts[s], ends[s])) as NerSeed, text)
        : sharedEscaped(context as ChunkContext, seed, negated, text);
    return { records: [new AppendedJson(line, this.members(context as ChunkContext, middle, truncated), meta.bytes)] };
  }

  private fromRecord(record: JsonObject, meta: RecordMeta | undefined, line: CanonicalMembers | null): Outcome {
    // The chunk views' own reader: the same codes and messages as rca-generate.
    const read = readTaggedChunk(record);
    if (!read.ok) return { reject: { code: read.code, message: read.message } };
    const { context, nerSeed, text } = read.value;
    if (Object.hasOwn(record, 'prompts') || Object.hasOwn(record, 'prompt_truncation') || hasLargeString(record)) {
      return { records: [this.rebuilt(record, context, nerSeed, text)] };
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
  private rebuilt(record: JsonObject, context: ChunkContext, nerSeed: NerSeed, text: string): JsonObject {
    const prompts: Partial<Record<ViewType, string>> = {};
    let truncation: TextCut | null = null;
    for (const view of this.views) {
      const built = buildPrompt(context, nerSeed, text, view, { maxChars: this.maxChars, style: this.style });
      prompts[view] = built.prompt;
      // Every view cuts the same text the same way: one record of it is enough.
      truncation = built.truncated;
    }
    return { ...keepUpstream(record, PROMPT_FIELDS), prompts, prompt_truncation: truncation };
  }

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
