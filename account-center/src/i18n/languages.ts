/**
 * The languages the account center speaks, and how it picks one for a person.
 *
 * Order (issue 27): the person's profile language, else a language chosen here before signing
 * in (remembered in this browser), else the browser's preferences (`navigator.languages`, what
 * it sends as Accept-Language), else the default language of the platform the page is about
 * (`platformDefault`, a page that knows its platform), else the account center's own: English,
 * the language the catalogues are written in.
 */
export const LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The catalogues' source language, and the last resort. */
export const DEFAULT_LANGUAGE: Language = 'en';

/** Each language's name in itself, for the switcher (a German reader looks for "Deutsch"). */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', de: 'Deutsch' };

/** The supported language of a BCP 47 tag by its primary subtag (`de-AT` → `de`), or undefined. */
export function supportedLanguage(tag: string | null | undefined): Language | undefined {
  if (!tag) return undefined;
  const primary = tag.trim().split(/[-_]/)[0]?.toLowerCase();
  return LANGUAGES.find((language) => language === primary);
}

export interface LanguageChoice {
  /** The catalogue the messages come from. */
  language: Language;
  /**
   * The tag dates and numbers are formatted for: the person's own tag when it names the chosen
   * language (`de-AT` keeps Austrian formats), else the bare language.
   */
  locale: string;
}

export interface LanguageSources {
  /** The profile's `locale` (null when not set or not signed in). */
  profile?: string | null;
  /** A language picked in the switcher while signed out, remembered in this browser. */
  remembered?: string | null;
  /** The browser's preferences, most wanted first (`navigator.languages`). */
  browser?: readonly string[];
  /** The default language of the platform the page is about (`Platform.defaultLanguage`), if any. */
  platformDefault?: string | null;
}

export function chooseLanguage({ profile, remembered, browser = [], platformDefault }: LanguageSources): LanguageChoice {
  for (const tag of [profile, remembered, ...browser, platformDefault]) {
    const language = supportedLanguage(tag);
    if (language) return { language, locale: canonicalTag(tag!) ?? language };
  }
  return { language: DEFAULT_LANGUAGE, locale: DEFAULT_LANGUAGE };
}

/** The tag in canonical form, or null when Intl does not accept it. */
function canonicalTag(tag: string): string | null {
  try {
    return Intl.getCanonicalLocales(tag.trim())[0] ?? null;
  } catch {
    return null;
  }
}
