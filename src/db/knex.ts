import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import * as registryAndUsers from '../../migrations/20261122000100_registry_and_users.ts';
import * as loginFlow from '../../migrations/20261122000200_login_flow.ts';
import * as onboarding from '../../migrations/20261122000300_onboarding.ts';
import * as audit from '../../migrations/20261122000400_audit.ts';
import * as platformCredentials from '../../migrations/20261122000500_platform_credentials_and_login_binding.ts';
import * as onboardingSchemaAudit from '../../migrations/20261122000600_onboarding_schema_audit.ts';
import * as avatars from '../../migrations/20261122000700_avatars.ts';
import * as rateLimits from '../../migrations/20261122000800_rate_limits.ts';
import * as accountDeletion from '../../migrations/20261122000900_account_deletion.ts';
import * as sessions from '../../migrations/20261122001000_sessions.ts';

// Return int8/count(*) as numbers and dates as Date; timestamptz stays a Date.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * Migrations are listed here rather than discovered on disk: the list is checked
 * by the type checker, and the order is the timestamp order of the names.
 */
const MIGRATIONS: Record<string, Knex.Migration> = {
  '20261122000100_registry_and_users': registryAndUsers,
  '20261122000200_login_flow': loginFlow,
  '20261122000300_onboarding': onboarding,
  '20261122000400_audit': audit,
  '20261122000500_platform_credentials_and_login_binding': platformCredentials,
  '20261122000600_onboarding_schema_audit': onboardingSchemaAudit,
  '20261122000700_avatars': avatars,
  '20261122000800_rate_limits': rateLimits,
  '20261122000900_account_deletion': accountDeletion,
  '20261122001000_sessions': sessions,
};

const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRATIONS).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const migration = MIGRATIONS[name];
    if (!migration) throw new Error(`unknown migration ${name}`);
    return migration;
  },
};

export type Db = Knex;

export interface DbLogger {
  warn(message: string): void;
  error(message: string): void;
}

/** Knex prints to the console by default; route its messages to our logger (or drop them in tests). */
const quiet: DbLogger = { warn: () => {}, error: () => {} };

export function createDb(connectionString: string, options: { poolMax?: number; logger?: DbLogger } = {}): Db {
  const logger = options.logger ?? quiet;
  return knexFactory({
    log: {
      warn: (message: unknown) => logger.warn(String(message)),
      error: (message: unknown) => logger.error(String(message)),
      deprecate: () => {},
      debug: () => {},
    },
    client: 'pg',
    connection: { connectionString, application_name: 'auth-gateway' },
    pool: { min: 0, max: options.poolMax ?? 10 },
    acquireConnectionTimeout: 5000,
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
}

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}

export async function migrateDown(db: Db): Promise<string[]> {
  const [, reverted] = (await db.migrate.down()) as [number, string[]];
  return reverted;
}

export async function migrateRollbackAll(db: Db): Promise<string[]> {
  const [, reverted] = (await db.migrate.rollback(undefined, true)) as [number, string[]];
  return reverted;
}
