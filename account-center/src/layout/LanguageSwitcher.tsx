import { useId, useState, type ChangeEvent } from 'react';
import { useIntl } from '../i18n/useIntl.ts';
import { useLanguage } from '../i18n/LanguageProvider.tsx';
import { LANGUAGE_NAMES, LANGUAGES, supportedLanguage } from '../i18n/languages.ts';

/**
 * The header's language choice. Each language is named in itself (lang set on the option), so a
 * person who cannot read the current language still finds their own. Signed in, the choice is
 * written to the profile; a failure to save it is said next to the switcher, and the switch holds.
 */
export function LanguageSwitcher() {
  const intl = useIntl();
  const { language, setLanguage } = useLanguage();
  const id = useId();
  const [failed, setFailed] = useState(false);
  const change = (event: ChangeEvent<HTMLSelectElement>) => {
    const next = supportedLanguage(event.target.value);
    if (!next) return;
    setFailed(false);
    setLanguage(next).catch(() => setFailed(true));
  };
  return (
    <div className="language-switcher">
      <label htmlFor={id}>{intl.formatMessage({ id: 'layout.language' })}</label>
      <select id={id} value={language} onChange={change} aria-describedby={failed ? `${id}-error` : undefined}>
        {LANGUAGES.map((option) => (
          <option key={option} value={option} lang={option}>{LANGUAGE_NAMES[option]}</option>
        ))}
      </select>
      {failed ? <p id={`${id}-error`} className="field-error" role="alert">{intl.formatMessage({ id: 'layout.languageNotSaved' })}</p> : null}
    </div>
  );
}
