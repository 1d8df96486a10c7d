/** The command line itself is wrong (unknown command or option, missing argument): exit code 2 (EXIT_USAGE). */
export class UsageError extends Error {
  override name = 'UsageError';
}
