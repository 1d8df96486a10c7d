// A platform's pending Security Event Tokens (RFC 8936 poll), verified against the gateway's
// published keys as a platform back end verifies them, and acknowledged.
import request from 'supertest';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Harness, TestPlatform } from './flowHarness.ts';

export async function pollVerifiedSets(harness: Harness, platform: TestPlatform): Promise<JWTPayload[]> {
  const api = () => request(harness.gateway.app);
  const jwks = createRemoteJWKSet(new URL('/.well-known/jwks.json', harness.baseUrl));
  const answer = await api().post('/v1/events/poll').set('Authorization', platform.basic).send({}).expect(200);
  const sets: JWTPayload[] = [];
  for (const token of Object.values(answer.body.sets as Record<string, string>)) {
    sets.push((await jwtVerify(token, jwks, { issuer: harness.baseUrl, audience: platform.clientId, typ: 'secevent+jwt' })).payload);
  }
  if (sets.length > 0) await api().post('/v1/events/poll').set('Authorization', platform.basic).send({ ack: sets.map((set) => set.jti), maxEvents: 0 }).expect(200);
  return sets;
}

/** The payloads of one event type among verified SETs. */
export function eventsOfType(sets: readonly JWTPayload[], type: string): unknown[] {
  return sets.map((set) => (set.events as Record<string, unknown>)[type]).filter(Boolean);
}
