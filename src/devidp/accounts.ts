// The dev identity provider's accounts: who may sign in, with which password, and what the
// gateway's development adapter (src/services/identityProvider/devIdp.ts) may do to them.
//
// - Passwords are kept as scrypt hashes (node:crypto, parameters stored with each hash). The
//   seeded users start with their published seed passwords (users.ts); those are compared in
//   memory until the first change, so that tests which start many dev IdPs pay no hashing cost.
// - With a users file (`.data/dev-idp-users.json` for `npm start`), every change is written at
//   once, atomically (temporary file, fsync, rename), and read back at the next start. The file
//   holds profiles, password hashes, states and dates; never a plain password. Seeded users
//   missing from the file are added with their seed password; deleted users stay as tombstones
//   so that a restart does not seed them again.
// - A deactivated or deleted user cannot sign in (the login page refuses them, findAccount
//   hides them, so their refresh tokens and IdP session stop working too).

import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';

import { secretMatches } from './http.ts';
import type { DevIdpProfile, DevIdpUser } from './users.ts';

export type { DevIdpProfile } from './users.ts';

export type DevIdpAccountState = 'active' | 'inactive' | 'deleted';

/** One authentication method as the dev IdP knows it (it only has passwords). */
export interface DevIdpMethod {
  type: 'password';
  /** When the current password was set (the first start for a seed password). */
  setAt: string;
  /** The last successful sign-in with it, if any. */
  lastUsedAt: string | null;
}

export type DevIdpPasswordChange =
  | { status: 'changed' }
  | { status: 'wrong_password' }
  /** The dev password policy refused the new password; `message` says why (for people). */
  | { status: 'rejected'; message: string }
  | { status: 'unknown_user' }
  | { status: 'inactive' };

/**
 * What the dev IdP exposes to the gateway's development adapter, in-process. The methods never
 * throw for an expected outcome; a failure to persist the users file rejects.
 */
export interface DevIdpAccounts {
  listMethods(sub: string): Promise<DevIdpMethod[] | null>;
  changePassword(sub: string, currentPassword: string, newPassword: string): Promise<DevIdpPasswordChange>;
  /** Idempotent: an inactive, deleted or unknown user is fine. */
  deactivate(sub: string): Promise<void>;
  /** Idempotent: a deleted or unknown user is fine. */
  delete(sub: string): Promise<void>;
}

export type SignInResult = { status: 'ok'; profile: DevIdpProfile } | { status: 'invalid' } | { status: 'inactive' };

interface Account {
  profile: DevIdpProfile;
  state: DevIdpAccountState;
  /** The seed password, while it is still the user's password (never written anywhere). */
  seedPassword: string | null;
  /** scrypt hash once the password is written to the users file or changed. */
  passwordHash: string | null;
  passwordSetAt: string;
  lastSignInAt: string | null;
}

/** The users file, version 1. */
interface UsersFile {
  version: 1;
  users: Array<DevIdpProfile & {
    state: DevIdpAccountState;
    passwordHash: string;
    /** True while the password is still the published seed password (the login page hints it). */
    passwordIsSeed: boolean;
    passwordSetAt: string;
    lastSignInAt: string | null;
  }>;
}

// scrypt (RFC 7914) with N=2^14, r=8, p=1: 16 MiB and a few tens of milliseconds per hash. A
// development provider; production passwords live at the real identity provider.
const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32, saltLength: 16 } as const;

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `scrypt$N$r$p$salt$hash` (base64url), so the parameters can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SCRYPT.saltLength);
  const key = await scrypt(password, salt, SCRYPT.keyLength, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: 64 * 1024 * 1024 });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

const HASH_FORMAT = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  const match = HASH_FORMAT.exec(hash);
  if (!match) return false;
  const [, n, r, p, salt, expected] = match as unknown as [string, string, string, string, string, string];
  const expectedKey = Buffer.from(expected, 'base64url');
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), expectedKey.length, {
    N: Number(n), r: Number(r), p: Number(p), maxmem: 256 * 1024 * 1024,
  });
  return key.length === expectedKey.length && timingSafeEqual(key, expectedKey);
}

/** The dev password policy: long enough, not the current one, not containing the username. */
function policyProblem(profile: DevIdpProfile, newPassword: string): string | null {
  if ([...newPassword].length < 8) return 'Password is too short: use at least 8 characters.';
  if ([...newPassword].length > 200) return 'Password is too long: use at most 200 characters.';
  if (newPassword.toLowerCase().includes(profile.username.toLowerCase())) return 'Password must not contain the username.';
  return null;
}

