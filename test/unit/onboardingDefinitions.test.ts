import { describe, expect, it } from 'vitest';
import { ApiError, type FieldError } from '../../src/errors/catalogue.ts';
import {
  FIELD_SETTINGS,
  validateFieldCreate,
  validateFieldPatch,
  valueRulesFor,
  type FieldDefinitionSettings,
  type NewFieldDefinition,
} from '../../src/services/onboarding/definitions.ts';
import { PROFILE_FIELD_TYPES, PROFILE_FIELDS } from '../../src/services/onboarding/profileFields.ts';
import { FIELD_TYPES } from '../../src/services/onboarding/values.ts';

const OPTIONS = [
  { value: 'a', label: 'A' },
  { value: 'b', label: 'B' },
];

/** The errors a call throws (it must throw a 400 VALIDATION_FAILED). */
function errorsOf(run: () => unknown): FieldError[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('VALIDATION_FAILED');
    return [...((error as ApiError).errors ?? [])];
  }
  throw new Error('expected a validation error');
}
const pointersOf = (run: () => unknown) => errorsOf(run).map((error) => error.pointer);

const base = { fieldKey: 'company', label: 'Company', fieldType: 'TEXT' };

describe('validateFieldCreate: defaults', () => {
  it('fills every default', () => {
    expect(validateFieldCreate(base)).toEqual<NewFieldDefinition>({
      fieldKey: 'company',
      label: 'Company',
      fieldType: 'TEXT',
      source: 'CUSTOM_FIELD',
      profileField: null, sharing: null,
      required: false,
      sortOrder: 0,
      options: [],
      validation: {},
      uiConfig: {},
      placeholder: null,
      description: null,
      translations: {},
    });
  });

  it('keeps every given property, canonically', () => {
    const created = validateFieldCreate({
      fieldKey: 'Plan_2',
      label: 'Plan',
      fieldType: 'MULTI_SELECT',
      source: 'CUSTOM_FIELD',
      profileField: null,
      required: true,
      sortOrder: -1_000_000,
      options: [{ label: 'A', value: 'a' }, { value: 'b', label: 'B' }],
      validation: {},
      uiConfig: { helpText: '<b>not HTML</b>\nsecond line', width: 'half' },
      placeholder: '',
      description: 'Pick any.\nOr none.',
    });
    expect(created).toMatchObject({ fieldKey: 'Plan_2', required: true, sortOrder: -1_000_000, options: OPTIONS, placeholder: '', description: 'Pick any.\nOr none.' });
    expect(created.uiConfig).toEqual({ width: 'half', helpText: '<b>not HTML</b>\nsecond line' });
  });

  it.each(FIELD_TYPES)('accepts the field type %s', (fieldType) => {
    const options = fieldType === 'SELECT' || fieldType === 'MULTI_SELECT' ? OPTIONS : [];
    expect(validateFieldCreate({ ...base, fieldType, options }).fieldType).toBe(fieldType);
  });

  it.each(PROFILE_FIELDS.flatMap((profileField) => PROFILE_FIELD_TYPES[profileField].map((fieldType) => ({ profileField, fieldType }))))(
    'binds $profileField with $fieldType',
    ({ profileField, fieldType }) => {
      expect(validateFieldCreate({ ...base, fieldType, source: 'PROFILE_FIELD', profileField })).toMatchObject({ source: 'PROFILE_FIELD', profileField });
    },
  );

  it.each([
    [{ fieldType: 'TEXT', validation: { minLength: 0, maxLength: 10_000 } }],
    [{ fieldType: 'TEXTAREA', validation: { minLength: 10, maxLength: 10 } }],
    [{ fieldType: 'EMAIL', validation: { maxLength: 254 } }],
    [{ fieldType: 'URL', validation: { minLength: 12, maxLength: 2048 } }],
    [{ fieldType: 'NUMBER', validation: { min: -1.5, max: -1.5 } }],
    [{ fieldType: 'NUMBER', validation: { min: 0 } }],
    [{ fieldType: 'TEXT', source: 'PROFILE_FIELD', profileField: 'firstName', validation: { minLength: 2, maxLength: 100 } }],
    [{ fieldType: 'TEXT', source: 'PROFILE_FIELD', profileField: 'displayName', validation: { maxLength: 200 } }],
  ])('accepts validation %j', (extra) => {
    expect(validateFieldCreate({ ...base, ...extra }).validation).toEqual(extra.validation);
  });

  it.each([
    ['a' + 'b'.repeat(63)],
    ['ab'],
    ['A_1'],
    ['Z9'],
  ])('accepts the field key %s', (fieldKey) => {
    expect(validateFieldCreate({ ...base, fieldKey }).fieldKey).toBe(fieldKey);
  });

  it.each([
    ['label', 'x'.repeat(200)],
    ['placeholder', 'x'.repeat(200)],
    ['description', 'x'.repeat(1000)],
    ['sortOrder', 1_000_000],
  ])('accepts %s at its limit', (key, value) => {
    expect(validateFieldCreate({ ...base, [key]: value })).toMatchObject({ [key]: value });
  });
});

