// After a deletion: which platforms took the deletion event (GET /v1/account/deletion), in
// English and German; a browser without a receipt is told so, a failure can be retried.
import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { createApi } from '../../api.ts';
import { SessionProvider } from '../../session.tsx';
import { renderWithIntl } from '../../test/renderWithIntl.tsx';
import type { Language } from '../../i18n/languages.ts';
import { DeletionAcknowledgements } from './DeletionAcknowledgements.tsx';

const CONFIG = { authBackendUrl: 'http://gateway.test/v1', authPlatformKey: 'ACCOUNT_CENTER' };
const STATUS = {
  deletedAt: '2026-11-20T10:00:00Z',
  eraseAfter: '2026-12-20T10:00:00Z',
  platforms: [
    { platformKey: 'DEMO', displayName: 'Demo platform', status: 'delivered', acknowledgedAt: '2026-11-20T10:00:05Z' },
    { platformKey: 'SHOP', displayName: 'Shop', status: 'pending', acknowledgedAt: null },
    { platformKey: 'FORUM', displayName: 'Forum', status: 'failed', acknowledgedAt: null },
  ],
};

function renderWith(answers: { status: number; body: unknown }[], language: Language = 'en') {
  let calls = 0;
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const path = new URL(request.url).pathname;
    if (path === '/v1/me') return new Response(JSON.stringify({ code: 'UNAUTHENTICATED' }), { status: 401, headers: { 'Content-Type': 'application/problem+json' } });
    const answer = answers[Math.min(calls++, answers.length - 1)]!;
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'Content-Type': answer.status >= 400 ? 'application/problem+json' : 'application/json' } });
  };
  renderWithIntl(
    <SessionProvider config={CONFIG} api={createApi(CONFIG, fetchImpl)}>
      <MemoryRouter><DeletionAcknowledgements /></MemoryRouter>
    </SessionProvider>,
    { language },
  );
}

describe('deletion acknowledgements', () => {
  it('lists each platform with its acknowledgement', async () => {
    renderWith([{ status: 200, body: STATUS }]);
    const table = await screen.findByRole('table');
    expect(within(table).getByRole('rowheader', { name: 'Demo platform' }).closest('tr')!.textContent).toMatch(/Acknowledged on November 20, 2026/);
    expect(within(table).getByRole('rowheader', { name: 'Shop' }).closest('tr')!.textContent).toContain('Not acknowledged yet');
    expect(within(table).getByRole('rowheader', { name: 'Forum' }).closest('tr')!.textContent).toContain('Could not be told');
    expect(screen.getByText(/erased on December 20, 2026/)).toBeTruthy();
  });

  it('speaks German', async () => {
    renderWith([{ status: 200, body: STATUS }], 'de');
    expect(await screen.findByRole('heading', { name: 'Über die Löschung informierte Plattformen' })).toBeTruthy();
    expect((await screen.findByRole('rowheader', { name: 'Shop' })).closest('tr')!.textContent).toContain('Noch nicht bestätigt');
  });

  it('a browser without a receipt is told it cannot show them; a failure is retried by the button', async () => {
    renderWith([{ status: 404, body: { code: 'NOT_FOUND', status: 404, title: 'Not found' } }]);
    expect(await screen.findByText(/can no longer show which platforms were told/)).toBeTruthy();
  });

  it('retries after a failure', async () => {
    renderWith([{ status: 503, body: { code: 'DATABASE_UNAVAILABLE', status: 503, title: 'Unavailable', detail: 'Try later.' } }, { status: 200, body: STATUS }]);
    expect(await screen.findByRole('alert')).toBeTruthy();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Check again' }));
    expect(await screen.findByRole('table')).toBeTruthy();
  });
});
