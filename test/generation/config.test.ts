import { describe, expect, it } from 'vitest';
import { GENERATE_OPTIONS, normaliseHost, normaliseKeepAlive, resolveConfig, type Env, type GenerateOptionValues } from '../../src/generation/config.js';
import { parseStageArgs } from '../../src/runtime/options.js';
import { UsageError } from '../../src/runtime/exit-codes.js';

function configOf(argv: string[], env: Env = {}) {
  return resolveConfig(parseStageArgs(GENERATE_OPTIONS, argv).values as GenerateOptionValues, env);
}

describe('host, model and num_ctx: flag, then environment, then default', () => {
  it.each([
    ['nothing set', [], {}, 'http://localhost:11434'],
    ['OLLAMA_BASE_URL', [], { OLLAMA_BASE_URL: 'http://base:1' }, 'http://base:1'],
    ['OLLAMA_HOST over OLLAMA_BASE_URL', [], { OLLAMA_HOST: 'http://host:2', OLLAMA_BASE_URL: 'http://base:1' }, 'http://host:2'],
    ['--host over both', ['--host', 'http://flag:3'], { OLLAMA_HOST: 'http://host:2', OLLAMA_BASE_URL: 'http://base:1' }, 'http://flag:3'],
    ['blank OLLAMA_HOST is unset', [], { OLLAMA_HOST: '  ', OLLAMA_BASE_URL: 'http://base:1' }, 'http://base:1'],
  ])('host: %s', (_name, argv, env, host) => {
    expect(configOf(argv, env).host).toBe(host);
  });

  it.each([
    ['default', [], {}, 'mistral:latest'],
    ['OLLAMA_MODEL', [], { OLLAMA_MODEL: 'qwen2.5:7b' }, 'qwen2.5:7b'],
    ['--model over OLLAMA_MODEL', ['--model', 'llama3'], { OLLAMA_MODEL: 'qwen2.5:7b' }, 'llama3'],
  ])('model: %s', (_name, argv, env, model) => {
    expect(configOf(argv, env).model).toBe(model);
  });

  it.each([
    ['default', [], {}, 8192],
    ['OLLAMA_NUM_CTX', [], { OLLAMA_NUM_CTX: '16384' }, 16384],
    ['--num-ctx over OLLAMA_NUM_CTX', ['--num-ctx', '4096'], { OLLAMA_NUM_CTX: '16384' }, 4096],
  ])('num_ctx: %s', (_name, argv, env, numCtx) => {
    expect(configOf(argv, env).modelOptions.num_ctx).toBe(numCtx);
  });

  it.each([['abc'], ['12.5'], ['100']])('a bad OLLAMA_NUM_CTX (%s) is a usage error', (value) => {
    expect(() => configOf([], { OLLAMA_NUM_CTX: value })).toThrow(UsageError);
  });
});

describe('host normalisation (as Ollama reads OLLAMA_HOST)', () => {
  it.each([
    ['http://localhost:11434', 'http://localhost:11434'],
    ['http://localhost:11434/', 'http://localhost:11434'],
    ['127.0.0.1', 'http://127.0.0.1:11434'],
    ['0.0.0.0:8080', 'http://0.0.0.0:8080'],
    ['https://gpu.example.org', 'https://gpu.example.org'],
    ['http://proxy.example.org/ollama/', 'http://proxy.example.org/ollama'],
  ])('%s → %s', (raw, host) => {
    expect(normaliseHost(raw)).toBe(host);
  });

  it.each([['ftp://x'], ['http://exa mple'], ['http://']])('rejects %s', (raw) => {
    expect(() => normaliseHost(raw)).toThrow(UsageError);
  });
});

describe('keep_alive', () => {
  it.each([
    ['30m', '30m'],
    ['1h30m', '1h30m'],
    ['-1', '-1s'],
    ['300', '300s'],
    ['0', '0s'],
    ['2.5h', '2.5h'],
  ])('%s → %s', (raw, value) => {
    expect(normaliseKeepAlive(raw)).toBe(value);
  });

  it.each([['forever'], ['30 m'], ['m30'], ['']])('rejects %j', (raw) => {
    expect(() => normaliseKeepAlive(raw)).toThrow(UsageError);
  });
});

