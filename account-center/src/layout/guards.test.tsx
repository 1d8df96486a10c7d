import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { createApi } from '../api.ts';
import { SessionProvider } from '../session.tsx';
import { CONFIG, fakeGateway, json, me } from '../pages/profile/testGateway.tsx';
import { RequirePermission } from './guards.tsx';

function renderAdminPage(permissions: string[], path = '/admin/platforms') {
  const gateway = fakeGateway({ 'GET /v1/me': json(200, { ...me(), permissions }) });
  return render(
    <MemoryRouter initialEntries={[path]}>
      <SessionProvider config={CONFIG} api={createApi(CONFIG, gateway.fetch)}>
        <Routes>
          <Route path="/" element={<p>Home page</p>} />
          <Route path="/admin/platforms" element={<RequirePermission permission="platforms:admin"><h1>Platforms</h1></RequirePermission>} />
          <Route path="/admin/support" element={<RequirePermission permission="support:access"><h1>Support</h1></RequirePermission>} />
        </Routes>
      </SessionProvider>
    </MemoryRouter>,
  );
}

describe('RequirePermission', () => {
  it('tells a signed-in person without the permission that the page needs administrator rights, instead of moving them home', async () => {
    renderAdminPage([]);
    expect(await screen.findByRole('heading', { name: 'You need administrator rights for this page', level: 1 })).toBeTruthy();
    expect(screen.queryByText('Home page')).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Platforms' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Go to the home page' }).getAttribute('href')).toBe('/');
  });

  it('support:access is its own: platforms:admin does not open the support page (issue 35)', async () => {
    renderAdminPage(['platforms:admin', 'onboarding:schema:read'], '/admin/support');
    expect(await screen.findByRole('heading', { name: 'You need administrator rights for this page', level: 1 })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Support' })).toBeNull();
  });

  it('shows the page to a person holding the permission', async () => {
    renderAdminPage(['platforms:admin']);
    expect(await screen.findByRole('heading', { name: 'Platforms' })).toBeTruthy();
  });
});
