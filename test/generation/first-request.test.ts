import { describe, expect, it } from 'vitest';
import { CR_CONTEXT, EMPTY_SEED } from '../support/cr-chunk.js';
import type { Job } from '../../src/generation/backend.js';
import { GENERATE_OPTIONS, resolveConfig, type GenerateOptionValues } from '../../src/generation/config.js';
import { ladderPolicy } from '../../src/generation/create.js';
import { attemptInput } from '../../src/generation/ladder.js';
import { createModelBackend } from '../../src/generation/model-backend.js';
import { RequestGate } from '../../src/generation/request-gate.js';
import { RunControl } from '../../src/generation/run-control.js';
import type { GenerateRequest, ModelClient } from '../../src/llm/model-client.js';
import { parseStageArgs } from '../../src/runtime/options.js';
import { CHUNK_RECORDS } from '../../src/views/records/chunk-records.js';
import { VIEW_KINDS } from '../../src/views/kinds/index.js';
import type { AnyRecordKind } from '../../src/views/records/records.js';

const CONTEXT = CR_CONTEXT;
const SEED = EMPTY_SEED;
const TEXT = 'Pump P-101A tripped on high vibration of 6.2 mils. The alert limit is 5.0 mils.';

// A job whose record kind counts the prompts it builds.
function countingJob(): { job: Job; built: () => number } {
  let built = 0;
  const records = { ...CHUNK_RECORDS, prompt: (...args: Parameters<typeof CHUNK_RECORDS.prompt>) => (built++, CHUNK_RECORDS.prompt(...args)) } as unknown as AnyRecordKind;
  const input = { context: CONTEXT, nerSeed: SEED, text: TEXT };
  return { job: { kind: VIEW_KINDS.rca_frame, records, input, text: TEXT, seq: 0 }, built: () => built };
}

describe('the first attempt of a view is built once', () => {
  it('the cache key and the first request share one prompt; a second attempt builds its own', async () => {
    const config = resolveConfig(parseStageArgs(GENERATE_OPTIONS, []).values as GenerateOptionValues, {});
    const policy = ladderPolicy(config);
    const sent: GenerateRequest[] = [];
    const client: ModelClient = {
      host: 'http://test',
      preflight: async () => ({ model: 'm', digest: 'd' }),
      generate: async (request) => (sent.push(request), { content: '{}', doneReason: 'stop', promptTokens: 1, outputTokens: 1 }),
    };
    const control = new RunControl(() => 0, 0, 'the test server');
    const backend = createModelBackend('ollama', config, { client, gate: new RequestGate(1, () => 0), control, modelDigest: 'd' });
    const { job, built } = countingJob();
    const first = attemptInput(job, policy, 1, null);
    const key = backend.cacheKeyParts!(job, first);
    await backend.attempt(job, first, control.signal);
    expect(built()).toBe(1);
    expect(sent[0]!.prompt).toBe(key.prompt);
    await backend.attempt(job, attemptInput(job, policy, 2, 'Your previous reply could not be used.'), control.signal);
    expect(built()).toBe(2);
    expect(sent[1]!.prompt).toBe(`Your previous reply could not be used.\n\n${key.prompt}`);
  });
});
