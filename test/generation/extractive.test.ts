// --backend extractive through generate and summarize: no server, one attempt, honest provenance,
// and views that rca-validate passes (only the quality flag a poor chunk earns).
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VIEW_TYPES } from '../../src/contracts/vocabulary.js';
import validateStage from '../../src/transforms/validate.js';
import { GOLDEN_DIR } from '../support/golden.js';
import { runInProcess } from '../support/run-in-process.js';
import { parseLines, taggedLines } from './support/inputs.js';
import { closeServers, run, serve, STAGES } from './support/harness.js';

afterEach(closeServers);

const NO_SERVER = 'http://127.0.0.1:9';
const VIEWS = VIEW_TYPES;
const QUALITY_FLAGS = new Set(['few_keywords', 'scope_too_short', 'boilerplate', 'empty_frame']);
const ENTRY = {
  backend: 'extractive',
  model: 'rca-extractive/4',
  model_digest: null,
  options: null,
  attempts: 1,
  done_reason: null,
  tokens: { prompt: null, cached: null, output: null },
  cached: false,
  error: null,
};

// The golden cases of the sample corpora (tagged DACKAR sample, tagged written fixtures).
const GOLDEN = ['summarize/extractive-dackar-sample', 'summarize/extractive-written-corpus', 'generate/extractive-one-view-max-chars'];

describe.each(GOLDEN)('golden %s', (name) => {
  const dir = join(GOLDEN_DIR, name);
  const records = parseLines(readFileSync(join(dir, 'expected.jsonl'), 'utf8'));
  const input = parseLines(readFileSync(join(dir, 'input.jsonl'), 'utf8'));

  it('writes one record per input record, in order, each view from the extractive backend', () => {
    expect(records.map((r) => r.chunk_id)).toEqual(input.map((r) => r.chunk_id));
    for (const rec of records) {
      for (const view of VIEWS.filter((v) => rec.generation[v])) {
        expect(rec.generation[view]).toEqual({ ...ENTRY, text_cut: rec.generation[view].text_cut });
        expect(rec[view]).toMatchObject({ chunk_id: rec.chunk_id, view_type: view });
      }
    }
  });

  it('rca-validate passes every view as written: no provenance fixed, no contract or grounding flag', async () => {
    const r = await runInProcess(validateStage, [readFileSync(join(dir, 'expected.jsonl'))], ['--flags-ok']);
    expect(r.code).toBe(0);
    const validated = parseLines(r.stdout);
    validated.forEach((rec, i) => {
      expect(rec.flags).toEqual(records[i]!.flags);
      for (const view of Object.keys(rec.flags)) {
        expect(rec.provenance_fixed[view]).toEqual([]);
        expect((rec.flags[view] as string[]).filter((f) => !QUALITY_FLAGS.has(f) && !KNOWN_REVERSALS.has(f))).toEqual([]);
        expect(rec.evidence[view].grounding.none).toBe(0);
      }
    });
  });
});

// Terms the extractive baseline still lists as positive facts out of a negated clause ("No
// safety injection or reactor trip occurred", "no oil leakage observed", "found no fouling"): the
// negation check catches them; the baseline's negation fix removes them.
const KNOWN_REVERSALS = new Set(['negation_mismatch:reactor trip', 'negation_mismatch:leakage', 'negation_mismatch:fouling']);

describe('the extractive backend as a stage backend', () => {
  it('needs no server and gives the same bytes every run', async () => {
    const input = await taggedLines(6);
    const a = await run('summarize', NO_SERVER, input, ['--backend', 'extractive']);
    const b = await run('summarize', NO_SERVER, input, ['--backend', 'extractive', '--concurrency', '4']);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stderr).toMatch(new RegExp(String.raw`^rca-summarize: 6 records: views ${6 * VIEWS.length} ok, 0 flagged, 0 failed\nrca-summarize: grounding: \d+ items: exact 100\.0%, normalised 0\.0%, partial 0\.0%, none 0\.0%; novel entities 0 of \d+\n$`));
    for (const rec of parseLines(a.stdout)) for (const view of VIEWS) expect(rec.generation[view]).toEqual({ ...ENTRY, text_cut: null });
  });

  it('--max-chars cuts the text the views come from, and says so', async () => {
    const input = await taggedLines(2);
    const r = await run('generate', NO_SERVER, input, ['--backend', 'extractive', '--max-chars', '60']);
    expect(r.code).toBe(0);
    for (const rec of parseLines(r.stdout)) {
      expect(rec.generation.rca_frame.text_cut).toMatchObject({ text_chars: (rec.text as string).length, kept_chars: expect.any(Number) });
      expect(rec.generation.rca_frame.text_cut.kept_chars).toBeLessThanOrEqual(60);
      for (const item of rec.rca_frame.observed as string[]) expect(item.length).toBeLessThanOrEqual(60);
    }
  });

  it('passes done records through and fills only missing views, as with a model', async () => {
    const done = parseLines((await run('generate', NO_SERVER, await taggedLines(2), ['--backend', 'extractive'])).stdout);
    const partial = [done[0], { ...done[1], rca_frame: null }].map((r) => JSON.stringify(r)).join('\n') + '\n';
    const r = await run('generate', NO_SERVER, partial, ['--backend', 'extractive']);
    expect(r.code).toBe(0);
    expect(parseLines(r.stdout)).toEqual(done);
    expect(r.stderr).toContain('2 records (1 already done, passed through): views 1 ok');
  });

  it('--stats FILE names the backend; no host, no cache', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rca-ext-')), 'stats.json');
    await run('generate', NO_SERVER, await taggedLines(1), ['--backend', 'extractive', '--stats', file]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ backend: 'extractive', model: 'rca-extractive/4', model_digest: null, options: null, host: null, cache: null, views: { ok: VIEWS.length } });
  });

  it('is never used in place of a failed model call: the view stays null with the model error', async () => {
    const { server } = await serve({ '* rca_frame': ['error400'] });
    const r = await run('generate', server, await taggedLines(1));
    expect(r.code).toBe(1);
    const rec = parseLines(r.stdout)[0]!;
    expect(rec.rca_frame).toBeNull();
    expect(rec.generation.rca_frame).toMatchObject({ backend: 'ollama', error: { code: 'HTTP_400' } });
    expect(r.stdout).not.toContain('extractive');
  });

  it('an unreachable server suggests it, and nothing else changes', async () => {
    const r = await runInProcess(STAGES.summarize, [await taggedLines(1)], ['--host', NO_SERVER, '--no-cache', '--give-up-after', '0.3', '--retry-delay', '20']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`Now: cannot reach Ollama at ${NO_SERVER} — is it running? (or use --backend extractive)\n`);
    expect(r.stderr).toMatch(/\nrca-summarize: cannot reach Ollama at \S+ — is it running\? \(or use --backend extractive\) \(no answer within --give-up-after 0\.3 s; a larger value waits longer\)\n$/);
  });
});

describe('the bundled sample corpus', () => {
  it('examples/sample-corpus.jsonl is the DACKAR sample followed by the written fixtures', () => {
    const root = join(GOLDEN_DIR, '..', '..');
    const parts = ['test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl', 'test/fixtures/written/eca_2026_0007.jsonl', 'test/fixtures/written/sop_afw_012.jsonl', 'test/fixtures/written/wo_2026_04567.jsonl'];
    expect(existsSync(join(root, 'examples/sample-corpus.jsonl'))).toBe(true);
    expect(readFileSync(join(root, 'examples/sample-corpus.jsonl'), 'utf8')).toBe(parts.map((p) => readFileSync(join(root, p), 'utf8')).join(''));
  });
});
