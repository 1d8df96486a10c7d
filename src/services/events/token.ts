import type { SigningKeys } from '../../security/signingKeys.ts';
import { SET_TYPE, type SecurityEventRow } from './types.ts';

/**
 * A Security Event Token (RFC 8417 §2) for one recorded event and one platform, signed with the
 * gateway's signing keys (the ring that signs logout tokens and is published at
 * /.well-known/jwks.json): header `typ: secevent+jwt`, `alg: ES256`, `kid`; claims `iss` (the
 * gateway), `aud` (the platform's client id), `jti` (the record's id: the same at every
 * retransmission, so a receiver deduplicates by it, RFC 8935 §2 / RFC 8936 §2.1), `iat` (when
 * the event was recorded: the same at every retransmission), `toe` (when it happened, §2.2),
 * `sub` (the local user id, as in the exchange's `user.id` and the logout tokens), and `events`
 * with exactly one member. No `exp`: a SET is a statement of fact, not a credential (§2.2), and a
 * late poll must still verify.
 */
export async function signSecurityEventToken(
  keys: SigningKeys,
  event: Pick<SecurityEventRow, 'id' | 'userId' | 'eventType' | 'payload' | 'occurredAt' | 'createdAt'>,
  target: { issuer: string; audience: string },
): Promise<string> {
  return keys.sign(
    {
      iss: target.issuer,
      aud: target.audience,
      jti: event.id,
      iat: Math.floor(event.createdAt.getTime() / 1000),
      toe: Math.floor(event.occurredAt.getTime() / 1000),
      sub: event.userId,
      events: { [event.eventType]: { ...event.payload } },
    },
    SET_TYPE,
  );
}
