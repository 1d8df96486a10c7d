import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/db/knex.ts';
import { insertTransaction } from '../../src/services/login/transactionsRepository.ts';
import { randomToken, sha256 } from '../../src/security/crypto.ts';

/**
 * A started login transaction of a platform, as the start writes it (placeholder sealed
 * values: the statement tests never open them), for the repository and maintenance tests.
 * `consumed`: marked consumed as a callback leaves it. Returns its id and its state.
 */
export async function insertTestTransaction(db: Db, platformId: string, options: { consumed?: boolean } = {}): Promise<{ id: string; state: string }> {
  const id = randomUUID();
  const state = randomToken();
  await insertTransaction(db, {
    id, platformId, stateDigest: sha256(state), nonceDigest: sha256(randomToken()),
    pkceVerifierSealed: 'x', nonceSealed: 'x', onboardingMode: 'none', platformCallbackUrl: 'https://p.example/cb',
    returnTo: 'https://p.example/', browserBindingDigest: sha256(randomToken()), handoffChallenge: null, ttlSeconds: 600,
  });
  if (options.consumed) await db.raw('UPDATE auth_transactions SET consumed_at = now() WHERE id = ?', [id]);
  return { id, state };
}
