// Runs generate/summarize in process against fake servers driven by a scripted model: one Ollama
// host, several (each an OpenAI face, whose Ollama paths go to its engine, so that a test can stop
// a host and start it again on the same port), or an OpenAI-compatible server.
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import generateStage from '../../../src/transforms/generate.js';
import summarizeStage from '../../../src/transforms/summarize.js';
import type { Stage } from '../../../src/runtime/stage.js';
import { startFakeOllama, type FakeOllama, type FakeOllamaOptions } from '../../support/fake-ollama.js';
import { startFakeOpenAi, type FakeOpenAi, type FakeOpenAiOptions } from '../../support/fake-openai.js';
import { runInProcess, type InProcessResult } from '../../support/run-in-process.js';
import { scriptedModel, type Script, type ScriptedModel } from './scripted-model.js';

export const STAGES = { generate: generateStage as Stage, summarize: summarizeStage as Stage };

const servers: { close(): Promise<void> }[] = [];

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

export interface ServedOpenAi {
  server: FakeOpenAi;
  model: ScriptedModel;
}

/** An OpenAI-compatible fake server (its /v1 face) over the scripted model. */
export async function serveOpenAi(script: Script = {}, opts: Omit<FakeOpenAiOptions, 'respond'> = {}): Promise<ServedOpenAi> {
  const model = scriptedModel(script);
  const server = await startFakeOpenAi({ ...opts, respond: model.respond });
  servers.push(server);
  return { server, model };
}

export interface ServedHosts {
  hosts: FakeOpenAi[];
  /** One model for all hosts: a script counts the requests of a (chunk, view) wherever they went. */
  model: ScriptedModel;
  /** Stops host `i` (its requests in flight are cut) and, after `downMs`, starts it again on its port. */
  restart(i: number, downMs: number): Promise<FakeOpenAi>;
  /** Every life of host `i` so far, the first one first. */
  lives(i: number): FakeOpenAi[];
}

export async function serveHosts(hosts: Omit<FakeOpenAiOptions, 'respond' | 'port'>[], script: Script = {}): Promise<ServedHosts> {
  const model = scriptedModel(script);
  const start = async (opts: FakeOpenAiOptions): Promise<FakeOpenAi> => {
    const server = await startFakeOpenAi({ ...opts, respond: model.respond });
    servers.push(server);
    return server;
  };
  const lives = await Promise.all(hosts.map(async (h) => [await start(h)]));
  return {
    model,
    hosts: lives.map((l) => l[0]!),
    lives: (i) => lives[i]!,
    async restart(i, downMs) {
      const current = lives[i]!.at(-1)!;
      await current.close();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      const next = await start({ ...hosts[i], port: current.port });
      lives[i]!.push(next);
      return next;
    },
  };
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

/** A run with only the arguments given: no --host added (several hosts, --backend openai). */
export async function runWith(
  stage: keyof typeof STAGES,
  input: string,
  args: string[],
  opts: { env?: Record<string, string>; signals?: EventEmitter; stdout?: Writable } = {},
): Promise<InProcessResult> {
  return runInProcess(STAGES[stage], [input], [...FAST, ...cacheArgs(args), ...args], opts);
}

/** stderr without the one line that changes from run to run. */
export function stableStderr(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => !/: wall time [\d.,]+ s, [\d.,]+ records\/s$/.test(l))
    .join('\n');
}

export type { InProcessResult };