export interface AccountStoreOptions {
  seeds: readonly DevIdpUser[];
  /** Where users are kept across restarts; null keeps them in memory only. */
  usersFile: string | null;
  now?: () => Date;
}

/** The accounts of one dev IdP: the login page, findAccount and the adapter's object use it. */
export class DevIdpAccountStore implements DevIdpAccounts {
  private readonly accounts = new Map<string, Account>();
  private readonly seeds: ReadonlyMap<string, DevIdpUser>;
  private readonly usersFile: string | null;
  private readonly now: () => Date;
  /** Writes of the users file, one after the other. */
  private writing: Promise<void> = Promise.resolve();
  /** Users whose password is still their published seed password (the login page hints it). */
  private readonly seedHinted = new Set<string>();
  /** What an unknown username is compared against. */
  private dummyHash: Promise<string> | null = null;

  private constructor(options: AccountStoreOptions) {
    this.seeds = new Map(options.seeds.map((seed) => [seed.sub, seed]));
    this.usersFile = options.usersFile;
    this.now = options.now ?? (() => new Date());
  }

  /** Reads the users file when there is one (a broken file stops the start: it is never overwritten). */
  static async open(options: AccountStoreOptions): Promise<DevIdpAccountStore> {
    const store = new DevIdpAccountStore(options);
    const stored = options.usersFile ? await readUsersFile(options.usersFile) : null;
    for (const user of stored?.users ?? []) {
      const { state, passwordHash, passwordIsSeed, passwordSetAt, lastSignInAt, ...profile } = user;
      store.accounts.set(profile.sub, {
        profile: { ...profile, permissions: [...profile.permissions] },
        state,
        seedPassword: null,
        passwordHash,
        passwordSetAt,
        lastSignInAt,
      });
      if (passwordIsSeed) store.seedHinted.add(profile.sub);
    }
    const startedAt = store.now().toISOString();
    for (const seed of options.seeds) {
      if (store.accounts.has(seed.sub)) continue;
      const { password, ...profile } = seed;
      store.accounts.set(seed.sub, {
        profile: { ...profile, permissions: [...profile.permissions] },
        state: 'active',
        seedPassword: password,
        passwordHash: null,
        passwordSetAt: startedAt,
        lastSignInAt: null,
      });
      store.seedHinted.add(seed.sub);
    }
    return store;
  }

  /** The profile of an active user (claims, tokens, introspection); undefined otherwise. */
  activeProfile(sub: string): DevIdpProfile | undefined {
    const account = this.accounts.get(sub);
    return account?.state === 'active' ? account.profile : undefined;
  }

  /** Every user that is not deleted, by sub (profiles only). */
  profiles(): DevIdpProfile[] {
    return [...this.accounts.values()].filter((account) => account.state !== 'deleted').map((account) => account.profile);
  }

  /** Seeded users that are active and still have their published password: the login page's hint. */
  seedHints(): Array<{ username: string; password: string }> {
    const hints: Array<{ username: string; password: string }> = [];
    for (const account of this.accounts.values()) {
      const seed = this.seeds.get(account.profile.sub);
      if (seed && account.state === 'active' && this.seedHinted.has(account.profile.sub)) hints.push({ username: seed.username, password: seed.password });
    }
    return hints;
  }

  async signIn(username: string, password: string): Promise<SignInResult> {
    const account = [...this.accounts.values()].find((candidate) => candidate.state !== 'deleted' && candidate.profile.username === username);
    if (!account) {
      // Spend the time of a comparison anyway, so an unknown name is not told apart by timing.
      this.dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
      await verifyPassword(await this.dummyHash, password);
      return { status: 'invalid' };
    }
    if (!(await this.passwordMatches(account, password))) return { status: 'invalid' };
    if (account.state !== 'active') return { status: 'inactive' };
    account.lastSignInAt = this.now().toISOString();
    await this.persist();
    return { status: 'ok', profile: account.profile };
  }

  async listMethods(sub: string): Promise<DevIdpMethod[] | null> {
    const account = this.accounts.get(sub);
    if (!account || account.state === 'deleted') return null;
    return [{ type: 'password', setAt: account.passwordSetAt, lastUsedAt: account.lastSignInAt }];
  }

