import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/knex.ts';
import type { OnboardingStatus, Permission } from '../../domain/types.ts';
import { randomToken, sha256, type KeyRing } from '../../security/crypto.ts';
import { insertLoginSession, insertSession } from './repository.ts';
import type { LoginAuthentication } from '../../domain/authentication.ts';

/**
 * The two kinds of token the gateway cookie can carry, told apart by their prefix so
 * that one lookup in one table resolves either: the browser session token set by the
 * callback, and a platform's own credential returned by the exchange.
 */
export const SESSION_TOKEN_PREFIX = 'gws_';
export const PLATFORM_CREDENTIAL_PREFIX = 'gwp_';

/** AES-GCM additional data: a sealed ID token opens only for its own session row. */
export const idTokenAad = (sessionId: string) => `gateway_sessions:id_token:${sessionId}`;

export interface CreatedSession {
  id: string;
  token: string;
  expiresAt: Date;
}

/** What the login knows about where the session starts (the session list, logout). */
export interface LoginContext {
  userAgent: string | null;
  ipPrefix: string | null;
  /** The identity provider's session (ID token `sid`): back-channel logout in. */
  idpSid: string | null;
  /** The login's ID token, sealed at rest: the `id_token_hint` of RP-initiated logout. */
  idToken: string | null;
  keyRing: KeyRing;
}

/** A gateway session: only the digest of its browser token is stored (looked up by the cookie). */
export async function createSession(
  db: Db,
  input: { userId: string; permissions: Permission[]; ttlSeconds: number; login?: LoginContext },
): Promise<CreatedSession> {
  const id = randomUUID();
  const token = `${SESSION_TOKEN_PREFIX}${randomToken(32)}`;
  const { expiresAt } = await insertSession(db, sessionRow(id, token, input));
  return { id, token, expiresAt };
}

/** The handoff code a login's session is issued with (the platform's callback), in the same statement. */
export interface LoginHandoff {
  codeDigest: Buffer;
  platformId: string;
  onboarding: OnboardingStatus;
  ttlSeconds: number;
}

/**
 * The callback's session: the session, its login transaction attached to it, and the
 * handoff code when the login goes on to the platform, all in one statement
 * (insertLoginSession). `handoffIssued` is false only if the transaction already had a code;
 * null when the account was deleted since the callback upserted it (nothing written).
 */
export async function createLoginSession(
  db: Db,
  input: {
    userId: string;
    permissions: Permission[];
    ttlSeconds: number;
    login: LoginContext;
    transactionId: string;
    handoff: LoginHandoff | null;
    /** When and how the person authenticated, as the ID token said. */
    authentication?: LoginAuthentication;
  },
): Promise<(CreatedSession & { handoffIssued: boolean }) | null> {
  const id = randomUUID();
  const token = `${SESSION_TOKEN_PREFIX}${randomToken(32)}`;
  const inserted = await insertLoginSession(db, {
    ...sessionRow(id, token, input),
    transactionId: input.transactionId,
    handoffCodeDigest: input.handoff?.codeDigest ?? null,
    platformId: input.handoff?.platformId ?? null,
    onboarding: input.handoff ? JSON.stringify(input.handoff.onboarding) : null,
    handoffTtlSeconds: input.handoff?.ttlSeconds ?? null,
    authTime: input.authentication?.authTime ?? null,
    amr: input.authentication?.amr ?? null,
    acr: input.authentication?.acr ?? null,
  });
  return inserted ? { id, token, ...inserted } : null;
}

function sessionRow(id: string, token: string, input: { userId: string; permissions: Permission[]; ttlSeconds: number; login?: LoginContext }) {
  const login = input.login;
  return {
    id,
    userId: input.userId,
    tokenDigest: sha256(token),
    permissions: input.permissions,
    ttlSeconds: input.ttlSeconds,
    userAgent: login?.userAgent ? [...login.userAgent].slice(0, 300).join('') : null,
    ipPrefix: login?.ipPrefix ?? null,
    idpSid: login?.idpSid ?? null,
    idTokenSealed: login?.idToken ? login.keyRing.seal(login.idToken, idTokenAad(id)) : null,
  };
}

/** A platform's own credential: 256 random bits; only its digest is stored (by the exchange). */
export function newPlatformCredential(): string {
  return `${PLATFORM_CREDENTIAL_PREFIX}${randomToken(32)}`;
}

/**
 * The login's address, coarsened for the session list: the /24 network of an IPv4 address,
 * the /48 of an IPv6 one (an IPv4-mapped IPv6 address counts as IPv4). Enough for a person to
 * recognise "that was me at home", not enough to locate them.
 */
export function ipPrefix(address: string | undefined): string | null {
  if (!address) return null;
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.\d{1,3}$/i.exec(address);
  if (v4) return `${v4[1]}.${v4[2]}.${v4[3]}.0/24`;
  if (!address.includes(':')) return null;
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  if (groups.length !== 8 || groups.some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return null;
  return `${groups.slice(0, 3).map((group) => group.replace(/^0+(?=.)/, '').toLowerCase()).join(':')}::/48`;
}
