// The view lists and field maps the view stages take (--views, --from-fields), read from plain
// values. A bad value is a ViewListError; the stages turn it into a usage error.
import { isViewType, VIEW_TYPES, type ViewType } from '../contracts/vocabulary.js';

/** The chunk views as the help texts name them, so that a new view is in every --help at once. */
export const CHUNK_VIEWS_SAID = {
  /** "retrieval_summary and rca_frame" */
  and: VIEW_TYPES.join(', ').replace(/, ([^,]+)$/, ' and $1'),
  /** "retrieval_summary, rca_frame" */
  list: VIEW_TYPES.join(', '),
  /** '{retrieval_summary: "...", rca_frame: "..."}' */
  object: `{${VIEW_TYPES.map((view) => `${view}: "..."`).join(', ')}}`,
  /** The help of --from-fields (rca-validate, rca-flatten). */
  fromFields: `record fields holding the views: ${VIEW_TYPES.map(() => 'FIELD').join(',')} for ${VIEW_TYPES.join(' then ')}, or VIEW=FIELD [default: ${VIEW_TYPES.join(',')}]`,
  /** The example value of --from-fields. */
  fromFieldsExample: VIEW_TYPES.map((view) => `${view}_json`).join(','),
};

/** A --views or --from-fields value that names no view, or names one wrongly. */
export class ViewListError extends Error {
  override name = 'ViewListError';
}

/** `--views a,b --views c` → the selected views in canonical order (output never depends on typing order). */
export function parseViewList(values: readonly string[], option = 'views'): ViewType[] {
  const chosen = new Set<ViewType>();
  for (const item of splitList(values)) {
    if (!isViewType(item)) throw new ViewListError(`--${option} must name views among ${VIEW_TYPES.join(', ')}; got '${item}'`);
    chosen.add(item);
  }
  if (chosen.size === 0) throw new ViewListError(`--${option} names no view`);
  return VIEW_TYPES.filter((v) => chosen.has(v));
}

/** Where each view is stored on a record: by default under its own name. */
export type ViewFields = Partial<Record<ViewType, string>>;
export const DEFAULT_VIEW_FIELDS: Readonly<Record<ViewType, string>> = Object.fromEntries(VIEW_TYPES.map((view) => [view, view])) as Record<ViewType, string>;

/**
 * `--from-fields retrieval_summary_json,rca_frame_json` (positional: the fields of
 * retrieval_summary then rca_frame) or `--from-fields rca_frame=frame` (named). Views not
 * named keep their default field only when nothing was given.
 */
export function parseViewFields(values: readonly string[], option = 'from-fields'): ViewFields {
  const items = splitList(values);
  if (items.length === 0) return { ...DEFAULT_VIEW_FIELDS };
  const fields: ViewFields = {};
  items.forEach((item, index) => {
    const eq = item.indexOf('=');
    const view = eq >= 0 ? item.slice(0, eq) : VIEW_TYPES[index];
    const field = eq >= 0 ? item.slice(eq + 1) : item;
    if (view === undefined) throw new ViewListError(`--${option} takes at most ${VIEW_TYPES.length} positional fields (${VIEW_TYPES.join(', ')})`);
    if (!isViewType(view)) throw new ViewListError(`--${option}: unknown view '${view}' (views: ${VIEW_TYPES.join(', ')})`);
    if (field === '') throw new ViewListError(`--${option}: empty field name for ${view}`);
    if (fields[view] !== undefined) throw new ViewListError(`--${option}: ${view} is given twice`);
    fields[view] = field;
  });
  return fields;
}

function splitList(values: readonly string[]): string[] {
  const items: string[] = [];
  for (const value of values) {
    for (const part of value.split(',')) {
      const item = part.trim();
      if (item !== '') items.push(item);
    }
  }
  return items;
}
