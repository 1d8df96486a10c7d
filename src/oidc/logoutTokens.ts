// Logout tokens of OpenID Connect Back-Channel Logout 1.0 (§2.4), verified as §2.6 says, against
// the provider's published keys: the identity provider posts one to the gateway when the person's
// session there ends (src/operations/receiveBackchannelLogout.ts).
//
// What is accepted, and why:
// - `alg` RS256 only, the algorithm the gateway registers for its ID tokens (§2.6 step 2: "in the
//   same way that an ID Token signature is validated"); `none` and HMAC are never keys of the
//   provider. The key is the provider's, looked up by `kid` in its JWKS.
// - `typ` `logout+jwt` (§2.4, what oidc-provider sends), `JWT` (Zitadel) or none at all; any
//   other type (`at+jwt`, `secevent+jwt`…) is another kind of token (§4.1 cross-JWT confusion).
// - `iss` the discovered issuer, `aud` containing the gateway's client id (`azp`, if present, the
//   gateway's client id too), `iat` not in the future (beyond 30 s of clock skew) and at most
//   LOGOUT_TOKEN_MAX_AGE_SECONDS old, `exp` (optional) not past, `nbf` (optional) not ahead.
// - `events` an object whose http://schemas.openid.net/event/backchannel-logout member is an
//   object; a `sid` and/or a `sub` (non-empty strings); no `nonce`; a `jti` (non-empty string).
// The replay check (§2.6 step 7: a `jti` seen before) needs the database: it is done by the
// caller (services/backchannel/logoutIn.ts), until `replayableUntil`.
//
// Failures are of two kinds: the token is refused (LogoutTokenRefused, §2.8's 400, its reason
// only for the log), or the provider's keys could not be fetched (ApiError IDP_UNAVAILABLE, 503,
// so that a provider that retries, as Zitadel does, delivers the token again later).

import { createHash } from 'node:crypto';
import { errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type JWSHeaderParameters } from 'jose';
import { ApiError } from '../errors/catalogue.ts';
import { CLOCK_TOLERANCE_SECONDS } from './accessTokens.ts';
import { unavailable } from './providerErrors.ts';

/** The member of `events` that makes a JWT a logout token (§2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/**
 * How old a logout token may be (its `iat`): 15 minutes, the lifetime Zitadel gives its logout
 * tokens, so a token the provider still considers valid (a delivery retried from its queue) is not
 * refused for its age. oidc-provider's live 2 minutes. Replays within that window are refused by
 * `jti` (the replay store keeps each one until the token could no longer be accepted).
 */
export const LOGOUT_TOKEN_MAX_AGE_SECONDS = 15 * 60;
/** The only signing algorithm accepted: the one of the gateway's ID tokens. */
export const LOGOUT_TOKEN_ALGORITHMS = ['RS256'];
/** `typ` values (RFC 7515 §4.1.9: case-insensitive, `application/` may be left out); none at all is accepted too. */
const LOGOUT_TOKEN_TYPS = new Set(['logout+jwt', 'jwt']);
/** The contract's limit on the form field; a JWS compact serialisation (RFC 7515 §7.1): three base64url parts. */
const MAX_LOGOUT_TOKEN_LENGTH = 16_384;
const JWS_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** A verified logout token: what back-channel logout acts on. */
export interface VerifiedLogoutToken {
  issuer: string;
  /** SHA-256 of the issuer and `jti`: the key of the replay store (never the token itself). */
  jtiDigest: Buffer;
  /** The provider session that ended (`sid`), when the token names one. */
  sid: string | null;
  /** The subject whose sessions end (`sub`), when the token names one. */
  sub: string | null;
  /** Until when the token could still be accepted: a replay must be refused until then. */
  replayableUntil: Date;
}

export interface LogoutTokenRules {
  /** The issuer from discovery. */
  issuer: string;
  /** The gateway's client id: `aud` must contain it. */
  clientId: string;
}

/** The token was refused (§2.8: 400 invalid_request). `reason` is for the log only, never for the caller. */
export class LogoutTokenRefused extends Error {
  override name = 'LogoutTokenRefused';
  readonly reason: string;
  constructor(reason: string) {
    super(`logout token refused: ${reason}`);
    this.reason = reason;
  }
}

/**
 * Verifies a logout token (§2.6 steps 1 to 6). `keys` are the provider's published keys (a remote
 * JWKS, refetched on an unknown `kid` at most every few seconds: anyone can post to this endpoint).
 */
