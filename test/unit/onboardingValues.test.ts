import { describe, expect, it } from 'vitest';
import {
  checkFieldValue,
  emptyValueOf,
  FIELD_TYPES,
  isEmptyValue,
  type FieldErrorReason,
  type FieldType,
  type StoredValue,
  type ValueRules,
} from '../../src/services/onboarding/values.ts';
import { PROFILE_FIELDS, PROFILE_FIELD_TYPES, profileValueRules } from '../../src/services/onboarding/profileFields.ts';

const OPTIONS = [
  { value: 'red', label: 'Red' },
  { value: 'green', label: 'Green' },
  { value: 'blue', label: 'Blue' },
  { value: 'Blue', label: 'Blue (capital)' },
];

const rules = (fieldType: FieldType, validation: ValueRules['validation'] = {}): ValueRules => ({
  fieldType,
  options: fieldType === 'SELECT' || fieldType === 'MULTI_SELECT' ? OPTIONS : [],
  validation,
});

type Accepted = [input: unknown, stored: StoredValue, validation?: ValueRules['validation']];
type Refused = [input: unknown, reason: FieldErrorReason, validation?: ValueRules['validation']];

function table(fieldType: FieldType, accepted: Accepted[], refused: Refused[]) {
  describe(fieldType, () => {
    it.each(accepted.map(([input, stored, validation]) => ({ input, stored, validation })))('accepts $input as $stored', ({ input, stored, validation }) => {
      expect(checkFieldValue(rules(fieldType, validation), input)).toEqual({ ok: true, value: stored });
    });
    it.each(refused.map(([input, reason, validation]) => ({ input, reason, validation })))('refuses $input: $reason', ({ input, reason, validation }) => {
      const result = checkFieldValue(rules(fieldType, validation), input);
      expect(result).toMatchObject({ ok: false, reason });
      if (!result.ok) {
        expect(result.message.length).toBeGreaterThan(0);
        // Values can be personal data: the message never repeats them.
        if (typeof input === 'string' && input.trim().length > 5) expect(result.message).not.toContain(input.trim());
      }
    });
  });
}

const long = (length: number, unit = 'a') => unit.repeat(length);

table(
  'TEXT',
  [
    ['Ada', 'Ada'],
    ['  Ada Lovelace  ', 'Ada Lovelace'], // outer white space trimmed
    ['a\tb', 'a\tb'], // a tab is kept
    ['Zoë 😀', 'Zoë 😀'],
    ['', null], // empty string is the empty value
    ['   ', null],
    [null, null],
    [undefined, null],
    [long(10_000), long(10_000)], // the contract's limit
    ['abc', 'abc', { minLength: 3, maxLength: 3 }],
    ['  abc  ', 'abc', { maxLength: 3 }], // length after trimming
    ['😀😀😀', '😀😀😀', { maxLength: 3 }], // code points, not UTF-16 units
    ['', null, { minLength: 5 }], // minLength does not apply to an empty value
    ['a\u0301', 'a\u0301'], // no Unicode normalisation
  ],
  [
    [5, 'WRONG_TYPE'],
    [true, 'WRONG_TYPE'],
    [['a'], 'WRONG_TYPE'],
    [{ a: 1 }, 'WRONG_TYPE'],
    ['line 1\nline 2', 'WRONG_TYPE'], // single-line text
    ['line 1\r\nline 2', 'WRONG_TYPE'],
    ['line 1\u2028line 2', 'WRONG_TYPE'],
    ['nul\u0000byte', 'WRONG_TYPE'],
    ['bell\u0007', 'WRONG_TYPE'],
    ['c1\u0085', 'WRONG_TYPE'],
    ['lone \ud800 surrogate', 'WRONG_TYPE'],
    [long(10_001), 'TOO_LONG'],
    ['abcd', 'TOO_LONG', { maxLength: 3 }],
    ['😀😀😀😀', 'TOO_LONG', { maxLength: 3 }],
    ['ab', 'TOO_SHORT', { minLength: 3 }],
    ['  ab  ', 'TOO_SHORT', { minLength: 3 }],
  ],
);

