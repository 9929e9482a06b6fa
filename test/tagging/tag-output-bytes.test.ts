// rca-tag writes each line's own bytes with its fields appended (AppendedJson): where the runner
// kept a line's bytes (a line within one input chunk) they are copied, else the line's string is
// used. Both must give the same bytes, whatever the line's spacing, escapes, key order, duplicate
// keys or fields of tag's own names (those records are rebuilt on the string path).
import { describe, expect, it } from 'vitest';
import tag from '../../src/transforms/tag.js';
import { runInProcess } from '../support/run-in-process.js';

const TAGGED_BEFORE =
  '{"chunk_id":"c9","doc_id":"d","text":"x","context":{"doc_id":"d","doc_type":"OTHER","chunk_id":"c9","section_path":"","page_start":null,"page_end":null,"authority_level":"informational","section_role":"body"},"section_id":"sec_0123456789abcdef","ner_seed":null,"tag_flags":[]}';

const LINES = [
  '{ "chunk_id" : "c1", "doc_id":"d", "section_path":"A > B", "text":"Pump P-101A tripped at 450 psig on 2026-02-06." }   ',
  '{"chunk_id":"c2","doc_id":"d","text":"x","text":"The AFW pump vibrates; see CR-2026-00123."}',
  '{"chunk_id":"c3","doc_id":"d","text":"caf\\u00e9 \\"quoted\\" \\u2013 5 \\u00b0F\\n rose \\ud83d\\ude00"}',
  '{"chunk_id":"c4","doc_id":"d","text":"é – ° ≥ ’ 😀 at 12 gpm","page_start":"3"}',
  '{"chunk_id":"c5","doc_id":"d","text":"t","context":"an upstream context string"}',
  '{"chunk_id":"c6","doc_id":"d","text":"t","ner_seed":null}',
  TAGGED_BEFORE,
  '{}',
  '{ \t}',
  '{"text":"a brace at the end }"\t}',
  '{"section_path":"**SOP-1** > **6.1 Pump Start**","text":"Start pump P-2A.","doc_id":7}',
];
const INPUT = '\ufeff' + LINES.join('\r\n') + '\n';

describe('tag output from input bytes', () => {
  it('is the same bytes whether the runner kept each line’s bytes or only its string', async () => {
    const whole = await runInProcess(tag, [Buffer.from(INPUT)], ['--jobs', '1']);
    // One byte per chunk: no line lies within one chunk, so every line takes the string path.
    const bytes = Buffer.from(INPUT);
    const pieces = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    const split = await runInProcess(tag, pieces, ['--jobs', '1']);
    expect(whole.code).toBe(0);
    expect(whole.stdout).toBe(split.stdout);
    expect(whole.stderr).toBe(split.stderr);
    const out = whole.stdout.split('\n').filter(Boolean);
    expect(out).toHaveLength(LINES.length);
    // The line as read, spacing and escapes included, then tag's fields.
    expect(out[0]!.startsWith('{ "chunk_id" : "c1", "doc_id":"d", "section_path":"A > B", "text":"Pump P-101A tripped at 450 psig on 2026-02-06.","context":{')).toBe(true);
    expect(out[1]!.startsWith('{"chunk_id":"c2","doc_id":"d","text":"x","text":"The AFW pump vibrates; see CR-2026-00123.","context":')).toBe(true);
    expect(out[2]!.startsWith(LINES[2]!.slice(0, -1) + ',"context":')).toBe(true);
    expect(out[3]!.startsWith(LINES[3]!.slice(0, -1) + ',"context":')).toBe(true);
    // An upstream "context" is kept under another name: the record is rebuilt.
    expect(JSON.parse(out[4]!)).toMatchObject({ upstream_context: 'an upstream context string' });
    expect(out[7]!.startsWith('{"context":')).toBe(true);
    expect(out[8]!.startsWith('{"context":')).toBe(true);
    for (const line of out) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('is the same bytes with worker threads', async () => {
    const one = await runInProcess(tag, [Buffer.from(INPUT)], ['--jobs', '1']);
    const two = await runInProcess(tag, [Buffer.from(INPUT)], ['--jobs', '2']);
    expect(two.stdout).toBe(one.stdout);
    expect(two.stderr).toBe(one.stderr);
  });
});
