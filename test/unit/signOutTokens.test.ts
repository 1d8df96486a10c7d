// The signed values of sign-out (src/services/sessions/signOutState.ts): the sign-out token a
// platform gets for a one-step sign-out, and the RP-initiated logout `state`.
import { describe, expect, it } from 'vitest';
import { generateKeyRingSpec, parseKeyRing } from '../../src/security/crypto.ts';
import { openSignOutState, openSignOutToken, signSignOutState, signSignOutToken, SIGN_OUT_TOKEN_LIFETIME_SECONDS } from '../../src/services/sessions/signOutState.ts';

const k1 = generateKeyRingSpec('k1');
const k2 = generateKeyRingSpec('k2');
const SESSION = '0b5c2f2e-8d1a-4f5e-9c3b-2a1d0e9f8c7b';

describe('sign-out tokens', () => {
  it('open to the session and platform they were issued for, until they expire', () => {
    const ring = parseKeyRing(k1);
    const now = Date.now();
    const { token, expiresAt } = signSignOutToken(ring, { sessionId: SESSION, platformKey: 'DEMO' }, now);
    expect(expiresAt.getTime()).toBe((Math.floor(now / 1000) + SIGN_OUT_TOKEN_LIFETIME_SECONDS) * 1000);
    expect(openSignOutToken(ring, token, now)).toEqual({ sessionId: SESSION, platformKey: 'DEMO' });
    expect(openSignOutToken(ring, token, expiresAt.getTime())).toBeNull();
    const own = signSignOutToken(ring, { sessionId: SESSION, platformKey: null }, now).token;
    expect(openSignOutToken(ring, own, now)).toEqual({ sessionId: SESSION, platformKey: null });
  });

  it('refuse anything altered, another key ring’s, or a sign-out state (a key per purpose)', () => {
    const ring = parseKeyRing(k1);
    const { token } = signSignOutToken(ring, { sessionId: SESSION, platformKey: 'DEMO' });
    const [payload, mac] = token.split('.');
    const other = Buffer.from(JSON.stringify({ s: SESSION, p: 'OTHER', e: 4_000_000_000 })).toString('base64url');
    for (const bad of [`${other}.${mac}`, `${payload}.${mac!.slice(1)}A`, `${payload}`, `${token}.x`, '', 'not a token']) {
      expect(openSignOutToken(ring, bad), bad).toBeNull();
    }
    expect(openSignOutToken(parseKeyRing(k2), token)).toBeNull();
    const state = signSignOutState(ring, new URL('https://bff.example.test/bye'));
    expect(openSignOutToken(ring, state)).toBeNull();
    expect(openSignOutState(ring, token)).toBeNull();
    expect(openSignOutState(ring, state)?.href).toBe('https://bff.example.test/bye');
  });

  it('still open after a key rotation while the old key stays in the ring', () => {
    const { token } = signSignOutToken(parseKeyRing(k1), { sessionId: SESSION, platformKey: 'DEMO' });
    expect(openSignOutToken(parseKeyRing(`${k2},${k1}`), token)?.sessionId).toBe(SESSION);
  });
});
