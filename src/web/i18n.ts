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
  const accepted = negotiateLanguage(req, PAGE_LANGUAGES);
  const spoken = PAGE_LANGUAGES.find((language) => language === accepted);
  if (spoken) return spoken;
  const primary = platformDefault?.split('-')[0]?.toLowerCase();
  return PAGE_LANGUAGES.find((language) => language === primary) ?? DEFAULT_PAGE_LANGUAGE;
}

/**
 * The one place the gateway reads Accept-Language (RFC 9110 §12.5.4): the most preferred of
 * `available`, or undefined when the request states no preference. No preference is no header,
 * and a header whose only ranges are the wildcard `*` (with or without a weight: Node's fetch
 * sends `Accept-Language: *`): express's negotiator answers the first language on offer to
 * both, which would make whatever happens to be listed first (a translation) look chosen, over
 * the platform's default language or the default texts.
 */
export function negotiateLanguage(req: Pick<Request, 'acceptsLanguages' | 'headers'>, available: readonly string[]): string | undefined {
  if (preferredLanguages(req).length === 0) return undefined;
  return req.acceptsLanguages([...available]) || undefined;
}

/** The languages a request names, most preferred first, without the wildcard (none: no preference). */
export function preferredLanguages(req: Pick<Request, 'acceptsLanguages' | 'headers'>): string[] {
  if (!req.headers['accept-language']) return [];
  return req.acceptsLanguages().filter((language) => language !== '*');
}

/** The formatter for a request's language. */
export function requestIntl(req: Pick<Request, 'acceptsLanguages' | 'headers'>): IntlShape {
  return pageIntl(pageLanguageOf(req));
}

function merged(language: PageLanguage): Record<string, string> {
  return Object.assign({}, ...PAGE_CATALOGUES.filter((file) => file.language === language).map((file) => file.messages));
}
