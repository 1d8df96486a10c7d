import { refuseIfLate, statementDeadline, STATEMENT_IN_TIME_CTE, type Db } from '../../db/knex.ts';

/** Where a ticket's bytes go and where a published picture lives. */
export type AvatarStoreKind = 'postgres' | 's3';

export interface NewTicket {
  id: string;
  userId: string;
  avatarId: string;
  store: AvatarStoreKind;
  contentType: string;
  contentLength: number;
  /** Unix seconds, the value the upload URL's signature covers. */
  expires: number;
}

export async function insertTicket(db: Db, ticket: NewTicket): Promise<void> {
  await db.raw(
    `INSERT INTO avatar_upload_tickets (id, user_id, avatar_id, store, content_type, content_length, expires_at)
     VALUES (:id, :userId, :avatarId, :store, :contentType, :contentLength, to_timestamp(:expires))`,
    { ...ticket },
  );
}

export interface SpentTicket {
  id: string;
  userId: string;
  avatarId: string;
  contentType: string;
  contentLength: number;
}

/**
 * Spends a ticket in one statement (GUIDE §5): only an unused, unexpired ticket of this
 * store whose user still exists and is not deleted. Undefined when none matched, whatever
 * the reason, so every refusal looks the same. Run after its deadline (src/db/knex.ts
 * STATEMENT_DEADLINE) it spends nothing and throws StatementDeadlinePassed: the upload's 503
 * leaves the ticket for its retry.
 */
export async function spendTicket(db: Db, id: string, store: AvatarStoreKind): Promise<SpentTicket | undefined> {
  const { rows } = await db.raw<{ rows: (Partial<SpentTicket> & { late: boolean })[] }>(
    `WITH ${STATEMENT_IN_TIME_CTE}, spent AS (
       UPDATE avatar_upload_tickets t SET used_at = now()
         FROM users u
        WHERE t.id = :id AND t.store = :store AND t.used_at IS NULL AND t.expires_at > now()
          AND u.id = t.user_id AND u.deleted_at IS NULL AND (SELECT ok FROM in_time)
       RETURNING t.id, t.user_id AS "userId", t.avatar_id AS "avatarId", t.content_type AS "contentType",
                 t.content_length AS "contentLength"
     )
     SELECT (SELECT NOT ok FROM in_time) AS late, spent.* FROM (SELECT 1) AS one LEFT JOIN spent ON true`,
    { id, store, deadline: statementDeadline(db) },
  );
  const { late, ...ticket } = rows[0]!;
  refuseIfLate('spend avatar ticket', { late });
  return ticket.id == null ? undefined : (ticket as SpentTicket);
}

export interface RemovedAvatar {
  id: string;
  store: AvatarStoreKind;
}

export interface NewAvatar {
  id: string;
  userId: string;
  store: AvatarStoreKind;
  /** The WebP bytes when PostgreSQL is the store; null when they are in the object store. */
  image: Buffer | null;
  width: number;
  height: number;
  pictureUrl: string;
}

/**
 * Publishes a picture in one transaction: the profile's picture_url, the new avatar row, and
 * the user's previous avatars removed (their URLs stop serving; the caller deletes the
 * objects of those kept in object storage). The profile row is locked first, so two
 * uploads of one user run one after the other and exactly one picture remains.
 */
export async function publishAvatar(db: Db, avatar: NewAvatar): Promise<RemovedAvatar[]> {
  return db.transaction(async (trx) => {
    await trx.raw(
      `INSERT INTO profiles (user_id, picture_url) VALUES (:userId, :pictureUrl)
       ON CONFLICT (user_id) DO UPDATE SET picture_url = EXCLUDED.picture_url, updated_at = now()`,
      { userId: avatar.userId, pictureUrl: avatar.pictureUrl },
    );
    const { rows } = await trx.raw<{ rows: RemovedAvatar[] }>(`DELETE FROM avatars WHERE user_id = ? RETURNING id, store`, [avatar.userId]);
    await trx.raw(
      `INSERT INTO avatars (id, user_id, store, image, width, height) VALUES (:id, :userId, :store, :image, :width, :height)`,
      { id: avatar.id, userId: avatar.userId, store: avatar.store, image: avatar.image, width: avatar.width, height: avatar.height },
    );
    return rows;
  });
}

/** Removes the user's picture: picture_url null and every avatar row gone. Idempotent. */
export async function removeAvatars(db: Db, userId: string): Promise<RemovedAvatar[]> {
  return db.transaction(async (trx) => {
    await trx.raw(`SELECT 1 FROM profiles WHERE user_id = ? FOR UPDATE`, [userId]);
    await trx.raw(`UPDATE profiles SET picture_url = NULL, updated_at = now() WHERE user_id = ? AND picture_url IS NOT NULL`, [userId]);
    const { rows } = await trx.raw<{ rows: RemovedAvatar[] }>(`DELETE FROM avatars WHERE user_id = ? RETURNING id, store`, [userId]);
    return rows;
  });
}

/** The bytes of a picture kept in PostgreSQL; undefined when unknown, replaced, or its account is deleted. */
export async function findAvatarImage(db: Db, id: string): Promise<Buffer | undefined> {
  const { rows } = await db.raw<{ rows: Array<{ image: Buffer }> }>(
    `SELECT a.image FROM avatars a JOIN users u ON u.id = a.user_id AND u.deleted_at IS NULL
      WHERE a.id = ? AND a.image IS NOT NULL`,
    [id],
  );
  return rows[0]?.image;
}

/** Tickets expired longer ago than `graceSeconds` (spent or not): for the maintenance purge. */
export async function purgeExpiredTickets(db: Db, graceSeconds: number): Promise<number> {
  const { rows } = await db.raw<{ rows: Array<{ n: number }> }>(
    `WITH gone AS (DELETE FROM avatar_upload_tickets WHERE expires_at < now() - make_interval(secs => ?) RETURNING 1)
     SELECT count(*) AS n FROM gone`,
    [graceSeconds],
  );
  return rows[0]?.n ?? 0;
}
