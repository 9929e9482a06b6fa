import { afterEach, describe, expect, it } from 'vitest';
import { HostListError, HostPool, parseHostSpecs, type HostPoolEvent, type HostPoolOptions, type HostSpec } from '../../src/llm/host-pool.js';
import { ModelError, type GenerateReply, type GenerateRequest, type ModelClient, type ModelErrorCode, type ModelInfo } from '../../src/llm/model-client.js';
import { createOllamaClient } from '../../src/llm/ollama-client.js';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.js';

const MODEL = 'mistral:latest';
const FORMAT = { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] };
const SHAPED = '{"summary":""}';
const REQUEST: GenerateRequest = {
  model: MODEL,
  prompt: 'Extract the facts.',
  format: FORMAT,
  options: { temperature: 0, seed: 42, num_predict: 512, num_ctx: 8192 },
  keepAlive: '30m',
  timeoutMs: 5_000,
  think: false,
};
const REPLY: GenerateReply = { content: 'ok', doneReason: 'stop', promptTokens: 3, outputTokens: 2 };

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function fail(code: ModelErrorCode, retryable?: boolean): ModelError {
  return new ModelError(code, `${code} from the stub`, retryable === undefined ? {} : { retryable });
}

// Marks a rejection as handled at once: tests settle stubs before they look at the outcome.
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelError);
  return err as ModelError;
}

// A client whose calls stay pending until the test settles them, so every scheduling decision
// can be looked at between two steps.
class StubClient implements ModelClient {
  readonly calls: { resolve(reply: GenerateReply): void; reject(err: unknown): void }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  info: ModelInfo | ModelError;
  private settled = 0;

  constructor(
    readonly host: string,
    digest: string | null = 'sha256:aaaa',
  ) {
    this.info = { model: MODEL, digest };
  }

  async preflight(): Promise<ModelInfo> {
    if (this.info instanceof ModelError) throw this.info;
    return this.info;
  }

  generate(): Promise<GenerateReply> {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise<GenerateReply>((resolve, reject) => {
      this.calls.push({ resolve, reject });
    }).finally(() => {
      this.inFlight -= 1;
    });
  }

  // Settles the oldest pending call.
  async settle(outcome: GenerateReply | ModelError = REPLY): Promise<void> {
    const call = this.calls[this.settled];
    if (call === undefined) throw new Error(`${this.host} has no pending call`);
    this.settled += 1;
    if (outcome instanceof ModelError) call.reject(outcome);
    else call.resolve(outcome);
    await flush();
  }
}

// Answers every pending call, including those that only arrive as others finish.
async function drain(stubs: StubClient[]): Promise<void> {
  while (stubs.some((s) => s.inFlight > 0)) {
    for (const stub of stubs) if (stub.inFlight > 0) await stub.settle();
  }
}

interface Rig {
  pool: HostPool;
  stubs: StubClient[];
  events: HostPoolEvent[];
  clock: { t: number };
}

function rig(slots: number[], opts: HostPoolOptions = {}): Rig {
  const stubs = slots.map((_, i) => new StubClient(`http://h${i}:11434`));
  const events: HostPoolEvent[] = [];
  const clock = { t: 0 };
  const pool = new HostPool(
    stubs.map((client, i) => ({ url: client.host, slots: slots[i]!, client })),
    { now: () => clock.t, backoffBaseMs: 100, backoffMaxMs: 400, onEvent: (e) => events.push(e), ...opts },
  );
  return { pool, stubs, events, clock };
}

// Which stub each call went to, in call order.
function assignments(stubs: StubClient[], log: string[]): void {
  for (const [i, stub] of stubs.entries()) {
    const original = stub.generate.bind(stub);
    stub.generate = () => {
      log.push(`h${i}`);
      return original();
    };
  }
}

