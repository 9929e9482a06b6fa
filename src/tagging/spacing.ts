// Whitespace runs collapsed to single spaces, for match surfaces, extractive items and embedding
// text alike. Most strings have nothing to collapse, and testing for that allocates nothing where
// replace() would build a new string.

/** What replace(/\s+/g, ' ') would change: two whitespace characters in a row, or one other than
 *  a space (test/views/extractive-reference.property.test.ts holds it to that). */
export const COLLAPSIBLE_SPACING = /\s\s|[^\S ]/;
const WHITESPACE_RUN = /\s+/g;

/** value.replace(/\s+/g, ' '); the value itself when nothing would change. */
export function collapseWhitespace(value: string): string {
  return COLLAPSIBLE_SPACING.test(value) ? value.replace(WHITESPACE_RUN, ' ') : value;
}
