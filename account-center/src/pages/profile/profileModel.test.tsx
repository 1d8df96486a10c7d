import { describe, expect, it } from 'vitest';
import { englishIntl, intlFor } from '../../i18n/useIntl.ts';
import { avatarFileProblem, changesBetween, initialsOf, retryAfterSeconds, type ProfileValues } from './profileModel.ts';

const values: ProfileValues = { firstName: 'Alice', lastName: null, displayName: 'Alice', dateOfBirth: null, phone: null, country: 'GB', locale: null };

describe('profile model', () => {
  it('changesBetween: only what changed; an emptied (or blank) value clears', () => {
    expect(changesBetween(values, values)).toEqual({});
    expect(changesBetween(values, { ...values, firstName: '  ', lastName: 'L', country: null })).toEqual({ firstName: null, lastName: 'L', country: null });
    expect(changesBetween(values, { ...values, lastName: '' })).toEqual({});
  });

  it('retryAfterSeconds: seconds, an HTTP date, else the detail, else unknown', () => {
    expect(retryAfterSeconds('42', undefined)).toBe(42);
    expect(retryAfterSeconds('0', undefined)).toBe(1);
    expect(retryAfterSeconds(new Date(10_000 + 30_000).toUTCString(), undefined, 10_000)).toBe(30);
    expect(retryAfterSeconds(null, 'Too many password change attempts. Try again in 9 seconds.')).toBe(9);
    expect(retryAfterSeconds(null, 'Too many.')).toBeNull();
  });

  it('initialsOf: names, else the display name, else the e-mail', () => {
    expect(initialsOf({ firstName: 'ada', lastName: 'Lovelace', displayName: null, email: null })).toBe('AL');
    expect(initialsOf({ firstName: null, lastName: null, displayName: 'Grace Brewster Hopper', email: null })).toBe('GH');
    expect(initialsOf({ firstName: null, lastName: null, displayName: null, email: 'x@example.com' })).toBe('X');
    expect(initialsOf({ firstName: null, lastName: null, displayName: null, email: null })).toBe('?');
  });

  it('avatarFileProblem: PNG, JPEG and WebP up to 5 MiB, not empty', () => {
    expect(avatarFileProblem(englishIntl(), { name: 'a.jpg', type: 'image/jpeg', size: 5 * 1024 * 1024 })).toBeNull();
    expect(avatarFileProblem(englishIntl(), { name: 'a.webp', type: 'image/webp', size: 1 })).toBeNull();
    expect(avatarFileProblem(englishIntl(), { name: 'a.svg', type: 'image/svg+xml', size: 10 })).toMatch(/not a PNG, JPEG or WebP/);
    expect(avatarFileProblem(englishIntl(), { name: 'a.png', type: 'image/png', size: 0 })).toMatch(/empty/);
    expect(avatarFileProblem(englishIntl(), { name: 'a.png', type: 'image/png', size: 5 * 1024 * 1024 + 1 })).toMatch(/at most 5 MB/);
    // the size in the page's language: a decimal comma in German
    expect(avatarFileProblem(intlFor({ language: 'de', locale: 'de' }), { name: 'a.png', type: 'image/png', size: 6 * 1024 * 1024 + 300 * 1024 })).toBe(
      '„a.png“ ist 6,3 MB groß; ein Bild darf höchstens 5 MB groß sein. Wählen Sie ein kleineres Bild.',
    );
  });
});
