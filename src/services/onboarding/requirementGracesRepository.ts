import type { Db } from '../../db/knex.ts';

// Grace periods of requirement versions (issue 36, migration 20261129002000): a row per raised
// version whose enforcement waits. The rule that reads them is src/domain/requirementGrace.ts.

/**
 * The platform's versions still in grace as one jsonb object (version -> enforce_after), for
 * the onboarding statement (binding `:platformId`): read by primary key, usually no row.
 */
export const PENDING_GRACES_JSON = `
  SELECT coalesce(jsonb_object_agg(g.requirement_version::text, g.enforce_after), '{}'::jsonb)
    FROM requirement_graces g
   WHERE g.platform_id = :platformId AND g.enforce_after > now()`;

export interface PendingGraceRow {
  requirementVersion: number;
  enforceAfter: Date;
}

/** The platform's versions still in grace, oldest first. */
export async function listPendingGraces(db: Db, platformId: string): Promise<PendingGraceRow[]> {
  const { rows } = await db.raw<{ rows: PendingGraceRow[] }>(
    `SELECT requirement_version AS "requirementVersion", enforce_after AS "enforceAfter"
       FROM requirement_graces WHERE platform_id = ? AND enforce_after > now() ORDER BY requirement_version`,
    [platformId],
  );
  return rows;
}

/**
 * Moves every version still in grace to `enforceAfter` (a date not in the future enforces them
 * now). The caller holds the platform row locked, as for a schema change. Returns the versions moved.
 */
export async function moveGraces(db: Db, platformId: string, enforceAfter: Date): Promise<number[]> {
  const { rows } = await db.raw<{ rows: { requirementVersion: number }[] }>(
    `UPDATE requirement_graces SET enforce_after = greatest(CAST(:enforceAfter AS timestamptz), now())
      WHERE platform_id = :platformId AND enforce_after > now()
     RETURNING requirement_version AS "requirementVersion"`,
    { platformId, enforceAfter },
  );
  return rows.map((row) => row.requirementVersion).sort((a, b) => a - b);
}
