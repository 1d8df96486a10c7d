import type { Db } from '../../db/knex.ts';
import { PROFILE_COLUMNS as BINDABLE_PROFILE_COLUMNS } from '../../domain/onboarding.ts';

/** The canonical profile as stored (date of birth as YYYY-MM-DD text). */
export interface ProfileRow {
  userId: string;
  firstName: string | null;
  lastName: string | null;
  displayName: string | null;
  dateOfBirth: string | null;
  phone: string | null;
  country: string | null;
  locale: string | null;
  pictureUrl: string | null;
  email: string | null;
  updatedAt: Date;
}

const PROFILE_COLUMNS = `
  u.id AS "userId", p.first_name AS "firstName", p.last_name AS "lastName", p.display_name AS "displayName",
  to_char(p.date_of_birth, 'YYYY-MM-DD') AS "dateOfBirth", p.phone, p.country, p.locale,
  p.picture_url AS "pictureUrl", u.email, GREATEST(p.updated_at, u.updated_at) AS "updatedAt"`;

/** The profile of a user (created empty if a user somehow has none). */
export async function findProfile(db: Db, userId: string): Promise<ProfileRow> {
  await db.raw('INSERT INTO profiles (user_id) VALUES (?) ON CONFLICT (user_id) DO NOTHING', [userId]);
  const { rows } = await db.raw<{ rows: ProfileRow[] }>(
    `SELECT ${PROFILE_COLUMNS} FROM users u JOIN profiles p ON p.user_id = u.id WHERE u.id = ?`,
    [userId],
  );
  return rows[0]!;
}

/**
 * Profile properties by column; columns are named only from this fixed map: the properties a
 * PROFILE_FIELD can bind to, and the locale (set by the person, never by a platform's form).
 */
export const PROFILE_PROPERTY_COLUMNS = { ...BINDABLE_PROFILE_COLUMNS, locale: 'locale' } as const;

export type ProfileProperty = keyof typeof PROFILE_PROPERTY_COLUMNS;

/**
 * The account center's profile update. A property whose value changes forgets the platform it
 * had been given to (profiles.value_sources, issue 36): the person now gave it here.
 */
export async function updateProfileRow(db: Db, userId: string, changes: Partial<Record<ProfileProperty, string | null>>): Promise<void> {
  const properties = Object.keys(changes) as ProfileProperty[];
  if (properties.length === 0) return;
  await db.raw(
    `INSERT INTO profiles (user_id, ${properties.map((property) => PROFILE_PROPERTY_COLUMNS[property]).join(', ')})
     VALUES (:userId, ${properties.map((property) => `:${property}`).join(', ')})
     ON CONFLICT (user_id) DO UPDATE SET
       ${properties.map((property) => `${PROFILE_PROPERTY_COLUMNS[property]} = EXCLUDED.${PROFILE_PROPERTY_COLUMNS[property]}`).join(', ')},
       value_sources = profiles.value_sources - array_remove(ARRAY[${properties
         .map((property) => `CASE WHEN profiles.${PROFILE_PROPERTY_COLUMNS[property]} IS DISTINCT FROM EXCLUDED.${PROFILE_PROPERTY_COLUMNS[property]} THEN '${property}' END`)
         .join(', ')}]::text[], NULL),
       updated_at = now()`,
    { userId, ...changes },
  );
}
