// Component tests render through here: the component under test inside the account center's
// real catalogues (react-intl), in the language the test names, English unless told.
import { render, type RenderOptions, type RenderResult } from '@testing-library/react';
import { useState, type ReactElement, type ReactNode } from 'react';
import { LanguageScope } from '../i18n/LanguageProvider.tsx';
import type { Language } from '../i18n/languages.ts';

export interface IntlRenderOptions extends Omit<RenderOptions, 'wrapper'> {
  /** The account center's language for this render (default `en`). */
  language?: Language;
  /** The formatting tag (default: the language itself), e.g. `de-DE`. */
  locale?: string;
  /** Called when the component switches the language (the switcher); the switch takes effect. */
  onLanguageChange?: (language: Language) => void;
}

/** A wrapper for render/renderHook: the language context and IntlProvider of the running app. */
export function intlWrapper({ language = 'en', locale, onLanguageChange }: Omit<IntlRenderOptions, keyof RenderOptions> = {}) {
  return function IntlWrapper({ children }: { children: ReactNode }) {
    const [current, setCurrent] = useState<{ language: Language; locale: string }>({ language, locale: locale ?? language });
    const setLanguage = async (next: Language) => {
      onLanguageChange?.(next);
      setCurrent({ language: next, locale: next });
    };
    return <LanguageScope choice={current} setLanguage={setLanguage}>{children}</LanguageScope>;
  };
}

export function renderWithIntl(ui: ReactElement, { language, locale, onLanguageChange, ...options }: IntlRenderOptions = {}): RenderResult {
  return render(ui, { ...options, wrapper: intlWrapper({ language, locale, onLanguageChange }) });
}
