// The prompt for one chunk and one view, in one of two layouts (PROMPT_STYLES). Both hold the
// common contract, a TASK paragraph for the doc type and view (the view kind's task), the CONTEXT,
// the NER seed, the chunk text and an output skeleton; byte-deterministic.
// - compact (the default): the part that does not depend on the chunk first — contract, TASK, the
//   skeleton of the content fields (the model writes no trusted field: rca stamps them) — so an
//   engine's prefix cache serves it from the second request of a view on; then what does: the
//   section lines, the seed's non-empty lists, what is ruled out, the text.
// - dackar: the seed's layout (DESIGN.md §4): contract, TASK, the eight CONTEXT lines, the whole
//   seed as JSON, the text, and the full view's skeleton with the trusted citations last.
import type { ChunkContext, NegatedMention, NerSeed } from '../contracts/chunk.js';
import { jsonSchemaFor } from '../contracts/checkers.js';
import { NER_SEED_KEYS, type DocType, type PromptStyle } from '../contracts/vocabulary.js';
import { cutText, type TextCut } from './text-cut.js';
import { VIEW_KINDS } from './kinds/index.js';
import { emptyView, viewContentSkeleton } from './view-skeleton.js';
import type { ViewType } from '../contracts/vocabulary.js';

export const COMMON_CONTRACT = `You are an information extraction engine for nuclear plant reliability documents.
Return ONLY valid JSON. Do not include markdown, comments, or extra text.

Rules:
- Use ONLY facts explicitly present in the provided CHUNK_TEXT.
- If a field cannot be filled from CHUNK_TEXT, use an empty array [] and add a short note to unknowns (retrieval_summary only).
- Preserve numbers, limits, units, and step numbers exactly as written.
- Prefer exact phrases from CHUNK_TEXT for technical terms.
- Do NOT invent causes, steps, thresholds, or conclusions.
- Output must match the requested JSON structure exactly (keys and types).
`;

const DOC_NAMES: Record<DocType, string> = {
  SOP: 'a standard operating procedure (SOP)',
  CR: 'a condition report (CR)',
  WO: 'a work order (WO)',
  ECA: 'an event causal evaluation (ECA)',
  OTHER: 'a technical reliability document',
};

export function taskParagraph(docType: DocType, view: ViewType): string {
  const { article, focus, rules } = VIEW_KINDS[view].task;
  return [`TASK: Write ${article} ${view} JSON for one chunk of ${DOC_NAMES[docType]}.`, focus[docType], rules].join('\n');
}

export interface PromptOptions {
  /** Cut the chunk text to this many characters at a sentence or word boundary. */
  maxChars?: number;
  /** The layout; compact unless said. */
  style?: PromptStyle;
}

export interface BuiltPrompt {
  prompt: string;
  /** How the chunk text was cut, or null when it was used whole. */
  truncated: TextCut | null;
}

const CONTEXT_KEYS = Object.keys(jsonSchemaFor('chunk_context').properties as object) as (keyof ChunkContext)[];
const NEWLINES_RE = /[\r\n]+/g;

export function buildPrompt(context: ChunkContext, nerSeed: NerSeed, text: string, view: ViewType, options: PromptOptions = {}): BuiltPrompt {
  if ((options.style ?? 'compact') === 'compact') {
    const { shared, truncated } = compactShared(context, nerSeed, text, options);
    return { prompt: `${compactHead(context.doc_type, view)}\n${shared}`, truncated };
  }
  const { shared, truncated } = promptShared(context, nerSeed, text, options);
  return { prompt: `${promptHead(context.doc_type, view)}\n${shared}\n${promptTail(view, context)}`, truncated };
}

const OUTPUT_HEADING = 'OUTPUT JSON (exact keys/types):';

// A compact prompt is `head \n shared`: the head depends on the doc type and view only (what the
// engine's prefix cache serves), the shared part on the chunk only, the same for every view.

/**
 * The contract, the view's TASK and checks, the skeleton of its content fields, and last the doc
 * type's focus: the part of the head the same for every doc type comes first, so a slot that
 * moves to another document type still finds all but the focus line in its cache.
 */
export function compactHead(docType: DocType, view: ViewType): string {
  return [COMMON_CONTRACT, compactTask(view), '', OUTPUT_HEADING, JSON.stringify(viewContentSkeleton(view), null, 2), '', documentLine(docType), VIEW_KINDS[view].task.focus[docType]].join('\n');
}

function compactTask(view: ViewType): string {
  const { article, rules } = VIEW_KINDS[view].task;
  return [`TASK: Write ${article} ${view} JSON for one chunk of a nuclear plant reliability document.`, rules].join('\n');
}

function documentLine(docType: DocType): string {
  return `DOCUMENT: the chunk is from ${DOC_NAMES[docType]}.`;
}

