// Issue 36: a field definition's sharing rule belongs to profile-bound fields only; without one a
// PROFILE_FIELD is `shared`, and a rule on any other field is refused with NOT_PROFILE_BOUND.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/catalogue.ts';
import { validateFieldCreate, validateFieldPatch } from '../../src/services/onboarding/definitions.ts';

/** The `errors[]` of the 400 VALIDATION_FAILED a call throws. */
function refusal(run: () => unknown): unknown {
  expect(run).toThrow(ApiError);
  try {
    run();
  } catch (error) {
    return { code: (error as ApiError).code, errors: (error as ApiError).errors };
  }
}

const notProfileBound = { code: 'VALIDATION_FAILED', errors: [{ pointer: '/body/sharing', reason: 'NOT_PROFILE_BOUND', message: 'must be null when source is not PROFILE_FIELD' }] };
const phone = { fieldKey: 'mobile', label: 'Mobile', fieldType: 'PHONE', source: 'PROFILE_FIELD', profileField: 'phone' };

describe('sharing rules', () => {
  it('a profile-bound field is shared unless told otherwise, and takes ask and own', () => {
    expect(validateFieldCreate(phone).sharing).toBe('shared');
    expect(validateFieldCreate({ ...phone, sharing: null }).sharing).toBe('shared');
    expect(validateFieldCreate({ ...phone, sharing: 'ask' }).sharing).toBe('ask');
    expect(validateFieldCreate({ ...phone, sharing: 'own' }).sharing).toBe('own');
  });

  it('a custom field has none; one sent for it is refused with NOT_PROFILE_BOUND', () => {
    expect(validateFieldCreate({ fieldKey: 'company', label: 'Company', fieldType: 'TEXT' }).sharing).toBeNull();
    expect(refusal(() => validateFieldCreate({ fieldKey: 'company', label: 'Company', fieldType: 'TEXT', sharing: 'ask' }))).toEqual(notProfileBound);
    expect(refusal(() => validateFieldCreate({ ...phone, sharing: 'sometimes' }))).toMatchObject({ errors: [{ pointer: '/body/sharing' }] });
  });

  it('a patch: the rule alone, or dropped with the binding unless it is sent', () => {
    const bound = { ...validateFieldCreate(phone) };
    const custom = { ...validateFieldCreate({ fieldKey: 'company', label: 'Company', fieldType: 'TEXT' }) };
    expect(validateFieldPatch(bound, { sharing: 'ask' })).toMatchObject({ changed: ['sharing'], merged: { sharing: 'ask' } });
    expect(validateFieldPatch(bound, { sharing: null }).changed).toEqual([]);
    expect(validateFieldPatch(bound, { source: 'CUSTOM_FIELD', profileField: null, fieldType: 'TEXT' })).toMatchObject({ merged: { sharing: null } });
    expect(refusal(() => validateFieldPatch(custom, { sharing: 'own' }))).toEqual(notProfileBound);
    expect(refusal(() => validateFieldPatch(bound, { source: 'CUSTOM_FIELD', profileField: null, fieldType: 'TEXT', sharing: 'ask' }))).toEqual(notProfileBound);
  });
});
