import { describe, expect, it } from 'vitest';
import { CacheSettingError, defaultCachePath, parseDuration, resolveCacheSetting, type CacheSetting } from '../../src/cache/cache-options.js';
import { asUsage, UsageError } from '../../src/runtime/exit-codes.js';

describe('defaultCachePath', () => {
  it.each<[string, Record<string, string | undefined>, string]>([
    ['RCA_CACHE wins', { RCA_CACHE: '/data/rca.sqlite', XDG_CACHE_HOME: '/xdg', HOME: '/home/u' }, '/data/rca.sqlite'],
    ['RCA_CACHE may be relative (used as given)', { RCA_CACHE: 'build/cache.sqlite', HOME: '/home/u' }, 'build/cache.sqlite'],
    ['then XDG_CACHE_HOME', { XDG_CACHE_HOME: '/xdg', HOME: '/home/u' }, '/xdg/rca/responses.sqlite'],
    ['a relative XDG_CACHE_HOME is ignored (XDG spec)', { XDG_CACHE_HOME: 'rel', HOME: '/home/u' }, '/home/u/.cache/rca/responses.sqlite'],
    ['then ~/.cache', { HOME: '/home/u' }, '/home/u/.cache/rca/responses.sqlite'],
    ['empty values count as unset', { RCA_CACHE: '', XDG_CACHE_HOME: ' ', HOME: '/home/u' }, '/home/u/.cache/rca/responses.sqlite'],
  ])('%s', (_name, env, expected) => {
    expect(defaultCachePath(env)).toBe(expected);
  });

  it('without HOME it still finds a per-user place', () => {
    expect(defaultCachePath({})).toMatch(/\.cache\/rca\/responses\.sqlite$/);
  });
});

describe('resolveCacheSetting', () => {
  const env = { HOME: '/home/u' };
  it.each<[string, Parameters<typeof resolveCacheSetting>[0], CacheSetting]>([
    ['default: the per-user cache', {}, { path: '/home/u/.cache/rca/responses.sqlite', refresh: false }],
    ['--cache PATH', { cache: 'c.sqlite' }, { path: 'c.sqlite', refresh: false }],
    ['--refresh', { refresh: true }, { path: '/home/u/.cache/rca/responses.sqlite', refresh: true }],
    ['--cache PATH --refresh', { cache: 'c.sqlite', refresh: true }, { path: 'c.sqlite', refresh: true }],
    ['--no-cache', { 'no-cache': true }, { path: null, refresh: false }],
    ['--no-cache false (as the option parser gives it)', { 'no-cache': false, refresh: false }, { path: '/home/u/.cache/rca/responses.sqlite', refresh: false }],
  ])('%s', (_name, values, expected) => {
    expect(resolveCacheSetting(values, env)).toEqual(expected);
  });

  it.each<[string, Parameters<typeof resolveCacheSetting>[0]]>([
    ['--cache with --no-cache', { cache: 'c.sqlite', 'no-cache': true }],
    ['--refresh with --no-cache', { refresh: true, 'no-cache': true }],
    ['--cache with an empty path', { cache: '' }],
  ])('refused: %s', (_name, values) => {
    expect(() => resolveCacheSetting(values, env)).toThrow(CacheSettingError);
  });
});

describe('parseDuration', () => {
  it.each<[string, number]>([
    ['30d', 30 * 86_400_000],
    ['12h', 12 * 3_600_000],
    ['90m', 90 * 60_000],
    ['45s', 45_000],
    ['250ms', 250],
    ['2w', 14 * 86_400_000],
    ['1.5h', 5_400_000],
    ['0s', 0],
    [' 7d ', 7 * 86_400_000],
  ])('%j is %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '30', 'd', '-1d', '1y', '1 d', '1D', 'soon', '1d2h', '.5h'])('%j is not a duration', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});

describe('the command-line edge', () => {
  it('turns a cache setting error into a usage error with the same message, and lets others through', () => {
    const read = () => asUsage(() => resolveCacheSetting({ cache: 'c', 'no-cache': true }, {}), [CacheSettingError]);
    expect(read).toThrow(UsageError);
    expect(read).toThrow(/^--cache and --no-cache contradict each other$/);
    expect(() => asUsage(() => { throw new TypeError('bug'); }, [CacheSettingError])).toThrow(TypeError);
  });
});