export async function verifyLogoutToken(token: string, keys: JWTVerifyGetKey, rules: LogoutTokenRules): Promise<VerifiedLogoutToken> {
  // Cheap refusals first: no key lookup, no JWKS fetch for what cannot be a signed JWT. An
  // encrypted token (JWE, five parts) is refused too: the gateway registers no encryption key.
  if (token.length > MAX_LOGOUT_TOKEN_LENGTH || !JWS_COMPACT.test(token)) throw new LogoutTokenRefused('not a JWS compact serialisation');

  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keyGetter(keys), {
      issuer: rules.issuer,
      audience: rules.clientId,
      algorithms: LOGOUT_TOKEN_ALGORITHMS,
      requiredClaims: ['iat', 'jti', 'events'],
      maxTokenAge: LOGOUT_TOKEN_MAX_AGE_SECONDS,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    }));
  } catch (error) {
    if (error instanceof LogoutTokenRefused || error instanceof ApiError) throw error;
    // jose's messages name the failed check (`unexpected "iss" claim value`…), never the token.
    const code = (error as { code?: unknown }).code;
    throw new LogoutTokenRefused(`${typeof code === 'string' ? `${code}: ` : ''}${error instanceof Error ? error.message : String(error)}`);
  }
  return logoutTokenClaims(payload, rules);
}

/** §2.4 and §2.6 steps 4 to 6: what jwtVerify does not know about logout tokens. */
function logoutTokenClaims(payload: JWTPayload, rules: LogoutTokenRules): VerifiedLogoutToken {
  const events = payload.events;
  if (!isPlainObject(events)) throw new LogoutTokenRefused('"events" is not an object');
  if (!Object.hasOwn(events, BACKCHANNEL_LOGOUT_EVENT)) throw new LogoutTokenRefused('"events" has no back-channel logout event');
  if (!isPlainObject(events[BACKCHANNEL_LOGOUT_EVENT])) throw new LogoutTokenRefused('the back-channel logout event is not an object');
  if (payload.nonce !== undefined) throw new LogoutTokenRefused('a "nonce" is present');
  const sid = optionalString(payload.sid, 'sid');
  const sub = optionalString(payload.sub, 'sub');
  if (sid === null && sub === null) throw new LogoutTokenRefused('neither "sid" nor "sub"');
  const jti = optionalString(payload.jti, 'jti');
  if (jti === null) throw new LogoutTokenRefused('no "jti"');
  // OIDC Core §3.1.3.7 step 5, as for an ID token: an `azp` names the gateway's client.
  if (payload.azp !== undefined && payload.azp !== rules.clientId) throw new LogoutTokenRefused('"azp" is another client');

  // Accepted while now <= iat + max age (+ skew) and, with an `exp`, now < exp (+ skew).
  const iat = payload.iat!;
  const lastAccepted = Math.min(iat + LOGOUT_TOKEN_MAX_AGE_SECONDS, payload.exp ?? Number.POSITIVE_INFINITY) + CLOCK_TOLERANCE_SECONDS;
  return {
    issuer: rules.issuer,
    jtiDigest: logoutTokenJtiDigest(rules.issuer, jti),
    sid,
    sub,
    replayableUntil: new Date(Math.ceil(lastAccepted) * 1000),
  };
}

/** SHA-256 of issuer and `jti` (NUL-separated, so no two pairs share a digest). */
export function logoutTokenJtiDigest(issuer: string, jti: string): Buffer {
  return createHash('sha256').update(issuer).update('\u0000').update(jti).digest();
}

/**
 * The header is checked before a key is looked up, so a token of the wrong type never makes the
 * gateway fetch the provider's keys. A key set that cannot be fetched (network, timeout, an answer
 * that is not a key set) is the provider's fault, not the token's: 503.
 */
function keyGetter(keys: JWTVerifyGetKey): JWTVerifyGetKey {
  return async (header, token) => {
    assertLogoutTokenType(header);
    try {
      return await keys(header, token);
    } catch (error) {
      if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys) {
        throw new LogoutTokenRefused(`${error.code}: no published key for the token's "kid"`);
      }
      if (error instanceof joseErrors.JOSENotSupported || error instanceof joseErrors.JOSEAlgNotAllowed) throw error;
      throw unavailable(error, "The identity provider's keys could not be fetched. Try again shortly.");
    }
  };
}

function assertLogoutTokenType(header: JWSHeaderParameters): void {
  if (header.typ === undefined) return;
  const typ = typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : '';
  if (!LOGOUT_TOKEN_TYPS.has(typ)) throw new LogoutTokenRefused(`"typ" ${JSON.stringify(String(header.typ).slice(0, 40))} is not a logout token's`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(value: unknown, claim: string): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value === '') throw new LogoutTokenRefused(`"${claim}" is not a non-empty string`);
  return value;
}
