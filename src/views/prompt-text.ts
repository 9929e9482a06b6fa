// The prompt for one chunk and one view (DESIGN.md §4 layout): the common contract, a TASK
// paragraph for the doc type and view (the view kind's task), the CONTEXT lines, the NER seed, the chunk text and the
// output skeleton. Byte-deterministic: the same inputs always give the same prompt.
import type { ChunkContext, NegatedMention, NerSeed } from '../contracts/chunk.js';
import { jsonSchemaFor } from '../contracts/checkers.js';
import { NER_SEED_KEYS, type DocType } from '../contracts/vocabulary.js';
import { cutText, type TextCut } from './text-cut.js';
import { VIEW_KINDS } from './kinds/index.js';
import { emptyView } from './view-skeleton.js';
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
}

export interface BuiltPrompt {
  prompt: string;
  /** How the chunk text was cut, or null when it was used whole. */
  truncated: TextCut | null;
}

const CONTEXT_KEYS = Object.keys(jsonSchemaFor('chunk_context').properties as object) as (keyof ChunkContext)[];
const NEWLINES_RE = /[\r\n]+/g;

export function buildPrompt(context: ChunkContext, nerSeed: NerSeed, text: string, view: ViewType, options: PromptOptions = {}): BuiltPrompt {
  const { shared, truncated } = promptShared(context, nerSeed, text, options);
  return { prompt: `${promptHead(context.doc_type, view)}\n${shared}\n${promptTail(view, context)}`, truncated };
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
  return [...context, '', NER_SEED_HEADING, seed, ...ruledOut, '', 'CHUNK_TEXT:', chunkText, '', 'OUTPUT JSON (exact keys/types):'];
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
 * negated mentions is byte for byte what it was before they were tracked).
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
