import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { generateKeyRingSpec, parseKeyRing, randomToken, sha256 } from '../../src/security/crypto.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { insertTransaction } from '../../src/services/login/transactionsRepository.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { nonceAad, pkceAad, platformStateAad } from '../../src/services/login/loginFlow.ts';
import { idTokenAad } from '../../src/services/sessions/create.ts';

// `npm run gateway -- keys status|rotate-data` (issue 13 §10) as an operator runs it: a child
// process on the run's PostgreSQL, with values sealed under an old key that a new key replaces.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'src/cli/main.ts');

const OLD_RING = generateKeyRingSpec('old');
const NEW_KEY = generateKeyRingSpec('new');
const ROTATED_RING = `${NEW_KEY},${OLD_RING}`;

describe('operator CLI (npm run gateway -- keys …)', () => {
  let database: TestDatabase;
  const sessionIds: string[] = [];
  let transactionId: string;

  function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url, NODE_ENV: 'test', ...env };
    delete childEnv.LOG_LEVEL;
    return new Promise((resolve) => {
      execFile(process.execPath, [MAIN, ...args], { cwd: ROOT, env: childEnv, timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      });
    });
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    const old = parseKeyRing(OLD_RING);
    const user = await upsertUserFromIdp(database.db, { sub: 'keys-user', email: null, emailVerified: false, displayName: null, givenName: null, familyName: null });
    for (let i = 0; i < 3; i++) {
      const id = randomUUID();
      sessionIds.push(id);
      await database.db.raw(
        `INSERT INTO gateway_sessions (id, user_id, token_digest, permissions, expires_at, id_token_sealed) VALUES (?, ?, ?, '{}', now() + interval '1 hour', ?)`,
        [id, user.id, sha256(randomToken()), old.seal(`id-token-${i}`, idTokenAad(id))],
      );
    }
    await createPlatform(database.db, { platformKey: 'KEYS_CLI', displayName: 'Keys', callbackUrl: 'https://k.example/cb', allowedReturnUrls: ['https://k.example/'], defaultOnboardingMode: 'none' }, CLI_ACTOR);
    const platformId: string = (await database.db.raw(`SELECT id FROM platforms WHERE platform_key = 'KEYS_CLI'`)).rows[0].id;
    transactionId = randomUUID();
    await insertTransaction(database.db, {
      id: transactionId, platformId, stateDigest: sha256(randomToken()), nonceDigest: sha256(randomToken()),
      pkceVerifierSealed: old.seal('verifier', pkceAad(transactionId)), nonceSealed: old.seal('nonce', nonceAad(transactionId)),
      onboardingMode: 'none', platformCallbackUrl: 'https://k.example/cb', returnTo: 'https://k.example/',
      browserBindingDigest: sha256(randomToken()), handoffChallenge: null, ttlSeconds: 600,
      platformStateSealed: old.seal('tab-A', platformStateAad(transactionId)),
    });
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('status names what the old key still protects; rotate-data moves it all to the new key, which alone then opens it', async () => {
    const before = await cli({ ENCRYPTION_KEYS: ROTATED_RING }, 'keys', 'status');
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toContain('Active key: new; ring: new, old');
    expect(before.stdout).toContain('gateway_sessions.id_token_sealed  key old: 3 row(s)  (run keys rotate-data)');
    expect(before.stdout).toContain('auth_transactions.pkce_verifier_sealed  key old: 1 row(s)');

    const rotated = await cli({ ENCRYPTION_KEYS: ROTATED_RING }, 'keys', 'rotate-data', '--batch-size', '2', '--json');
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(JSON.parse(rotated.stdout).results).toEqual([
      { table: 'auth_transactions', column: 'pkce_verifier_sealed', resealed: 1, unreadable: 0 },
      { table: 'auth_transactions', column: 'nonce_sealed', resealed: 1, unreadable: 0 },
      { table: 'auth_transactions', column: 'platform_state_sealed', resealed: 1, unreadable: 0 },
      { table: 'gateway_sessions', column: 'id_token_sealed', resealed: 3, unreadable: 0 },
    ]);

    const after = await cli({ ENCRYPTION_KEYS: ROTATED_RING }, 'keys', 'status');
    expect(after.stdout).not.toContain('key old');
    expect(after.stdout).toContain('Protecting nothing now, so they can leave ENCRYPTION_KEYS: old');

    // The old key can go: the new key alone opens every value, to what was sealed.
    const newOnly = parseKeyRing(NEW_KEY);
    for (const [i, id] of sessionIds.entries()) {
      const { rows } = await database.db.raw('SELECT id_token_sealed FROM gateway_sessions WHERE id = ?', [id]);
      expect(newOnly.open(rows[0].id_token_sealed, idTokenAad(id))).toBe(`id-token-${i}`);
    }
    const { rows } = await database.db.raw('SELECT pkce_verifier_sealed, nonce_sealed, platform_state_sealed FROM auth_transactions WHERE id = ?', [transactionId]);
    expect(newOnly.open(rows[0].platform_state_sealed, platformStateAad(transactionId))).toBe('tab-A');
    expect(newOnly.open(rows[0].pkce_verifier_sealed, pkceAad(transactionId))).toBe('verifier');
    expect(newOnly.open(rows[0].nonce_sealed, nonceAad(transactionId))).toBe('nonce');

    // Resumable: a second run finds nothing left to do.
    const again = await cli({ ENCRYPTION_KEYS: ROTATED_RING }, 'keys', 'rotate-data', '--json');
    expect(JSON.parse(again.stdout).results.map((r: { resealed: number }) => r.resealed)).toEqual([0, 0, 0, 0]);
  });

  it('a missing or malformed key ring is a configuration error (exit 78), before the database is touched', async () => {
    const missing = await cli({}, 'keys', 'status');
    expect(missing.code).toBe(78);
    expect(missing.stderr).toMatch(/ENCRYPTION_KEYS is required/);
    const malformed = await cli({ ENCRYPTION_KEYS: 'nonsense' }, 'keys', 'status');
    expect(malformed.code).toBe(78);
    expect(malformed.stderr).toMatch(/ENCRYPTION_KEYS is refused/);
    expect(malformed.stderr).not.toContain('nonsense');
  });
});
