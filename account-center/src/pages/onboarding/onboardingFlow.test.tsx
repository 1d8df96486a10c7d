import { describe, expect, it } from 'vitest';
import { englishIntl } from '../../i18n/useIntl.ts';
import {
  checkBeforeWrite,
  fieldKeyOfPointer,
  listOf,
  mergeValues,
  resumeTransaction,
  resumeUrl,
  sentence,
  sortFields,
  storedValue,
  valueErrors,
  valuesToWrite,
  type RequirementField,
} from './onboardingFlow.ts';

function field(fieldKey: string, fieldType: RequirementField['fieldType'], extra: Partial<RequirementField> = {}): RequirementField {
  return {
    fieldKey, label: fieldKey, fieldType, sortOrder: 0, source: 'CUSTOM_FIELD', profileField: null, sharing: null, sharedOffer: null, required: false, options: [], validation: {}, uiConfig: {},
    placeholder: null, description: null, translations: {}, archived: false, archivedAt: null, createdAt: '', updatedAt: '', currentValue: null, ...extra,
  };
}

describe('onboarding flow rules', () => {
  it('only a UUID is a resume; the resume URL is the gateway’s, without /v1 twice', () => {
    expect(resumeTransaction(null)).toBeNull();
    expect(resumeTransaction('abc')).toBeNull();
    expect(resumeTransaction('0B6F3C1E-8A2D-4F5B-9C7E-1D2E3F4A5B6C')).toBe('0b6f3c1e-8a2d-4f5b-9c7e-1d2e3f4a5b6c');
    expect(resumeUrl({ authBackendUrl: 'https://gw.example/v1/', authPlatformKey: 'X' }, '0b6f3c1e-8a2d-4f5b-9c7e-1d2e3f4a5b6c'))
      .toBe('https://gw.example/v1/auth/resume?transaction=0b6f3c1e-8a2d-4f5b-9c7e-1d2e3f4a5b6c');
  });

  it('sorts by sortOrder, keeping the gateway’s order on ties', () => {
    const sorted = sortFields([{ k: 'c', sortOrder: 2 }, { k: 'a', sortOrder: 1 }, { k: 'b', sortOrder: 1 }]);
    expect(sorted.map((item) => item.k)).toEqual(['a', 'b', 'c']);
  });

  it('writes every field: an untouched checkbox is false, an empty multi-select [], other empties null', () => {
    const fields = [field('t', 'TEXT'), field('b', 'BOOLEAN'), field('m', 'MULTI_SELECT'), field('n', 'NUMBER')];
    expect(valuesToWrite(fields, { t: '  ', b: null, n: 0 })).toEqual({ t: null, b: false, m: [], n: 0 });
  });

  it('a stored choice that is no longer an option is not shown or written again', () => {
    const options = [{ value: 'a', label: 'A' }];
    expect(storedValue(field('m', 'MULTI_SELECT', { options, currentValue: ['a', 'gone'] }))).toEqual(['a']);
    expect(storedValue(field('s', 'SELECT', { options, currentValue: 'gone' }))).toBeNull();
  });

  it('after reading the schema again, entered values stay, new fields bring their stored value, removed ones go', () => {
    const merged = mergeValues([field('kept', 'TEXT'), field('new', 'TEXT', { currentValue: 'stored' })], { kept: 'typed', removed: 'x' });
    expect(merged).toEqual({ kept: 'typed', new: 'stored' });
  });

  it('refuses before the write: input problems, and required fields left empty (a required checkbox counts as answered)', () => {
    const fields = [field('m', 'MULTI_SELECT', { required: true }), field('c', 'COUNTRY'), field('b', 'BOOLEAN', { required: true }), field('t', 'TEXT', { required: true })];
    const problems = checkBeforeWrite(englishIntl(), fields, { m: [], c: null, b: null, t: 'x' }, { c: 'Choose a country from the list.' });
    expect([...problems]).toEqual([['m', 'Choose at least one option.'], ['c', 'Choose a country from the list.']]);
  });

  it('reads field errors by pointer, below the field too, one per field', () => {
    expect(fieldKeyOfPointer('/body/values/interests/2')).toBe('interests');
    expect(fieldKeyOfPointer('/body/values/a~1b')).toBe('a/b');
    expect(fieldKeyOfPointer('/query/returnTo')).toBeNull();
    const errors = valueErrors({
      type: 'x', title: 'x', status: 400, code: 'VALIDATION_FAILED', requestId: 'r',
      errors: [
        { pointer: '/body/values/phone', reason: 'INVALID_PHONE', message: 'first' },
        { pointer: '/body/values/phone', reason: 'TOO_LONG', message: 'second' },
        { pointer: '/body', message: 'not a field', reason: 'INVALID' },
      ],
    });
    expect(errors).toEqual([{ fieldKey: 'phone', reason: 'INVALID_PHONE', message: 'first' }]);
  });

  it('makes sentences and lists for people', () => {
    expect(sentence('Phone', 'must be a valid international phone number starting with +')).toBe('Phone must be a valid international phone number starting with +.');
    expect(sentence('Phone', 'Enter a phone number.')).toBe('Enter a phone number.');
    expect([listOf(englishIntl(), []), listOf(englishIntl(), ['A']), listOf(englishIntl(), ['A', 'B']), listOf(englishIntl(), ['A', 'B', 'C'])]).toEqual(['', 'A', 'A and B', 'A, B, and C']);
  });
});