describe('parseHostSpecs', () => {
  it.each<[string, string[], Record<string, string>, HostSpec[]]>([
    ['one URL', ['http://gpu1:11434'], {}, [{ url: 'http://gpu1:11434', slots: 2 }]],
    ['host:port', ['gpu1:11500'], {}, [{ url: 'http://gpu1:11500', slots: 2 }]],
    ['a bare host gets Ollama’s port', ['gpu1'], {}, [{ url: 'http://gpu1:11434', slots: 2 }]],
    ['a scheme without port keeps the scheme’s port', ['https://llm.example/'], {}, [{ url: 'https://llm.example', slots: 2 }]],
    ['host=URL,slots=N', ['host=http://gpu1:11434,slots=4'], {}, [{ url: 'http://gpu1:11434', slots: 4 }]],
    [
      'repeated --host, mixed forms',
      ['gpu1', 'host=gpu2:11434,slots=8', 'http://10.0.0.3:11434'],
      {},
      [
        { url: 'http://gpu1:11434', slots: 2 },
        { url: 'http://gpu2:11434', slots: 8 },
        { url: 'http://10.0.0.3:11434', slots: 2 },
      ],
    ],
    ['a comma list inside one --host', ['gpu1, gpu2,slots=3'], {}, [{ url: 'http://gpu1:11434', slots: 2 }, { url: 'http://gpu2:11434', slots: 3 }]],
    [
      'OLLAMA_HOSTS when no --host',
      [],
      { OLLAMA_HOSTS: 'host=http://a:1,slots=1, b:2 ,,', OLLAMA_HOST: 'http://ignored:1' },
      [
        { url: 'http://a:1', slots: 1 },
        { url: 'http://b:2', slots: 2 },
      ],
    ],
    ['--host wins over OLLAMA_HOSTS', ['c'], { OLLAMA_HOSTS: 'a,b' }, [{ url: 'http://c:11434', slots: 2 }]],
    ['blank --host values fall back to the environment', [' '], { OLLAMA_HOSTS: 'a' }, [{ url: 'http://a:11434', slots: 2 }]],
    ['OLLAMA_HOST when no list', [], { OLLAMA_HOSTS: ' ', OLLAMA_HOST: 'gpu9' }, [{ url: 'http://gpu9:11434', slots: 2 }]],
    ['OLLAMA_BASE_URL last', [], { OLLAMA_BASE_URL: 'http://base:11434/' }, [{ url: 'http://base:11434', slots: 2 }]],
    ['the default', [], {}, [{ url: 'http://localhost:11434', slots: 2 }]],
  ])('%s', (_name, values, env, expected) => {
    expect(parseHostSpecs(values, env, 2)).toEqual(expected);
  });

  it.each<[string, string[], Record<string, string>, RegExp]>([
    ['slots before any host', ['slots=2,gpu1'], {}, /--host: 'slots=2' must follow a host/],
    ['slots twice', ['host=gpu1,slots=2,slots=3'], {}, /gpu1:11434 is given slots twice/],
    ['zero slots', ['host=gpu1,slots=0'], {}, /slots must be a whole number from 1 to 4096, got '0'/],
    ['too many slots', ['host=gpu1,slots=5000'], {}, /got '5000'/],
    ['the same host twice', ['gpu1', 'http://gpu1:11434/'], {}, /host http:\/\/gpu1:11434 is given twice/],
    ['not a URL', ['http://'], {}, /'http:\/\/' is not a host or URL/],
    ['another scheme', ['ftp://gpu1'], {}, /must be an http or https URL/],
    ['an empty list in the environment', [], { OLLAMA_HOSTS: ',,' }, /OLLAMA_HOSTS: no host given/],
  ])('%s is refused with its source named', (_name, values, env, message) => {
    expect(() => parseHostSpecs(values, env, 2)).toThrow(HostListError);
    expect(() => parseHostSpecs(values, env, 2)).toThrow(message);
  });
});

