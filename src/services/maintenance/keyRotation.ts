// Rotating ENCRYPTION_KEYS without downtime (issue 13 §10). A new key goes first in the ring
// (it seals from then on; every key still opens), `keys rotate-data` re-seals what older keys
// protect, and `keys status` shows when an old key protects nothing any more and can leave the
// ring. Re-sealing goes in batches, row by row compared-and-set, so it can run beside live
// traffic, be stopped, and be run again: a run only ever looks at rows not yet under the
// active key.
import type { Db } from '../../db/knex.ts';
import { DecryptionError, type KeyRing } from '../../security/crypto.ts';
import { nonceAad, pkceAad, platformStateAad } from '../login/loginFlow.ts';
import { idTokenAad } from '../sessions/create.ts';

/** Every column the key ring seals, with the additional data its values are bound to. */
export const SEALED_COLUMNS = [
  { table: 'auth_transactions', column: 'pkce_verifier_sealed', aad: pkceAad },
  { table: 'auth_transactions', column: 'nonce_sealed', aad: nonceAad },
  { table: 'auth_transactions', column: 'platform_state_sealed', aad: platformStateAad },
  { table: 'gateway_sessions', column: 'id_token_sealed', aad: idTokenAad },
] as const;

export interface SealedCount {
  table: string;
  column: string;
  kid: string;
  rows: number;
}

/** How many values each key protects, per column (`v1.<kid>.…`: the key id is the second part). */
export async function sealedKeyStatus(db: Db): Promise<SealedCount[]> {
  const counts: SealedCount[] = [];
  for (const { table, column } of SEALED_COLUMNS) {
    const { rows } = await db.raw<{ rows: { kid: string; rows: number }[] }>(
      `SELECT split_part(${column}, '.', 2) AS kid, count(*)::int AS rows FROM ${table} WHERE ${column} IS NOT NULL GROUP BY 1 ORDER BY 1`,
    );
    for (const row of rows) counts.push({ table, column, kid: row.kid, rows: row.rows });
  }
  return counts;
}

export interface RotationResult {
  table: string;
  column: string;
  resealed: number;
  /** Values no key of the ring opens (their key already left it): left as they are. */
  unreadable: number;
}

/**
 * Re-seals every value not under the active key, `batchSize` rows per statement. A row changed
 * meanwhile (a login consumed, a session ended) is left alone by the compare-and-set and
 * picked up by the next run if it still needs it.
 */
export async function rotateSealedData(db: Db, keyRing: KeyRing, options: { batchSize?: number; onBatch?: (progress: RotationResult) => void } = {}): Promise<RotationResult[]> {
  const batchSize = options.batchSize ?? 500;
  const results: RotationResult[] = [];
  for (const { table, column, aad } of SEALED_COLUMNS) {
    const result: RotationResult = { table, column, resealed: 0, unreadable: 0 };
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const { rows } = await db.raw<{ rows: { id: string; sealed: string }[] }>(
        `SELECT id, ${column} AS sealed FROM ${table}
          WHERE ${column} IS NOT NULL AND split_part(${column}, '.', 2) <> ? AND id > ?
          ORDER BY id LIMIT ?`,
        [keyRing.activeKid, after, batchSize],
      );
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.id;
      const resealed: { id: string; old: string; fresh: string }[] = [];
      for (const row of rows) {
        try {
          resealed.push({ id: row.id, old: row.sealed, fresh: keyRing.seal(keyRing.open(row.sealed, aad(row.id)), aad(row.id)) });
        } catch (error) {
          if (!(error instanceof DecryptionError)) throw error;
          result.unreadable += 1;
        }
      }
      if (resealed.length > 0) {
        const { rowCount } = await db.raw<{ rowCount: number }>(
          `UPDATE ${table} AS t SET ${column} = v.fresh
             FROM (SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[]) AS v(id, old, fresh)) AS v
            WHERE t.id = v.id AND t.${column} = v.old`,
          [resealed.map((r) => r.id), resealed.map((r) => r.old), resealed.map((r) => r.fresh)],
        );
        result.resealed += rowCount;
      }
      options.onBatch?.({ ...result });
    }
    results.push(result);
  }
  return results;
}
