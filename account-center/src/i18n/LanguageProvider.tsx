import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { IntlProvider } from 'react-intl';
import { call } from '../api.ts';
import { useSession } from '../session.tsx';
import { messagesFor } from './catalogues.ts';
import { chooseLanguage, DEFAULT_LANGUAGE, supportedLanguage, type Language, type LanguageChoice } from './languages.ts';

export interface LanguageState extends LanguageChoice {
  /**
   * Switch the account center to `language`: at once here, remembered in this browser, and
   * (signed in) written to the profile's `locale` through the profile update, so it follows the
   * person to other browsers. Rejects when the profile could not be updated; the switch holds.
   */
  setLanguage(language: Language): Promise<void>;
}

export const LanguageContext = createContext<LanguageState | null>(null);

/** Where a language picked in the switcher is remembered (what a signed-out visit goes by). */
const REMEMBERED_KEY = 'account-center.language';

function readRemembered(): string | null {
  try {
    return window.localStorage.getItem(REMEMBERED_KEY);
  } catch {
    return null; // storage refused (privacy settings): the browser's languages decide
  }
}

function remember(language: Language): void {
  try {
    window.localStorage.setItem(REMEMBERED_KEY, language);
  } catch {
    // storage refused: the choice lasts for this page (and in the profile, when signed in)
  }
}

/** The account center's language for the signed-in person (or the visitor), and react-intl with its messages. */
export function LanguageProvider({ children }: { children: ReactNode }) {
  const { me, api, reload } = useSession();
  const [remembered, setRemembered] = useState<string | null>(readRemembered);
  // A switch being written to the profile: shown at once, before the profile says so.
  const [switching, setSwitching] = useState<Language | null>(null);
  const choice = chooseLanguage({ profile: switching ?? me?.user.locale, remembered, browser: navigator.languages });

  const setLanguage = useCallback(
    async (language: Language) => {
      remember(language);
      setRemembered(language);
      if (!me || supportedLanguage(me.user.locale) === language) return;
      setSwitching(language);
      await call(api.PATCH('/v1/profile/me', { body: { locale: language } }));
      await reload();
      setSwitching(null);
    },
    [api, me, reload],
  );

  return <LanguageScope choice={choice} setLanguage={setLanguage}>{children}</LanguageScope>;
}

/** The IntlProvider and the language context for a choice; the test helper uses it directly. */
export function LanguageScope({ choice, setLanguage, children }: { choice: LanguageChoice; setLanguage: LanguageState['setLanguage']; children: ReactNode }) {
  const { language, locale } = choice;
  // The page's language for screen readers, hyphenation and spell checking (WCAG 3.1.1).
  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);
  const value = useMemo<LanguageState>(() => ({ language, locale, setLanguage }), [language, locale, setLanguage]);
  const messages = useMemo(() => messagesFor(language), [language]);
  return (
    <LanguageContext.Provider value={value}>
      <IntlProvider locale={locale} messages={messages} defaultLocale={DEFAULT_LANGUAGE}>
        {children}
      </IntlProvider>
    </LanguageContext.Provider>
  );
}

export function useLanguage(): LanguageState {
  const state = useContext(LanguageContext);
  if (!state) throw new Error('useLanguage outside LanguageProvider');
  return state;
}

/** The catalogue language in effect; English outside a provider (a bare component test). */
export function useCurrentLanguage(): Language {
  return useContext(LanguageContext)?.language ?? DEFAULT_LANGUAGE;
}
