import { describe, expect, it } from 'vitest';
import { chooseLanguage, supportedLanguage } from './languages.ts';

describe('chooseLanguage', () => {
  it("takes the profile's language first, keeping its regional formats", () => {
    expect(chooseLanguage({ profile: 'de-AT', remembered: 'en', browser: ['en-US'] })).toEqual({ language: 'de', locale: 'de-AT' });
  });

  it('takes a language picked in this browser next, then the browser languages in order of preference', () => {
    expect(chooseLanguage({ profile: null, remembered: 'de', browser: ['en-US'] })).toEqual({ language: 'de', locale: 'de' });
    expect(chooseLanguage({ profile: null, remembered: null, browser: ['fr-FR', 'de-CH', 'en'] })).toEqual({ language: 'de', locale: 'de-CH' });
  });

  it('passes over a profile language the account center does not speak', () => {
    expect(chooseLanguage({ profile: 'nl-NL', browser: ['de-DE'] })).toEqual({ language: 'de', locale: 'de-DE' });
  });

  it('falls back to English when nothing names a language it speaks', () => {
    expect(chooseLanguage({ profile: 'fr', browser: ['it-IT'] })).toEqual({ language: 'en', locale: 'en' });
    expect(chooseLanguage({})).toEqual({ language: 'en', locale: 'en' });
  });

  it("takes the platform's default language after the person's sources, before English", () => {
    expect(chooseLanguage({ profile: null, browser: ['fr-FR', 'it'], platformDefault: 'de-AT' })).toEqual({ language: 'de', locale: 'de-AT' });
    expect(chooseLanguage({ platformDefault: 'de' })).toEqual({ language: 'de', locale: 'de' });
    // A language the person's profile, this browser's pick or its preferences name wins.
    expect(chooseLanguage({ profile: 'en-GB', platformDefault: 'de' })).toEqual({ language: 'en', locale: 'en-GB' });
    expect(chooseLanguage({ remembered: 'en', platformDefault: 'de' })).toEqual({ language: 'en', locale: 'en' });
    expect(chooseLanguage({ browser: ['fr', 'en-US'], platformDefault: 'de' })).toEqual({ language: 'en', locale: 'en-US' });
    // A platform default the account center does not speak leaves English.
    expect(chooseLanguage({ browser: ['fr'], platformDefault: 'pt-BR' })).toEqual({ language: 'en', locale: 'en' });
  });

  it('reads tags case-insensitively, with underscores, and ignores tags Intl refuses for formatting', () => {
    expect(supportedLanguage('DE_de')).toBe('de');
    expect(supportedLanguage('')).toBeUndefined();
    expect(chooseLanguage({ profile: 'de-x' })).toEqual({ language: 'de', locale: 'de' });
  });
});
