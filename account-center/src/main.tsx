import { StrictMode } from 'react';
// Shared styles first: a page's own stylesheet (imported with its module) must win over them.
import './styles.css';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { createApi } from './api.ts';
import { loadConfig } from './config.ts';
import { SessionProvider } from './session.tsx';
import { LanguageProvider } from './i18n/LanguageProvider.tsx';

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
  root.render(
    <main className="boot-error" role="alert">
      <h1>The account center could not start</h1>
      <p>{error instanceof Error ? error.message : String(error)}</p>
      <p><button type="button" className="button" onClick={() => window.location.reload()}>Try again</button></p>
    </main>,
  );
}
