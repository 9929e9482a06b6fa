// The grammar bounds a view kind gives its format (maxLength on every string, maxItems on every
// list, the minima its checks demand): what generation/format-bounds.ts adds to the contract's
// JSON Schema before it is sent. The shared pieces are here; each kind names its own fields.

export interface StringBound {
  minLength?: number;
  maxLength: number;
}
export interface ListBound {
  minItems?: number;
  maxItems: number;
  item: StringBound;
}
export type FieldBound = StringBound | ListBound;

/** Bounds by dotted property path; every string and list of the view's schema must have one. */
export type FormatBounds = Readonly<Record<string, FieldBound>>;

const ITEM_MIN_LENGTH = 1;
/** A list of at most `maxItems` non-empty strings of at most `maxLength` characters. */
export const list = (maxItems: number, maxLength: number, minItems?: number): ListBound => ({
  ...(minItems === undefined ? {} : { minItems }),
  maxItems,
  item: { minLength: ITEM_MIN_LENGTH, maxLength },
});
export const ID: StringBound = { maxLength: 160 };
export const PATH: StringBound = { maxLength: 300 };
export const CITATIONS = { 'citations.doc_id': ID, 'citations.section_path': PATH };
