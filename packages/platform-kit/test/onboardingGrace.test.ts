// The kit's reading of GRACE (the gateway's issue 36) from what the exchange said at sign-in.
import { describe, expect, it } from 'vitest';
import { needsOnboarding, onboardingGrace } from '../src/onboarding.ts';
import type { Session } from '../src/sessions.ts';

const terms = { documentKey: 'terms', kind: 'terms' as const, version: 2 };
function session(onboarding: Partial<Session['onboarding']>): Session {
  return { onboarding: { status: 'COMPLETE', requirementVersion: 3, missingFields: [], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [], ...onboarding } } as Session;
}

describe('GRACE in the platform kit', () => {
  it('lets the person through and gives the deadline and what is missing', () => {
    const graced = session({ status: 'GRACE', graceUntil: '2031-01-10T00:00:00.000Z', missingFields: ['vatNumber'], missingDocuments: [terms] });
    expect(needsOnboarding(graced)).toBe(false);
    expect(onboardingGrace(graced)).toEqual({ until: '2031-01-10T00:00:00.000Z', missingFields: ['vatNumber'], missingDocuments: [terms] });
  });
  it('other statuses: no grace; IN_PROGRESS still needs onboarding', () => {
    expect(onboardingGrace(session({}))).toBeNull();
    expect(needsOnboarding(session({ status: 'IN_PROGRESS', missingFields: ['vatNumber'] }))).toBe(true);
    expect(onboardingGrace(session({ status: 'IN_PROGRESS', missingFields: ['vatNumber'] }))).toBeNull();
    expect(needsOnboarding(session({ missingDocuments: [terms] }))).toBe(true);
  });
});
