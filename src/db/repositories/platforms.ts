import type { Db } from '../knex.ts';

export type OnboardingMode = 'none' | 'platform' | 'central';

/** A registry row as the services see it (never the secret digest). */
export interface PlatformRow {
  id: string;
  platformKey: string;
  displayName: string;
  callbackUrl: string | null;
  allowedReturnUrls: string[];
  defaultOnboardingMode: OnboardingMode;
  centralOnboardingEnabled: boolean;
  platformOnboardingPath: string | null;
  metadata: Record<string, unknown>;
  clientId: string | null;
  hasCredentials: boolean;
  requirementVersion: number;
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const PLATFORM_COLUMNS = `
  id, platform_key AS "platformKey", display_name AS "displayName", callback_url AS "callbackUrl",
  allowed_return_urls AS "allowedReturnUrls", default_onboarding_mode AS "defaultOnboardingMode",
  central_onboarding_enabled AS "centralOnboardingEnabled", platform_onboarding_path AS "platformOnboardingPath",
  metadata, client_id AS "clientId", (client_secret_digest IS NOT NULL) AS "hasCredentials",
  requirement_version AS "requirementVersion", active, created_at AS "createdAt", updated_at AS "updatedAt"`;

export async function findPlatformByKey(db: Db, platformKey: string): Promise<PlatformRow | undefined> {
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(`SELECT ${PLATFORM_COLUMNS} FROM platforms WHERE platform_key = ?`, [platformKey]);
  return rows[0];
}

export async function findActivePlatformByKey(db: Db, platformKey: string): Promise<PlatformRow | undefined> {
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(
    `SELECT ${PLATFORM_COLUMNS} FROM platforms WHERE platform_key = ? AND active`,
    [platformKey],
  );
  return rows[0];
}

export async function findActivePlatformById(db: Db, id: string): Promise<PlatformRow | undefined> {
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(`SELECT ${PLATFORM_COLUMNS} FROM platforms WHERE id = ? AND active`, [id]);
  return rows[0];
}
