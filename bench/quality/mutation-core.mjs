// The core of the injected-error harness (mutation.score.mjs): take faithful views, inject one
// known error into one item at a time, validate the changed view exactly as rca-validate does, and
// count an injection as caught when the changed view carries a flag the faithful view did not.
// Faithful items are counted as flagged when their own evidence lists a failed check.
// Pure functions over records; the script around it reads the data and prints the table.
import { validateView } from '../../dist/views/validate-view.js';
import { GroundingText } from '../../dist/views/grounding.js';
import { negatedMentions } from '../../dist/views/claims.js';
import { chunkViewItems, fieldRole } from '../../dist/views/evidence.js';
import { isNegated } from '../../dist/views/claims.js';
import { nearCopies } from './realtext-core.mjs';

export const KINDS = ['change_number', 'flip_comparator', 'swap_unit', 'negate', 'invent_id', 'invent_entity', 'foreign_sentence', 'near_copy'];
// A near-copy turns one word of the item to its opposite (direction, state, comparator; the
// real-text score's swaps), or failing that its auxiliary's polarity: the item still matches the
// text in all its other words.
const NEAR_COPY_ORDER = ['direction', 'state', 'comparator', 'polarity'];
export const VIEWS = ['retrieval_summary', 'rca_frame'];

// Fields that state what happened or what to do (evidence.ts POLARITY_FIELDS): a negation is
// injected only there, where it changes what the view asserts.
const POLARITY_FIELDS = new Set(['symptoms_outcomes', 'mechanisms', 'corrective_actions', 'observed', 'hypotheses', 'candidate_actions']);
const NUMBER_RE = /(?<![\p{L}\d]|\p{L}[-_]|\d\.)\d+(?:,\d{3}(?!\d))*(?:\.\d+)?/gu;
const COMPARATOR_SWAPS = [
  [/\bat least\b/i, 'at most'],
  [/\bat most\b/i, 'at least'],
  [/\bgreater than\b/i, 'less than'],
  [/\bmore than\b/i, 'less than'],
  [/\bless than\b/i, 'greater than'],
  [/\babove\b/i, 'below'],
  [/\bbelow\b/i, 'above'],
  [/\bexceeds?\b/i, 'is below'],
  [/\bmaximum\b/i, 'minimum'],
  [/\bminimum\b/i, 'maximum'],
];
const UNIT_SWAPS = [
  ['mils', 'psig'], ['psig', 'gpm'], ['psid', 'mils'], ['gpm', 'psig'], ['in/s', 'mils'], ['°F', 'psig'], ['%', 'psig'],
  ['minutes', 'hours'], ['hours', 'minutes'], ['inHg', 'psig'], ['ppb', 'ppm'], ['ft-lbs', 'psig'], ['years', 'days'], ['psi', 'gpm'],
];
const AUXILIARIES = /\b(is|was|were|are|has been|have been|shall be|must be|will be)\b/i;
const NEGATION_WORDS = /\b(no|not|never|none|without)\b\s*/i;
// Plant entities from outside the sample documents.
const FOREIGN_ENTITIES = ['CCW', 'RCIC', 'HPCI', 'EDG', 'Charging Pump', 'Service Water pump'];
const ID_RE = /(?<![\p{L}\p{N}_*-])(?=[\p{L}\p{N}_*-]*\d)(?=[\p{L}\p{N}_*-]*\p{Lu})[\p{L}\p{N}]+(?:[-_*][\p{L}\p{N}]+)+(?![\p{L}\p{N}_*-])/gu;
const ACRONYM_RE = /(?<![\p{L}\p{N}_-])\p{Lu}[\p{Lu}\d]{1,5}(?![\p{L}\p{N}_-])/gu;

/**
 * One injected error of a kind into an item, or null when the kind does not apply to it (no
 * number to change, no comparator to flip, ...). `other` is a sentence from another chunk.
 */
