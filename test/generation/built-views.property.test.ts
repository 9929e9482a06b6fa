// Property: the extractive backend's fast path (builtResult: the view object checked as built, at
// once, by the record kind's checkBuilt, which leaves out the contract check) gives, for any
// tagged chunk, exactly the result of the full path (runLadder: the view as JSON text, parsed
// back, checked by `check` with the contract check). The generator takes one or the other per
// job and assembles the record from the results alike, so equal results are equal records.
// The full path reads every record afresh for each view, so the units the rules share between
// the views of one record (extractive.ts) are made again there.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/contracts/json.js';
import { jobOf } from '../../src/generation/backend.js';
import { createExtractiveBackend } from '../../src/generation/extractive-backend.js';
import { builtResult, runLadder, type LadderPolicy } from '../../src/generation/ladder.js';
import tagStage from '../../src/transforms/tag.js';
import { CHUNK_RECORDS } from '../../src/views/records/chunk-records.js';
import { VIEW_KINDS } from '../../src/views/kinds/index.js';
import { runInProcess } from '../support/run-in-process.js';

const RUNS = Number(process.env.RCA_FUZZ_RUNS ?? 40);
const KINDS = [VIEW_KINDS.retrieval_summary, VIEW_KINDS.rca_frame];
const NO_LEXICON = { lexicon: () => [] };

// Plant text of every shape the rules tell apart: prose, steps, cautions, hedges and causes,
// negation, quotes (straight and curly), tables (one row a line, flattened, "Row N:"), references,
// bullets, abbreviations, numbers with units and thousands groups, dashes.
const PIECES = [
  'Pump P-101A tripped on high vibration (6.2 mils) at 14:05.',
  'CAUTION: Do not exceed 40% flow on FT-1102 prior to Step 6.2.',
  'The seal may have failed due to cavitation; see CR-2026-00123.',
  'No leakage was observed at the "packing gland" of valve HV-2129.',
  '| Parameter | Value | Limit |\n|---|---|---|\n| Vibration | 6.2 mils | 5.0 mils |',
  '| Step | Action | | 1 | Verify the breaker is open | | 2 | Record the reading |',
  '1. Verify discharge pressure is at least 1,175 psig.',
  '- Replace the mechanical seal and torque the bolts to 45 ft-lb.',
  'Operators observed \u201csteam leakage\u201d near the turbine \u2014 not confirmed.',
  'Related evaluation: ECA-2026-0007 (if initiated).',
  'Columns: Date | Action',
  'Row 1: 2026-02-06 | Replaced the outboard bearing on P-1465B',
  'Recommend condenser performance test.',
  'The bearing did not cause the trip, although wear was found.',
  'Within 2 minutes, notify the shift supervisor.',
  'Train A declared inoperable per TS 3.7.5.',
  'Maintenance replaced the pump and realigned the coupling to 60% per SOP-CCW-304.',
  'Vib. 3 in/s, e.g. at the motor end; approx. 2 \u00b0F rise. No. 4 valve shut.',
  'Check valve CV-1 failed to seat. Test results show 3 psig.',
  'Scope', 'pump', 'The   heat\texchanger   may   have   degraded   due to erosion.',
  '**Hold point**: QC shall witness the torque of 2RCS*PT455.',
  '',
];
const WORDS = ['pump', 'Pump', 'PUMP', 'seal', 'leakage', 'vibration', 'P-101A', 'p-101a', 'cavitation', 'erosion', 'degraded', 'flow', '6.2 mils', 'bearing', 'valve', 'steam leakage', 'trip'];
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...PIECES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12, unit: 'binary' }) },
);
const text = fc.array(fc.tuple(piece, fc.constantFrom(' ', ' ', '\n', '\n\n', ' | ', '  ')), { minLength: 1, maxLength: 14 }).map((parts) => parts.map(([p, sep]) => p + sep).join(''));
const chunk = fc.record({
  text,
  doc_type: fc.constantFrom('SOP', 'CR', 'WO', 'ECA', 'OTHER'),
  section_path: fc.constantFrom('Condition Report > Description', 'WO-2026-1 > Work Performed', '6.2 Verification', 'Precautions and Limitations', 'Immediate Actions', ''),
  page_start: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(null)),
});
// A seed from elsewhere: terms in another case, terms the text lacks, blank terms.
const SEED_LISTS = ['systems', 'equipment_ids', 'components', 'mechanisms', 'outcomes', 'maintenance_actions', 'surveillance_actions', 'properties', 'tools', 'fm_ids', 'doc_refs', 'alarm_ids'] as const;
const seedTweak = fc.option(fc.record({ list: fc.constantFrom(...SEED_LISTS), terms: fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 10 }), fc.constant(' ')), { maxLength: 5 }), upper: fc.boolean() }));
const input = fc.record({
  chunks: fc.array(fc.tuple(chunk, seedTweak), { minLength: 1, maxLength: 5 }),
  maxChars: fc.option(fc.integer({ min: 10, max: 400 }), { nil: undefined }),
});

async function tagged(chunks: Array<[{ text: string; doc_type: string; section_path: string; page_start: number | null }, unknown]>): Promise<JsonObject[]> {
  const lines = chunks.map(([c], i) => JSON.stringify({ chunk_id: `c${i}`, doc_id: `d${i}`, ...c })).join('\n') + '\n';
  const r = await runInProcess(tagStage, [lines]);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as JsonObject);
}

describe('property: the extractive fast path gives what the full ladder gives', () => {
  it('for any tagged chunk, --max-chars or not', async () => {
    const backend = await createExtractiveBackend(KINDS, NO_LEXICON);
    await fc.assert(
      fc.asyncProperty(input, async ({ chunks, maxChars }) => {
        const policy: LadderPolicy = { maxTries: 3, truncateChars: 60, maxChars, maxOutputTokens: null, numCtx: null };
        const records = await tagged(chunks);
        for (const [i, record] of records.entries()) {
          const tweak = chunks[i]![1] as { list: (typeof SEED_LISTS)[number]; terms: string[]; upper: boolean } | null;
          if (tweak !== null) {
            const seed = record.ner_seed as Record<string, string[]>;
            seed[tweak.list] = [...seed[tweak.list]!, ...tweak.terms].map((t) => (tweak.upper ? t.toUpperCase() : t));
          }
          const read = CHUNK_RECORDS.read(record);
          if (!read.ok) continue;
          const fast = KINDS.map((kind) => builtResult(jobOf(kind, read.value, 0), CHUNK_RECORDS.grounding(read.value), backend, policy));
          for (const [k, kind] of KINDS.entries()) {
            const again = CHUNK_RECORDS.read(structuredClone(record));
            if (!again.ok) throw new Error('read twice, read differently');
            const full = await runLadder(jobOf(kind, again.value, 0), CHUNK_RECORDS.grounding(again.value), backend, policy, new AbortController().signal);
            expect(fast[k]).toEqual(full);
            // Byte for byte, key order included: this is what the record is written from.
            expect(JSON.stringify(fast[k])).toBe(JSON.stringify(full));
          }
        }
      }),
      { numRuns: RUNS },
    );
  });
});
