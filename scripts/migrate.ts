/**
 * `npm run migrate` (latest) and `npm run migrate:down` (one step back), against
 * DATABASE_URL or, when it is unset, the embedded development PostgreSQL.
 */
import { loadDatabaseToolConfig } from '../src/config/index.ts';
import { createLogger } from '../src/logger.ts';
import { openDatabase } from '../src/db/open.ts';
import { migrateDown, migrateLatest } from '../src/db/knex.ts';

const direction = process.argv[2] ?? 'latest';
if (direction !== 'latest' && direction !== 'down') {
  process.stderr.write('usage: node scripts/migrate.ts latest|down\n');
  process.exit(2);
}
const config = loadDatabaseToolConfig();
const logger = createLogger(config.logLevel === 'silent' ? 'info' : config.logLevel);
const database = await openDatabase(config.databaseUrl, logger, { migrate: false, statementTimeoutMs: 0 /* a migration may rewrite a large table */ });
try {
  const names = direction === 'latest' ? await migrateLatest(database.db) : await migrateDown(database.db);
  logger.info({ direction, migrations: names }, names.length ? `migrations ${direction === 'latest' ? 'applied' : 'reverted'}` : 'nothing to do');
} finally {
  await database.close();
}
