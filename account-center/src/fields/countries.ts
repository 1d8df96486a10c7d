import countries from 'i18n-iso-countries';
import english from 'i18n-iso-countries/langs/en.json';

countries.registerLocale(english);

/**
 * The countries a COUNTRY value may name, by English name: the same list the gateway checks
 * against (ISO 3166-1 alpha-2 from i18n-iso-countries, without the user-assigned XK).
 */
export const COUNTRIES: readonly { code: string; name: string }[] = Object.entries(countries.getNames('en', { select: 'official' }))
  .filter(([code]) => code !== 'XK')
  .map(([code, name]) => ({ code, name }))
  .sort((a, b) => a.name.localeCompare(b.name, 'en'));

const BY_CODE = new Map(COUNTRIES.map((country) => [country.code, country.name]));
const BY_NAME = new Map(COUNTRIES.map((country) => [country.name.toLocaleLowerCase('en'), country.code]));

export function countryName(code: string | null | undefined): string {
  return code ? (BY_CODE.get(code) ?? code) : '';
}

/** The code of a typed name (case-insensitive), or of a typed code; null when neither. */
export function countryCode(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  return BY_NAME.get(trimmed.toLocaleLowerCase('en')) ?? (BY_CODE.has(trimmed.toUpperCase()) ? trimmed.toUpperCase() : null);
}
