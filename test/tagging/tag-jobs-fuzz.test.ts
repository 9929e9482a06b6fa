// Property: whatever the input, `rca-tag --jobs N` writes exactly what `--jobs 1` writes (stdout,
// stderr, exit status). The one-thread run is held to the stage contract by the reliability fuzz;
// this one holds the threaded run to the one-thread run. Inputs are long enough to span batches,
// and documents repeat and interleave so the per-document doc type is exercised.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import tag from '../../src/transforms/tag.js';
import { runInProcess } from '../support/run-in-process.js';
import { noWorkerTag } from './support/tag-stages.js';

const RUNS = Number(process.env.RCA_FUZZ_RUNS ?? 25);

const text = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.constantFrom(
    'Pump P-101A vibration 6.2 mils at 1175 psig; see CR-2026-00123 on 2026-02-06.',
    'Work order WO-2026-0042: replace the mechanical seal.',
    'SOP-101 Valve procedure. CAUTION: do not exceed 40% flow.',
    'Event causal evaluation ECA-2026-0007 of the trip.',
    'The seal may have failed due to cavitation.',
    '',
  ),
);
const anyJson = fc.jsonValue({ maxDepth: 2 });
const chunk = fc.record(
  {
    chunk_id: fc.oneof(fc.string({ maxLength: 8 }), anyJson),
    doc_id: fc.oneof(fc.constantFrom('a1b2c3d4e5f6', 'd2', 'CR-2026-1', 'wo-7'), anyJson),
    doc_name: fc.constantFrom('SOP-7 pumps.pdf', 'notes.pdf', 'WO-2026-1.pdf'),
    source_path: fc.constantFrom('in/a.pdf', 'in/b.pdf'),
    document: fc.oneof(fc.record({ sourceId: fc.constantFrom('0f1e2d3c4b5a', 'eca-9') }), anyJson),
    doc_type: fc.oneof(fc.constantFrom('SOP', 'CR', 'wo', 'OTHER', 'FMEA'), anyJson),
    section_path: fc.oneof(fc.constantFrom('A', 'A > B', '**Purpose** > Scope', 'Report > 4.2 Corrective Actions', ''), anyJson),
    section_segments: fc.oneof(fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }), anyJson),
    text: fc.oneof(text, anyJson),
    raw_text: text,
    page_start: fc.oneof(fc.integer({ min: -2, max: 30 }), fc.constant(null), anyJson),
    context: anyJson,
    ner_seed: anyJson,
  },
  { requiredKeys: [] },
);
const line = fc.oneof(
  { weight: 12, arbitrary: chunk.map((o) => JSON.stringify(o)) },
  { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.constantFrom('', '   ', '{', '[]', 'null', '{"a":1}x', '{"text":"\uFFFD"}') },
);
// A run of chunks of one document, as a chunker writes them; a chunker may give the section path
// only where the heading is, so some chunks continue the section before them without one.
const run = fc.tuple(chunk, fc.integer({ min: 1, max: 150 }), fc.integer({ min: 1, max: 4 })).map(([c, n, every]) => {
  const { section_path: _path, section_segments: _segments, ...unheaded } = c;
  return Array.from({ length: n }, (_, k) => JSON.stringify({ ...(k % every === 0 ? c : unheaded), chunk_id: `r${k}`, text: k === 0 ? c.text : 'Condition report CR-2026-9 follow-up.' }));
});
const input = fc.record({
  lines: fc.array(fc.oneof(line.map((l) => [l]), run), { maxLength: 12 }).map((groups) => groups.flat()),
  crlf: fc.boolean(),
  mode: fc.constantFrom('auto', 'detect', 'SOP'),
  // 'none': ParallelTagger starting no worker (what auto does with a small input).
  jobs: fc.constantFrom('2', '3', 'auto', 'none'),
  chunkSize: fc.integer({ min: 1, max: 70_000 }),
});

describe('fuzz: tag --jobs N writes what --jobs 1 writes', () => {
  it('for any input', async () => {
    await fc.assert(
      fc.asyncProperty(input, async (i) => {
        const bytes = Buffer.from(i.lines.join(i.crlf ? '\r\n' : '\n') + '\n');
        const chunks: Buffer[] = [];
        for (let at = 0; at < bytes.length; at += i.chunkSize) chunks.push(bytes.subarray(at, at + i.chunkSize));
        const one = await runInProcess(tag, chunks, ['--doc-type', i.mode, '--jobs', '1']);
        const many =
          i.jobs === 'none'
            ? await runInProcess(noWorkerTag, chunks, ['--doc-type', i.mode])
            : await runInProcess(tag, chunks, ['--doc-type', i.mode, '--jobs', i.jobs]);
        expect(many.stderr).toBe(one.stderr);
        expect(many.stdout).toBe(one.stdout);
        expect(many.code).toBe(one.code);
      }),
      { numRuns: RUNS },
    );
  });
});
