// Issue 36: the one rule that says whether a requirement change is in force or still in grace,
// and the onboarding status it gives (pure: no database).
import { describe, expect, it } from 'vitest';
import { graceDeadline, versionsAfter } from '../../src/domain/requirementGrace.ts';
import { calculateStatus } from '../../src/services/onboarding/status.ts';
import type { DocumentStanding } from '../../src/domain/documents.ts';

const SOON = '2031-01-10T00:00:00.000Z';
const LATER = '2031-02-01T00:00:00.000Z';
const platform = { requirementVersion: 5, centralOnboardingEnabled: true };
const filled = [{ fieldKey: 'company', required: true, value: 'Acme', requiredSince: 2 }];
// teamSize was asked for by version 5 (the change in grace).
const empty = [...filled, { fieldKey: 'teamSize', required: true, value: null, requiredSince: 5 }];

describe('graceDeadline', () => {
  it('is the earliest date when every version is in grace, and null when any is in force (absent, or a legacy null)', () => {
    expect(graceDeadline([4, 5], { 4: LATER, 5: SOON })).toBe(SOON);
    expect(graceDeadline([4, 5], { 5: SOON })).toBeNull();
    expect(graceDeadline([null], { 5: SOON })).toBeNull();
    expect(graceDeadline([], { 5: SOON })).toBeNull();
    expect(graceDeadline([5], { 5: '2031-01-10T00:00:00+00:00' })).toBe(SOON);
  });
  it('versionsAfter lists the versions raised since one', () => {
    expect(versionsAfter(3, 5)).toEqual([4, 5]);
    expect(versionsAfter(5, 5)).toEqual([]);
  });
});

describe('calculateStatus with graces', () => {
  it('GRACE for a person who completed an earlier version when every later version is in grace', () => {
    expect(calculateStatus(platform, empty, 4, [], { 5: SOON })).toMatchObject({ status: 'GRACE', graceUntil: SOON, missingFields: ['teamSize'] });
    // Nothing missing, only the confirmation: GRACE too (the person confirms at the form).
    expect(calculateStatus(platform, filled, 4, [], { 5: SOON })).toMatchObject({ status: 'GRACE', missingFields: [] });
  });
  it('IN_PROGRESS when a version in between is in force, when the person never completed, or when a field is missing at the current version', () => {
    expect(calculateStatus(platform, empty, 3, [], { 5: SOON })).toMatchObject({ status: 'IN_PROGRESS' });
    expect(calculateStatus(platform, empty, null, [], { 5: SOON })).toMatchObject({ status: 'IN_PROGRESS' });
    expect(calculateStatus(platform, empty, 5, [], { 5: SOON })).toMatchObject({ status: 'IN_PROGRESS' });
    expect(calculateStatus(platform, empty, 4, [], {}).graceUntil).toBeUndefined();
  });
  it('IN_PROGRESS when a missing field was asked for before the person completed, or since before issue 36: the grace covers only what its change asked anew', () => {
    const emptiedOlder = [{ ...filled[0]!, value: null }, empty[1]!];
    expect(calculateStatus(platform, emptiedOlder, 4, [], { 5: SOON })).toMatchObject({ status: 'IN_PROGRESS', missingFields: ['company', 'teamSize'] });
    expect(calculateStatus(platform, [{ ...empty[1]!, requiredSince: null }], 4, [], { 5: SOON }).status).toBe('IN_PROGRESS');
    expect(calculateStatus(platform, [{ ...empty[1]!, requiredSince: 4 }], 4, [], { 5: SOON }).status).toBe('IN_PROGRESS');
    // Asked for by a version after the completion, all of them in grace: covered.
    expect(calculateStatus(platform, [{ ...empty[1]!, requiredSince: 5 }], 3, [], { 4: LATER, 5: SOON })).toMatchObject({ status: 'GRACE', graceUntil: SOON });
  });
  it('documents: a missing version in grace gives GRACE; one in force blocks whatever the fields say', () => {
    const graced: DocumentStanding = { documentKey: 'terms', kind: 'terms', currentVersion: 2, requiredVersion: 2, acceptedVersion: 1, blockingAbove: [5] };
    const inForce: DocumentStanding = { ...graced, documentKey: 'privacy', kind: 'privacy', blockingAbove: [4] };
    expect(calculateStatus(platform, filled, 4, [graced], { 5: LATER })).toMatchObject({ status: 'GRACE', graceUntil: LATER, missingDocuments: [{ documentKey: 'terms', version: 2 }] });
    expect(calculateStatus(platform, filled, 4, [graced, inForce], { 5: LATER }).status).toBe('IN_PROGRESS');
    // A platform with no field: the documents alone decide.
    expect(calculateStatus(platform, [], null, [graced], { 5: LATER }).status).toBe('GRACE');
    expect(calculateStatus(platform, [], null, [{ ...graced, blockingAbove: null }], { 5: LATER }).status).toBe('IN_PROGRESS');
  });
  it('COMPLETE carries no deadline', () => {
    const status = calculateStatus(platform, filled, 5, [], { 5: SOON });
    expect(status.status).toBe('COMPLETE');
    expect('graceUntil' in status).toBe(false);
  });
});
