// What a view is. A view kind (one file per view in this folder) holds what is the view's own:
// its name, the records it is written on, its prompt task, its quality rules and the wording of
// their flags, the roles of its fields in the evidence checks, what must occur in the source text,
// its flatten layout and whether the extractive backend writes it. The machinery a family of views
// shares — reading the records, building the prompt of an attempt, checking a reply, writing the
// results back — is its record kind (views/records/), reached through RECORD_KINDS by the view
// kind's `reads`. Generation works only through these two.
//
// This folder imports nothing else of views/ (the machinery reads the kinds, never the reverse),
// and it is light on purpose (flatten, a fast path, reads the layouts): nothing here loads the
// schemas, the evidence checks or the extractive rules.
import type { ChunkContext, NerSeed } from '../../contracts/chunk.js';
import type { DocType, ViewName, ViewType } from '../../contracts/vocabulary.js';
import type { JsonObject } from '../../contracts/json.js';
import type { FormatBounds } from './bounds.js';

/** What an extractive builder (views/extractive.ts) reads: the chunk's trusted context, its seed and its text. */
export interface ExtractiveInput {
  context: ChunkContext;
  nerSeed: NerSeed;
  text: string;
}

/** The top-level fields of a view in contract order, as views/view-shape.ts reads them from the schema. */
export interface ViewFields {
  readonly fields: ReadonlyMap<string, { readonly kind: string }>;
}

/**
 * The role of a field in the evidence checks (views/evidence.ts): claim (the default) is located
 * and checked for support, numbers, ids, units, comparators, negation and entities; summary is a
 * claim whose description needs no clause behind it; entity is located and may be novel; id is
 * located and checked as an identifier; free is located and never flagged.
 */
export type FieldRole = 'claim' | 'summary' | 'entity' | 'id' | 'free';

export interface FlattenLayout {
  /** Joins the items of a list field. */
  separator: string;
  /** [label, path in the view] in output order. */
  fields: ReadonlyArray<readonly [string, string]>;
  /** The text starts with the view's own `SECTION: <section_path>` line (a section's view stands alone; a chunk's views share one in `combined`). */
  pathLine?: boolean;
}

interface KindBase {
  readonly flatten: FlattenLayout;
  /** How the retry prompt explains each of its own quality flags; `source` names the text (CHUNK_TEXT, SECTION_TEXT). */
  readonly feedback: Readonly<Record<string, (source: string) => string>>;
  /** The evidence role of each dotted field that is not a claim. */
  readonly roles: Readonly<Record<string, FieldRole>>;
  /** Fields that state what happened or what to do: an item there keeps the polarity of its clause (negation checks). */
  readonly polarity: readonly string[];
  /** The grammar bounds of the format sent (generation/format-bounds.ts): one per string and list of the contract. */
  readonly bounds: FormatBounds;
}

/** A view written on each tagged chunk (rca-generate --views). */
export interface ChunkViewKind extends KindBase {
  readonly name: ViewType;
  readonly reads: 'chunk';
  /** The TASK paragraph of its prompt: how to name it, what to stress per doc type, what will be checked. */
  readonly task: { readonly article: 'a' | 'an'; readonly focus: Readonly<Record<DocType, string>>; readonly rules: string };
  /** Its quality flags (beyond the shape, grounding and evidence checks every chunk view gets). */
  quality(view: JsonObject, shape: ViewFields): string[];
  /** List fields whose items are identifiers that must occur in the chunk text. */
  readonly identifiers: readonly string[];
  /** True: the extractive backend writes it, with its builder in views/extractive.ts (EXTRACTIVE_BUILDERS); false: that backend refuses it. */
  readonly extractive: boolean;
}

/** A view written on each section of rca-count-sections output (rca-generate --view). */
export interface SectionViewKind extends KindBase {
  readonly name: 'section_summary';
  readonly reads: 'section';
  /** True: the extractive backend writes it (section-records.ts holds the builder, which needs the lexicon). */
  readonly extractive: boolean;
}

export type ViewKind = ChunkViewKind | SectionViewKind;

/** The view kind of each name: a view name without a kind fails to compile. */
export type ViewKinds = { readonly [V in ViewName]: V extends ViewType ? ChunkViewKind : V extends SectionViewKind['name'] ? SectionViewKind : never };
