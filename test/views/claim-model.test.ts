// rca-validate --check-claims MODEL against the fake Ollama server: each claim is asked about,
// the answer is recorded on its evidence, and a "no" is a flag.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import validateStage from '../../src/transforms/validate.js';
import { DEFAULT_MODELS, startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';
import { runInProcess } from '../support/run-in-process.js';

const MODEL = DEFAULT_MODELS[0]!.name;
const CTX = { doc_id: 'CR-1', doc_type: 'CR', chunk_id: 'C1', section_path: 'CR-1 > Description', page_start: null, page_end: null, authority_level: 'informational', section_role: 'body' };
const TEXT = 'AFW Train B remained available. Vibration peaked at 6.2 mils.';
const citations = { doc_id: 'CR-1', section_path: 'CR-1 > Description', page_start: null, page_end: null };
const RECORD = {
  chunk_id: 'C1',
  text: TEXT,
  context: CTX,
  rca_frame: { chunk_id: 'C1', doc_type: 'CR', view_type: 'rca_frame', observed: ['AFW Train B remained available', 'vibration peaked at 6.2 mils'], hypotheses: [], tests_to_confirm: [], candidate_actions: [], constraints: [], citations },
};

let server: FakeOllama;
const claims: string[] = [];
beforeAll(async () => {
  server = await startFakeOllama({
    respond(req) {
      const prompt = String(req.body?.messages?.[0]?.content ?? req.body?.prompt ?? '');
      const claim = /^CLAIM: (.*)$/m.exec(prompt)?.[1] ?? '';
      claims.push(claim);
      // A small "fact checker": it doubts the vibration claim.
      return { content: JSON.stringify({ supported: !claim.includes('vibration') }) };
    },
  });
});
afterAll(async () => {
  await server.close();
});

describe('rca-validate --check-claims MODEL', () => {
  it('asks about every claim, records the answer per item, and flags a "no"', async () => {
    const r = await runInProcess(validateStage, [JSON.stringify(RECORD) + '\n'], ['--check-claims', MODEL, '--claims-host', server.url]);
    expect(claims).toEqual(['AFW Train B remained available', 'vibration peaked at 6.2 mils']);
    // A flag is a warning: the view is written with it, exit 0 (--fail-on-flags would make it 1).
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.flags.rca_frame).toEqual(['model_unsupported:observed[1]']);
    expect(out.evidence.rca_frame.items.map((i: any) => i.model_check)).toEqual([
      { model: MODEL, supported: true, error: null },
      { model: MODEL, supported: false, error: null },
    ]);
    expect(r.stderr).toContain('rca-validate: stdin:1: rca_frame: model_unsupported:observed[1]');
  });

  it('is off by default: no request is made', async () => {
    const before = server.stats.generations;
    const r = await runInProcess(validateStage, [JSON.stringify(RECORD) + '\n'], []);
    expect(r.code).toBe(0);
    expect(server.stats.generations).toBe(before);
    expect(JSON.parse(r.stdout).evidence.rca_frame.items[0].model_check).toBeUndefined();
  });

  it('an unknown model or an unreachable server is fatal before any record', async () => {
    const r = await runInProcess(validateStage, [JSON.stringify(RECORD) + '\n'], ['--check-claims', 'no-such-model', '--claims-host', server.url]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^rca-validate: --check-claims: .*no-such-model/);
  });

  it('--claims-host without --check-claims is a usage error', async () => {
    const r = await runInProcess(validateStage, [''], ['--claims-host', server.url]);
    expect(r.code).toBe(2);
  });
});
