// What a view is. A view kind (one file per view in this folder) holds what is the view's own:
// its name, the records it is written on, its prompt task, its quality rules, what must occur in
// the source text, its flatten layout and its optional extractive builder. The machinery a family
// of views shares — reading the records, building the prompt of an attempt, checking a reply,
// writing the results back — is its record kind (chunk-records.ts, section-records.ts), reached
// through RECORD_KINDS by the view kind's `reads`. Generation works only through these two.
//
// This file and the view kinds are light on purpose (flatten, a fast path, reads the layouts):
// nothing here loads the schemas, the evidence checks or the extractive rules.
import type { DocType, ViewName, ViewType } from '../../contracts/vocabulary.js';
import type { JsonObject } from '../../contracts/json.js';
import type { ExtractiveInput } from '../extractive.js';
import type { ObjectShape } from '../view-shape.js';
import type { FormatBounds } from './bounds.js';

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
  quality(view: JsonObject, shape: ObjectShape): string[];
  /** List fields whose items are identifiers that must occur in the chunk text. */
  readonly identifiers: readonly string[];
  /** Fills the view from the chunk text with no model (the extractive backend); absent: that backend refuses it. */
  readonly extractive?: () => Promise<(input: ExtractiveInput) => JsonObject>;
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
