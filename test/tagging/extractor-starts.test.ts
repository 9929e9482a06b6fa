import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractPatterns, refineEquipment, documentReferences, type PatternSpans } from '../../src/tagging/extractors.js';
import { alarmIds, docRefs, equipmentIds, fmIds } from '../../src/tagging/extractors/identifiers.js';
import { measurements } from '../../src/tagging/extractors/measurements.js';
import { plainDesignators } from '../../src/tagging/extractors/designators.js';
import { type Family, findStarts, StartLists } from '../../src/tagging/extractors/scan.js';
import { TokenBuffer } from '../../src/tagging/phrase-matcher.js';
import { temporalRefs } from '../../src/tagging/extractors/temporal.js';

// The extractors try each family's regex only where findStarts marks a possible start. These
// properties hold that to what a global scan of each regex gives, on texts built to hit the
// start shapes from every side (signs, joiners, month names, GAPs, non-ASCII neighbours).

const FAMILIES: ReadonlyArray<readonly [string, Family<unknown>]> = [
  ['doc_refs', docRefs],
  ['alarm_ids', alarmIds],
  ['fm_ids', fmIds],
  ['equipment_ids', equipmentIds],
  ['temporal_refs', temporalRefs],
  ['measurements', measurements],
];

const fragment = fc.constantFrom(
  'P-101A', 'VB-101A', 'CR-2026-00123', 'CAP2026-00124', 'WO 12345678', 'WO\u00a012345', 'PM 1234', 'ECA-2026-0007',
  'SOP-U2-CND-001', 'EOP-E-0', 'OP-1234.2', 'LER 123-2020-001', 'GL 2008-01', 'BULLETIN 2012-01', 'ALM-1234A',
  'ANNUNC-B-12', 'WINDOW A-14', 'Window A-1', 'PAS-1234-HI', '1-FW-LO-FLOW', '2-CS-HI-HI', 'FM_AIR_INLEAK', 'FM_',
  'FMEA', '2026-02-06', '2026-02-06T03:22:00Z', '2/6/2026', '03:22', '03:22 UTC', '14:05:30', 'February 6, 2026',
  'Feb. 6', 'feb 2026', 'MAY 5', 'may 5', 'Sept.', 'January', 'jun', 'JULY', 'Nov', 'dec.', 'Mar,', 'within',
  'over', 'for', 'after', 'In', 'past', 'last', 'NEXT', 'every', 'of', 'on', 'exceed', '6th', '2nd', 'hours', 'hrs',
  'days', 'shifts', 'min', '24-hour', 'to', '1,175', '1 200', '1\u00a0200', '6.2', '.5', '40', '100-120', '100–120',
  '5', '12', '2026', 'psig', 'psi', '%', 'mils', 'in', 'in. Hg', 'A', 'gpm', '°F', 'kV', 'ft-lbs', 'mR/hr',
  ' ', ' ', ' ', '  ', '\t', '\n', '\u00a0', '\u202f', '-', '+', '−', '±', '–', '—', '_', '|', ' | ', '.', ',',
  ':', '/', '(', ')', 'x', 'X', 'é', 'Ω', 'ß', '\u0130', '5é', 'é5', 'P', 'W', 'F', 'M', 'CA-1', 'I-131', 'HI-HI',
  'FM-12', '1SI-8801A', '2RCS*PT455', '*', 'P-101A/B', '/B', 'PM-U2-CND-EXPJOINT-INSP-A', '10 CFR 50.59', 'NUREG-1801',
  'IEEE 323-1974', 'Tech Spec 3.7.5', 'LCO 3.0.3', '1.5E-3', 'rem', 'times', 'Annunciator ', 'alarm ',
);
const texts = fc.oneof(
  fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join('')),
  fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join(' ')),
  fc.string({ maxLength: 60 }),
);

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const FIXTURE_TEXTS = read('test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .flatMap((line) => {
    const record = JSON.parse(line) as Record<string, unknown>;
    return [record.text, record.raw_text].filter((value): value is string => typeof value === 'string');
  });

function startsOf(text: string, family: Family<unknown>): Set<number> {
  const lists = findStarts(text, new StartLists());
  return new Set(lists.listOf(family.bit).subarray(0, lists.countOf(family.bit)));
}

/** Every position where the family's (sticky) regex matches. */
function matchPositions(text: string, family: Family<unknown>): number[] {
  const positions: number[] = [];
  for (let p = 0; p <= text.length; p++) {
    family.regex.lastIndex = p;
    if (family.regex.test(text)) positions.push(p);
  }
  return positions;
}

/**
 * The same result from one global scan per family, as the extractors ran before the start marks
 * (the regulatory references claim their spans first, and equipment is refined last, as there).
 */