table(
  'TEXTAREA',
  [
    ['line 1\nline 2', 'line 1\nline 2'],
    ['line 1\r\nline 2\rline 3', 'line 1\nline 2\nline 3'], // CRLF and CR become LF
    ['\n  indented\n\n', 'indented'],
    ['a\tb', 'a\tb'],
    ['ab\r\ncd', 'ab\ncd', { maxLength: 5 }], // a line break is one character
    ['', null],
    [null, null],
  ],
  [
    [42, 'WRONG_TYPE'],
    ['nul\u0000', 'WRONG_TYPE'],
    ['escape\u001b[31m', 'WRONG_TYPE'],
    ['ab\r\ncde', 'TOO_LONG', { maxLength: 5 }],
    ['a', 'TOO_SHORT', { minLength: 2 }],
    ['x' + long(9_999, '\n') + 'x', 'TOO_LONG'], // 10001 characters
  ],
);

table(
  'NUMBER',
  [
    [0, 0],
    [-0, 0],
    [42, 42],
    [-1.5, -1.5],
    [1e308, 1e308],
    [5, 5, { min: 5, max: 5 }],
    [0.1, 0.1, { min: 0, max: 1 }],
    [null, null],
  ],
  [
    ['5', 'WRONG_TYPE'],
    ['', 'WRONG_TYPE'],
    [true, 'WRONG_TYPE'],
    [[1], 'WRONG_TYPE'],
    [Number.NaN, 'WRONG_TYPE'],
    [Number.POSITIVE_INFINITY, 'WRONG_TYPE'],
    [JSON.parse('1e400') as number, 'WRONG_TYPE'], // JSON.parse gives Infinity
    [Number.NEGATIVE_INFINITY, 'WRONG_TYPE'],
    [4.999, 'BELOW_MIN', { min: 5 }],
    [5.001, 'ABOVE_MAX', { max: 5 }],
    [-1, 'BELOW_MIN', { min: 0, max: 10 }],
  ],
);

table(
  'BOOLEAN',
  [
    [true, true],
    [false, false], // a value, not the empty value
    [null, null],
  ],
  [
    [1, 'WRONG_TYPE'],
    [0, 'WRONG_TYPE'],
    ['true', 'WRONG_TYPE'],
    ['', 'WRONG_TYPE'],
    [[], 'WRONG_TYPE'],
  ],
);

table(
  'DATE',
  [
    ['2024-02-29', '2024-02-29'],
    ['2000-02-29', '2000-02-29'], // divisible by 400
    ['1999-12-31', '1999-12-31'],
    ['0001-01-01', '0001-01-01'],
    ['9999-12-31', '9999-12-31'],
    ['2023-04-30', '2023-04-30'],
    ['', null],
    [null, null],
  ],
  [
    [20240101, 'WRONG_TYPE'],
    [true, 'WRONG_TYPE'],
    ['1900-02-29', 'INVALID_DATE'], // divisible by 100, not 400
    ['2023-02-29', 'INVALID_DATE'],
    ['2023-04-31', 'INVALID_DATE'],
    ['2023-13-01', 'INVALID_DATE'],
    ['2023-00-10', 'INVALID_DATE'],
    ['2023-01-00', 'INVALID_DATE'],
    ['2023-01-32', 'INVALID_DATE'],
    ['0000-01-01', 'INVALID_DATE'], // HTML and PostgreSQL have no year 0
    ['2023-1-01', 'INVALID_DATE'],
    ['23-01-01', 'INVALID_DATE'],
    ['12023-01-01', 'INVALID_DATE'],
    ['2023/01/01', 'INVALID_DATE'],
    ['2023-01-01T00:00:00Z', 'INVALID_DATE'],
    [' 2023-01-01', 'INVALID_DATE'], // picker values are exact
    ['2023-01-01\n', 'INVALID_DATE'],
    ['٢٠٢٣-٠١-٠١', 'INVALID_DATE'], // non-ASCII digits
  ],
);

table(
  'SELECT',
  [
    ['red', 'red'],
    ['Blue', 'Blue'],
    ['blue', 'blue'],
    ['', null],
    [null, null],
  ],
  [
    [['red'], 'WRONG_TYPE'],
    [1, 'WRONG_TYPE'],
    ['purple', 'NOT_AN_OPTION'],
    ['RED', 'NOT_AN_OPTION'], // exact string
    [' red', 'NOT_AN_OPTION'],
    ['Red', 'NOT_AN_OPTION'], // a label is not a value
  ],
);

