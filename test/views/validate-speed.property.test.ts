// rca-validate's fast paths against the paths they stand in for, on generated input: the key
// order check before keepContractKeys moves anything, the space collapse of the duplicate check,
// the one-sentence split, the view summary in one pass, the findings an item repeated within a
// text reuses, the partial match with and without the stem index, the text's quantities made
// without their phrase, word lookups without the word set, and the stage parsing lines without
// the members it writes anew.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRecordLine } from '../../src/runtime/record-line.js';
import validateStage from '../../src/transforms/validate.js';
import type { JsonObject } from '../../src/contracts/json.js';
import { hasWord, quantitiesOf, wordsOf } from '../../src/views/claims.js';
import { chunkViewEvidence, chunkViewItems, fieldRole, finish, idsIn, itemEvidence, type ItemEvidence } from '../../src/views/evidence.js';
import { exactAt, locate, splitSentences } from '../../src/views/evidence-match.js';
import { EvidenceText, normalisedForm } from '../../src/views/evidence-text.js';
import { GroundingText, numbersIn } from '../../src/views/grounding.js';
import { collapseSpaces, keepContractKeys } from '../../src/views/validate-view.js';
import { VIEW_SHAPES, type ObjectShape } from '../../src/views/view-shape.js';
import type { ViewType } from '../../src/contracts/vocabulary.js';

// keepContractKeys as it was: every key deleted, the contract's put back in contract order.
function referenceKeep(shape: ObjectShape, obj: JsonObject): void {
  const kept: [string, unknown][] = [];
  for (const [key, field] of shape.fields) {
    if (!Object.hasOwn(obj, key)) continue;
    const value = obj[key];
    if (field.kind === 'object' && value !== null && typeof value === 'object' && !Array.isArray(value)) referenceKeep(field, value as JsonObject);
    kept.push([key, value]);
  }
  for (const key of Object.keys(obj)) delete obj[key];
  for (const [key, value] of kept) obj[key] = value;
}

