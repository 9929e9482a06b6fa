import { describe, expect, it } from 'vitest';
import { inspect } from 'node:util';
import { CONFIG_ERRORS, ConfigError, GENERATE_OPTIONS, normaliseKeepAlive, resolveConfig, Secret, type GenerateOptionValues } from '../../src/generation/config.js';
import type { Env } from '../../src/runtime/stage.js';
import { parseStageArgs } from '../../src/runtime/options.js';
import { asUsage, UsageError } from '../../src/runtime/exit-codes.js';
import { VIEW_TYPES } from '../../src/contracts/vocabulary.js';

function configOf(argv: string[], env: Env = {}) {
  // As the stages resolve it: the configuration's own errors become usage errors at the edge.
  return asUsage(() => resolveConfig(parseStageArgs(GENERATE_OPTIONS, argv).values as GenerateOptionValues, env), CONFIG_ERRORS);
}

describe('host, model and num_ctx: flag, then environment, then default', () => {
  it.each([
    ['nothing set', [], {}, 'http://localhost:11434'],
    ['OLLAMA_HOSTS first', [], { OLLAMA_HOSTS: 'http://list:4', OLLAMA_HOST: 'http://host:2' }, 'http://list:4'],
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

describe('Ollama hosts: --host (repeatable), else OLLAMA_HOSTS, else the single-host variables', () => {
  it.each<[string, string[], Env, string, { url: string; slots: number }[]]>([
    ['a bare host (as Ollama reads OLLAMA_HOST)', ['--host', '127.0.0.1'], {}, 'http://127.0.0.1:11434', [{ url: 'http://127.0.0.1:11434', slots: 2 }]],
    ['a path, trailing slash dropped', ['--host', 'http://proxy.example.org/ollama/'], {}, 'http://proxy.example.org/ollama', [{ url: 'http://proxy.example.org/ollama', slots: 2 }]],
    [
      'three --host, one with its own slots',
      ['--host', 'gpu1', '--host', 'gpu2:11500', '--host', 'host=https://gpu3.example.org,slots=8', '--concurrency', '3'],
      {},
      'http://gpu1:11434,http://gpu2:11500,https://gpu3.example.org',
      [
        { url: 'http://gpu1:11434', slots: 3 },
        { url: 'http://gpu2:11500', slots: 3 },
        { url: 'https://gpu3.example.org', slots: 8 },
      ],
    ],
    ['a comma list in one --host', ['--host', 'a,b,slots=4'], {}, 'http://a:11434,http://b:11434', [{ url: 'http://a:11434', slots: 2 }, { url: 'http://b:11434', slots: 4 }]],
    ['OLLAMA_HOSTS over OLLAMA_HOST', [], { OLLAMA_HOSTS: 'a, b', OLLAMA_HOST: 'c' }, 'http://a:11434,http://b:11434', [{ url: 'http://a:11434', slots: 2 }, { url: 'http://b:11434', slots: 2 }]],
    ['--host over OLLAMA_HOSTS', ['--host', 'c'], { OLLAMA_HOSTS: 'a,b' }, 'http://c:11434', [{ url: 'http://c:11434', slots: 2 }]],
    ['one host with its own slots', ['--host', 'host=a,slots=6'], {}, 'http://a:11434', [{ url: 'http://a:11434', slots: 6 }]],
  ])('%s', (_name, argv, env, host, hosts) => {
    expect(configOf(argv, env)).toMatchObject({ backend: 'ollama', host, hosts, apiKey: null });
  });

  it.each<[string, string[], Env, RegExp]>([
    ['another scheme', ['--host', 'ftp://x'], {}, /--host: 'ftp:\/\/x' must be an http or https URL/],
    ['not a URL', ['--host', 'http://exa mple'], {}, /is not a host or URL/],
    ['the same host twice', ['--host', 'a', '--host', 'http://a:11434'], {}, /host http:\/\/a:11434 is given twice/],
    ['slots of 0', ['--host', 'host=a,slots=0'], {}, /slots must be a whole number from 1/],
    ['an empty OLLAMA_HOSTS list', [], { OLLAMA_HOSTS: ' , ' }, /OLLAMA_HOSTS: no host given/],
  ])('%s is a usage error', (_name, argv, env, message) => {
    expect(() => configOf(argv, env)).toThrow(UsageError);
    expect(() => configOf(argv, env)).toThrow(message);
  });
});

describe('--backend openai', () => {
  const OPENAI = ['--backend', 'openai'];
  it.each<[string, string[], Env, Record<string, unknown>]>([
    ['the base URL as given', ['--base-url', 'http://vllm:8000/v1/'], {}, { host: 'http://vllm:8000/v1', hosts: [], apiKey: null }],
    ['a base URL without /v1', ['--base-url', 'https://llm.example.org'], {}, { host: 'https://llm.example.org' }],
    ['OLLAMA_HOST and OLLAMA_NUM_CTX play no part', ['--base-url', 'http://vllm:8000/v1'], { OLLAMA_HOST: 'gpu9', OLLAMA_HOSTS: 'a,b', OLLAMA_NUM_CTX: 'junk' }, { host: 'http://vllm:8000/v1', hosts: [] }],
    ['the model from --model', ['--base-url', 'http://vllm:8000/v1', '--model', 'Qwen/Qwen2.5-7B-Instruct'], {}, { model: 'Qwen/Qwen2.5-7B-Instruct' }],
  ])('%s', (_name, argv, env, expected) => {
    expect(configOf([...OPENAI, ...argv], env)).toMatchObject({ backend: 'openai', ...expected });
  });

  it('reads the key from the variable --api-key-env names, and never shows it', () => {
    const config = configOf([...OPENAI, '--base-url', 'http://vllm:8000/v1', '--api-key-env', 'VLLM_KEY'], { VLLM_KEY: ' sk-secret-123 \n', OPENAI_API_KEY: 'sk-other' });
    expect(config.apiKey).toBeInstanceOf(Secret);
    expect(config.apiKey!.reveal()).toBe('sk-secret-123');
    for (const shown of [JSON.stringify(config), inspect(config, { depth: 5, showHidden: true }), String(config.apiKey), `${config.apiKey}`]) {
      expect(shown).not.toContain('sk-secret-123');
    }
  });

  it('takes no key from any variable it was not told about', () => {
    expect(configOf([...OPENAI, '--base-url', 'http://vllm:8000/v1'], { OPENAI_API_KEY: 'sk-other' }).apiKey).toBeNull();
  });

  it.each<[string, string[], Env, RegExp]>([
    ['no --base-url', [...OPENAI], {}, /--backend openai needs --base-url URL/],
    ['a base URL that is not one', [...OPENAI, '--base-url', 'vllm:8000'], {}, /--base-url: the base URL must be an http or https URL/],
    ['a base URL that does not parse', [...OPENAI, '--base-url', 'not a url'], {}, /--base-url: the base URL must be an http or https URL such as/],
    ['--host with --backend openai', [...OPENAI, '--base-url', 'http://v:8000', '--host', 'gpu1'], {}, /--host names Ollama servers/],
    ['--num-ctx with --backend openai', [...OPENAI, '--base-url', 'http://v:8000', '--num-ctx', '4096'], {}, /--num-ctx is for Ollama/],
    ['--base-url with Ollama', ['--base-url', 'http://v:8000'], {}, /--base-url is for --backend openai/],
    ['--api-key-env with Ollama', ['--api-key-env', 'KEY'], { KEY: 'k' }, /--api-key-env is for --backend openai/],
    ['--api-key-env naming an unset variable', [...OPENAI, '--base-url', 'http://v:8000', '--api-key-env', 'NOPE'], {}, /--api-key-env NOPE: the variable is not set or empty/],
    ['--api-key-env naming an empty variable', [...OPENAI, '--base-url', 'http://v:8000', '--api-key-env', 'KEY'], { KEY: '  ' }, /the variable is not set or empty/],
    ['--api-key-env given a key instead of a name', [...OPENAI, '--base-url', 'http://v:8000', '--api-key-env', 'sk-abc'], {}, /expects the name of an environment variable, got 'sk-abc'/],
  ])('%s is a usage error', (_name, argv, env, message) => {
    expect(() => configOf(argv, env)).toThrow(UsageError);
    expect(() => configOf(argv, env)).toThrow(message);
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
    expect(() => normaliseKeepAlive(raw)).toThrow(ConfigError);
  });
});

describe('the rest of the options', () => {
  it('has the documented defaults', () => {
    expect(configOf([])).toEqual({
      backend: 'ollama',
      host: 'http://localhost:11434',
      hosts: [{ url: 'http://localhost:11434', slots: 2 }],
      apiKey: null,
      model: 'mistral:latest',
      modelOptions: { temperature: 0, seed: 42, num_predict: 2048, num_ctx: 8192 },
      keepAlive: '30m',
      timeoutMs: 120_000,
      think: 'off',
      promptStyle: 'compact',
      viewsPerRequest: 1,
      price: null,
      loadTimeoutMs: 600_000,
      concurrency: 2,
      window: null,
      maxTransportRetries: 5,
      retryDelayMs: 500,
      giveUpAfterMs: 120_000,
      maxTries: 3,
      truncateChars: 4000,
      maxChars: undefined,
      views: [...VIEW_TYPES],
      overwrite: false,
      dryRun: false,
      cache: { path: expect.stringMatching(/\/\.cache\/rca\/responses\.sqlite$/), refresh: false },
    });
  });

  it.each([
    [['--concurrency', '4'], { concurrency: 4, window: null, hosts: [{ url: 'http://localhost:11434', slots: 4 }] }],
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
    ['--backend extractive', ['--backend', 'extractive'], {}, { backend: 'extractive', host: null, hosts: [] }],
    ['--backend openai', ['--backend', 'openai', '--base-url', 'http://v:8000/v1'], {}, { backend: 'openai' }],
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
