import countries from 'i18n-iso-countries';
import english from 'i18n-iso-countries/langs/en.json';
import german from 'i18n-iso-countries/langs/de.json';
import type { Language } from '../i18n/languages.ts';

countries.registerLocale(english);
countries.registerLocale(german);

export interface Country {
  code: string;
  name: string;
}

/**
 * The countries a COUNTRY value may name, by their names in one language, sorted for that
 * language: the same list the gateway checks against (ISO 3166-1 alpha-2 from
 * i18n-iso-countries, without the user-assigned XK).
 */
function listIn(language: Language): readonly Country[] {
  return Object.entries(countries.getNames(language, { select: 'official' }))
    .filter(([code]) => code !== 'XK')
    .map(([code, name]) => ({ code, name }))
    .sort((a, b) => a.name.localeCompare(b.name, language));
}

const LISTS = new Map<Language, { list: readonly Country[]; byCode: Map<string, string>; byName: Map<string, string> }>();

function tables(language: Language) {
  let found = LISTS.get(language);
  if (!found) {
    const list = listIn(language);
    found = {
      list,
      byCode: new Map(list.map((country) => [country.code, country.name])),
      byName: new Map(list.map((country) => [country.name.toLocaleLowerCase(language), country.code])),
    };
    LISTS.set(language, found);
  }
  return found;
}

/** The countries by name in `language`. */
export function countriesIn(language: Language = 'en'): readonly Country[] {
  return tables(language).list;
}

/** English, sorted: what the account center showed before it spoke other languages. */
export const COUNTRIES: readonly Country[] = countriesIn('en');

export function countryName(code: string | null | undefined, language: Language = 'en'): string {
  return code ? (tables(language).byCode.get(code) ?? code) : '';
}

/**
 * The code of a typed name (case-insensitive) in `language`, or in English (a name typed before
 * a switch, or from habit), or of a typed code; null when none.
 */
export function countryCode(text: string, language: Language = 'en'): string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const own = tables(language).byName.get(trimmed.toLocaleLowerCase(language));
  if (own) return own;
  const inEnglish = tables('en').byName.get(trimmed.toLocaleLowerCase('en'));
  if (inEnglish) return inEnglish;
  return tables('en').byCode.has(trimmed.toUpperCase()) ? trimmed.toUpperCase() : null;
}