table(
  'MULTI_SELECT',
  [
    [[], []],
    [null, []], // null clears: stored as []
    [['red'], ['red']],
    [['blue', 'red'], ['red', 'blue']], // stored in option order
    [['Blue', 'blue', 'green', 'red'], ['red', 'green', 'blue', 'Blue']],
  ],
  [
    ['red', 'WRONG_TYPE'],
    ['', 'WRONG_TYPE'],
    [{}, 'WRONG_TYPE'],
    [[1], 'WRONG_TYPE'],
    [['red', null], 'WRONG_TYPE'],
    [['purple'], 'NOT_AN_OPTION'],
    [[''], 'NOT_AN_OPTION'],
    [['red', 'red'], 'DUPLICATE_OPTION'],
    [['red', 'blue', 'red'], 'DUPLICATE_OPTION'],
  ],
);

describe('MULTI_SELECT points at the offending entry', () => {
  it.each([
    [['red', 'red'], '/1'],
    [['red', 'nope'], '/1'],
    [[7], '/0'],
  ])('%j at %s', (input, at) => {
    expect(checkFieldValue(rules('MULTI_SELECT'), input)).toMatchObject({ ok: false, at });
  });
});

table(
  'COUNTRY',
  [
    ['GB', 'GB'],
    ['DE', 'DE'],
    ['US', 'US'],
    ['AQ', 'AQ'], // assigned (Antarctica), whatever its status
    ['', null],
    [null, null],
  ],
  [
    [826, 'WRONG_TYPE'],
    ['gb', 'INVALID_COUNTRY'],
    ['Gb', 'INVALID_COUNTRY'],
    ['GBR', 'INVALID_COUNTRY'],
    ['826', 'INVALID_COUNTRY'],
    ['XX', 'INVALID_COUNTRY'],
    ['XK', 'INVALID_COUNTRY'], // user-assigned, not ISO-assigned
    ['ZZ', 'INVALID_COUNTRY'],
    ['AA', 'INVALID_COUNTRY'],
    ['QZ', 'INVALID_COUNTRY'],
    ['UK', 'INVALID_COUNTRY'], // exceptionally reserved, not assigned
    ['EU', 'INVALID_COUNTRY'],
    [' GB', 'INVALID_COUNTRY'],
    ['G', 'INVALID_COUNTRY'],
  ],
);

table(
  'PHONE',
  [
    ['+44 20 7183 8750', '+442071838750'],
    ['+442071838750', '+442071838750'],
    ['  +44 20 7183 8750  ', '+442071838750'],
    ['+44 (0) 20 7183 8750', '+442071838750'],
    ['+44-20-7183-8750', '+442071838750'],
    ['+44.20.7183.8750', '+442071838750'],
    ['+1 (201) 555-0123', '+12015550123'],
    ['+49 30 901820', '+4930901820'],
    ['+447911123456', '+447911123456'],
    ['', null],
    [null, null],
  ],
  [
    [442071838750, 'WRONG_TYPE'],
    [['+442071838750'], 'WRONG_TYPE'],
    ['+1234', 'INVALID_PHONE'],
    ['+', 'INVALID_PHONE'],
    ['(', 'INVALID_PHONE'],
    ['+(', 'INVALID_PHONE'],
    ['+44 (20 7183 8750', 'INVALID_PHONE'], // unbalanced parenthesis
    ['+44 20) 7183 8750', 'INVALID_PHONE'],
    ['+44 ((20)) 7183 8750', 'INVALID_PHONE'], // nested
    ['020 7183 8750', 'INVALID_PHONE'], // no +: no country is guessed
    ['00442071838750', 'INVALID_PHONE'],
    ['+44 20 7183 875O', 'INVALID_PHONE'], // a letter O
    ['+1 800 FLOWERS', 'INVALID_PHONE'],
    ['+44 20 7183 8750 ext. 12', 'INVALID_PHONE'],
    ['+442071838750x12', 'INVALID_PHONE'],
    ['+44 20 7183 8750;ext=1', 'INVALID_PHONE'],
    ['+44/20/7183/8750', 'INVALID_PHONE'],
    ['tel:+442071838750', 'INVALID_PHONE'],
    ['+４４２０７１８３８７５０', 'INVALID_PHONE'], // full-width digits
    ['+4420718387501', 'INVALID_PHONE'], // one digit too many
    ['+44 20 7183 8750\n+44 20 7183 8751', 'INVALID_PHONE'],
    [`+44 20 7183 8750${' '.repeat(60)}1`, 'INVALID_PHONE'],
  ],
);