describe('scheduling', () => {
  it('fills the least-loaded host first, never past its slots, and queues the rest', async () => {
    const { pool, stubs } = rig([2, 2, 4]);
    const log: string[] = [];
    assignments(stubs, log);
    const replies = Array.from({ length: 10 }, () => quiet(pool.generate(REQUEST)));
    await flush();
    // Ties go to the host with more free slots, then to the earlier one.
    expect(log).toEqual(['h2', 'h0', 'h1', 'h2', 'h2', 'h0', 'h1', 'h2']);
    expect(pool.stats().map((s) => s.in_flight)).toEqual([2, 2, 4]);
    await stubs[1]!.settle();
    expect(log.slice(8)).toEqual(['h1']);
    await stubs[2]!.settle();
    expect(log.slice(9)).toEqual(['h2']);
    await drain(stubs);
    await expect(Promise.all(replies)).resolves.toHaveLength(10);
    expect(stubs.map((s) => s.maxInFlight)).toEqual([2, 2, 4]);
    expect(pool.capacity).toBe(8);
    expect(pool.stats()).toEqual([
      { url: 'http://h0:11434', slots: 2, state: 'up', requests: 2, failures: 0, in_flight: 0, prompt_tokens: 6, output_tokens: 4, down_until: null },
      { url: 'http://h1:11434', slots: 2, state: 'up', requests: 3, failures: 0, in_flight: 0, prompt_tokens: 9, output_tokens: 6, down_until: null },
      { url: 'http://h2:11434', slots: 4, state: 'up', requests: 5, failures: 0, in_flight: 0, prompt_tokens: 15, output_tokens: 10, down_until: null },
    ]);
  });

  it('a cancelled waiter leaves the queue and takes no slot', async () => {
    const { pool, stubs } = rig([1]);
    const first = quiet(pool.generate(REQUEST));
    const controller = new AbortController();
    const waiting = quiet(pool.generate(REQUEST, controller.signal));
    await flush();
    controller.abort();
    expect((await failure(waiting)).code).toBe('ABORTED');
    await stubs[0]!.settle();
    await expect(first).resolves.toEqual(REPLY);
    expect(stubs[0]!.calls).toHaveLength(1);
    expect((await failure(pool.generate(REQUEST, AbortSignal.abort()))).code).toBe('ABORTED');
  });
});

describe('failures', () => {
  it.each<[ModelErrorCode, boolean]>([
    ['UNREACHABLE', true],
    ['CONNECTION_RESET', false],
    ['TIMEOUT', false],
    ['HTTP_5XX', false],
    ['SERVER_BUSY', false],
    ['HTTP_429', false],
    ['STREAM_ERROR', false],
  ])('%s moves the request to another host (rests at once: %s)', async (code, restsAtOnce) => {
    const { pool, stubs, events } = rig([1, 1]);
    const reply = quiet(pool.generate(REQUEST));
    await flush();
    await stubs[0]!.settle(fail(code));
    await stubs[1]!.settle();
    await expect(reply).resolves.toEqual(REPLY);
    expect(pool.stats().map((s) => [s.requests, s.failures, s.state])).toEqual([
      [1, 1, restsAtOnce ? 'down' : 'up'],
      [1, 0, 'up'],
    ]);
    expect(events).toEqual(restsAtOnce ? [{ kind: 'down', url: 'http://h0:11434', code, message: `${code} from the stub`, forMs: 100 }] : []);
  });

  it('a second failure in a row rests the host; a success between them does not', async () => {
    const { pool, stubs } = rig([1, 1]);
    const outcomes: (ModelError | GenerateReply)[] = [fail('HTTP_5XX'), REPLY, fail('HTTP_5XX'), fail('SERVER_BUSY')];
    const states: string[] = [];
    for (const outcome of outcomes) {
      const reply = quiet(pool.generate(REQUEST));
      await flush();
      await stubs[0]!.settle(outcome);
      if (outcome instanceof ModelError) await stubs[1]!.settle();
      await reply;
      states.push(pool.stats()[0]!.state);
    }
    expect(states).toEqual(['up', 'up', 'up', 'down']);
  });

  it.each<[string, ModelError]>([
    ['400', fail('HTTP_400')],
    ['a reply too large', fail('REPLY_TOO_LARGE')],
    ['a malformed reply', fail('BAD_RESPONSE')],
    ['an auth failure', fail('AUTH')],
    ['a permanent 501', fail('HTTP_5XX', false)],
    ['a cancellation', fail('ABORTED')],
  ])('%s is the caller’s, as it is, with no retry', async (_name, error) => {
    const { pool, stubs } = rig([1, 1]);
    const reply = quiet(pool.generate(REQUEST));
    await flush();
    await stubs[0]!.settle(error);
    expect(await failure(reply)).toBe(error);
    expect(stubs[1]!.calls).toHaveLength(0);
    expect(pool.stats().map((s) => [s.state, s.failures])).toEqual([
      ['up', 0],
      ['up', 0],
    ]);
  });

  it('tries each host once, then hands the last error back', async () => {
    const { pool, stubs } = rig([1, 1, 1]);
    const reply = quiet(pool.generate(REQUEST));
    await flush();
    await stubs[0]!.settle(fail('CONNECTION_RESET'));
    await stubs[1]!.settle(fail('TIMEOUT'));
    await stubs[2]!.settle(fail('HTTP_5XX'));
    const err = await failure(reply);
    expect(err.code).toBe('HTTP_5XX');
    expect(stubs.map((s) => s.calls.length)).toEqual([1, 1, 1]);
  });

  it('a request waits for a busy host it has not tried', async () => {
    const { pool, stubs } = rig([1, 1]);
    const blocker = quiet(pool.generate(REQUEST));
    const reply = quiet(pool.generate(REQUEST));
    await flush();
    await stubs[1]!.settle(fail('CONNECTION_RESET'));
    expect(stubs[0]!.calls).toHaveLength(1);
    await stubs[0]!.settle();
    await expect(blocker).resolves.toEqual(REPLY);
    await stubs[0]!.settle();
    await expect(reply).resolves.toEqual(REPLY);
  });

  it('failures of requests sent before a host was rested count once', async () => {
    const { pool, stubs, events } = rig([4, 4]);
    const replies = Array.from({ length: 8 }, () => quiet(pool.generate(REQUEST)));
    await flush();
    for (let i = 0; i < 4; i += 1) await stubs[0]!.settle(fail('CONNECTION_RESET'));
    expect(events.filter((e) => e.kind === 'down')).toHaveLength(1);
    expect(pool.stats()[0]).toMatchObject({ state: 'down', failures: 4, down_until: 100 });
    while (stubs[1]!.inFlight > 0) await stubs[1]!.settle();
    await expect(Promise.all(replies)).resolves.toHaveLength(8);
    expect(stubs[1]!.calls).toHaveLength(8);
  });

  it('a model removed from one host mid-run takes that host out and the request goes on', async () => {
    const { pool, stubs, events } = rig([1, 1]);
    const reply = quiet(pool.generate(REQUEST));
    await flush();
    await stubs[0]!.settle(fail('HTTP_404'));
    await stubs[1]!.settle();
    await expect(reply).resolves.toEqual(REPLY);
    expect(events).toEqual([{ kind: 'skipped', url: 'http://h0:11434', code: 'HTTP_404', message: 'HTTP_404 from the stub' }]);
    expect(pool.capacity).toBe(1);
    const last = quiet(pool.generate(REQUEST));
    await flush();
    await stubs[1]!.settle(fail('HTTP_404'));
    expect((await failure(last)).code).toBe('HTTP_404');
  });
});

