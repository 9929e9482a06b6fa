import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { commandHelp, parseCommandArgs, type Command, type CommandIO } from './command.js';
import { defaultCachePath, parseDuration } from '../cache/cache-options.js';
import type { CacheStats, MergeCounts } from '../cache/response-cache.js';
import { EXIT } from '../runtime/exit-codes.js';
import { checkInputPaths } from '../runtime/options.js';
import type { OptionsSpec } from '../runtime/stage.js';

const OPTIONS = {
  cache: { type: 'string', placeholder: 'PATH', help: 'the cache file [default: $RCA_CACHE, else $XDG_CACHE_HOME/rca/responses.sqlite, else ~/.cache/rca/responses.sqlite]' },
  'older-than': { type: 'string', placeholder: 'DURATION', help: '(prune) how long an entry may go unused' },
  json: { type: 'boolean', help: 'print the result as one JSON object' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionsSpec;

const USAGE = commandHelp(
  `Usage: rca cache stats [--cache PATH] [--json]
       rca cache prune --older-than DURATION [--cache PATH] [--json]
       rca cache merge [--cache PATH] [--json] SOURCE...

The response cache keeps model replies that passed validation, keyed by everything that
determines a reply (backend, model name and digest, generation options, JSON Schema, prompt).
Parallel runs share it safely. A failed reply is never stored, so it is retried next time.

  stats   entries, size on disk, entries by backend and model, oldest and newest entries
  prune   delete the entries not used for DURATION: a number and a unit among
          ms, s, m, h, d, w (e.g. 30d, 12h, 90m)
  merge   copy every entry of the SOURCE cache files (e.g. the local caches of the tasks of a
          job array) into the cache, keys unchanged, so the next run on any node starts warm;
          the cache is created if missing. A key both hold keeps the newer entry, so merging
          again changes nothing. Run it while no process writes the SOURCE files.
`,
  OPTIONS,
  `
Examples:
  rca cache stats
  rca cache prune --older-than 30d --cache build/cache.sqlite
  rca cache merge --cache shared/responses.sqlite out/cache/task-*.sqlite

Exit status:
  0    done (a cache that does not exist yet has 0 entries)
  2    usage error (merge: a SOURCE that is missing, a folder or unreadable)
  3    the cache cannot be opened, read or written (merge: a SOURCE is not a cache)
`,
);

const SUBCOMMANDS = ['stats', 'prune', 'merge'] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

const command: Command = {
  name: 'cache',
  summary: 'show, prune or merge response caches of generate/summarize (rca cache --help)',
  async run(io: CommandIO): Promise<number> {
    const say = (line: string) => io.stderr.write(`rca cache: ${line}\n`);
    let parsed;
    try {
      parsed = parseCommandArgs(OPTIONS, io.argv, true);
    } catch (err) {
      say(`${(err as Error).message} (see rca cache --help)`);
      return EXIT.USAGE;
    }
    const { values, positionals } = parsed;
    if (values.help) {
      io.stdout.write(USAGE);
      return EXIT.OK;
    }
    const [verb, ...extra] = positionals;
    if (verb === undefined) {
      say(`which action? (${SUBCOMMANDS.join(' or ')}; see rca cache --help)`);
      return EXIT.USAGE;
    }
    if (!(SUBCOMMANDS as readonly string[]).includes(verb)) {
      say(`unknown action '${verb}' (known: ${SUBCOMMANDS.join(', ')})`);
      return EXIT.USAGE;
    }
    const action = verb as Subcommand;
    if (action === 'merge' ? extra.length === 0 : extra.length > 0) {
      say(action === 'merge' ? 'merge needs the SOURCE cache files to copy from' : `unexpected argument '${extra[0]}'`);
      return EXIT.USAGE;
    }
    let olderThanMs: number | null = null;
    if (action === 'prune') {
      const text = values['older-than'];
      if (text === undefined) {
        say('prune needs --older-than DURATION (e.g. 30d)');
        return EXIT.USAGE;
      }
      olderThanMs = parseDuration(text);
      if (olderThanMs === null) {
        say(`--older-than expects a duration such as 30d, 12h or 90m, got '${text}'`);
        return EXIT.USAGE;
      }
    } else if (values['older-than'] !== undefined) {
      say('--older-than applies to prune only');
      return EXIT.USAGE;
    }
    if (values.cache !== undefined && values.cache.trim() === '') {
      say('--cache needs a file path');
      return EXIT.USAGE;
    }
    const path = values.cache ?? defaultCachePath(io.env);
    if (action === 'merge') {
      try {
        checkInputPaths(extra, { label: 'SOURCE cache file' });
      } catch (err) {
        say((err as Error).message);
        return EXIT.USAGE;
      }
      const target = sameFile(path);
      const self = extra.find((source) => sameFile(source) === target);
      if (self !== undefined) {
        say(`'${self}' is the cache merged into; name it once, with --cache`);
        return EXIT.USAGE;
      }
    }

    // Loaded only here: `rca --help` lists this command and must not pay for the SQLite addon.
    const { openResponseCache, CacheError } = await import('../cache/response-cache.js');
    let cache;
    try {
      cache = openResponseCache(path, { create: action === 'merge' });
    } catch (err) {
      if (err instanceof CacheError && err.code === 'MISSING') {
        // Nothing cached yet is a normal state, not a failure, and looking must not create it.
        if (action === 'stats') io.stdout.write(values.json ? `${JSON.stringify(statsJson(emptyStats(path), false))}\n` : formatStats(emptyStats(path), false));
        else io.stdout.write(values.json ? `${JSON.stringify({ path, pruned: 0, remaining: 0, older_than_ms: olderThanMs })}\n` : `no cache at ${path}; nothing to prune\n`);
        return EXIT.OK;
      }
      say(messageOf(err));
      return EXIT.FATAL;
    }
    try {
      if (action === 'merge') {
        const merged: MergeCounts[] = [];
        for (const source of extra) {
          const counts = cache.mergeFrom(source);
          merged.push(counts);
          if (!values.json) io.stdout.write(`${source}: ${counts.entries} ${plural(counts.entries, 'entry', 'entries')}, ${counts.added} added, ${counts.replaced} replaced by a newer one\n`);
        }
        const entries = cache.stats().entries;
        const added = merged.reduce((n, m) => n + m.added, 0);
        const replaced = merged.reduce((n, m) => n + m.replaced, 0);
        io.stdout.write(
          values.json
            ? `${JSON.stringify({ path, sources: merged, added, replaced, entries })}\n`
            : `merged ${merged.length} ${plural(merged.length, 'cache', 'caches')} into ${path}: ${added} added, ${replaced} replaced; ${entries} ${plural(entries, 'entry', 'entries')} now\n`,
        );
      } else if (action === 'stats') {
        const stats = cache.stats();
        io.stdout.write(values.json ? `${JSON.stringify(statsJson(stats, true))}\n` : formatStats(stats, true));
      } else {
        const pruned = cache.prune(olderThanMs!);
        const remaining = cache.stats().entries;
        io.stdout.write(
          values.json
            ? `${JSON.stringify({ path, pruned, remaining, older_than_ms: olderThanMs })}\n`
            : `pruned ${pruned} ${plural(pruned, 'entry', 'entries')} not used for ${values['older-than']}; ${remaining} left in ${path}\n`,
        );
      }
      return EXIT.OK;
    } catch (err) {
      say(messageOf(err));
      return EXIT.FATAL;
    } finally {
      cache.close();
    }
  },
};

export default command;

// The same file under two names (a symlink, ./x and x) must not be merged into itself.
function sameFile(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function emptyStats(path: string): CacheStats {
  return { path, entries: 0, replyBytes: 0, fileBytes: 0, walBytes: 0, oldestCreated: null, newestCreated: null, oldestUsed: null, newestUsed: null, groups: [] };
}

function statsJson(stats: CacheStats, exists: boolean): Record<string, unknown> {
  return {
    path: stats.path,
    exists,
    entries: stats.entries,
    reply_bytes: stats.replyBytes,
    file_bytes: stats.fileBytes,
    wal_bytes: stats.walBytes,
    oldest_created: iso(stats.oldestCreated),
    newest_created: iso(stats.newestCreated),
    oldest_used: iso(stats.oldestUsed),
    newest_used: iso(stats.newestUsed),
    by_model: stats.groups.map((g) => ({
      backend: g.backend,
      model: g.model,
      entries: g.entries,
      reply_bytes: g.replyBytes,
      oldest_created: iso(g.oldestCreated),
      newest_created: iso(g.newestCreated),
    })),
  };
}

function formatStats(stats: CacheStats, exists: boolean): string {
  const lines = [`cache      ${stats.path}${exists ? '' : ' (does not exist yet)'}`, `entries    ${stats.entries}`];
  if (exists) {
    lines.push(`on disk    ${bytes(stats.fileBytes + stats.walBytes)} (database ${bytes(stats.fileBytes)}, write-ahead log ${bytes(stats.walBytes)}); replies ${bytes(stats.replyBytes)}`);
  }
  if (stats.entries > 0) {
    lines.push(`created    ${iso(stats.oldestCreated)} .. ${iso(stats.newestCreated)}`);
    lines.push(`last used  ${iso(stats.oldestUsed)} .. ${iso(stats.newestUsed)}`);
    const rows = stats.groups.map((g) => [g.backend, g.model, String(g.entries), bytes(g.replyBytes), `${iso(g.oldestCreated)} .. ${iso(g.newestCreated)}`]);
    const table = [['backend', 'model', 'entries', 'replies', 'created'], ...rows];
    const widths = table[0]!.map((_, col) => Math.max(...table.map((row) => row[col]!.length)));
    lines.push('');
    for (const row of table) lines.push(row.map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths[col]! + 2))).join('').trimEnd());
  }
  return `${lines.join('\n')}\n`;
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

function plural(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}

function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
}
