// Grace periods for requirement changes (issue 36): the one rule that says whether a change is
// in force or still in grace, shared by the onboarding fields and the documents (both raise the
// platform's requirement version, and a grace belongs to a raised version).
//
// Pure module: no I/O.

/**
 * The platform's requirement versions whose enforcement is still to come, by version, with
 * the date-time (ISO 8601) each is enforced from. A version absent here is in force: enforced
 * at once when published, or its date has passed. The onboarding statement reads it
 * (requirement_graces rows with `enforce_after > now()`).
 */
export type PendingGraces = Readonly<Record<string, string>>;

/**
 * When a person who lacks only what `versions` introduced must have it: the earliest date of
 * those versions, or null when any of them is in force (no grace: it blocks as before). A
 * version of null (a document version published before grace periods existed) is in force.
 * Fields pass the versions raised since the person last completed onboarding; documents the
 * versions raised by the blocking versions the person has not accepted.
 */
export function graceDeadline(versions: readonly (number | null)[], pending: PendingGraces): string | null {
  if (versions.length === 0) return null;
  let earliest = Infinity;
  for (const version of versions) {
    const enforceAfter = version === null ? undefined : pending[String(version)];
    if (enforceAfter === undefined) return null;
    earliest = Math.min(earliest, Date.parse(enforceAfter));
  }
  // ISO 8601 in UTC as the contract's other date-times (PostgreSQL's jsonb spells them its own way).
  return new Date(earliest).toISOString();
}

/** The versions raised after `from` up to `to` (from exclusive): what a person who completed `from` has not yet confirmed. */
export function versionsAfter(from: number, to: number): number[] {
  const versions: number[] = [];
  for (let version = from + 1; version <= to; version += 1) versions.push(version);
  return versions;
}