describe('validateFieldCreate: refused, one pointer each', () => {
  it.each<[string, Record<string, unknown>, string]>([
    // fieldKey
    ['missing fieldKey', { fieldKey: undefined }, '/body/fieldKey'],
    ['one-character key', { fieldKey: 'a' }, '/body/fieldKey'],
    ['key starting with a digit', { fieldKey: '1ab' }, '/body/fieldKey'],
    ['key starting with _', { fieldKey: '_ab' }, '/body/fieldKey'],
    ['key with a dash', { fieldKey: 'a-b' }, '/body/fieldKey'],
    ['key of 65 characters', { fieldKey: 'a'.repeat(65) }, '/body/fieldKey'],
    ['key with a trailing newline', { fieldKey: 'abc\n' }, '/body/fieldKey'],
    ['key with non-ASCII letters', { fieldKey: 'straße' }, '/body/fieldKey'],
    ['numeric key', { fieldKey: 12 }, '/body/fieldKey'],
    // label
    ['missing label', { label: undefined }, '/body/label'],
    ['empty label', { label: '' }, '/body/label'],
    ['blank label', { label: '   ' }, '/body/label'],
    ['label of 201 characters', { label: 'x'.repeat(201) }, '/body/label'],
    ['label with a newline', { label: 'a\nb' }, '/body/label'],
    ['null label', { label: null }, '/body/label'],
    // fieldType, source, profileField, required, sortOrder
    ['missing fieldType', { fieldType: undefined }, '/body/fieldType'],
    ['unknown fieldType', { fieldType: 'COLOR' }, '/body/fieldType'],
    ['lower-case fieldType', { fieldType: 'text' }, '/body/fieldType'],
    ['unknown source', { source: 'PLATFORM' }, '/body/source'],
    ['null source', { source: null }, '/body/source'],
    ['unknown profileField', { source: 'PROFILE_FIELD', profileField: 'email' }, '/body/profileField'],
    ['profileField with CUSTOM_FIELD', { profileField: 'firstName' }, '/body/profileField'],
    ['PROFILE_FIELD without profileField', { source: 'PROFILE_FIELD' }, '/body/profileField'],
    ['PROFILE_FIELD with null profileField', { source: 'PROFILE_FIELD', profileField: null }, '/body/profileField'],
    ['profile type mismatch', { source: 'PROFILE_FIELD', profileField: 'phone', fieldType: 'TEXT' }, '/body/fieldType'],
    ['TEXTAREA for a name', { source: 'PROFILE_FIELD', profileField: 'firstName', fieldType: 'TEXTAREA' }, '/body/fieldType'],
    ['string required', { required: 'yes' }, '/body/required'],
    ['fractional sortOrder', { sortOrder: 1.5 }, '/body/sortOrder'],
    ['sortOrder too big', { sortOrder: 1_000_001 }, '/body/sortOrder'],
    ['sortOrder too small', { sortOrder: -1_000_001 }, '/body/sortOrder'],
    ['string sortOrder', { sortOrder: '1' }, '/body/sortOrder'],
    // options
    ['SELECT without options', { fieldType: 'SELECT' }, '/body/options'],
    ['MULTI_SELECT with []', { fieldType: 'MULTI_SELECT', options: [] }, '/body/options'],
    ['options on TEXT', { options: OPTIONS }, '/body/options'],
    ['options not an array', { fieldType: 'SELECT', options: { a: 'A' } }, '/body/options'],
    ['201 options', { fieldType: 'SELECT', options: Array.from({ length: 201 }, (_, i) => ({ value: `v${i}`, label: 'x' })) }, '/body/options'],
    ['duplicate option value', { fieldType: 'SELECT', options: [...OPTIONS, { value: 'a', label: 'Again' }] }, '/body/options/2/value'],
    ['option not an object', { fieldType: 'SELECT', options: ['a'] }, '/body/options/0'],
    ['option without label', { fieldType: 'SELECT', options: [{ value: 'a' }] }, '/body/options/0/label'],
    ['option with numeric value', { fieldType: 'SELECT', options: [{ value: 1, label: 'One' }] }, '/body/options/0/value'],
    ['option with empty value', { fieldType: 'SELECT', options: [{ value: '', label: 'None' }] }, '/body/options/0/value'],
    ['option value with outer space', { fieldType: 'SELECT', options: [{ value: ' a', label: 'A' }] }, '/body/options/0/value'],
    ['option value of 201 characters', { fieldType: 'SELECT', options: [{ value: 'x'.repeat(201), label: 'A' }] }, '/body/options/0/value'],
    ['option with an unknown key', { fieldType: 'SELECT', options: [{ value: 'a', label: 'A', color: 'red' }] }, '/body/options/0/color'],
    // validation
    ['validation not an object', { validation: [] }, '/body/validation'],
    ['null validation', { validation: null }, '/body/validation'],
    ['unknown validation key', { validation: { pattern: '.*' } }, '/body/validation/pattern'],
    ['min on TEXT', { validation: { min: 1 } }, '/body/validation/min'],
    ['max on DATE', { fieldType: 'DATE', validation: { max: 1 } }, '/body/validation/max'],
    ['minLength on NUMBER', { fieldType: 'NUMBER', validation: { minLength: 1 } }, '/body/validation/minLength'],
    ['maxLength on PHONE', { fieldType: 'PHONE', validation: { maxLength: 20 } }, '/body/validation/maxLength'],
    ['maxLength on SELECT', { fieldType: 'SELECT', options: OPTIONS, validation: { maxLength: 20 } }, '/body/validation/maxLength'],
    ['minLength > maxLength', { validation: { minLength: 5, maxLength: 4 } }, '/body/validation/minLength'],
    ['min > max', { fieldType: 'NUMBER', validation: { min: 5, max: 4 } }, '/body/validation/min'],
    ['negative minLength', { validation: { minLength: -1 } }, '/body/validation/minLength'],
    ['fractional maxLength', { validation: { maxLength: 2.5 } }, '/body/validation/maxLength'],
    ['maxLength over 10000', { validation: { maxLength: 10_001 } }, '/body/validation/maxLength'],
    ['string min', { fieldType: 'NUMBER', validation: { min: '1' } }, '/body/validation/min'],
    ['infinite max', { fieldType: 'NUMBER', validation: { max: Number.POSITIVE_INFINITY } }, '/body/validation/max'],
    ['maxLength over the EMAIL limit', { fieldType: 'EMAIL', validation: { maxLength: 255 } }, '/body/validation/maxLength'],
    ['minLength over the URL limit', { fieldType: 'URL', validation: { minLength: 2049 } }, '/body/validation/minLength'],
    ['maxLength over the profile limit', { source: 'PROFILE_FIELD', profileField: 'lastName', validation: { maxLength: 101 } }, '/body/validation/maxLength'],
    // uiConfig
    ['uiConfig not an object', { uiConfig: 'wide' }, '/body/uiConfig'],
    ['unknown uiConfig key', { uiConfig: { onclick: 'alert(1)' } }, '/body/uiConfig/onclick'],
    ['unknown width', { uiConfig: { width: 'quarter' } }, '/body/uiConfig/width'],
    ['helpText of 501 characters', { uiConfig: { helpText: 'x'.repeat(501) } }, '/body/uiConfig/helpText'],
    ['helpText not a string', { uiConfig: { helpText: ['x'] } }, '/body/uiConfig/helpText'],
    ['helpText with NUL', { uiConfig: { helpText: 'a\u0000' } }, '/body/uiConfig/helpText'],
    // placeholder, description
    ['placeholder of 201 characters', { placeholder: 'x'.repeat(201) }, '/body/placeholder'],
    ['numeric placeholder', { placeholder: 1 }, '/body/placeholder'],
    ['placeholder with a newline', { placeholder: 'a\nb' }, '/body/placeholder'],
    ['description of 1001 characters', { description: 'x'.repeat(1001) }, '/body/description'],
    ['description with an escape character', { description: '\u001b[2J' }, '/body/description'],
    ['description with a lone surrogate', { description: '\ud800' }, '/body/description'],
    // unknown properties
    ['unknown property', { archived: true }, '/body/archived'],
    ['pointer-escaped unknown property', { 'a/b~c': 1 }, '/body/a~1b~0c'],
  ])('%s', (_name, extra, at) => {
    expect(pointersOf(() => validateFieldCreate({ ...base, ...extra }))).toEqual([at]);
  });

  it.each([null, [], 'body', 42, new Date()])('refuses a body that is not an object: %j', (body) => {
    expect(pointersOf(() => validateFieldCreate(body))).toEqual(['/body']);
  });

  it('collects every problem at once', () => {
    const pointers = pointersOf(() =>
      validateFieldCreate({
        fieldKey: '1',
        label: '',
        fieldType: 'SELECT',
        source: 'CUSTOM_FIELD',
        profileField: 'firstName',
        required: 1,
        sortOrder: 0.5,
        options: [{ value: 'a', label: 'A' }, { value: 'a', label: 'B' }, { value: 2, label: '' }],
        validation: { min: 1, minLength: 3, maxLength: 2, extra: true },
        uiConfig: { width: 'wide', html: '<script>' },
        placeholder: 7,
        description: false,
        unknown: 1,
      }),
    );
    expect(pointers.sort()).toEqual(
      [
        '/body/unknown',
        '/body/fieldKey',
        '/body/label',
        '/body/profileField',
        '/body/required',
        '/body/sortOrder',
        '/body/options/1/value',
        '/body/options/2/value',
        '/body/options/2/label',
        '/body/validation/extra',
        '/body/validation/min', // does not apply to SELECT
        '/body/validation/minLength',
        '/body/validation/maxLength',
        '/body/uiConfig/width',
        '/body/uiConfig/html',
        '/body/placeholder',
        '/body/description',
      ].sort(),
    );
  });

  it('collects the cross rules of individually valid properties', () => {
    const pointers = pointersOf(() =>
      validateFieldCreate({ ...base, fieldType: 'BOOLEAN', options: OPTIONS, validation: { min: 5, max: 4, minLength: 9, maxLength: 3 } }),
    );
    // Keys on the wrong type are reported once each, not again as a bad pair.
    expect(pointers.sort()).toEqual(['/body/options', '/body/validation/max', '/body/validation/maxLength', '/body/validation/min', '/body/validation/minLength'].sort());
  });

  it('says what is wrong without crashing on odd JSON', () => {
    const errors = errorsOf(() => validateFieldCreate({ fieldKey: {}, label: [], fieldType: {}, options: [null, 1, []], validation: { minLength: null }, uiConfig: [] }));
    for (const error of errors) expect(error.message).toMatch(/^[a-z]/);
    expect(errors.map((error) => error.pointer)).toContain('/body/options/0');
    expect(errors.map((error) => error.pointer)).toContain('/body/validation/minLength');
  });

  it('stores inert copies: no prototype keys, no extra properties', () => {
    const body = JSON.parse('{"fieldKey":"ab","label":"L","fieldType":"TEXT","uiConfig":{"__proto__":{"polluted":true}}}') as unknown;
    expect(pointersOf(() => validateFieldCreate(body))).toEqual(['/body/uiConfig/__proto__']);
    const created = validateFieldCreate({ ...base, uiConfig: { helpText: '<img src=x onerror=alert(1)>' } });
    expect(created.uiConfig).toEqual({ helpText: '<img src=x onerror=alert(1)>' });
  });
});

