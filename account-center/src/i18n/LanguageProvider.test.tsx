import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { createApi } from '../api.ts';
import { SessionProvider } from '../session.tsx';
import { Layout } from '../layout/Layout.tsx';
import { CONFIG, fakeGateway, json, me, problem, type FakeGateway } from '../pages/profile/testGateway.tsx';
import { LanguageProvider } from './LanguageProvider.tsx';

function renderApp(gateway: FakeGateway) {
  return render(
    <MemoryRouter initialEntries={['/']}>
      <SessionProvider config={CONFIG} api={createApi(CONFIG, gateway.fetch)}>
        <LanguageProvider>
          <Routes>
            <Route element={<Layout />}>
              <Route index element={<p>Home</p>} />
            </Route>
          </Routes>
        </LanguageProvider>
      </SessionProvider>
    </MemoryRouter>,
  );
}

const withLocale = (locale: string | null) => {
  const caller = me();
  return { ...caller, user: { ...caller.user, locale } };
};

describe('LanguageProvider', () => {
  let browserLanguages: string[];
  beforeEach(() => {
    browserLanguages = ['en-US'];
    vi.spyOn(navigator, 'languages', 'get').mockImplementation(() => browserLanguages);
    window.localStorage.clear();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("shows the account center in the profile's language, and names it on the page", async () => {
    renderApp(fakeGateway({ 'GET /v1/me': json(200, withLocale('de-DE')) }));
    expect(await screen.findByRole('link', { name: 'Abmelden' })).toBeTruthy();
    expect(screen.getByRole('navigation', { name: 'Hauptnavigation' })).toBeTruthy();
    await waitFor(() => expect(document.documentElement.lang).toBe('de-DE'));
  });

  it("follows the browser's languages when the profile names none", async () => {
    browserLanguages = ['fr-FR', 'de-CH'];
    renderApp(fakeGateway({ 'GET /v1/me': json(200, withLocale(null)) }));
    expect(await screen.findByRole('link', { name: 'Abmelden' })).toBeTruthy();
    await waitFor(() => expect(document.documentElement.lang).toBe('de-CH'));
  });

  it('switches at once, writes the language to the profile and remembers it in this browser', async () => {
    const gateway = fakeGateway({
      'GET /v1/me': [json(200, withLocale(null)), json(200, withLocale('de'))],
      'PATCH /v1/profile/me': json(200, {}),
    });
    renderApp(gateway);
    await screen.findByRole('link', { name: 'Sign out' });
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'Deutsch');
    expect(await screen.findByRole('link', { name: 'Abmelden' })).toBeTruthy();
    await waitFor(() => expect(gateway.callsTo('GET /v1/me')).toHaveLength(2));
    expect(gateway.callsTo('PATCH /v1/profile/me').map((call) => call.body)).toEqual([{ locale: 'de' }]);
    expect(window.localStorage.getItem('account-center.language')).toBe('de');
    expect((screen.getByRole('combobox', { name: 'Sprache' }) as HTMLSelectElement).value).toBe('de');
  });

  it('keeps the switch and says so when the profile could not be updated', async () => {
    const gateway = fakeGateway({
      'GET /v1/me': json(200, withLocale('en-GB')),
      'PATCH /v1/profile/me': problem(503, 'SERVICE_UNAVAILABLE', 'Try again later.'),
    });
    renderApp(gateway);
    await screen.findByRole('link', { name: 'Sign out' });
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'de');
    expect((await screen.findByRole('alert')).textContent).toBe('Ihre Sprache konnte nicht in Ihrem Profil gespeichert werden. Sie gilt in diesem Browser.');
    expect(screen.getByRole('link', { name: 'Abmelden' })).toBeTruthy();
  });

  it('signed out, remembers the choice in this browser only (no profile to write)', async () => {
    const gateway = fakeGateway({ 'GET /v1/me': problem(401, 'UNAUTHENTICATED', 'Sign in.') });
    renderApp(gateway);
    await screen.findByRole('link', { name: 'Sign in' });
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'de');
    expect(await screen.findByRole('link', { name: 'Anmelden' })).toBeTruthy();
    expect(gateway.callsTo('PATCH /v1/profile/me')).toEqual([]);
    expect(window.localStorage.getItem('account-center.language')).toBe('de');
  });
});
