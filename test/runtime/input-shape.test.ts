// Input in the wrong format rejects every line: a few messages of each code, then one count, and
// a hint when the input looks like one JSON document; --rejects FILE still gets every reject.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/golden.js';
import { runInProcess } from '../support/run-in-process.js';
import { echoStage } from '../support/stages.js';

// The runner prints the first 5 rejects of each code on stderr, then one count.
const REJECTS_SHOWN_PER_CODE = 5;
const PRETTY = join(ROOT, 'test/fixtures/library_rag/EXAMPLE_CHUNK_JSON_FORMAT.json');
const stderrLines = (text: string) => text.split('\n').filter(Boolean);

describe('rejects of one code are capped on stderr', () => {
  it('200,000 bad lines print a few messages and one count; --rejects gets all of them', async () => {
    const rejects = join(mkdtempSync(join(tmpdir(), 'rca-cap-')), 'rejects.jsonl');
    const input = Array.from({ length: 200_000 }, (_, i) => `x${i}`).join('\n') + '\n';
    const r = await runInProcess(echoStage, [input], ['--rejects', rejects]);
    expect(r.code).toBe(1);
    const lines = stderrLines(r.stderr);
    expect(lines).toHaveLength(REJECTS_SHOWN_PER_CODE + 2);
    expect(lines.slice(0, REJECTS_SHOWN_PER_CODE).every((l, i) => l.startsWith(`rca-echo: stdin:${i + 1}: BAD_JSON: `))).toBe(true);
    expect(lines.slice(-2)).toEqual([`rca-echo: … ${200_000 - REJECTS_SHOWN_PER_CODE} more BAD_JSON rejects (all in --rejects)`, 'rca-echo: 200000 of 200000 records rejected']);
    expect(readFileSync(rejects, 'utf8').split('\n').filter(Boolean)).toHaveLength(200_000);
    expect(r.stderr).not.toContain('looks like one JSON document');
  });

  it('counts each code on its own, good records in between', async () => {
    const input = [...Array.from({ length: 7 }, () => 'bad'), '{"id":1}', ...Array.from({ length: 6 }, () => '[1]'), '{"id":2}'].join('\n') + '\n';
    const r = await runInProcess(echoStage, [input]);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expect(stderrLines(r.stderr).slice(-3)).toEqual([
      'rca-echo: … 2 more BAD_JSON rejects (--rejects FILE keeps every one)',
      'rca-echo: … 1 more NOT_OBJECT reject (--rejects FILE keeps every one)',
      'rca-echo: 13 of 15 records rejected',
    ]);
  });
});

describe('a hint when the input is one JSON document', () => {
  it('a pretty-printed document with a chunks array is read as a document; forced to JSON Lines, it gets the hint', async () => {
    const auto = await runInProcess(echoStage, [readFileSync(PRETTY)]);
    expect(auto.code).toBe(0);
    expect(auto.stdout.split('\n').filter(Boolean)).toHaveLength(3);
    const r = await runInProcess(echoStage, [readFileSync(PRETTY)], ['--input-format', 'jsonl']);
    expect(r.code).toBe(1);
    const lines = stderrLines(r.stderr);
    expect(lines.length).toBeLessThanOrEqual(2 * REJECTS_SHOWN_PER_CODE + 4);
    expect(lines).toContain("rca-echo: stdin: looks like one JSON document, not JSON Lines: read it with --records-at chunks, or try jq -c '.chunks[]'");
  });

  it('a JSON array on one line: jq -c .[]', async () => {
    const r = await runInProcess(echoStage, ['[{"id":1},{"id":2}]\n']);
    expect(r.stderr).toBe(
      "rca-echo: stdin:1: NOT_OBJECT: expected a JSON object, got an array\nrca-echo: stdin: looks like one JSON document, not JSON Lines: read it with --records-at '', or try jq -c '.[]'\nrca-echo: 1 of 1 records rejected\n",
    );
  });

  it('one object holding a chunks array on one line is read as a document, told by its content', async () => {
    const r = await runInProcess(echoStage, ['{"title":"t","chunks":[{"chunk_id":"a","text":"x"}]}\n']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l).chunk_id)).toEqual(['a']);
    expect(r.stderr).toContain("document: 1 records at 'chunks'");
    expect(r.stderr).not.toContain('looks like one JSON document');
    // Split across reads, and after a BOM: the same.
    const split = await runInProcess(echoStage, ['\ufeff{"title":"t","chu', 'nks":  [ {"chunk_id":"a","text":"x"}]}\n']);
    expect(split.stdout).toBe(r.stdout);
    // Records whose "chunks" is not a list of records stay JSON Lines.
    const two = await runInProcess(echoStage, ['{"chunks":[1]}\n{"chunks":[2]}\n']);
    expect(two.stderr).toBe('');
    expect(two.stdout.split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('a pretty-printed array, named by its file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rca-shape-')), 'doc.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, JSON.stringify([{ id: 1 }, { id: 2 }], null, 2) + '\n');
    const auto = await runInProcess(echoStage, [''], [file]);
    expect(auto.code).toBe(0);
    expect(auto.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    const r = await runInProcess(echoStage, [''], ['--input-format', 'jsonl', file]);
    expect(r.stderr).toContain(`rca-echo: ${file}: looks like one JSON document, not JSON Lines: read it with --records-at '', or try jq -c '.[]'\n`);
  });

  it.each([
    ['a truncated first record', '{"id":\n{"id":2}\n'],
    ['a bad line after good ones', '{"id":1}\n[1]\n'],
  ])('no hint for JSON Lines with %s', async (_name, input) => {
    const r = await runInProcess(echoStage, [input]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('looks like one JSON document');
  });
});