/**
 * The head of a request for several views of one chunk at once (--views-per-request): the
 * contract, each view's TASK, one skeleton holding each view's content under its name, then the
 * doc type's focus for each view.
 */
export function compactPairHead(docType: DocType, views: readonly ViewType[]): string {
  const skeleton = Object.fromEntries(views.map((view) => [view, viewContentSkeleton(view)]));
  return [
    COMMON_CONTRACT,
    `Write ${views.length} views of the same chunk at once, one JSON object with a key for each view (${views.join(', ')}); each view follows its own TASK.`,
    ...views.flatMap((view) => ['', compactTask(view)]),
    '',
    OUTPUT_HEADING,
    JSON.stringify(skeleton, null, 2),
    '',
    documentLine(docType),
    ...views.map((view) => `${view}: ${VIEW_KINDS[view].task.focus[docType]}`),
  ].join('\n');
}

/** The pair request's prompt: compactPairHead, then the chunk's shared part. */
export function buildPairPrompt(context: ChunkContext, nerSeed: NerSeed, text: string, views: readonly ViewType[], options: PromptOptions = {}): BuiltPrompt {
  const { shared, truncated } = compactShared(context, nerSeed, text, options);
  return { prompt: `${compactPairHead(context.doc_type, views)}\n${shared}`, truncated };
}

/** The section lines, the seed's non-empty lists, what is ruled out and the chunk text. */
export function compactShared(context: ChunkContext, nerSeed: NerSeed, text: string, options: PromptOptions = {}): { shared: string; truncated: TextCut | null } {
  const { text: chunkText, cut } = cutText(text, options.maxChars);
  return { shared: compactSharedLines(context, nerSeed, chunkText).join('\n'), truncated: cut };
}

/** compactShared's text as it is escaped inside a JSON string, from the text escaped already (rca-prompt). */
export function compactSharedEscaped(context: ChunkContext, nerSeed: NerSeed, escapedText: string): string {
  return [...compactSharedLines(context, nerSeed, null).map(jsonEscaped), escapedText].join('\\n');
}

const COMPACT_SEED_HEADING = 'NER_SEED (terms found by rules; may include items not present; include only if supported by CHUNK_TEXT):';
const COMPACT_RULED_OUT_HEADING = 'RULED_OUT (CHUNK_TEXT says these did not occur or were excluded; never list them as symptoms, outcomes or mechanisms):';

// null text: the lines before it (the caller adds the text, escaped).
function compactSharedLines(context: ChunkContext, nerSeed: NerSeed, chunkText: string | null): string[] {
  const seed = compactSeedJson(nerSeed);
  const ruledOut = compactRuledOut(nerSeed.negated ?? []);
  const lines = [
    '',
    'CONTEXT:',
    // The chunk id names the chunk for whoever reads the prompt (a log, --dry-run, a script);
    // the model writes no id.
    `chunk_id: ${contextValue(context.chunk_id)}`,
    `section_path: ${contextValue(context.section_path)}`,
    `section_role: ${contextValue(context.section_role)}`,
    ...(seed === null ? [] : [COMPACT_SEED_HEADING, seed]),
    ...(ruledOut === null ? [] : [COMPACT_RULED_OUT_HEADING, ruledOut]),
    '',
    'CHUNK_TEXT:',
  ];
  return chunkText === null ? lines : [...lines, chunkText];
}

/**
 * The seed as the compact prompt gives it: only its non-empty lists, in DESIGN order, each item as
 * its text (a measurement's, a located or temporal span's); null when
 * every list is empty. `negated` goes to RULED_OUT, not here.
 */
export function compactSeedJson(seed: NerSeed): string | null {
  const out: Record<string, string[]> = {};
  let any = false;
  for (const key of NER_SEED_KEYS) {
    const list = (seed[key] ?? []) as readonly unknown[];
    if (list.length === 0) continue;
    out[key] = list.map(seedItemText);
    any = true;
  }
  return any ? JSON.stringify(out) : null;
}

// A measurement, a temporal relation or a location is its text: the labels are the rules' own
// classification, which the model neither needs nor writes.
function seedItemText(item: unknown): string {
  return typeof item === 'string' ? item : (item as { text: string }).text;
}

/** What the text rules out, as one short JSON list of the mentions' texts (each once); null when none. */
export function compactRuledOut(negated: readonly NegatedMention[]): string | null {
  if (negated.length === 0) return null;
  return JSON.stringify([...new Set(negated.map((m) => m.text))]);
}

// A prompt is `head \n shared \n tail`: the head depends on the doc type and view only, the shared
// middle on the chunk only (the same for every view: rca-prompt makes and escapes it once).

/** The contract, the TASK paragraph and the CONTEXT heading. */
export function promptHead(docType: DocType, view: ViewType): string {
  return [COMMON_CONTRACT, taskParagraph(docType, view), '', 'CONTEXT:'].join('\n');
}

