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
  0    every record was processed; views kept with quality flags are warnings on stderr, not failures
  1    some records were rejected or failed (a failed view; a flagged one only with --fail-on-flags);
       the run went on (see stderr and --rejects)
  2    usage error (unknown flag, bad value, missing or unreadable input file)
  3    fatal error (I/O, unreachable dependency, internal bug)
  130  interrupted (SIGINT/SIGTERM); records completed before it were written`;

/** What happened in a run, as far as its exit status is concerned. */
export interface RunResult {
  interrupted: boolean;
  fatal: boolean;
  /** Input records refused (rejects). */
  rejected: number;
  /** A record written but not fully made (a view failed after all its tries). */
  failed: boolean;
  /** Views written with quality flags. */
  flagged: number;
  /** --fail-on-flags: a flagged view counts as a failed record. */
  failOnFlags: boolean;
}

/**
 * The one rule from a run to its exit status (sticky: the worst thing that happened wins). A view
 * kept with quality flags is a processed record with warnings, as a compiler's warning is: a
 * corpus build under make, a job array or `set -e` must not fail over a few few_keywords flags
 * (the flags are in the record, and the lines on stderr name them). --fail-on-flags asks for 1.
 */
export function exitStatus(run: RunResult): ExitCode {
  if (run.interrupted) return EXIT.INTERRUPTED;
  if (run.fatal) return EXIT.FATAL;
  if (run.rejected > 0 || run.failed || (run.failOnFlags && run.flagged > 0)) return EXIT.RECORDS_FAILED;
  return EXIT.OK;
}

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
