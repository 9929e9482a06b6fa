/** Exit statuses, fixed and documented in every `--help`. */
export const EXIT = {
  OK: 0,
  RECORDS_FAILED: 1,
  USAGE: 2,
  FATAL: 3,
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_HELP = `Exit status:
  0    every record was processed
  1    some records were rejected or failed (the run went on; see stderr and --rejects)
  2    usage error (unknown flag, bad value, missing file)
  3    fatal error (I/O, unreachable dependency, internal bug)
  130  interrupted (SIGINT/SIGTERM); records completed before it were written`;

/** A problem with the command line or its files: exit 2, one line on stderr, no stack. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A problem that stops the run: exit 3, one line on stderr, no stack. */
export class FatalError extends Error {
  override name = 'FatalError';
}

/**
 * Runs a domain module's reading of command-line values at the edge: the errors it throws of
 * the given classes become usage errors with the same message (the module itself knows no exit codes).
 */
export function asUsage<T>(read: () => T, errors: readonly (abstract new (...args: never[]) => Error)[]): T {
  try {
    return read();
  } catch (err) {
    if (errors.some((kind) => err instanceof kind)) throw new UsageError((err as Error).message);
    throw err;
  }
}