export function mutate(kind, item, { field, text, seed = 0, other = null }) {
  switch (kind) {
    case 'change_number': {
      const numbers = [...item.matchAll(NUMBER_RE)];
      if (numbers.length === 0) return null;
      const m = numbers[seed % numbers.length];
      const changed = changeNumber(m[0], text);
      return item.slice(0, m.index) + changed + item.slice(m.index + m[0].length);
    }
    case 'flip_comparator': {
      for (const [re, to] of COMPARATOR_SWAPS) if (re.test(item)) return item.replace(re, to);
      return null;
    }
    case 'swap_unit': {
      for (const [from, to] of UNIT_SWAPS) {
        const re = new RegExp(`(\\d)\\s*${escape(from)}(?![\\p{L}])`, 'u');
        if (re.test(item)) return item.replace(re, `$1 ${to}`);
      }
      return null;
    }
    case 'negate': {
      if (!POLARITY_FIELDS.has(field)) return null;
      if (isNegated(item)) return item.replace(NEGATION_WORDS, '').replace(/^\s*\w/, (c) => c.toUpperCase());
      if (AUXILIARIES.test(item)) return item.replace(AUXILIARIES, (aux) => `${aux} not`);
      // "0310: operators started …" → "0310: No operators started …": the negation goes after a time or step label.
      const label = /^(\s*[\d.:]+\s*:?\s+)(.*)$/s.exec(item);
      if (label !== null) return `${label[1]}No ${label[2]}`;
      return `No ${/^\p{Lu}\p{Ll}/u.test(item) ? item[0].toLowerCase() + item.slice(1) : item}`;
    }
    case 'invent_id': {
      const ids = [...item.matchAll(ID_RE)];
      if (ids.length > 0) {
        const m = ids[seed % ids.length];
        return item.slice(0, m.index) + inventId(m[0], text) + item.slice(m.index + m[0].length);
      }
      return `${item} at ${inventId('FT-4821', text)}`;
    }
    case 'invent_entity': {
      const foreign = FOREIGN_ENTITIES.filter((e) => !text.toLowerCase().includes(e.toLowerCase().split(' ')[0]));
      const entity = foreign[seed % foreign.length];
      const acronyms = [...item.matchAll(ACRONYM_RE)].filter((m) => !/\d/.test(m[0]));
      if (acronyms.length > 0 && /^[A-Z]+$/.test(entity)) {
        const m = acronyms[0];
        return item.slice(0, m.index) + entity + item.slice(m.index + m[0].length);
      }
      return `${item} on the ${entity}${/^[A-Z]+$/.test(entity) ? ' system' : ''}`;
    }
    case 'near_copy': {
      const copies = new Map(nearCopies(item));
      for (const k of NEAR_COPY_ORDER) if (copies.has(k)) return copies.get(k);
      return null;
    }
    case 'foreign_sentence': {
      if (other === null) return null;
      return `${item.replace(/[.;\s]*$/, '')}. ${other}`;
    }
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

function changeNumber(token, text) {
  const value = Number(token.replaceAll(',', ''));
  const decimals = token.includes('.') ? token.split('.')[1].length : 0;
  for (const candidate of [value + 1, value * 3 + 7, value + 13]) {
    const written = decimals > 0 ? candidate.toFixed(decimals) : String(Math.round(candidate));
    if (!new RegExp(`(?<![\\d.,])${escape(written)}(?![\\d])`).test(text.replaceAll(',', ''))) return written;
  }
  return `${token}9`;
}

function inventId(id, text) {
  for (let bump = 1; bump < 50; bump++) {
    const changed = id.replace(/\d+(?=\D*$)/, (d) => String(Number(d) + bump).padStart(d.length, '0'));
    if (!text.includes(changed)) return changed;
  }
  return `${id}X`;
}

function escape(s) {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Sets an item of a view by field path and index (a copy of the view is changed). */
function withItem(view, field, index, value) {
  const copy = structuredClone(view);
  const parts = field.split('.');
  let at = copy;
  for (const p of parts.slice(0, -1)) at = at[p];
  const last = parts.at(-1);
  if (Array.isArray(at[last])) at[last][index] = value;
  else at[last] = value;
  return copy;
}

function check(viewType, view, record, grounding) {
  const v = structuredClone(view);
  const context = [record.context.section_path, record.context.doc_id, ...(typeof record.doc_name === 'string' ? [record.doc_name] : [])];
  return validateView(viewType, v, record.context, grounding, { negated: negatedMentions(record.ner_seed), context });
}

/** A sentence from another chunk (the next record's first sentence of 5 words or more not in this text). */
function foreignSentence(records, i) {
  for (let k = 1; k < records.length; k++) {
    const other = records[(i + k) % records.length];
    for (const s of other.text.split(/(?<=[.!?])\s+/)) {
      if (s.split(/\s+/).length >= 5 && !records[i].text.includes(s) && /^[A-Z]/.test(s)) return s.trim();
    }
  }
  return null;
}

/**
 * Scores a set of records holding faithful views: {faithful: {items, flagged, flags}, byKind:
 * {kind: {injected, caught, missed: [...]}}}. `exclude(record, view, field, index)` leaves out items
 * known to be unfaithful (they are neither faithful items nor injection targets).
 */
export function score(records, { source = 'views', exclude = () => false } = {}) {
  const byKind = Object.fromEntries(KINDS.map((k) => [k, { injected: 0, caught: 0, missed: [] }]));
  const faithful = { items: 0, flagged: 0, flags: [] };
  records.forEach((record, r) => {
    const grounding = new GroundingText(record.text);
    const other = foreignSentence(records, r);
    for (const viewType of VIEWS) {
      const view = record[viewType];
      if (view === null || typeof view !== 'object') continue;
      const base = check(viewType, view, record, grounding);
      const baseFlags = new Set(base.flags);
      base.evidence.items.forEach((ev) => {
        if (ev.role === 'free' || exclude(record, viewType, ev.field, ev.index)) return;
        faithful.items++;
        if (ev.checks.length > 0) {
          faithful.flagged++;
          faithful.flags.push(`${record.chunk_id} ${viewType}.${ev.field}[${ev.index}]: ${ev.checks.join(', ')}`);
        }
      });
      const items = chunkViewItems(viewType, base.view);
      items.forEach(([field, index, value], n) => {
        if (fieldRole(field) === 'free' || exclude(record, viewType, field, index)) return;
        for (const kind of KINDS) {
          const mutated = mutate(kind, value, { field, text: record.text, seed: r + n, other });
          if (mutated === null || mutated === value) continue;
          const result = check(viewType, withItem(base.view, field, index, mutated), record, grounding);
          const added = result.flags.filter((f) => !baseFlags.has(f));
          const entry = byKind[kind];
          entry.injected++;
          if (added.length > 0) entry.caught++;
          else entry.missed.push(`${source} ${record.chunk_id} ${viewType}.${field}[${index}]: ${JSON.stringify(value)} → ${JSON.stringify(mutated)}`);
        }
      });
    }
  });
  return { faithful, byKind };
}

/** Adds up scores of several sources. */
export function combine(scores) {
  const byKind = Object.fromEntries(KINDS.map((k) => [k, { injected: 0, caught: 0, missed: [] }]));
  const faithful = { items: 0, flagged: 0, flags: [] };
  for (const s of scores) {
    faithful.items += s.faithful.items;
    faithful.flagged += s.faithful.flagged;
    faithful.flags.push(...s.faithful.flags);
    for (const k of KINDS) {
      byKind[k].injected += s.byKind[k].injected;
      byKind[k].caught += s.byKind[k].caught;
      byKind[k].missed.push(...s.byKind[k].missed);
    }
  }
  return { faithful, byKind };
}
