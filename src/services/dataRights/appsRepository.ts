import type { Db } from '../../db/knex.ts';

// Statements of "apps with my data" and "leave this platform" (issue 26).

export interface AppRow {
  platformKey: string;
  displayName: string;
  active: boolean;
  firstUsedAt: Date;
  lastSignedInAt: Date;
  completedRequirementVersion: number | null;
  requirementVersion: number;
  fields: { key: string; label: string; type: string; source: string; profileField: string | null; sharing: string | null; required: boolean }[];
}

/**
 * The platforms the person is a member of (the gateway's own one left out), newest sign-in
 * first, each with its active onboarding fields in the schema's order.
 */
export async function listAppRows(db: Db, userId: string, ownPlatformKey: string | null): Promise<AppRow[]> {
  const { rows } = await db.raw<{ rows: AppRow[] }>(
    `SELECT p.platform_key AS "platformKey", p.display_name AS "displayName", p.active, m.created_at AS "firstUsedAt",
            m.last_signed_in_at AS "lastSignedInAt", m.completed_requirement_version AS "completedRequirementVersion",
            p.requirement_version AS "requirementVersion",
            COALESCE((SELECT jsonb_agg(jsonb_build_object('key', f.field_key, 'label', f.label, 'type', f.field_type, 'source', f.source,
                                                          'profileField', f.profile_field, 'sharing', f.sharing, 'required', f.required)
                                       ORDER BY f.sort_order, f.field_key)
                        FROM onboarding_fields f WHERE f.platform_id = p.id AND f.archived_at IS NULL), '[]'::jsonb) AS fields
       FROM platform_memberships m JOIN platforms p ON p.id = m.platform_id
      WHERE m.user_id = :userId AND (CAST(:ownPlatformKey AS text) IS NULL OR p.platform_key <> :ownPlatformKey)
      ORDER BY m.last_signed_in_at DESC, p.platform_key`,
    { userId, ownPlatformKey },
  );
  return rows;
}

/**
 * The person's membership of a platform, locked for leaving (FOR UPDATE: two leaves at once
 * leave once); undefined when the platform is unknown or the person is not a member.
 */
export async function lockMembership(db: Db, userId: string, platformKey: string): Promise<{ platformId: string } | undefined> {
  const { rows } = await db.raw<{ rows: { platformId: string }[] }>(
    `SELECT m.platform_id AS "platformId" FROM platform_memberships m JOIN platforms p ON p.id = m.platform_id
      WHERE m.user_id = :userId AND p.platform_key = :platformKey FOR UPDATE OF m`,
    { userId, platformKey },
  );
  return rows[0];
}

export interface LeftPlatform {
  credentialsRevoked: number;
  handoffCodesExpired: number;
  valuesRemoved: number;
}

/**
 * What leaving removes, in one statement (the caller's transaction also queued the platform's
 * back-channel logouts first): the pending handoff codes for the platform stop exchanging (before
 * the credentials go, so an exchange racing this either committed its credential, which goes
 * too, or finds its code expired), every credential the platform holds for the person's
 * sessions, the person's platform-scoped values and the membership.
 */
export async function removePlatformData(db: Db, userId: string, platformId: string): Promise<LeftPlatform> {
  const bindings = { userId, platformId };
  const handoffs = await db.raw<{ rowCount: number }>(
    `UPDATE handoff_codes SET expires_at = now()
      WHERE user_id = :userId AND platform_id = :platformId AND consumed_at IS NULL AND expires_at > now()`,
    bindings,
  );
  const { rows } = await db.raw<{ rows: { credentials: number; values: number }[] }>(
    `WITH credentials AS (
       DELETE FROM platform_credentials c USING gateway_sessions s
        WHERE c.session_id = s.id AND s.user_id = :userId AND c.platform_id = :platformId RETURNING 1
     ), removed_values AS (
       DELETE FROM onboarding_values WHERE user_id = :userId AND platform_id = :platformId RETURNING 1
     ), membership AS (
       DELETE FROM platform_memberships WHERE user_id = :userId AND platform_id = :platformId
     )
     SELECT (SELECT count(*) FROM credentials)::int AS credentials, (SELECT count(*) FROM removed_values)::int AS "values"`,
    bindings,
  );
  return { credentialsRevoked: rows[0]!.credentials, handoffCodesExpired: handoffs.rowCount, valuesRemoved: rows[0]!.values };
}
