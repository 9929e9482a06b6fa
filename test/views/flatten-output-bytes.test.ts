// rca-flatten appends embedding_text to the line as read (AppendedJson) where that line is what
// JSON.stringify writes for it, and to the record's own JSON otherwise; a record that already has
// an embedding_text is rebuilt with it in place. Every way must give the bytes of
// JSON.stringify({...record, embedding_text}).
import { keepUpstream } from '../../src/tagging/added-fields.js';
import { describe, expect, it } from 'vitest';
import flatten from '../../src/transforms/flatten.js';
import { embeddingTexts } from '../../src/views/flatten-view.js';
import { parseViewFields } from '../../src/views/view-types.js';
import { runInProcess } from '../support/run-in-process.js';

const SUMMARY = {
  view_type: 'retrieval_summary',
  scope: 'Pump P-101A trip at 450 psig – café 😀',
  systems: ['AFW'],
  equipment: ['P-101A'],
  keywords: ['trip', 'vibration\nhigh'],
};
const FRAME = { view_type: 'rca_frame', observed: ['pump tripped'], hypotheses: ['bearing wear ≥ limit'] };
const BASE = { chunk_id: 'c1', doc_id: 'd', context: { section_path: 'A > **B**' }, text: 'x', retrieval_summary: SUMMARY, rca_frame: FRAME };

const LINES = [
  JSON.stringify(BASE),
  JSON.stringify({ ...BASE, rca_frame: null }),
  JSON.stringify({ a: 1 }),
  '{}',
  '{ \t}',
  ` { "chunk_id" : "c2",\t"retrieval_summary":${JSON.stringify(SUMMARY)} }   `,
  JSON.stringify(BASE).replace('"scope":"', '"scope":"caf\\u00e9 \\/ \\ud800 '),
  `{"2":"an index key",${JSON.stringify(BASE).slice(1)}`,
  `{"n":1.0,"m":1e2,${JSON.stringify(BASE).slice(1)}`,
  `{"chunk_id":"dup",${JSON.stringify(BASE).slice(1)}`,
  `{"embedding_text":"old",${JSON.stringify(BASE).slice(1)}`,
  JSON.stringify({ ...BASE, embedding_text: { retrieval_summary: 'old' }, z: 1 }),
  JSON.stringify({ summary_json: SUMMARY, frame_json: FRAME }),
];

function reference(line: string, argv: string[]): string {
  const record = JSON.parse(line) as Record<string, unknown>;
  const at = argv.indexOf('--from-fields');
  const fields = parseViewFields(at >= 0 ? [argv[at + 1]!] : []);
  // An upstream embedding_text (the "old" string) is kept as upstream_embedding_text, in its place.
  return JSON.stringify({ ...keepUpstream(record, ['embedding_text']), embedding_text: embeddingTexts(record, fields, argv.includes('--combined')) });
}

describe('rca-flatten output bytes', () => {
  it.each([[[]], [['--combined']], [['--from-fields', 'summary_json,frame_json']]])('is JSON.stringify of the record with embedding_text last or in place, bytes kept or not (%j)', async (argv: string[]) => {
    const input = '\ufeff' + LINES.join('\r\n') + '\r\n';
    const whole = await runInProcess(flatten, [Buffer.from(input)], argv);
    // One byte per chunk: no line lies within one chunk, so no line's bytes are kept.
    const bytes = Buffer.from(input);
    const split = await runInProcess(flatten, Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1)), argv);
    expect(whole.code).toBe(0);
    expect(whole.stdout).toBe(split.stdout);
    expect(whole.stderr).toBe(split.stderr);
    expect(whole.stdout).toBe(LINES.map((l) => reference(l, argv)).join('\n') + '\n');
  });

  it('keeps the line as read where it is the record’s own JSON', async () => {
    const out = (await runInProcess(flatten, [LINES[0] + '\n'])).stdout;
    expect(out.startsWith(LINES[0]!.slice(0, -1) + ',"embedding_text":{"retrieval_summary":"')).toBe(true);
  });
});
