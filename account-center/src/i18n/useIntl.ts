import { useContext } from 'react';
import { createIntl, IntlContext, type IntlShape } from 'react-intl';
import { messagesFor } from './catalogues.ts';
import { DEFAULT_LANGUAGE, type LanguageChoice } from './languages.ts';

let english: IntlShape | undefined;

/** The account center's English formatter, for code that runs outside the provider (boot errors, a bare component test). */
export function englishIntl(): IntlShape {
  english ??= createIntl({ locale: DEFAULT_LANGUAGE, defaultLocale: DEFAULT_LANGUAGE, messages: messagesFor(DEFAULT_LANGUAGE) });
  return english;
}

/** A formatter for a choice, for code outside React's tree (the boot error). */
export function intlFor({ language, locale }: LanguageChoice): IntlShape {
  return createIntl({ locale, defaultLocale: DEFAULT_LANGUAGE, messages: messagesFor(language) });
}

/**
 * react-intl's useIntl, but in English (the source language) where no LanguageProvider is
 * above: a shared component rendered on its own (a component test that does not go through
 * renderWithIntl) still says something sensible instead of throwing.
 */
export function useIntl(): IntlShape {
  return useContext(IntlContext) ?? englishIntl();
}