function globalScanReference(text: string): PatternSpans {
  const claimed = new Uint8Array(text.length);
  const references = documentReferences(text);
  for (const ref of references) claimed.fill(1, ref.start, ref.end);
  const run = <T>(family: Family<T>, starts: number[] = []): T[] => {
    const global = new RegExp(family.regex.source, family.regex.flags.replace('y', 'g'));
    const found: { start: number; end: number; key: string; item: T }[] = [];
    for (let match = global.exec(text); match !== null; match = global.exec(text)) {
      const hit = family.at(text, match.index);
      if (hit === null) global.lastIndex = match.index + 1;
      else found.push({ start: match.index, ...hit });
    }
    const items: T[] = [];
    const seen = new Set<string>();
    for (const { start, end, key, item } of found) {
      if (claimed.subarray(start, end).includes(1)) continue;
      claimed.fill(1, start, end);
      if (seen.has(key)) continue;
      seen.add(key);
      items.push(item);
      starts.push(start);
    }
    return items;
  };
  // Both kinds of doc ref in text order, one per case-insensitive key.
  const familyStarts: number[] = [];
  const family = run(docRefs, familyStarts);
  const ordered = [...references.map((r) => ({ start: r.start, text: r.text })), ...family.map((f, k) => ({ start: familyStarts[k]!, text: f }))].sort((a, b) => a.start - b.start);
  const doc_refs: string[] = [];
  for (const { text: ref } of ordered) if (!doc_refs.some((r) => r.toLowerCase() === ref.toLowerCase())) doc_refs.push(ref);
  const alarm_ids = run(alarmIds);
  const fm_ids = run(fmIds);
  // Hyphenated tags and the plain designators ("Bus 3C") in text order, the latter where unclaimed.
  const tagStarts: number[] = [];
  const tags = run(equipmentIds, tagStarts);
  const equipment = tags.map((t, k) => ({ start: tagStarts[k]!, text: t }));
  for (const d of plainDesignators(text)) {
    if (claimed.subarray(d.start, d.end).includes(1)) continue;
    claimed.fill(1, d.start, d.end);
    equipment.push({ start: d.start, text: d.text });
  }
  equipment.sort((a, b) => a.start - b.start);
  const plainOrdered: string[] = [];
  for (const { text: id } of equipment) if (!plainOrdered.some((o) => o.toLowerCase() === id.toLowerCase())) plainOrdered.push(id);
  const equipment_ids = refineEquipment(text, plainOrdered, alarm_ids);
  const temporal_refs = run(temporalRefs);
  const measurement_list = run(measurements);
  return { equipment_ids, doc_refs, alarm_ids, measurements: measurement_list, temporal_refs, fm_ids };
}

describe('findStarts marks every position where a family can match', () => {
  it.each(FAMILIES)('%s, on generated texts', (_name, family) => {
    fc.assert(
      fc.property(texts, (text) => {
        const starts = startsOf(text, family);
        for (const position of matchPositions(text, family)) expect(starts.has(position)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it.each(FAMILIES)('%s, on the DACKAR chunk texts', (_name, family) => {
    for (const text of FIXTURE_TEXTS) {
      const starts = startsOf(text, family);
      for (const position of matchPositions(text, family)) expect(starts.has(position)).toBe(true);
    }
  });

  it.each<[string, string, Family<unknown>, number]>([
    ['a sign before a number', 'dropped to -5 °F', measurements, 11],
    ['a dot before a number', 'gap of .5 in', measurements, 7],
    ['a sign before a dot', 'at -.5 psig', measurements, 3],
    ['a month name before a GAP and a number', 'On February 6, 2026', temporalRefs, 3],
    ['a month name with a dot and a comma', 'Sept., 2025', temporalRefs, 0],
    ['a lead word before a duration', 'within\t2 minutes', temporalRefs, 0],
    ['an ASCII digit after a non-ASCII letter', 'é5 psig', measurements, 1],
    ['a doc ref after a GAP-ended prefix', 'see WO\u00a012345678', docRefs, 4],
    ['the mixed-case Window form', 'lit Window A-14', alarmIds, 4],
  ])('%s', (_name, text, family, position) => {
    expect(startsOf(text, family).has(position)).toBe(true);
  });
});

describe('extractPatterns gives what one global scan per family gives', () => {
  it('on generated texts', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(extractPatterns(text)).toEqual(globalScanReference(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('on the DACKAR chunk texts', () => {
    for (const text of FIXTURE_TEXTS) expect(extractPatterns(text)).toEqual(globalScanReference(text));
  });
});

// TokenBuffer.asciiWords gates the phrase keys and the negation scopes read from word tokens.
describe('TokenBuffer.asciiWords', () => {
  it.each(['café P-101A', 'µs 5', 'P\u0130-101', '\u212a-101 5 psig', 'x\u00b2 5'])('a non-ASCII word character (%j) turns it off', (text) => {
    expect(new TokenBuffer().load(text).asciiWords).toBe(false);
  });

  it.each(['5 °F at P-101A', 'P-101A\u00a0trip — 5\u2013 6 psig', 'WO\u00a012345678'])('non-ASCII punctuation and spaces (%j) keep it on', (text) => {
    expect(new TokenBuffer().load(text).asciiWords).toBe(true);
  });
});