const current: FieldDefinitionSettings & { fieldKey: string } = {
  fieldKey: 'company',
  label: 'Company',
  fieldType: 'TEXT',
  source: 'CUSTOM_FIELD',
  profileField: null, sharing: null,
  required: false,
  sortOrder: 10,
  options: [],
  validation: { maxLength: 50 },
  uiConfig: { width: 'half', helpText: 'Where you work' },
  placeholder: 'ACME Ltd',
  description: null,
  translations: {},
};

const bound: FieldDefinitionSettings = {
  ...current,
  label: 'Phone',
  fieldType: 'PHONE',
  source: 'PROFILE_FIELD',
  profileField: 'phone', sharing: 'shared',
  validation: {},
  uiConfig: {},
};

const select: FieldDefinitionSettings = { ...current, fieldType: 'SELECT', options: OPTIONS, validation: {} };

describe('validateFieldPatch', () => {
  it('merges and lists what really changes', () => {
    const { merged, changed } = validateFieldPatch(current, { label: 'Employer', required: true, sortOrder: 10 });
    expect(merged).toEqual({ ...current, label: 'Employer', required: true });
    expect(changed).toEqual(['label', 'required']);
  });

  it('keeps what current carries besides the settings (fieldKey)', () => {
    expect(validateFieldPatch(current, { label: 'X' }).merged.fieldKey).toBe('company');
  });

  it.each<[string, Record<string, unknown>]>([
    ['the same label', { label: 'Company' }],
    ['the same validation in another key order', { validation: { maxLength: 50 } }],
    ['the same uiConfig in another key order', { uiConfig: { helpText: 'Where you work', width: 'half' } }],
    ['everything unchanged', Object.fromEntries(FIELD_SETTINGS.map((key) => [key, structuredClone(current[key])]))],
    ['the same null', { description: null }],
  ])('a no-op patch (%s) gives changed: []', (_name, patch) => {
    const { merged, changed } = validateFieldPatch(current, patch);
    expect(changed).toEqual([]);
    expect(merged).toEqual(current);
  });

  it('detects deep changes of options, validation and uiConfig', () => {
    expect(validateFieldPatch(select, { options: [{ value: 'a', label: 'A' }, { value: 'b', label: 'Bee' }] }).changed).toEqual(['options']);
    expect(validateFieldPatch(select, { options: [...OPTIONS].reverse() }).changed).toEqual(['options']); // order is rendering order
    expect(validateFieldPatch(current, { validation: { maxLength: 51 } }).changed).toEqual(['validation']);
    expect(validateFieldPatch(current, { validation: {} }).changed).toEqual(['validation']);
    expect(validateFieldPatch(current, { uiConfig: { width: 'half' } }).changed).toEqual(['uiConfig']);
    expect(validateFieldPatch(current, { placeholder: null }).changed).toEqual(['placeholder']);
  });

  it('accepts a complete switch of type', () => {
    const { merged, changed } = validateFieldPatch(current, { fieldType: 'SELECT', options: OPTIONS, validation: {} });
    expect(merged).toMatchObject({ fieldType: 'SELECT', options: OPTIONS, validation: {} });
    expect(changed).toEqual(['fieldType', 'options', 'validation']);
  });

  it('accepts a switch to a profile binding and back', () => {
    expect(validateFieldPatch(current, { source: 'PROFILE_FIELD', profileField: 'firstName' })).toMatchObject({ changed: ['source', 'profileField', 'sharing'], merged: { sharing: 'shared' } });
    expect(validateFieldPatch(bound, { source: 'CUSTOM_FIELD', profileField: null })).toMatchObject({ changed: ['source', 'profileField', 'sharing'], merged: { sharing: null } });
    expect(validateFieldPatch(bound, { profileField: 'country', fieldType: 'COUNTRY' }).changed).toEqual(['fieldType', 'profileField']);
  });

  it.each<[string, FieldDefinitionSettings, Record<string, unknown>, string[]]>([
    ['TEXT → SELECT without options', current, { fieldType: 'SELECT', validation: {} }, ['/body/options']],
    ['TEXT → SELECT keeps a maxLength', current, { fieldType: 'SELECT', options: OPTIONS }, ['/body/validation/maxLength']],
    ['TEXT → NUMBER keeps a maxLength', current, { fieldType: 'NUMBER' }, ['/body/validation/maxLength']],
    ['SELECT → TEXT keeps its options', select, { fieldType: 'TEXT' }, ['/body/options']],
    ['SELECT loses its options', select, { options: [] }, ['/body/options']],
    ['CUSTOM → PROFILE without profileField', current, { source: 'PROFILE_FIELD' }, ['/body/profileField']],
    ['PROFILE → CUSTOM keeping profileField', bound, { source: 'CUSTOM_FIELD' }, ['/body/profileField']],
    ['profileField on a CUSTOM field', current, { profileField: 'firstName' }, ['/body/profileField']],
    ['clearing profileField of a PROFILE field', bound, { profileField: null }, ['/body/profileField']],
    ['rebinding to a property of another type', bound, { profileField: 'country' }, ['/body/profileField']],
    ['retyping a bound field', bound, { fieldType: 'TEXT' }, ['/body/fieldType']],
    ['binding a TEXT with maxLength over the property limit', { ...current, validation: { maxLength: 150 } }, { source: 'PROFILE_FIELD', profileField: 'firstName' }, ['/body/validation/maxLength']],
    ['minLength above the stored maxLength', current, { validation: { minLength: 60, maxLength: 50 } }, ['/body/validation/minLength']],
    ['min on TEXT', current, { validation: { min: 1 } }, ['/body/validation/min']],
    ['fieldKey', current, { fieldKey: 'other' }, ['/body/fieldKey']],
    ['fieldKey even unchanged', current, { fieldKey: 'company', label: 'X' }, ['/body/fieldKey']],
    ['an unknown property', current, { archived: true }, ['/body/archived']],
    ['an empty patch', current, {}, ['/body']],
    ['null options', select, { options: null }, ['/body/options']],
    ['null required', current, { required: null }, ['/body/required']],
    ['an invalid label', current, { label: '' }, ['/body/label']],
    ['an invalid fieldType (its cross rules skipped)', current, { fieldType: 'COLOR' }, ['/body/fieldType']],
    ['an invalid width', current, { uiConfig: { width: 'x' } }, ['/body/uiConfig/width']],
    ['a duplicate option', select, { options: [...OPTIONS, OPTIONS[0]] }, ['/body/options/2/value']],
  ])('refuses %s', (_name, settings, patch, pointers) => {
    expect(pointersOf(() => validateFieldPatch(settings, patch)).sort()).toEqual(pointers.sort());
  });

  it.each([null, [], 'label', 1])('refuses a patch that is not an object: %j', (patch) => {
    expect(pointersOf(() => validateFieldPatch(current, patch))).toEqual(['/body']);
  });

  it('does not modify current', () => {
    const before = structuredClone(current);
    validateFieldPatch(current, { options: [], validation: { maxLength: 10 }, uiConfig: {} });
    expect(current).toEqual(before);
  });
});

describe('valueRulesFor', () => {
  it('a custom field: its own rules', () => {
    expect(valueRulesFor(current)).toEqual({ fieldType: 'TEXT', options: [], validation: { maxLength: 50 } });
  });

  it('a profile-bound name: the property limit applies even when the definition sets none', () => {
    const created = validateFieldCreate({ ...base, source: 'PROFILE_FIELD', profileField: 'firstName' });
    expect(valueRulesFor(created).validation).toEqual({ maxLength: 100 });
    expect(valueRulesFor({ ...created, validation: { minLength: 2, maxLength: 40 } }).validation).toEqual({ minLength: 2, maxLength: 40 });
  });

  it('a select: its options', () => {
    expect(valueRulesFor(select).options).toEqual(OPTIONS);
  });
});
