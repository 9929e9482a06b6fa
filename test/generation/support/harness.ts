// Runs generate/summarize in process against a fake Ollama server driven by a scripted model.
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import generateStage from '../../../src/transforms/generate.js';
import summarizeStage from '../../../src/transforms/summarize.js';
import type { Stage } from '../../../src/runtime/stage.js';
import { startFakeOllama, type FakeOllama, type FakeOllamaOptions } from '../../support/fake-ollama.js';
import { runInProcess, type InProcessResult } from '../../support/run-in-process.js';
import { scriptedModel, type Script, type ScriptedModel } from './scripted-model.js';

export const STAGES = { generate: generateStage as Stage, summarize: summarizeStage as Stage };

const servers: FakeOllama[] = [];

export interface Served {
  server: FakeOllama;
  model: ScriptedModel;
}

export async function serve(script: Script = {}, opts: Omit<FakeOllamaOptions, 'respond'> = {}): Promise<Served> {
  const model = scriptedModel(script);
  const server = await startFakeOllama({ ...opts, respond: model.respond });
  servers.push(server);
  return { server, model };
}

export async function closeServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((s) => s.close()));
}

// Fast backoff so fault paths take milliseconds; a test that is about backoff sets its own.
export const FAST = ['--retry-delay', '1'];

/**
 * Tests never touch the per-user cache: a run gets --no-cache unless the test names its own
 * cache file (tempCache()), so every other test sends the requests it counts.
 */
export function cacheArgs(args: readonly string[]): string[] {
  return args.includes('--cache') || args.includes('--no-cache') ? [] : ['--no-cache'];
}

/** A fresh cache file path in a temporary folder. */
export function tempCache(): string {
  return join(mkdtempSync(join(tmpdir(), 'rca-gen-cache-')), 'responses.sqlite');
}

export async function run(
  stage: keyof typeof STAGES,
  server: FakeOllama | string,
  input: string,
  args: string[] = [],
  opts: { env?: Record<string, string>; signals?: EventEmitter; stdout?: Writable } = {},
): Promise<InProcessResult> {
  const host = typeof server === 'string' ? server : server.url;
  return runInProcess(STAGES[stage], [input], ['--host', host, ...FAST, ...cacheArgs(args), ...args], opts);
}

/** stderr without the one line that changes from run to run. */
export function stableStderr(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => !/: wall time [\d.,]+ s, [\d.,]+ records\/s$/.test(l))
    .join('\n');
}

export type { InProcessResult };