describe('the rest of the options', () => {
  it('has the documented defaults', () => {
    expect(configOf([])).toEqual({
      backend: 'ollama',
      host: 'http://localhost:11434',
      model: 'mistral:latest',
      modelOptions: { temperature: 0, seed: 42, num_predict: 2048, num_ctx: 8192 },
      keepAlive: '30m',
      timeoutMs: 120_000,
      concurrency: 2,
      window: 16,
      maxTransportRetries: 5,
      retryDelayMs: 500,
      giveUpAfterMs: 120_000,
      maxTries: 3,
      truncateChars: 4000,
      maxChars: undefined,
      views: ['retrieval_summary', 'rca_frame'],
      flagsOk: false,
      overwrite: false,
      dryRun: false,
      cache: { path: expect.stringMatching(/\/\.cache\/rca\/responses\.sqlite$/), refresh: false },
    });
  });

  it.each([
    [['--concurrency', '4'], { concurrency: 4, window: 32 }],
    [['--concurrency', '4', '--window', '5'], { concurrency: 4, window: 5 }],
    [['--timeout', '0.5', '--give-up-after', '1.5'], { timeoutMs: 500, giveUpAfterMs: 1500 }],
    [['--views', 'rca_frame,retrieval_summary'], { views: ['retrieval_summary', 'rca_frame'] }],
    [['--views', 'rca_frame'], { views: ['rca_frame'] }],
    [['--seed', '7', '--max-output-tokens', '512'], { modelOptions: { temperature: 0, seed: 7, num_predict: 512, num_ctx: 8192 } }],
  ])('%j', (argv, expected) => {
    expect(configOf(argv)).toMatchObject(expected);
  });

  it.each([
    [['--timeout', '0']],
    [['--views', 'summary']],
    [['--concurrency', '0']],
    [['--backend', 'openai']],
    [['--max-tries', '0']],
    [['--backend', 'extractive', '--dry-run']],
    [['--cache', 'c.sqlite', '--no-cache']],
    [['--refresh', '--no-cache']],
    [['--cache', ' ']],
  ])('%j is a usage error', (argv) => {
    expect(() => configOf(argv)).toThrow(UsageError);
  });
});

describe('backend and response cache', () => {
  it.each<[string, string[], Env, Partial<ReturnType<typeof configOf>>]>([
    ['ollama by default', [], {}, { backend: 'ollama' }],
    ['--backend extractive', ['--backend', 'extractive'], {}, { backend: 'extractive' }],
    ['the cache from RCA_CACHE', [], { RCA_CACHE: '/tmp/rca.sqlite' }, { cache: { path: '/tmp/rca.sqlite', refresh: false } }],
    ['--cache over RCA_CACHE', ['--cache', 'build/c.sqlite'], { RCA_CACHE: '/tmp/rca.sqlite' }, { cache: { path: 'build/c.sqlite', refresh: false } }],
    ['then XDG_CACHE_HOME', [], { XDG_CACHE_HOME: '/xdg', HOME: '/home/u' }, { cache: { path: '/xdg/rca/responses.sqlite', refresh: false } }],
    ['then ~/.cache', [], { HOME: '/home/u' }, { cache: { path: '/home/u/.cache/rca/responses.sqlite', refresh: false } }],
    ['--refresh', ['--refresh'], { RCA_CACHE: '/tmp/rca.sqlite' }, { cache: { path: '/tmp/rca.sqlite', refresh: true } }],
    ['--no-cache', ['--no-cache'], { RCA_CACHE: '/tmp/rca.sqlite' }, { cache: { path: null, refresh: false } }],
  ])('%s', (_name, argv, env, expected) => {
    expect(configOf(argv, env)).toMatchObject(expected);
  });
});