describe('rest and probe', () => {
  it('a rested host gets one probe when its rest is over, backing off exponentially while it fails', async () => {
    const { pool, stubs, events, clock } = rig([2, 2], { failuresToRest: 1 });
    const [sick, healthy] = [stubs[0]!, stubs[1]!];
    const downUntil: (number | null)[] = [];
    const first = quiet(pool.generate(REQUEST));
    await flush();
    await sick.settle(fail('UNREACHABLE'));
    await healthy.settle();
    await first;
    downUntil.push(pool.stats()[0]!.down_until);

    // Probes at the end of each rest: fail, fail, fail (capped), then succeed.
    for (const outcome of [fail('UNREACHABLE'), fail('CONNECTION_RESET'), fail('UNREACHABLE'), REPLY]) {
      clock.t = pool.stats()[0]!.down_until!;
      const probe = quiet(pool.generate(REQUEST));
      const other = quiet(pool.generate(REQUEST));
      await flush();
      // While the probe is out, the host takes nothing else.
      expect([sick.inFlight, healthy.inFlight]).toEqual([1, 1]);
      expect(pool.stats()[0]!.state).toBe('probing');
      await sick.settle(outcome);
      await drain([healthy]);
      await Promise.all([probe, other]);
      downUntil.push(pool.stats()[0]!.down_until);
    }
    expect(downUntil).toEqual([100, 300, 700, 1100, null]);
    expect(events.map((e) => (e.kind === 'down' ? `down ${e.forMs}` : e.kind))).toEqual(['down 100', 'down 200', 'down 400', 'down 400', 'up']);

    // Back up: both hosts serve again, and a new failure starts from the first rest.
    const spread = [quiet(pool.generate(REQUEST)), quiet(pool.generate(REQUEST))];
    await flush();
    expect([sick.inFlight, healthy.inFlight]).toEqual([1, 1]);
    await sick.settle(fail('UNREACHABLE'));
    await drain([healthy]);
    await Promise.all(spread);
    expect(pool.stats()[0]!.down_until).toBe(clock.t + 100);
  });

  it('with every host resting, a request fails at once saying when the next probe is', async () => {
    const { pool, stubs, clock } = rig([1, 1]);
    const reply = quiet(pool.generate(REQUEST));
    await flush();
    await stubs[0]!.settle(fail('UNREACHABLE'));
    await stubs[1]!.settle(fail('UNREACHABLE'));
    expect((await failure(reply)).code).toBe('UNREACHABLE');
    clock.t = 40;
    const err = await failure(quiet(pool.generate(REQUEST)));
    expect(err).toMatchObject({ code: 'UNREACHABLE', retryable: true, retryAfterMs: 60 });
    expect(err.message).toBe('every host is resting after failures (http://h0:11434, http://h1:11434); the next is probed in 60 ms');
  });

  it('requests waiting on a probe fail with their own last error when it fails', async () => {
    const { pool, stubs, clock } = rig([1, 1], { failuresToRest: 1 });
    const setup = quiet(pool.generate(REQUEST));
    await flush();
    await stubs[0]!.settle(fail('UNREACHABLE'));
    await stubs[1]!.settle();
    await setup;
    clock.t = 100;
    // The first request after the rest is h0's probe; the second goes to h1; the third waits.
    const probe = quiet(pool.generate(REQUEST));
    const other = quiet(pool.generate(REQUEST));
    const waiting = quiet(pool.generate(REQUEST));
    await flush();
    expect(pool.stats().map((s) => s.state)).toEqual(['probing', 'up']);
    // h1 fails too (and rests): `other` waits for the probe as well.
    await stubs[1]!.settle(fail('TIMEOUT'));
    await stubs[0]!.settle(fail('UNREACHABLE'));
    const outcomes = await Promise.allSettled([probe, other, waiting]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? `${(o.reason as ModelError).code} ${(o.reason as ModelError).message}` : 'ok'))).toEqual([
      'UNREACHABLE UNREACHABLE from the stub',
      'TIMEOUT TIMEOUT from the stub',
      'UNREACHABLE every host is resting after failures (http://h0:11434, http://h1:11434); the next is probed in 100 ms',
    ]);
  });

  it('a cancelled probe leaves the host due for another', async () => {
    const { pool, stubs, clock } = rig([1, 1], { failuresToRest: 1 });
    const setup = quiet(pool.generate(REQUEST));
    await flush();
    await stubs[0]!.settle(fail('UNREACHABLE'));
    await stubs[1]!.settle();
    await setup;
    clock.t = 100;
    const probe = quiet(pool.generate(REQUEST));
    await flush();
    await stubs[0]!.settle(fail('ABORTED'));
    await failure(probe);
    expect(pool.stats()[0]).toMatchObject({ state: 'down', down_until: 100 });
    const next = quiet(pool.generate(REQUEST));
    await flush();
    expect(pool.stats()[0]!.state).toBe('probing');
    await stubs[0]!.settle();
    await expect(next).resolves.toEqual(REPLY);
    expect(pool.stats()[0]!.state).toBe('up');
  });
});

