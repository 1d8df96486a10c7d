// The callback's rules for a fresh sign-in (src/services/login/freshSignIn.ts), at their edges: the age
// is measured from the start of the login with 30 s of clock skew; prompt=login is an age of zero;
// a second factor is any configured amr value; a step-up token opens only for its platform and
// while it lives, and a start's parameters only ever add to what it asks.

import { describe, expect, it } from 'vitest';
import { combineRequests, NOTHING_REQUESTED, openStepUp, requestedAtStart, requireRequestedAuthentication, sealStepUp } from '../../src/services/login/freshSignIn.ts';
import { generateKeyRingSpec, parseKeyRing } from '../../src/security/crypto.ts';
import { ApiError } from '../../src/errors/catalogue.ts';

const keyRing = parseKeyRing(generateKeyRingSpec('unit'));
const startedAt = new Date('2026-11-26T12:00:00Z');
const start = startedAt.getTime() / 1000;
const person = { sub: 'user-1', authTime: start, amr: ['pwd'], acr: null };

function codeOf(run: () => void): string | null {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

describe('fresh sign-in rules', () => {
  it('maxAge: auth_time down to maxAge + 30 s before the start passes, a second older or none is refused', () => {
    const request = { ...NOTHING_REQUESTED, maxAgeSeconds: 60 };
    expect(codeOf(() => requireRequestedAuthentication(request, startedAt, { ...person, authTime: start - 90 }, ['mfa']))).toBeNull();
    expect(codeOf(() => requireRequestedAuthentication(request, startedAt, { ...person, authTime: start - 91 }, ['mfa']))).toBe('AUTHENTICATION_TOO_OLD');
    expect(codeOf(() => requireRequestedAuthentication(request, startedAt, { ...person, authTime: null }, ['mfa']))).toBe('AUTHENTICATION_TOO_OLD');
    // Nothing asked: no auth_time needed.
    expect(codeOf(() => requireRequestedAuthentication(NOTHING_REQUESTED, startedAt, { ...person, authTime: null }, ['mfa']))).toBeNull();
  });

  it('forceLogin is an age of zero: an auth_time before the start (beyond the skew) is refused', () => {
    const request = { ...NOTHING_REQUESTED, forceLogin: true, maxAgeSeconds: 3600 };
    expect(codeOf(() => requireRequestedAuthentication(request, startedAt, { ...person, authTime: start + 5 }, ['mfa']))).toBeNull();
    expect(codeOf(() => requireRequestedAuthentication(request, startedAt, { ...person, authTime: start - 31 }, ['mfa']))).toBe('AUTHENTICATION_TOO_OLD');
  });

  it('a second factor is any configured amr value', () => {
    const request = { ...NOTHING_REQUESTED, secondFactor: true };
    expect(codeOf(() => requireRequestedAuthentication(request, startedAt, { ...person, amr: ['pwd', 'otp', 'mfa'] }, ['mfa']))).toBeNull();
    expect(codeOf(() => requireRequestedAuthentication(request, startedAt, { ...person, amr: ['otp'] }, ['mfa']))).toBe('SECOND_FACTOR_MISSING');
    expect(codeOf(() => requireRequestedAuthentication(request, startedAt, { ...person, amr: ['hwk'] }, ['hwk', 'mfa']))).toBeNull();
    expect(codeOf(() => requireRequestedAuthentication(request, startedAt, { ...person, amr: null }, ['mfa']))).toBe('SECOND_FACTOR_MISSING');
  });

  // LemonLDAP::NG (docs/providers.md) emits no amr: its authentication level, mapped to an acr
  // value, is what says a second factor was used. Failed before the acr was read.
  it('a second factor is also the configured acr (the one sent as acr_values), and only that one', () => {
    const request = { ...NOTHING_REQUESTED, secondFactor: true };
    const multiFactor = 'http://schemas.openid.net/pape/policies/2007/06/multi-factor';
    expect(codeOf(() => requireRequestedAuthentication(request, startedAt, { ...person, amr: null, acr: multiFactor }, ['mfa'], multiFactor))).toBeNull();
    expect(codeOf(() => requireRequestedAuthentication(request, startedAt, { ...person, amr: null, acr: 'loa-1' }, ['mfa'], multiFactor))).toBe('SECOND_FACTOR_MISSING');
    expect(codeOf(() => requireRequestedAuthentication(request, startedAt, { ...person, amr: ['pwd'], acr: null }, ['mfa'], multiFactor))).toBe('SECOND_FACTOR_MISSING');
    // An acr is compared whole: a longer or shorter value is another context.
    expect(codeOf(() => requireRequestedAuthentication(request, startedAt, { ...person, amr: null, acr: `${multiFactor}x` }, ['mfa'], multiFactor))).toBe('SECOND_FACTOR_MISSING');
  });

  it('a step-up binds the person; its token opens for its platform and its handoff challenge only, and not once expired', () => {
    const challenge = 'c'.repeat(43);
    const { token } = sealStepUp(keyRing, 'PLATFORM_A', { sub: 'user-1', maxAgeSeconds: 60, forceLogin: false, secondFactor: true, handoffChallenge: challenge }, 600);
    const opened = openStepUp(keyRing, 'PLATFORM_A', token, challenge);
    expect(opened).toEqual({ maxAgeSeconds: 60, forceLogin: false, secondFactor: true, stepUpSub: 'user-1' });
    expect(codeOf(() => requireRequestedAuthentication(opened, startedAt, { ...person, sub: 'user-2', amr: ['mfa'] }, ['mfa']))).toBe('STEP_UP_SUBJECT_MISMATCH');
    expect(codeOf(() => openStepUp(keyRing, 'PLATFORM_B', token, challenge))).toBe('VALIDATION_FAILED');
    // Beside another challenge, or none, it does not open (a token moved to another login).
    expect(codeOf(() => openStepUp(keyRing, 'PLATFORM_A', token, 'd'.repeat(43)))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => openStepUp(keyRing, 'PLATFORM_A', token, null))).toBe('VALIDATION_FAILED');
    const unbound = sealStepUp(keyRing, 'PLATFORM_A', { sub: 'user-1', maxAgeSeconds: null, forceLogin: true, secondFactor: false, handoffChallenge: null }, 600).token;
    expect(codeOf(() => openStepUp(keyRing, 'PLATFORM_A', unbound, challenge))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => openStepUp(keyRing, 'PLATFORM_A', unbound, null))).toBeNull();
    const expired = sealStepUp(keyRing, 'PLATFORM_A', { sub: 'user-1', maxAgeSeconds: null, forceLogin: true, secondFactor: false, handoffChallenge: challenge }, -1).token;
    expect(codeOf(() => openStepUp(keyRing, 'PLATFORM_A', expired, challenge))).toBe('VALIDATION_FAILED');
  });

  it("a start's parameters only add to a step-up token's request", () => {
    const { token } = sealStepUp(keyRing, 'PLATFORM_A', { sub: 'user-1', maxAgeSeconds: 60, forceLogin: false, secondFactor: true, handoffChallenge: null }, 600);
    expect(requestedAtStart(keyRing, 'PLATFORM_A', { stepUp: token, maxAge: 3600, requireSecondFactor: false })).toEqual({
      maxAgeSeconds: 60, forceLogin: false, secondFactor: true, stepUpSub: 'user-1',
    });
    expect(combineRequests({ ...NOTHING_REQUESTED, maxAgeSeconds: 600 }, { ...NOTHING_REQUESTED, maxAgeSeconds: 30, forceLogin: true }))
      .toEqual({ maxAgeSeconds: 30, forceLogin: true, secondFactor: false, stepUpSub: null });
  });
});
