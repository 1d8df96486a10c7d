// The languages of the gateway's own HTML pages (error pages, the sign-out confirmation): the
// request's Accept-Language (RFC 9110 §12.5.4, weighed by express's negotiator); when it names
// none of them, the platform's default language (a login's pages), else English. Messages are ICU MessageFormat from src/web/messages/<language>/<area>.json
// (the account center's catalogue shape), formatted by FormatJS's createIntl. No database, no
// I/O: the catalogues are read once at import.
import { createIntl, createIntlCache, type IntlShape } from '@formatjs/intl';
import type { Request } from 'express';
import { PAGE_CATALOGUES } from './messages/index.ts';

export const PAGE_LANGUAGES = ['en', 'de'] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];
export const DEFAULT_PAGE_LANGUAGE: PageLanguage = 'en';

const cache = createIntlCache();
const intls = new Map<PageLanguage, IntlShape>();

/** The formatter of one language; a key missing in it shows the English text (the completeness test keeps that out). */
export function pageIntl(language: PageLanguage): IntlShape {
  let intl = intls.get(language);
  if (!intl) {
    const messages = { ...merged(DEFAULT_PAGE_LANGUAGE), ...merged(language) };
    intl = createIntl({ locale: language, defaultLocale: DEFAULT_PAGE_LANGUAGE, messages }, cache);
    intls.set(language, intl);
  }
  return intl;
}

/**
 * The page language of a request: the first of its Accept-Language spoken here; when it names
 * none (or is absent), the default language of the platform the page is about (issue 27,
 * `de-AT` → German), else English. The platform default comes from the registry row the
 * request already read (the error's way back), never from a query of its own.
 */
export function pageLanguageOf(req: Pick<Request, 'acceptsLanguages' | 'headers'>, platformDefault?: string | null): PageLanguage {
  // Without the header, express's negotiator would answer the first language on offer.
  const accepted = req.headers['accept-language'] ? req.acceptsLanguages([...PAGE_LANGUAGES]) : false;
  const spoken = PAGE_LANGUAGES.find((language) => language === accepted);
  if (spoken) return spoken;
  const primary = platformDefault?.split('-')[0]?.toLowerCase();
  return PAGE_LANGUAGES.find((language) => language === primary) ?? DEFAULT_PAGE_LANGUAGE;
}

/** The formatter for a request's language. */
export function requestIntl(req: Pick<Request, 'acceptsLanguages' | 'headers'>): IntlShape {
  return pageIntl(pageLanguageOf(req));
}

function merged(language: PageLanguage): Record<string, string> {
  return Object.assign({}, ...PAGE_CATALOGUES.filter((file) => file.language === language).map((file) => file.messages));
}