describe('preflight', () => {
  const info = (digest: string | null): ModelInfo => ({ model: MODEL, digest });
  it.each<[string, (ModelInfo | ModelError)[], ModelInfo, string[]]>([
    ['every host agrees', [info('sha256:aaaa'), info('sha256:aaaa'), info('sha256:aaaa')], info('sha256:aaaa'), []],
    ['hosts without a digest cannot disagree', [info(null), info('sha256:bbbb'), info(null)], info('sha256:bbbb'), []],
    ['no digest anywhere', [info(null), info(null), info(null)], info(null), []],
    [
      'a host without the model is skipped',
      [info('sha256:aaaa'), new ModelError('HTTP_404', 'model "mistral:latest" not found — run: ollama pull mistral:latest', { status: 404 }), info('sha256:aaaa')],
      info('sha256:aaaa'),
      ['skipped http://h1:11434 HTTP_404'],
    ],
    ['an unreachable host is skipped', [new ModelError('UNREACHABLE', 'cannot reach'), info('sha256:aaaa'), info('sha256:aaaa')], info('sha256:aaaa'), ['skipped http://h0:11434 UNREACHABLE']],
  ])('%s', async (_name, outcomes, expected, reported) => {
    const { pool, stubs, events } = rig([1, 2, 4]);
    outcomes.forEach((o, i) => {
      stubs[i]!.info = o;
    });
    await expect(pool.preflight(MODEL)).resolves.toEqual(expected);
    expect(events.map((e) => `${e.kind} ${e.url} ${e.kind === 'skipped' ? e.code : ''}`)).toEqual(reported);
    const skipped = outcomes.map((o) => o instanceof ModelError);
    expect(pool.stats().map((s) => s.state)).toEqual(skipped.map((s) => (s ? 'skipped' : 'up')));
    expect(pool.capacity).toBe([1, 2, 4].reduce((sum, slots, i) => sum + (skipped[i] ? 0 : slots), 0));
    // Skipped hosts get no requests.
    const replies = Array.from({ length: 7 }, () => quiet(pool.generate(REQUEST)));
    await flush();
    stubs.forEach((stub, i) => expect(stub.calls.length > 0).toBe(!skipped[i]));
    await drain(stubs);
    await Promise.all(replies);
  });

  it('digests that differ name every host and digest', async () => {
    const { pool, stubs } = rig([1, 1, 1]);
    stubs[0]!.info = info('f974a74358d62a017b37c6f4');
    stubs[1]!.info = info('0123456789abcdef0123');
    stubs[2]!.info = info('f974a74358d62a017b37c6f4');
    const err = await failure(pool.preflight(MODEL));
    expect(err).toMatchObject({ code: 'BAD_RESPONSE', retryable: false });
    expect(err.message).toBe(
      'model "mistral:latest" differs across hosts: f974a74358d6 on http://h0:11434, http://h2:11434; 0123456789ab on http://h1:11434 — pull the same version everywhere',
    );
  });

  it('no usable host is fatal and says why for each', async () => {
    const { pool, stubs } = rig([1, 1]);
    stubs[0]!.info = new ModelError('HTTP_404', 'model "mistral:latest" not found', { status: 404 });
    stubs[1]!.info = new ModelError('UNREACHABLE', 'cannot reach Ollama at http://h1:11434');
    const err = await failure(pool.preflight(MODEL));
    expect(err).toMatchObject({ code: 'HTTP_404', retryable: false });
    expect(err.message).toBe('no host can serve model "mistral:latest" — http://h0:11434: model "mistral:latest" not found; http://h1:11434: cannot reach Ollama at http://h1:11434');
  });
});