// splitSentences as it was: always the pattern.
const SENTENCE_SPLIT_RE = /(?<=[.!?;])\s+(?=[\p{Lu}\p{N}"“(])/u;
function referenceSentences(value: string): { text: string; start: number; end: number }[] {
  const out: { text: string; start: number; end: number }[] = [];
  let at = 0;
  for (const piece of value.split(SENTENCE_SPLIT_RE)) {
    const start = value.indexOf(piece, at);
    at = start + piece.length;
    const trimmed = piece.trim();
    if (/[\p{L}\p{N}]/u.test(trimmed)) out.push({ text: trimmed, start: start + piece.indexOf(trimmed), end: start + piece.indexOf(trimmed) + trimmed.length });
  }
  return out;
}

// finish as it was: a filter per match kind and the items copied without their counts.
function referenceFinish(items: (ItemEvidence & { mentions: number; novel: number })[], floor: number) {
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  const counted = items.filter((i) => i.role !== 'free');
  const n = counted.length;
  const share = (kind: string): number => (n === 0 ? 0 : round(counted.filter((i) => i.match === kind).length / n));
  const entities = items.reduce((sum, i) => sum + i.mentions, 0);
  const novel = items.reduce((sum, i) => sum + i.novel, 0);
  const grounding = { items: n, exact: share('exact'), normalised: share('normalised'), partial: share('partial'), none: share('none'), entities, novel_entities: novel, novel_entity_rate: entities === 0 ? null : round(novel / entities) };
  const flags = items.flatMap((i) => i.checks);
  const strong = n === 0 ? 1 : counted.filter((i) => i.match === 'exact' || i.match === 'normalised').length / n;
  if (floor > 0 && strong < floor) flags.push(`weak_grounding:${round(strong)}`);
  return { evidence: { items: items.map(({ mentions: _m, novel: _n, ...item }) => item), grounding }, flags: [...new Set(flags)] };
}

const piece = fc.constantFrom('Pump', 'pump', 'Charging Pump', 'CCW', 'SWX', 'P-101A', 'FT-1102', '1,175', '5.0', '6.2', 'mils', 'psig', '%', '°F', 'in/s', 'above', 'below', 'at least', 'not more than', 'no', 'not', 'never', 'without', "didn't", 'ruled out', 'tripped', 'trip', 'valve', 'seal', 'leak', 'the', 'was', 'Vibration', 'although', 'but', '. ', '; ', '! ', '? ', ', ', ' ', '  ', '\n', '\t', '|', '| |', '"', '“quoted”', '(', ')', '/', ':', '*', '#', 'é', 'ﬁlter', '\u00a0', '\u2011', 'NOTE');
const textArb = fc.array(piece, { maxLength: 30 }).map((p) => p.join(' '));

describe('validate fast paths match the paths they replace', () => {
  it('keepContractKeys: the same keys in the same order, whether or not they were in order already', () => {
    for (const view of ['retrieval_summary', 'rca_frame'] as ViewType[]) {
      const shape = VIEW_SHAPES[view];
      const keys = [...shape.fields.keys()];
      const member = fc.constantFrom(...keys, 'extra', 'zzz', '0', '__proto__');
      fc.assert(
        fc.property(fc.uniqueArray(member, { maxLength: keys.length + 3 }), fc.uniqueArray(fc.constantFrom('doc_id', 'section_path', 'page_start', 'page_end', 'systems', 'components', 'equipment_ids', 'x'), { maxLength: 6 }), fc.boolean(), (order, inner, sorted) => {
          const chosen = sorted ? keys.filter((k) => order.includes(k)) : order;
          const make = (): JsonObject => {
            const obj: JsonObject = {};
            for (const k of chosen) {
              if (k === '__proto__') Object.defineProperty(obj, k, { value: 1, enumerable: true, configurable: true, writable: true });
              else obj[k] = k === 'citations' || k === 'entities' ? Object.fromEntries(inner.map((c) => [c, c])) : k;
            }
            return obj;
          };
          const a = make();
          const b = make();
          keepContractKeys(shape, a);
          referenceKeep(shape, b);
          expect(Object.keys(a)).toEqual(Object.keys(b));
          expect(JSON.stringify(a)).toBe(JSON.stringify(b));
        }),
        { numRuns: 1500 },
      );
    }
  });

  it('collapseSpaces: trim and one space for every run of whitespace', () => {
    const unit = fc.constantFrom('a', 'B', '1', ' ', '  ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u2003', '\u3000', '\ufeff', 'é', '.', '-');
    fc.assert(fc.property(fc.oneof(fc.string({ unit, maxLength: 20 }), fc.string({ maxLength: 20 })), (s) => {
      expect(collapseSpaces(s)).toBe(s.trim().replace(/\s+/g, ' '));
    }), { numRuns: 5000 });
  });

  it('splitSentences: the pattern\'s pieces, with or without a break in the item', () => {
    const unit = fc.constantFrom('a', 'B', '1', ' ', '\t', '\n', '\u00a0', '\u2003', '.', '!', '?', ';', '"', '“', '(', 'É', '-', 'é');
    fc.assert(fc.property(fc.oneof(fc.string({ unit, maxLength: 24 }), textArb), (s) => {
      expect(splitSentences(s)).toEqual(referenceSentences(s));
    }), { numRuns: 5000 });
  });

  it('the text\'s quantities without phrases: the same values, units and comparators', () => {
    fc.assert(
      fc.property(textArb, (raw) => {
        const text = new EvidenceText(raw);
        const start = (i: number): number => text.clauseOf(i)?.first ?? 0;
        expect(quantitiesOf(text.tokens, undefined, start, false)).toEqual(quantitiesOf(text.tokens, undefined, start).map((q) => ({ ...q, phrase: '' })));
      }),
      { numRuns: 1000 },
    );
  });

  it('numbers and identifiers of a string: the patterns\' matches, skipped only where they cannot match', () => {
    const ID_RE = /(?<![\p{L}\p{N}_*-])(?=[\p{L}\p{N}_*-]*\d)(?=[\p{L}\p{N}_*-]*\p{Lu})[\p{L}\p{N}]+(?:[-_*][\p{L}\p{N}]+)+(?![\p{L}\p{N}_*-])/gu;
    const NUMBER_RE = /(?<![\p{L}\d]|\p{L}[-_]|\d\.)\d+(?:,\d{3}(?!\d))*(?:\.\d+)?/gu;
    const unit = fc.constantFrom('P', 'a', '1', '0', '-', '_', '*', ' ', ',', '.', '１', '①', 'Ⅻ', 'É', '²');
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit, maxLength: 16 }), textArb), (s) => {
        expect([...idsIn(s)].map((m) => m[0])).toEqual([...s.matchAll(ID_RE)].map((m) => m[0]));
        expect(numbersIn(s)).toEqual((/[^\x00-\x7f]/.test(s) ? s.normalize('NFKC') : s).match(NUMBER_RE) ?? []);
      }),
      { numRuns: 4000 },
    );
  });

  it('exactAt: the first occurrence on word boundaries, as with the word pattern at each boundary', () => {
    const W = /[\p{L}\p{N}]/u;
    const glued = (next: string, beyond: string): boolean => next !== '' && (W.test(next) || ((next === '-' || next === '_' || next === '.') && W.test(beyond) && (next !== '.' || /\d/.test(beyond))));
    const reference = (needle: string, hay: string): number => {
      if (needle === '') return -1;
      const checkStart = W.test(needle[0]!);
      const checkEnd = W.test(needle.at(-1)!);
      for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
        if (checkStart && glued(at > 0 ? hay[at - 1]! : '', at >= 2 ? hay[at - 2]! : '')) continue;
        if (checkEnd && glued(hay[at + needle.length] ?? '', hay[at + needle.length + 1] ?? '')) continue;
        return at;
      }
      return -1;
    };
    const unit = fc.constantFrom('a', 'B', '1', '-', '_', '.', ' ', 'é', 'Ж', '٣', '😀', ',');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 20 }), fc.string({ unit, maxLength: 4 }), (hay, needle) => {
        expect(exactAt(needle, hay)).toBe(reference(needle, hay));
      }),
      { numRuns: 5000 },
    );
  });

  it('exactAt: an item quoting a long token of a long run is found in one pass (no compare per start)', () => {
    // Every start in the run is glued to the next letter: indexOf from each next start compared the
    // whole needle at each of them, 2,000,000 × 20,000 characters (the time bound catches that).
    const run = 'a'.repeat(2_000_000);
    const token = 'a'.repeat(20_000);
    expect(exactAt(token, run)).toBe(-1);
    expect(exactAt(token, `${run} ${token}.`)).toBe(run.length + 1);
    // Each start glued to the next "-a" (or, the last, to the "b"), so none is on a boundary.
    expect(exactAt('-a'.repeat(10_000), `${'-a'.repeat(1_000_000)}b`)).toBe(-1);
  });

  it('findNormalised: the same spans whether the joined copy of the text was built before or not', () => {
    fc.assert(
      fc.property(textArb, textArb, fc.nat(), fc.nat({ max: 6 }), (raw, other, at, n) => {
        const words = raw.split(/\s+/).filter(Boolean);
        const from = words.length === 0 ? 0 : at % words.length;
        for (const needle of [normalisedForm(words.slice(from, from + n + 1).join(' ')), normalisedForm(other)]) {
          const built = new EvidenceText(raw);
          void built.norm;
          expect(new EvidenceText(raw).findNormalised(needle, 3)).toEqual(built.findNormalised(needle, 3));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('hasWord: what the text\'s word set says, whether scanned for or read from the set', () => {
    const word = fc.constantFrom('pump', 'pumps', 'trip', 'tripp', 'p', '101a', 'p-101a', 'ft', '1102', 'valv', 'valve', 'seal', 'not', 'ccw', 'charg', 'charging', 'é', 'filter', '1175', '5', '6.2', '', 'zz');
    fc.assert(
      fc.property(textArb, fc.array(word, { maxLength: 30 }), (raw, words) => {
        const text = new EvidenceText(raw);
        const set = wordsOf(new EvidenceText(raw));
        for (const w of words) expect(hasWord(text, w)).toBe(set.has(w));
      }),
      { numRuns: 1500 },
    );
  });

  // A view of items drawn from the text (as written, cut, reworded) and from nowhere, some repeated.
  const viewArb = (raw: string) => {
    const words = raw.split(/\s+/).filter(Boolean);
    const item = fc.oneof(
      fc.tuple(fc.nat(), fc.nat({ max: 12 })).map(([a, n]) => words.slice(a % Math.max(1, words.length), (a % Math.max(1, words.length)) + n + 1).join(' ')),
      textArb,
      fc.constantFrom('no check, test or measurement described', 'Charging Pump CCW', 'P-101A', '5.0 mils', 'not above 6.2 psig'),
    );
    const list = fc.array(item, { maxLength: 5 });
    return fc.record({ scope: item, entities: fc.record({ systems: list, equipment_ids: list, components: list }), symptoms_outcomes: list, mechanisms: list, diagnostics: list, corrective_actions: list, numbers_limits: list, keywords_synonyms: list, unknowns: list });
  };
  const evidenceCase = textArb.chain((raw) => fc.tuple(fc.constant(raw), viewArb(raw), fc.constantFrom(0, 0.5, 0.95), fc.boolean()));

  it('chunk view evidence: repeated items and a shared text give what every item on a fresh text gives', () => {
    fc.assert(
      fc.property(evidenceCase, ([raw, view, floor, negated]) => {
        const options = { floor, context: ['Section 6.1 > Pump Tests', 'doc-7'], negated: negated ? [{ text: 'pump' }, { text: 'reactor trip' }] : [] };
        const got = chunkViewEvidence('retrieval_summary', view as JsonObject, new GroundingText(raw), 'c1', options);
        const map = (s: { start: number; end: number }) => ({ source: 'chunk' as const, id: 'c1', start: s.start, end: s.end });
        const fresh = chunkViewItems('retrieval_summary', view as JsonObject).map(([field, index, value]) => itemEvidence(field, index, value, fieldRole(field), new GroundingText(raw), map, { ...options }, true));
        expect(got).toEqual(referenceFinish(fresh, floor));
        expect(finish(fresh, { floor })).toEqual(referenceFinish(fresh, floor));
      }),
      { numRuns: 600 },
    );
  });

  it('partial matches: the same answer from the token scan and from the stem index', () => {
    fc.assert(
      fc.property(textArb, fc.array(textArb, { minLength: 1, maxLength: 5 }), (raw, items) => {
        const scanned = items.map((item) => locate(`${item} zzqx`, new EvidenceText(raw)));
        const shared = new EvidenceText(raw);
        for (let k = 0; k < 3; k++) locate(`warm ${k} zzqx pump`, shared);
        expect(items.map((item) => locate(`${item} zzqx`, shared))).toEqual(scanned);
      }),
      { numRuns: 800 },
    );
  });
});

describe('rca-validate parsing lines without the members it writes anew', () => {
  const base = {
    chunk_id: 'c1',
    doc_id: 'd1',
    text: 'Vibration was 6.2 mils on P-101A. No leak was found.',
    context: { doc_id: 'd1', doc_type: 'WO', chunk_id: 'c1', section_path: 'A > B', page_start: 1, page_end: 1, authority_level: 'informational', section_role: 'body' },
    retrieval_summary: { scope: 'Vibration was 6.2 mils on P-101A.', entities: { systems: [], equipment_ids: ['P-101A'], components: [] }, symptoms_outcomes: [], mechanisms: [], diagnostics: [], corrective_actions: [], numbers_limits: ['6.2 mils'], keywords_synonyms: [], unknowns: [] },
  };
  const member = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant({ retrieval_summary: { items: [] } }));
  const lineArb = fc.tuple(member, member, fc.boolean(), fc.nat(), fc.constantFrom('', '"', '}', 'x', '[')).map(([evidence, flags, breakIt, at, c]) => {
    const line = JSON.stringify({ ...base, flags, evidence, provenance_fixed: 1 });
    if (!breakIt) return line;
    const i = at % line.length;
    return line.slice(0, i) + c + line.slice(i + 1);
  });

  it('the same output and rejects as parsing the whole line', async () => {
    const fast = (await validateStage.create({ 'from-fields': [], 'flags-ok': true, 'grounding-floor': 0 } as never, { env: {} } as never)) as unknown as { lines: { parse(l: string): ReturnType<typeof parseRecordLine> }; process(r: JsonObject, m: unknown): { records?: unknown[]; reject?: unknown } };
    const whole = (await validateStage.create({ 'from-fields': [], 'flags-ok': true, 'grounding-floor': 0 } as never, { env: {} } as never)) as unknown as typeof fast;
    const meta = { source: 'stdin', line: 1, raw: '' };
    fc.assert(
      fc.property(lineArb, (line) => {
        const a = fast.lines.parse(line);
        const b = parseRecordLine(line);
        expect(a.reject).toEqual(b.reject);
        if (b.reject) return;
        expect(JSON.stringify(fast.process(a.record!, meta))).toBe(JSON.stringify(whole.process(b.record!, meta)));
      }),
      { numRuns: 1500 },
    );
  });
});