  async changePassword(sub: string, currentPassword: string, newPassword: string): Promise<DevIdpPasswordChange> {
    const account = this.accounts.get(sub);
    if (!account || account.state === 'deleted') return { status: 'unknown_user' };
    if (account.state !== 'active') return { status: 'inactive' };
    if (!(await this.passwordMatches(account, currentPassword))) return { status: 'wrong_password' };
    if (await this.passwordMatches(account, newPassword)) {
      return { status: 'rejected', message: 'New password cannot be the same as your current password.' };
    }
    const problem = policyProblem(account.profile, newPassword);
    if (problem) return { status: 'rejected', message: problem };
    account.passwordHash = await hashPassword(newPassword);
    account.seedPassword = null;
    account.passwordSetAt = this.now().toISOString();
    this.seedHinted.delete(sub);
    await this.persist();
    return { status: 'changed' };
  }

  async deactivate(sub: string): Promise<void> {
    const account = this.accounts.get(sub);
    if (!account || account.state !== 'active') return;
    account.state = 'inactive';
    await this.persist();
  }

  async delete(sub: string): Promise<void> {
    const account = this.accounts.get(sub);
    if (!account || account.state === 'deleted') return;
    account.state = 'deleted';
    await this.persist();
  }

  private async passwordMatches(account: Account, password: string): Promise<boolean> {
    if (account.seedPassword !== null) return secretMatches(account.seedPassword, password);
    return account.passwordHash !== null && verifyPassword(account.passwordHash, password);
  }

  /** Writes every user to the users file (when there is one), after the writes before it. */
  private persist(): Promise<void> {
    const file = this.usersFile;
    if (!file) return Promise.resolve();
    const next = this.writing.catch(() => undefined).then(async () => {
      // Seed passwords are hashed before the file is written. A change may land meanwhile: the
      // seed's hash is kept only if the seed is still the password.
      for (const account of this.accounts.values()) {
        const seed = account.seedPassword;
        if (account.passwordHash !== null || seed === null) continue;
        const hash = await hashPassword(seed);
        if (account.passwordHash === null && account.seedPassword === seed) account.passwordHash = hash;
      }
      // Then one synchronous snapshot of every account.
      const users: UsersFile['users'] = [];
      for (const account of this.accounts.values()) {
        users.push({
          ...account.profile,
          state: account.state,
          passwordHash: account.passwordHash ?? '',
          passwordIsSeed: this.seedHinted.has(account.profile.sub),
          passwordSetAt: account.passwordSetAt,
          lastSignInAt: account.lastSignInAt,
        });
      }
      await writeFileAtomically(file, `${JSON.stringify({ version: 1, users } satisfies UsersFile, null, 2)}\n`);
    });
    this.writing = next;
    return next;
  }
}

/** Temporary file in the same folder, fsync, rename: a crash leaves the old file or the new one. */
async function writeFileAtomically(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

async function readUsersFile(file: string): Promise<UsersFile | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`the dev identity provider's users file ${file} is not valid JSON: fix or delete it (the seeded users come back)`);
  }
  const problem = usersFileProblem(parsed);
  if (problem) throw new Error(`the dev identity provider's users file ${file} is not valid (${problem}): fix or delete it (the seeded users come back)`);
  return parsed as UsersFile;
}

function usersFileProblem(value: unknown): string | null {
  if (!value || typeof value !== 'object') return 'not an object';
  const file = value as { version?: unknown; users?: unknown };
  if (file.version !== 1) return 'unknown version';
  if (!Array.isArray(file.users)) return 'no users list';
  for (const [index, user] of file.users.entries()) {
    if (!user || typeof user !== 'object') return `users[${index}] is not an object`;
    const u = user as Record<string, unknown>;
    for (const name of ['sub', 'username', 'email', 'givenName', 'familyName', 'passwordHash', 'passwordSetAt']) {
      if (typeof u[name] !== 'string') return `users[${index}].${name} is not a string`;
    }
    if (!HASH_FORMAT.test(u.passwordHash as string)) return `users[${index}].passwordHash is not an scrypt hash`;
    if (!['active', 'inactive', 'deleted'].includes(u.state as string)) return `users[${index}].state is unknown`;
    if (!Array.isArray(u.permissions) || !u.permissions.every((p) => typeof p === 'string')) return `users[${index}].permissions is not a list of strings`;
    if (typeof u.passwordIsSeed !== 'boolean') return `users[${index}].passwordIsSeed is not a boolean`;
    if (u.lastSignInAt !== null && typeof u.lastSignInAt !== 'string') return `users[${index}].lastSignInAt is not a string`;
  }
  return null;
}
