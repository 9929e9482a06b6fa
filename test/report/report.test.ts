import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, escapeHtml } from '../../src/commands/report.js';
import { buildFixture, HOSTILE_TEXT } from './build-fixture.js';

describe('rca report', () => {
  it('escapes every character that could open markup', () => {
    expect(escapeHtml(`<script>"x" & 'y'</script>`)).toBe('&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;');
  });

  it('writes one self-contained page: the tables, the charts, the chosen chunk with its evidence, no script', async () => {
    const { report, stderr, code } = await buildFixture();
    expect(code).toBe(0);
    expect(stderr).toMatch(/^rca report: wrote .*report\.html\n$/);
    const html = readFileSync(report, 'utf8');
    // The page's own tags (escaped text holds no '<'): no script, no event handler, no inline
    // style attribute, nothing loaded from elsewhere.
    const tags = html.match(/<[a-zA-Z][^>]*>/g)!;
    expect(tags.filter((tag) => /^<script|\son[a-z]+=|\sstyle=|\ssrc=|\shref="(?!data:,)|https?:|javascript:/i.test(tag))).toEqual([]);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${escapeHtml(CONTENT_SECURITY_POLICY)}">`);
    // The one inline style is the one the policy's hash allows.
    const style = /<style>([^]*?)<\/style>/.exec(html)![1]!;
    expect(CONTENT_SECURITY_POLICY).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(html).toContain(escapeHtml(HOSTILE_TEXT.slice(HOSTILE_TEXT.indexOf('<script>'), HOSTILE_TEXT.indexOf('</script>'))));
    // Per-document table: 10 records, 20 views, of which the flagged ones.
    // Then the tokens of the views made: prompt, from the engine's cache (— where the server said nothing), output.
    expect(html).toMatch(/<tr><td>ad61d26ecf6e<\/td><td>CR<\/td><td>10<\/td><td>\d+<\/td><td>\d+<\/td><td>0<\/td><td>0<\/td><td>\d+<\/td><td>(?:\d+|—)<\/td><td>\d+<\/td><\/tr>/);
    expect(html.match(/<svg /g)).toHaveLength(3);
    expect(html).toContain('<h2>Chunk chunk:hostile</h2>');
    expect(html).toMatch(/<mark class="exact" title="[^"]*#\d+ retrieval_summary\.entities\.equipment_ids\[0\] exact[^"]*">P-101A<\/mark>/);
    expect(html).toMatch(/<mark class="exact" title="[^"]*numbers_limits\[0\] exact[^"]*">6\.2 mils<\/mark>/);
    expect(html).toMatch(/records in [\d.]+ s of run time over 1 runs/);
  });
});

describe('rca report --chunk SECTION_ID', () => {
  it("marks a section summary's evidence in the section's text, each span shifted to its chunk", async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { PassThrough } = await import('node:stream');
    const summarize = (await import('../../src/transforms/summarize.js')).default;
    const report = (await import('../../src/commands/report.js')).default;
    const { runInProcess } = await import('../support/run-in-process.js');
    const input = readFileSync('test/golden/summarize/section-summaries-extractive/input.jsonl');
    const r = await runInProcess(summarize, [input], ['--view', 'section_summary', '--bottom-up', '--backend', 'extractive']);
    const dir = mkdtempSync(join(tmpdir(), 'rca-report-sections-'));
    writeFileSync(join(dir, 's.summarized.jsonl'), r.stdout);
    const first = JSON.parse(r.stdout.split('\n').find((l) => JSON.parse(l).text !== '')!);
    const code = await report.run({ argv: [dir, '--chunk', first.section_id], stdout: new PassThrough(), stderr: new PassThrough(), env: {} });
    expect(code).toBe(0);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    const sentence = first.section_summary.summary.split(/(?<=[.!?;])\s+/)[0];
    expect(html).toContain(`<mark class="exact" title="#1 section_summary.summary[0] exact">${escapeHtml(sentence.slice(0, 20))}`);
  });
});

describe('rca report: what its tables count', () => {
  async function reportOf(files: Record<string, string>) {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { Writable } = await import('node:stream');
    const report = (await import('../../src/commands/report.js')).default;
    const dir = mkdtempSync(join(tmpdir(), 'rca-report-counts-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    let stderr = '';
    const sink = (append: (s: string) => void) => new Writable({ write: (chunk, _e, cb) => (append(String(chunk)), cb()) });
    const code = await report.run({ argv: [dir], stdout: sink(() => {}), stderr: sink((s) => (stderr += s)), env: {} });
    return { code, stderr, dir, html: readFileSync(join(dir, 'report.html'), 'utf8') };
  }
  const record = (chunk: string, flags: string[]) =>
    JSON.stringify({ doc_id: 'cr-1', chunk_id: chunk, context: { doc_id: 'cr-1', doc_type: 'CR' }, rca_frame: { view_type: 'rca_frame' }, flags: { rca_frame: flags }, generation: { rca_frame: { backend: 'extractive', cached: false } } }) + '\n';

  it('"Flags by kind" counts flags and views apart: a view with a kind twice is 2 flags, 1 view', async () => {
    const { html } = await reportOf({ 'a.summarized.jsonl': record('c1', ['ungrounded_number:4', 'ungrounded_number:7', 'few_keywords']) + record('c2', ['few_keywords']) });
    const table = html.split('<h2>Flags by kind</h2>')[1]!.split('</table>')[0]!;
    expect(table).toContain('<thead><tr><th>flag</th><th>flags</th><th>views</th></tr></thead>');
    expect(table).toContain('<tr><td><code>ungrounded_number</code></td><td>2</td><td>1</td></tr>');
    expect(table).toContain('<tr><td><code>few_keywords</code></td><td>2</td><td>2</td></tr>');
  });

  it('a chunk read twice in one build is counted as read, and said: duplicate_chunk_id, on stderr and on the page', async () => {
    const one = record('c1', []);
    const { code, stderr, html, dir } = await reportOf({ 'a.summarized.jsonl': one + record('c2', []), 'b.summarized.jsonl': one });
    expect(code).toBe(0);
    expect(stderr).toContain(`rca report: duplicate_chunk_id: 1 record repeats a chunk (or section) of its document already read, each counted; the first at ${dir}/b.summarized.jsonl:1, chunk "c1" of document "cr-1"\n`);
    expect(html).toMatch(/<tr><td>cr-1<\/td><td>CR<\/td><td>3<\/td>/);
    expect(html).toContain('<code>duplicate_chunk_id</code>: 1 record repeats a chunk (or section) of its document already read');
    const clean = await reportOf({ 'a.summarized.jsonl': one + record('c2', []) });
    expect(clean.stderr).not.toContain('duplicate_chunk_id');
    expect(clean.html).not.toContain('duplicate_chunk_id');
  });
});

describe('rca report: tokens and --price', () => {
  it("adds up each document's tokens (the new tokens object and the older prompt_tokens alike) and prices them", async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const { PassThrough } = await import('node:stream');
    const report = (await import('../../src/commands/report.js')).default;
    const dir = mkdtempSync(join(tmpdir(), 'rca-report-tokens-'));
    const view = { scope: 'x' };
    const records = [
      { chunk_id: 'a', doc_id: 'D1', context: { doc_id: 'D1', doc_type: 'CR' }, rca_frame: view, flags: { rca_frame: [] }, generation: { rca_frame: { cached: false, error: null, tokens: { prompt: 1000, cached: 600, output: 200 } } } },
      { chunk_id: 'b', doc_id: 'D1', context: { doc_id: 'D1', doc_type: 'CR' }, rca_frame: view, flags: { rca_frame: [] }, generation: { rca_frame: { cached: false, error: null, prompt_tokens: 500, output_tokens: 100 } } },
      // Replayed from the response cache: it cost nothing in its run.
      { chunk_id: 'c', doc_id: 'D1', context: { doc_id: 'D1', doc_type: 'CR' }, rca_frame: view, flags: { rca_frame: [] }, generation: { rca_frame: { cached: true, error: null, tokens: { prompt: 9999, cached: null, output: 9999 } } } },
    ];
    writeFileSync(join(dir, 'x.summarized.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const out = new PassThrough();
    let html = '';
    out.on('data', (d) => (html += d));
    const code = await report.run({ argv: [dir, '--output', '-', '--price', '1,10,0.1'], stdout: out, stderr: new PassThrough(), env: {} });
    expect(code).toBe(0);
    // 1,500 prompt tokens, 600 from the cache, 300 output: (900 × 1 + 600 × 0.1 + 300 × 10) / 1e6.
    expect(html).toContain('<td>1500</td><td>600</td><td>300</td><td>0.003960</td></tr>');
    expect(html).toContain("Prompt tokens 1500 (600 of them from the engine's prompt cache), output tokens 300");
    const bad = await report.run({ argv: [dir, '--price', 'cheap'], stdout: new PassThrough(), stderr: new PassThrough(), env: {} });
    expect(bad).toBe(2);
  });
});
