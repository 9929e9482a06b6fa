// rca-prompt appends its two fields to the line as read (AppendedJson) where that line is what
// JSON.stringify writes for it, and to the record's own JSON otherwise; a record that already has
// a field of those names is rebuilt with them in place. Every way must give the bytes of
// JSON.stringify({...record, prompts, prompt_truncation}) with each prompt from buildPrompt.
import { keepUpstream } from '../../src/tagging/added-fields.js';
import { describe, expect, it } from 'vitest';
import prompt from '../../src/transforms/prompt.js';
import tag from '../../src/transforms/tag.js';
import { buildPrompt } from '../../src/views/prompt-text.js';
import { VIEW_TYPES, type ViewType } from '../../src/contracts/vocabulary.js';
import type { ChunkContext, NerSeed } from '../../src/contracts/chunk.js';
import { runInProcess } from '../support/run-in-process.js';

const CHUNKS = [
  { chunk_id: 'c1', doc_id: 'cr-1', section_path: 'CR-2026-00123 > Description', text: 'Pump P-101A tripped at 450 psig; no evidence of cavitation was found. The AFW pump vibrates.' },
  { chunk_id: 'c2', doc_id: 'sop-2', section_path: '**SOP-1** > 6.1 Pump Start', text: 'Start pump P-2A.\nVerify flow ≥ 120 gpm within 2 minutes – record it. café 😀 "quoted" \\ back\tslash\r\nend' },
  { chunk_id: 'c3', doc_id: 'wo-3', text: 'Replace the outboard bearing of MOV-7. The valve may have degraded due to erosion.', page_start: 4, page_end: 5 },
];

async function taggedLines(): Promise<string[]> {
  const r = await runInProcess(tag, [CHUNKS.map((c) => JSON.stringify(c)).join('\n') + '\n'], ['--jobs', '1']);
  expect(r.code).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}

/** What rca-prompt wrote before it appended to lines: the record rebuilt as an object. */
function reference(line: string, views: readonly ViewType[], maxChars?: number): string {
  const record = JSON.parse(line) as Record<string, unknown>;
  const prompts: Record<string, string> = {};
  let truncation = null;
  for (const view of views) {
    const built = buildPrompt(record.context as ChunkContext, record.ner_seed as NerSeed, record.text as string, view, { maxChars });
    prompts[view] = built.prompt;
    truncation = built.truncated;
  }
  // Upstream values under these names (not in rca-prompt's shape) are kept under their upstream_ names.
  return JSON.stringify({ ...keepUpstream(record, ['prompts', 'prompt_truncation']), prompts, prompt_truncation: truncation });
}

/** Variants of one tagged line: spacing, escapes, number forms, key order and names. */
function variants(line: string): string[] {
  const body = line.slice(1, -1);
  return [
    line,
    `{ ${body.replace(/,"context":/, ' , "context" :\t')} }  `,
    line.replace(/"text":"/, '"text":"caf\\u00e9 \\/ \\u2013 ').replace(/"chunk_id":"/, '"chunk_id":"\\u0063'),
    line.replace(/"text":"/, '"text":"\\ud800 lone '),
    `{"1":"an index key",${body}}`,
    `{${body},"page_start":1.0,"n":1e2}`,
    `{"chunk_id":"dup",${body}}`,
    `{"prompts":{"old":true},${body}}`,
    `{${body},"prompt_truncation":"x","z":1}`,
    `{"z":[],${body},"prompts":null}`,
    // The output skeleton's citations come from the context: odd strings and pages in it.
    line.replace(/"context":\{"doc_id":"[^"]*"/, '"context":{"doc_id":"d \\"q\\" \\\\ \\n \\u2028 😀 \\udc00"').replace(/"page_start":(null|\d+)/g, '"page_start":-1'),
  ];
}

describe('rca-prompt output bytes', () => {
  it('is JSON.stringify of the record with prompts appended, whatever the line looks like, bytes kept or not', async () => {
    const lines = (await taggedLines()).flatMap(variants);
    for (const argv of [[], ['--views', 'rca_frame'], ['--max-chars', '40']]) {
      const views = argv[0] === '--views' ? (['rca_frame'] as ViewType[]) : VIEW_TYPES;
      const maxChars = argv[0] === '--max-chars' ? 40 : undefined;
      const input = '\ufeff' + lines.join('\r\n') + '\r\n';
      const whole = await runInProcess(prompt, [Buffer.from(input)], argv);
      // One byte per chunk: no line lies within one chunk, so no line's bytes are kept.
      const bytes = Buffer.from(input);
      const split = await runInProcess(prompt, Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1)), argv);
      expect(whole.code).toBe(0);
      expect(whole.stderr).toBe(split.stderr);
      expect(whole.stdout).toBe(split.stdout);
      const expected = lines.map((l) => reference(l, views, maxChars)).join('\n') + '\n';
      expect(whole.stdout).toBe(expected);
    }
  });

  it('keeps the line as read only where it is the record’s own JSON', async () => {
    const [line] = await taggedLines();
    const out = (await runInProcess(prompt, [line + '\n'])).stdout;
    expect(out.startsWith(line!.slice(0, -1) + ',"prompts":{"retrieval_summary":"')).toBe(true);
    // rca-prompt's own field (a re-run) keeps its place and is replaced.
    const rebuilt = JSON.parse((await runInProcess(prompt, [`{"prompts":{"rca_frame":"old"},${line!.slice(1)}\n`])).stdout) as Record<string, unknown>;
    expect(Object.keys(rebuilt)[0]).toBe('prompts');
    expect(Object.keys(rebuilt).at(-1)).toBe('prompt_truncation');
    // Another tool's value there is kept, in its place, as upstream_prompts.
    const kept = JSON.parse((await runInProcess(prompt, [`{"prompts":1,${line!.slice(1)}\n`])).stdout) as Record<string, unknown>;
    expect(Object.keys(kept)[0]).toBe('upstream_prompts');
    expect(kept.upstream_prompts).toBe(1);
  });
});
