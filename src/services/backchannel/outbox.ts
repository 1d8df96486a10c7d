import type { Db } from '../../db/knex.ts';

/**
 * Queues a back-channel logout to every platform that exchanged a code for each ended
 * session, in the transaction that ended them (a transactional outbox).
 * NOT YET DELIVERED: the worker that signs and posts the logout tokens is being built.
 */
export async function enqueueBackchannelLogouts(_db: Db, _sessionIds: readonly string[]): Promise<void> {}
