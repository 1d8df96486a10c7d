// What every command group of the operator CLI shares with src/cli/run.ts: its output and
// environment, and the shape of a parsed command. In a module of its own so the command
// groups (platforms.ts, fields.ts, documents.ts, ...) and run.ts, which imports them, do not
// import each other in a circle (issue 34).
import type { Db } from '../db/knex.ts';
import type { RegistryRules } from '../services/registry/index.ts';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
}

/** `rules` come from the same NODE_ENV as the service's: production requires https URLs. */
export type Command = (db: Db, io: CliIo, json: boolean, rules: RegistryRules) => Promise<void>;