describe('against fake servers', () => {
  const started: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.close()));
  });

  async function ollamas(hosts: { slots: number; latencyMs: number }[]): Promise<FakeOllama[]> {
    // maxQueue 0: a request past a host's slots would be refused with 503, so none may arrive.
    const servers = await Promise.all(hosts.map((h) => startFakeOllama({ ...h, maxQueue: 0 })));
    started.push(...servers);
    return servers;
  }

  function poolOver(urls: string[], slots: number[], opts: HostPoolOptions = {}): HostPool {
    return new HostPool(
      urls.map((url, i) => ({ url, slots: slots[i]!, client: createOllamaClient({ host: url }) })),
      opts,
    );
  }

  it('spreads requests by free slots and speed, and its counts match the servers’ own', async () => {
    const hosts = [
      { slots: 2, latencyMs: 60 },
      { slots: 2, latencyMs: 30 },
      { slots: 4, latencyMs: 40 },
    ];
    const servers = await ollamas(hosts);
    const pool = poolOver(
      servers.map((s) => s.url),
      hosts.map((h) => h.slots),
    );
    await expect(pool.preflight(MODEL)).resolves.toMatchObject({ model: MODEL });
    const total = 120;
    const replies = await Promise.all(Array.from({ length: total }, () => pool.generate({ ...REQUEST, format: FORMAT })));
    expect(replies.every((r) => r.content === SHAPED)).toBe(true);
    const stats = pool.stats();
    const rates = hosts.map((h) => h.slots / h.latencyMs);
    const rateSum = rates.reduce((a, b) => a + b, 0);
    servers.forEach((server, i) => {
      expect(server.stats.faults).toEqual({});
      expect(server.stats.maxInFlight).toBe(hosts[i]!.slots);
      expect(stats[i]).toMatchObject({ requests: server.stats.byPath['/api/chat'], failures: 0, in_flight: 0, state: 'up' });
      expect(stats[i]!.prompt_tokens).toBe(5 * stats[i]!.requests);
      expect(stats[i]!.output_tokens).toBe(Math.ceil(SHAPED.length / 8) * stats[i]!.requests);
      // Each host's share follows its rate (slots / latency).
      expect(Math.abs(stats[i]!.requests / total - rates[i]! / rateSum)).toBeLessThan(0.1);
    });
  });

  // What makes 3 hosts with 2 + 2 + 4 slots as fast as one with 8, asserted as counts: every
  // host had all its slots busy at once (none idle, nothing run one by one). The speed itself, against one
  // host and against the ideal rate, is measured by bench/multi-host-throughput.mjs.
  it('3 hosts with 2 + 2 + 4 slots are each used up to their slots', async () => {
    const hosts = [
      { slots: 2, latencyMs: 50 },
      { slots: 2, latencyMs: 50 },
      { slots: 4, latencyMs: 50 },
    ];
    const total = 200;
    const servers = await ollamas(hosts);
    const pool = poolOver(
      servers.map((s) => s.url),
      hosts.map((h) => h.slots),
    );
    await pool.preflight(MODEL);
    await Promise.all(Array.from({ length: total }, () => pool.generate(REQUEST)));
    expect(servers.map((s) => s.stats.maxInFlight)).toEqual(hosts.map((h) => h.slots));
    expect(servers.map((s) => s.stats.byPath['/api/chat'] ?? 0).reduce((a, b) => a + b, 0)).toBe(total);
    expect(servers.every((s) => (s.stats.byPath['/api/chat'] ?? 0) > 0)).toBe(true);
    expect(servers.map((s) => s.stats.faults)).toEqual([{}, {}, {}]);
  });

  it('a host that dies mid-run loses no request, and its share comes back after the probe', async () => {
    const slots = [2, 2, 4];
    const faces: FakeOpenAi[] = await Promise.all(slots.map((n) => startFakeOpenAi({ slots: n, latencyMs: 25, maxQueue: 0 })));
    started.push(...faces);
    const events: HostPoolEvent[] = [];
    const pool = poolOver(
      faces.map((f) => f.url),
      slots,
      { backoffBaseMs: 60, backoffMaxMs: 120, onEvent: (e) => events.push(e) },
    );
    await pool.preflight(MODEL);
    const dying = faces[1]!;
    let revived: FakeOpenAi | null = null;
    let done = 0;
    const total = 320;
    let outage: Promise<void> | null = null;
    const replies = Array.from({ length: total }, () =>
      pool.generate(REQUEST).then((reply) => {
        done += 1;
        if (done === 60) {
          outage = (async () => {
            await dying.close();
            await new Promise((resolve) => setTimeout(resolve, 100));
            revived = await startFakeOpenAi({ slots: 2, latencyMs: 25, maxQueue: 0, port: dying.port });
            started.push(revived);
          })();
        }
        return reply;
      }),
    );
    const settled = await Promise.allSettled(replies);
    await outage;
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
    expect(revived).not.toBeNull();
    const byPath = (f: FakeOpenAi | null): number => f?.stats.byPath['/api/chat'] ?? 0;
    expect(byPath(revived)).toBeGreaterThan(0);
    expect(events.filter((e) => e.url === dying.url).map((e) => e.kind)).toEqual(expect.arrayContaining(['down', 'up']));
    expect(events.at(-1)).toEqual({ kind: 'up', url: dying.url });
    const stats = pool.stats();
    // The hosts that stayed up saw exactly what the pool sent them.
    for (const i of [0, 2]) expect(stats[i]).toMatchObject({ requests: byPath(faces[i]!), failures: 0 });
    // The dying host: every attempt either reached one of its lives or failed, and every success did reach it.
    const reached = byPath(dying) + byPath(revived);
    expect(stats[1]!.failures).toBeGreaterThan(0);
    expect(stats[1]!.requests - stats[1]!.failures).toBeLessThanOrEqual(reached);
    expect(reached).toBeLessThanOrEqual(stats[1]!.requests);
    expect(stats[1]).toMatchObject({ state: 'up', in_flight: 0 });
    expect(stats.reduce((sum, s) => sum + s.requests - s.failures, 0)).toBe(total);
  });
});