/** The CONTEXT lines, the NER seed, what is ruled out, the chunk text and the OUTPUT heading. */
export function promptShared(context: ChunkContext, nerSeed: NerSeed, text: string, options: PromptOptions = {}): { shared: string; truncated: TextCut | null } {
  const { text: chunkText, cut } = cutText(text, options.maxChars);
  return { shared: sharedLines(contextLines(context), seedJson(nerSeed), ruledOutLines(nerSeed.negated ?? []), chunkText).join('\n'), truncated: cut };
}

/** Parts of promptShared a caller has already, as they are escaped inside a JSON string. */
export interface EscapedParts {
  /** seedJson(nerSeed), not escaped (e.g. a slice of the input line holding the seed). */
  seedJson?: string;
  /** The whole chunk text escaped (jsonEscaped(text)); used where the text is not cut. */
  text?: string;
}

/**
 * jsonEscaped(promptShared(…).shared), made from escaped parts: the JSON string of lines joined by
 * newlines is their escaped texts joined by `\n` (a newline is never half of a surrogate pair, and
 * the fixed lines need no escaping).
 */
export function promptSharedEscaped(context: ChunkContext, nerSeed: NerSeed, text: string, options: PromptOptions, known: EscapedParts): { shared: string; truncated: TextCut | null } {
  const { text: chunkText, cut } = cutText(text, options.maxChars);
  const escapedText = cut === null && known.text !== undefined ? known.text : jsonEscaped(chunkText);
  return { shared: sharedEscaped(context, known.seedJson ?? seedJson(nerSeed), nerSeed.negated ?? [], escapedText), truncated: cut };
}

/** The escaped shared part from the seed's JSON (not escaped), its negated mentions and the escaped chunk text. */
export function sharedEscaped(context: ChunkContext, seedJsonText: string, negated: readonly NegatedMention[], escapedText: string): string {
  return sharedLines(contextLines(context).map(jsonEscaped), jsonEscaped(seedJsonText), ruledOutLines(negated).map(jsonEscaped), escapedText).join('\\n');
}

/** The text of a JSON string without its quotes. */
export function jsonEscaped(text: string): string {
  const json = JSON.stringify(text);
  return json.slice(1, json.length - 1);
}

const NER_SEED_HEADING = 'NER_SEED (may include items not present; include only if supported by CHUNK_TEXT):';
const RULED_OUT_HEADING = 'RULED_OUT (CHUNK_TEXT says these did not occur or were excluded; never list them as symptoms, outcomes or mechanisms):';

/** The shared middle's lines around its four variable parts (the fixed ones are the same escaped). */
function sharedLines(context: string[], seed: string, ruledOut: string[], chunkText: string): string[] {
  return [...context, '', NER_SEED_HEADING, seed, ...ruledOut, '', 'CHUNK_TEXT:', chunkText, '', OUTPUT_HEADING];
}

// A line per context field; doc_subtype only when the document's form gave one: "doc_subtype: null"
// would say nothing doc_type does not, and would change every prompt (and its cached reply) of a
// corpus whose forms say nothing finer.
function contextLines(context: ChunkContext): string[] {
  const lines: string[] = [];
  for (const key of CONTEXT_KEYS) {
    const value = context[key];
    if (key === 'doc_subtype' && value == null) continue;
    lines.push(`${key}: ${contextValue(value ?? null)}`);
  }
  return lines;
}

/** The empty output JSON of the view, with the trusted citations. */
export function promptTail(view: ViewType, context: ChunkContext): string {
  return JSON.stringify(emptyView(view, context), null, 2);
}

/** The seed as one line: all 18 keys in DESIGN order, non-ASCII kept as is. */
export function seedJson(seed: NerSeed): string {
  const ordered: Record<string, unknown> = {};
  for (const key of NER_SEED_KEYS) ordered[key] = seed[key] ?? [];
  return JSON.stringify(ordered);
}

/**
 * What the text rules out ("no evidence of fouling"), so the model does not report it as found:
 * one line per mention, `text (kind; cue: "…")`. Nothing when the seed has none (a prompt without
 * negated mentions has no line, heading or blank line for them).
 */
function ruledOutLines(negated: readonly NegatedMention[]): string[] {
  if (negated.length === 0) return [];
  return [
    '',
    RULED_OUT_HEADING,
    ...negated.map((m) => `- ${contextValue(m.text)} (${contextValue(m.kind)}; cue: ${JSON.stringify(m.cue.replace(NEWLINES_RE, ' '))})`),
  ];
}

// A CONTEXT value is one line whatever another producer put in it; unknown pages print as null.
export function contextValue(value: string | number | null): string {
  return value === null ? 'null' : String(value).replace(NEWLINES_RE, ' ');
}