table(
  'EMAIL',
  [
    ['a@b.c', 'a@b.c'],
    ['ada@example.com', 'ada@example.com'],
    ['Ada.Lovelace+tag@Example.COM', 'Ada.Lovelace+tag@example.com'], // domain in lower case, local part kept
    ['  ada@example.com ', 'ada@example.com'],
    ["o'brien!#$%&*/=?^_`{|}~-@mail.example.org", "o'brien!#$%&*/=?^_`{|}~-@mail.example.org"],
    ['a@xn--bcher-kva.example', 'a@xn--bcher-kva.example'],
    ['a@127.0.0.1', 'a@127.0.0.1'], // HTML's production accepts it
    [`${long(64)}@example.com`, `${long(64)}@example.com`],
    [`a@${long(63)}.${long(63)}.${long(63)}.${long(60)}`, `a@${long(63)}.${long(63)}.${long(63)}.${long(60)}`], // 254
    ['a@b.co', 'a@b.co', { minLength: 6, maxLength: 6 }],
    ['', null],
    [null, null],
  ],
  [
    [42, 'WRONG_TYPE'],
    ['a@b', 'INVALID_EMAIL'], // no dot in the domain
    ['ada', 'INVALID_EMAIL'],
    ['@example.com', 'INVALID_EMAIL'],
    ['ada@', 'INVALID_EMAIL'],
    ['ada@@example.com', 'INVALID_EMAIL'],
    ['a b@example.com', 'INVALID_EMAIL'],
    ['"a b"@example.com', 'INVALID_EMAIL'],
    ['ada@-example.com', 'INVALID_EMAIL'],
    ['ada@example-.com', 'INVALID_EMAIL'],
    ['ada@example..com', 'INVALID_EMAIL'],
    ['ada@.example.com', 'INVALID_EMAIL'],
    ['ada@example.com.', 'INVALID_EMAIL'],
    ['ada@[127.0.0.1]', 'INVALID_EMAIL'],
    ['zoë@example.com', 'INVALID_EMAIL'], // Unicode local part: ASCII only, as HTML
    ['用户@例子.广告', 'INVALID_EMAIL'],
    ['ada@bücher.example', 'INVALID_EMAIL'], // send punycode
    [`${long(65)}@example.com`, 'INVALID_EMAIL'],
    [`a@${long(64)}.com`, 'INVALID_EMAIL'], // label over 63
    [`a@${long(63)}.${long(63)}.${long(63)}.${long(61)}`, 'TOO_LONG'], // 255
    ['ada@example.com\nbcc: x@y.z', 'INVALID_EMAIL'],
    ['a@b.cd', 'TOO_LONG', { maxLength: 5 }],
    ['a@b.cd', 'TOO_SHORT', { minLength: 7 }],
  ],
);

table(
  'URL',
  [
    ['https://example.com', 'https://example.com/'],
    ['http://example.com/a/b?c=d#e', 'http://example.com/a/b?c=d#e'],
    ['HTTPS://EXAMPLE.com:443/Path', 'https://example.com/Path'],
    ['  https://example.com/x  ', 'https://example.com/x'],
    ['https://bücher.example/', 'https://xn--bcher-kva.example/'],
    ['https://example.com/caf\u00e9', 'https://example.com/caf%C3%A9'],
    ['http://localhost:8080', 'http://localhost:8080/'],
    ['https://[::1]/', 'https://[::1]/'],
    [`https://example.com/${long(2028)}`, `https://example.com/${long(2028)}`], // 2048
    ['https://a.io', 'https://a.io/', { maxLength: 13 }], // measured on the stored form
    ['', null],
    [null, null],
  ],
  [
    [42, 'WRONG_TYPE'],
    ['javascript:alert(1)', 'INVALID_URL'],
    ['JavaScript:alert(1)', 'INVALID_URL'],
    ['java\tscript:alert(1)', 'INVALID_URL'],
    ['data:text/html,hi', 'INVALID_URL'],
    ['mailto:ada@example.com', 'INVALID_URL'],
    ['ftp://example.com/', 'INVALID_URL'],
    ['http://', 'INVALID_URL'],
    ['https://', 'INVALID_URL'],
    ['https:example.com', 'INVALID_URL'],
    ['https:/example.com', 'INVALID_URL'],
    ['https:///example.com', 'INVALID_URL'],
    ['//example.com/x', 'INVALID_URL'],
    ['/relative/path', 'INVALID_URL'],
    ['example.com', 'INVALID_URL'],
    ['https://user:pass@example.com/', 'INVALID_URL'],
    ['https://bank.example@evil.example/', 'INVALID_URL'],
    ['https://@example.com/', 'INVALID_URL'],
    ['https://exa mple.com/', 'INVALID_URL'],
    ['https://example.com/a b', 'INVALID_URL'],
    ['https://example.com\\@evil.example/', 'INVALID_URL'],
    ['https://exa\u200bmple.com/', 'INVALID_URL'],
    ['https://example.com:99999/', 'INVALID_URL'],
    ['https://exa%mple.com/', 'INVALID_URL'],
    [`https://example.com/${long(2029)}`, 'TOO_LONG'],
    [`https://example.com/${long(1000, 'é')}${long(1000)}`, 'TOO_LONG'], // percent-encoded form over 2048
    ['https://a.io', 'TOO_LONG', { maxLength: 12 }], // stored form is https://a.io/
    ['https://a.io/', 'TOO_SHORT', { minLength: 14 }],
  ],
);

