// The evidence of chunk and section views, item checks fused into one tokenization per item and
// items built in their final form, against the code it replaced (test/views/reference/
// evidence-before-fusion.ts): the same evidence and flags, byte for byte, on generated views and
// texts — Unicode, numbers with units and comparators, plant ids, negations, ruled-out mentions,
// entity names, repeated items, items not in the text, and two views checked against one text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/contracts/json.js';
import type { ViewType } from '../../src/contracts/vocabulary.js';
import { chunkViewEvidence, fieldRole, finish, itemEvidence, type ViewEvidence } from '../../src/views/evidence.js';
import { splitSentences } from '../../src/views/evidence-match.js';
import { GroundingText } from '../../src/views/grounding.js';
import * as before from './reference/evidence-before-fusion.js';

const piece = fc.constantFrom(
  'Pump', 'pump', 'pumps', 'Charging Pump', 'Service Water pump', 'CCW', 'SWX', 'RCS', 'P-101A', 'FT-1102', '2RCS*PT455', 'P_7', '1,175', '5.0', '6.2', '6.20', '101', 'mils', 'psig', 'gpm', '%', '°F', '° F', 'in/s', 'ft-lbs',
  'above', 'below', 'at least', 'not more than', 'no more than', 'not to exceed', 'less than', 'maximum', '>', '≤',
  'no', 'No', 'not', 'never', 'without', "didn't", 'don’t', 'ruled out', 'No. 2', 'tripped', 'trip', 'valve', 'seal', 'leak', 'the', 'was', 'Vibration', 'although', 'but',
  '. ', '; ', '! ', '? ', ', ', ' ', '  ', '\n', '\t', '|', '| |', '"', '“quoted”', '(', ')', '/', ':', '*', '#', '-', '_',
  'é', 'É', 'ﬁlter', '½', '\u00a0', '\u2011', '\u2212', '\ufeff', 'Ωmega', '𝐏ump', '日本', 'NOTE', 'Section 6.1', 'doc-7',
);
const textArb = fc.array(piece, { maxLength: 30 }).map((p) => p.join(' '));

// Items drawn from the text (as written, cut, padded, re-cased), from anywhere, and a few fixed.
const itemArb = (raw: string) => {
  const words = raw.split(/\s+/).filter(Boolean);
  const cut = fc.tuple(fc.nat(), fc.nat({ max: 12 })).map(([a, n]) => words.slice(a % Math.max(1, words.length), (a % Math.max(1, words.length)) + n + 1).join(' '));
  return fc.oneof(
    cut,
    cut.map((s) => ` ${s}\u00a0`),
    cut.map((s) => s.toUpperCase()),
    cut.chain((s) => fc.constantFrom(`${s}. ${s}`, `No ${s}`, `${s} was not found`)),
    textArb,
    fc.constantFrom('no check, test or measurement described', 'Charging Pump CCW', 'P-101A', 'P-101B', '5.0 mils', '5.0 psig', 'not above 6.2 psig', 'below 6.2 mils', 'pump', 'Reactor trip occurred. Pump 7 tripped.', '   '),
  );
};
const viewArb = (raw: string) => {
  const item = itemArb(raw);
  const list = fc.array(item, { maxLength: 5 });
  // Lists repeat each other's items, as rca_frame's observed repeats corrective_actions.
  return fc.tuple(fc.record({ scope: item, entities: fc.record({ systems: list, equipment_ids: list, components: list }), symptoms_outcomes: list, mechanisms: list, diagnostics: list, corrective_actions: list, numbers_limits: list, keywords_synonyms: list, unknowns: list }), list).map(([view, shared]) => {
    (view.mechanisms as string[]).push(...shared);
    (view.corrective_actions as string[]).push(...shared);
    return view;
  });
};
const frameArb = (raw: string) => {
  const list = fc.array(itemArb(raw), { maxLength: 5 });
  return fc.record({ observed: list, hypotheses: list, candidate_actions: list, entities: fc.record({ systems: list, equipment_ids: list, components: list }), unknowns: list });
};
const optionsArb = fc.record({
  floor: fc.constantFrom(0, 0.5, 0.95),
  context: fc.constantFrom(undefined, [], ['Section 6.1 > Pump Tests', 'doc-7'], ['SWX Charging', 'd1', 'c1']),
  negated: fc.constantFrom(undefined, [], [{ text: 'pump' }, { text: 'reactor trip' }], [{ text: 'P-101A' }, { text: 'Leak' }, { text: '  ' }]),
});
const caseArb = textArb.chain((raw) => fc.tuple(fc.constant(raw), viewArb(raw), frameArb(raw), optionsArb));

const clean = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

describe('fused evidence: the same as before the fusion', () => {
  it('chunk views, one text for both views: the same evidence JSON and flags', () => {
    fc.assert(
      fc.property(caseArb, ([raw, view, frame, opts]) => {
        const options = clean(opts);
        const now = new GroundingText(raw);
        const then = new GroundingText(raw);
        for (const [name, obj] of [['retrieval_summary', view], ['rca_frame', frame], ['retrieval_summary', view]] as [ViewType, JsonObject][]) {
          const got = chunkViewEvidence(name, obj, now, 'c1', options);
          const want = before.chunkViewEvidence(name, obj, then, 'c1', options);
          expect(JSON.stringify(got)).toBe(JSON.stringify(want));
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('section items (itemEvidence and finish, numbers not checked): the same evidence JSON and flags', () => {
    fc.assert(
      fc.property(textArb.chain((raw) => fc.tuple(fc.constant(raw), itemArb(raw), fc.array(itemArb(raw), { maxLength: 6 }), optionsArb)), ([raw, summary, concepts, opts]) => {
        const options = clean(opts);
        const map = (s: { start: number; end: number }) => ({ source: 'chunk' as const, id: 'd1:s', start: s.start, end: s.end });
        const run = (impl: typeof before, g: GroundingText) => {
          const items = [
            ...splitSentences(summary).map((s, i) => impl.itemEvidence('summary', i, s.text, 'claim', g, map, options, false)),
            ...concepts.filter((c) => /[\p{L}\p{N}]/u.test(c)).map((c, i) => impl.itemEvidence('concepts', i, c, 'id', g, map, options, false)),
            ...concepts.filter((c) => /[\p{L}\p{N}]/u.test(c)).map((c, i) => impl.itemEvidence('entities.components', i, c, fieldRole('entities.components'), g, map, options, true)),
          ];
          return JSON.stringify(impl.finish(items, options));
        };
        expect(run({ ...before, itemEvidence, finish } as typeof before, new GroundingText(raw))).toBe(run(before, new GroundingText(raw)));
      }),
      { numRuns: 1500 },
    );
  });
});
