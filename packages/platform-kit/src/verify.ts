// Verifying the JWTs the gateway signs for a platform (logout tokens today; Security Event
// Tokens, RFC 8417, are verified the same way): a module of its own, so that every receiver of
// the kit shares the key set, its cache and the checks every such token needs.
import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';

/** The gateway's signing keys: its JWKS, cached, refetched for an unknown `kid` (at most every 30 s). */
export type GatewayKeySet = JWTVerifyGetKey;

export function gatewayKeySet(gatewayUrl: string | URL, options: { cacheMaxAgeMs?: number; cooldownMs?: number } = {}): GatewayKeySet {
  // jose keeps the fetched set for cacheMaxAge and fetches again, at most once per cooldown,
  // when a token names a key it does not hold (the gateway rotated its signing key).
  return createRemoteJWKSet(new URL('/.well-known/jwks.json', gatewayUrl), {
    cacheMaxAge: options.cacheMaxAgeMs ?? 10 * 60_000,
    cooldownDuration: options.cooldownMs ?? 30_000,
  });
}

export interface GatewayTokenChecks {
  keys: GatewayKeySet;
  /** The gateway's issuer: its public base URL (PUBLIC_BASE_URL). */
  issuer: string;
  /** This platform's client id. */
  audience: string;
  /** The explicit type the token must carry (RFC 8725 §3.11): `logout+jwt`, `secevent+jwt`. */
  typ: string;
  /**
   * How old `iat` may be (default 5 minutes); `false`: any age (a SET has no `exp` and keeps its
   * `iat` at every redelivery, so a late poll must still verify). `exp` is checked whenever present.
   */
  maxTokenAge?: string | number | false;
}

/** A token of the gateway that failed a check: the message says which (for the receiver's answer, not for people). */
export class GatewayTokenError extends Error {
  override readonly name = 'GatewayTokenError';
  /**
   * What jose said (`ERR_JWS_SIGNATURE_VERIFICATION_FAILED`, `ERR_JWT_CLAIM_VALIDATION_FAILED`…),
   * or the kit's own `ERR_TOKEN_CONTENT`; and for a failed claim, which one (`iss`, `aud`, `typ`…).
   * A receiver answers with them (RFC 8935 §2.3 error codes), and tells a token it refuses from a
   * key set it could not fetch (the gateway should then try again).
   */
  readonly code: string;
  readonly claim: string | undefined;
  constructor(message: string, details: { code?: string; claim?: string } = {}) {
    super(message);
    this.code = details.code ?? 'ERR_TOKEN_CONTENT';
    this.claim = details.claim;
  }
}

/**
 * Signature (ES256, the gateway's key set), issuer, audience, explicit type, `iat` recent and
 * `exp` not passed. What each kind of token adds (its events, its claims) is checked by its
 * receiver.
 */
export async function verifyGatewayToken(token: string, checks: GatewayTokenChecks): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, checks.keys, {
      issuer: checks.issuer,
      audience: checks.audience,
      typ: checks.typ,
      algorithms: ['ES256'],
      maxTokenAge: checks.maxTokenAge === false ? undefined : (checks.maxTokenAge ?? '5 minutes'),
      requiredClaims: ['iat', 'jti'],
    });
    return payload;
  } catch (error) {
    const { code, claim } = error as { code?: unknown; claim?: unknown };
    throw new GatewayTokenError((error as Error).message, { code: typeof code === 'string' ? code : 'ERR_KEY_SET_UNAVAILABLE', claim: typeof claim === 'string' ? claim : undefined });
  }
}

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/**
 * A logout token (OpenID Connect Back-Channel Logout 1.0 §2.4, §2.6): the common checks, then
 * `typ: logout+jwt`, the back-channel logout event as a JSON object, no `nonce`, and a `sid`
 * (the gateway always names the session it ended). Answers that `sid`.
 */
export async function verifyLogoutToken(token: string, checks: Omit<GatewayTokenChecks, 'typ'>): Promise<{ sid: string; sub: string | undefined; payload: JWTPayload }> {
  const payload = await verifyGatewayToken(token, { ...checks, typ: 'logout+jwt' });
  // §2.4: exp is REQUIRED in a logout token (jose checks it only when present). A SET has none (RFC 8417).
  if (typeof payload.exp !== 'number') throw new GatewayTokenError('a logout token carries an exp', { code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'exp' });
  const events = payload.events as Record<string, unknown> | undefined;
  const event = events?.[BACKCHANNEL_LOGOUT_EVENT];
  if (typeof event !== 'object' || event === null || Array.isArray(event)) throw new GatewayTokenError('no back-channel logout event');
  if ('nonce' in payload) throw new GatewayTokenError('a logout token carries no nonce');
  if (typeof payload.sid !== 'string' || payload.sid === '') throw new GatewayTokenError('no sid');
  return { sid: payload.sid, sub: payload.sub, payload };
}