describe('empty values', () => {
  it.each(FIELD_TYPES)('%s: null is accepted and stored as the empty value of the type', (fieldType) => {
    expect(checkFieldValue(rules(fieldType), null)).toEqual({ ok: true, value: emptyValueOf(fieldType) });
  });

  it('the empty value is [] for MULTI_SELECT and null otherwise', () => {
    for (const fieldType of FIELD_TYPES) expect(emptyValueOf(fieldType)).toEqual(fieldType === 'MULTI_SELECT' ? [] : null);
  });

  it.each([
    [null, true],
    [undefined, true],
    ['', true],
    ['  \n\t', true],
    [[], true],
    ['a', false],
    [false, false],
    [0, false],
    [['a'], false],
  ])('isEmptyValue(%j) is %s', (value, empty) => {
    expect(isEmptyValue(value)).toBe(empty);
  });

  it('every accepted value but the empty one is not empty', () => {
    const samples: [FieldType, unknown][] = [
      ['TEXT', 'x'],
      ['NUMBER', 0],
      ['BOOLEAN', false],
      ['DATE', '2024-01-01'],
      ['SELECT', 'red'],
      ['MULTI_SELECT', ['red']],
      ['COUNTRY', 'GB'],
      ['PHONE', '+442071838750'],
      ['EMAIL', 'a@b.c'],
      ['URL', 'https://a.io'],
    ];
    for (const [fieldType, value] of samples) {
      const result = checkFieldValue(rules(fieldType), value);
      expect(result.ok && !isEmptyValue(result.value)).toBe(true);
    }
  });
});

describe('profile values share the field-type rules', () => {
  it('each profile property takes a field type of its own', () => {
    for (const name of PROFILE_FIELDS) expect(profileValueRules(name).fieldType).toBe(PROFILE_FIELD_TYPES[name][0]);
  });

  it.each([
    ['firstName', 'x'.repeat(100), true],
    ['firstName', 'x'.repeat(101), false],
    ['lastName', 'x'.repeat(101), false],
    ['displayName', 'x'.repeat(200), true],
    ['displayName', 'x'.repeat(201), false],
    ['firstName', 'Ada\nLovelace', false],
    ['phone', '+44 20 7183 8750', true],
    ['phone', '+1234', false],
    ['country', 'XK', false],
    ['country', 'GB', true],
    ['dateOfBirth', '1900-02-29', false],
    ['dateOfBirth', '2000-02-29', true],
  ] as const)('%s: %j → ok %s', (name, value, ok) => {
    expect(checkFieldValue(profileValueRules(name), value).ok).toBe(ok);
  });

  it('a bound definition is tightened by the property limit, never loosened', () => {
    expect(profileValueRules('firstName', { fieldType: 'TEXT', options: [], validation: { minLength: 2 } }).validation).toEqual({ minLength: 2, maxLength: 100 });
    expect(profileValueRules('firstName', { fieldType: 'TEXT', options: [], validation: { maxLength: 50 } }).validation).toEqual({ maxLength: 50 });
    expect(profileValueRules('phone', { fieldType: 'PHONE', options: [], validation: {} }).validation).toEqual({});
  });

  it('stores the E.164 form the profile column accepts', () => {
    expect(checkFieldValue(profileValueRules('phone'), '+44 20 7183 8750')).toEqual({ ok: true, value: '+442071838750' });
  });
});
