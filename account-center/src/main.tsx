import { StrictMode } from 'react';
// Shared styles first: a page's own stylesheet (imported with its module) must win over them.
import './styles.css';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { createApi } from './api.ts';
import { loadConfig } from './config.ts';
import { SessionProvider } from './session.tsx';
import { LanguageProvider } from './i18n/LanguageProvider.tsx';
import { intlFor } from './i18n/useIntl.ts';
import { chooseLanguage } from './i18n/languages.ts';

const root = createRoot(document.getElementById('root')!);
try {
  const config = await loadConfig();
  root.render(
    <StrictMode>
      <SessionProvider config={config} api={createApi(config)}>
        <LanguageProvider>
          <App />
        </LanguageProvider>
      </SessionProvider>
    </StrictMode>,
  );
} catch (error) {
  // No configuration, no session: the browser's languages decide.
  const intl = intlFor(chooseLanguage({ browser: navigator.languages }));
  root.render(
    <main className="boot-error" role="alert">
      <h1>{intl.formatMessage({ id: 'common.bootFailed' })}</h1>
      <p>{error instanceof Error ? error.message : String(error)}</p>
      <p><button type="button" className="button" onClick={() => window.location.reload()}>{intl.formatMessage({ id: 'common.tryAgain' })}</button></p>
    </main>,
  );
}
