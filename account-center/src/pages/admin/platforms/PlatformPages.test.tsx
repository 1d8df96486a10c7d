import { beforeAll, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeGateway, ME, platformFixture, polyfillDialog, problem, renderPlatforms, type SentRequest } from './testing.tsx';
import type { AuditEvent, Platform } from './model.ts';

beforeAll(() => polyfillDialog());

const platforms = Array.from({ length: 5 }, (_, i) => platformFixture({ platformKey: `P_${i + 1}`, displayName: `Platform ${i + 1}`, active: i % 2 === 0 }));

/** A registry of five platforms served two per page; search and active are applied like the gateway does. */
function listHandler(request: SentRequest) {
  if (request.method !== 'GET' || request.path !== '/v1/platforms') return undefined;
  const search = request.query.get('search')?.toLowerCase();
  const active = request.query.get('active');
  const after = request.query.get('cursor');
  const matching = platforms.filter(
    (p) => (!search || p.platformKey.toLowerCase().includes(search) || p.displayName.toLowerCase().includes(search)) && (active === null || String(p.active) === active),
  );
  const start = after ? matching.findIndex((p) => p.platformKey === after) + 1 : 0;
  const items = matching.slice(start, start + 2);
  const nextCursor = start + 2 < matching.length ? items.at(-1)!.platformKey : null;
  return { status: 200, body: { items, nextCursor } };
}

const rowKeys = () =>
  within(screen.getByRole('table'))
    .getAllByRole('row')
    .slice(1)
    .map((row) => within(row).getAllByRole('cell')[0]!.textContent);

describe('platform list', { timeout: 20_000 }, () => {
  it('shows key, name, mode, status and creation date, each row linking to its platform', async () => {
    renderPlatforms('/admin/platforms', fakeGateway(listHandler).fetchImpl);
    await screen.findByRole('table');
    expect(screen.getAllByRole('columnheader').map((header) => header.textContent)).toEqual(['Key', 'Name', 'Mode', 'Status', 'Created']);
    expect(rowKeys()).toEqual(['P_1', 'P_2']);
    const link = screen.getByRole('link', { name: 'P_2' });
    expect(link.getAttribute('href')).toBe('/admin/platforms/P_2');
    expect(within(screen.getAllByRole('row')[2]!).getByText('Inactive')).toBeDefined();
    expect(within(screen.getAllByRole('row')[1]!).getByText('Active')).toBeDefined();
  });

  it('pages forward with the cursor and back with the kept cursors', async () => {
    const gateway = fakeGateway(listHandler);
    renderPlatforms('/admin/platforms', gateway.fetchImpl);
    const user = userEvent.setup();
    await screen.findByRole('table');
    expect((screen.getByRole('button', { name: 'Previous page' }) as HTMLButtonElement).disabled).toBe(true);
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(rowKeys()).toEqual(['P_3', 'P_4']));
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(rowKeys()).toEqual(['P_5']));
    expect((screen.getByRole('button', { name: 'Next page' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('Page 3: platforms 5 to 5 (the last page).')).toBeDefined();
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    await waitFor(() => expect(rowKeys()).toEqual(['P_3', 'P_4']));
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    await waitFor(() => expect(rowKeys()).toEqual(['P_1', 'P_2']));
    const cursors = gateway.sent.map((request) => request.query.get('cursor'));
    expect(cursors).toEqual([null, 'P_2', 'P_4', 'P_2', null]);
    expect(gateway.sent.every((request) => request.query.get('limit') === '50')).toBe(true);
  });

  it('searches on the server with a labelled search box, and filters by status; a new search starts at page 1', async () => {
    const gateway = fakeGateway(listHandler);
    renderPlatforms('/admin/platforms', gateway.fetchImpl);
    const user = userEvent.setup();
    await screen.findByRole('table');
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(rowKeys()).toEqual(['P_3', 'P_4']));

    await user.type(screen.getByRole('searchbox', { name: 'Search by key or name' }), 'platform 5{Enter}');
    await waitFor(() => expect(rowKeys()).toEqual(['P_5']));
    const searched = gateway.sent.at(-1)!;
    expect(searched.query.get('search')).toBe('platform 5');
    expect(searched.query.get('cursor')).toBeNull();
    expect(screen.getByTestId('location').textContent).toBe('/admin/platforms?q=platform+5');

    await user.click(screen.getByRole('button', { name: 'Clear the search' }));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'Inactive');
    await waitFor(() => expect(rowKeys()).toEqual(['P_2', 'P_4']));
    expect(gateway.sent.at(-1)!.query.get('active')).toBe('false');
    expect(gateway.sent.at(-1)!.query.get('search')).toBeNull();

    await user.type(screen.getByRole('searchbox', { name: 'Search by key or name' }), 'nothing like it{Enter}');
    expect(await screen.findByText('No platform matches “nothing like it” among the inactive ones.')).toBeDefined();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('says when the registry is empty, and offers a retry when the list cannot be loaded', async () => {
    let fail = true;
    renderPlatforms(
      '/admin/platforms',
      fakeGateway(() => (fail ? problem(503, 'DATABASE_UNAVAILABLE', 'The database is unreachable.') : { status: 200, body: { items: [], nextCursor: null } })).fetchImpl,
    );
    const user = userEvent.setup();
    expect(await screen.findByText(/We could not load the platforms/)).toBeDefined();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('No platform is registered yet.')).toBeDefined();
  });
});

describe('platform page', { timeout: 20_000 }, () => {
  function detailGateway(initial: Platform, events: AuditEvent[] = []) {
    let current = initial;
    const gateway = fakeGateway((request) => {
      const base = `/v1/platforms/${current.platformKey}`;
      if (request.method === 'GET' && request.path === base) return { status: 200, body: current };
      if (request.method === 'DELETE' && request.path === base) {
        current = { ...current, active: false };
        return { status: 200, body: current };
      }
      if (request.method === 'POST' && request.path === `${base}/activate`) {
        if (current.callbackUrl === null) return problem(409, 'PLATFORM_MISSING_CALLBACK_URL', 'Activation needs a callback URL.');
        current = { ...current, active: true };
        return { status: 200, body: current };
      }
      if (request.method === 'POST' && request.path === `${base}/credentials/rotate`) {
        return { status: 200, body: { platformKey: current.platformKey, clientId: current.clientId, clientSecret: 'pcs_rotated_secret_abcdefghijklmnopqrstuvwxyz012345', rotatedAt: '2025-06-01T10:00:00Z' } };
      }
      if (request.method === 'GET' && request.path === '/v1/audit-events') {
        const cursor = request.query.get('cursor');
        const start = cursor ? Number(cursor) : 0;
        const limit = Number(request.query.get('limit'));
        return { status: 200, body: { items: events.slice(start, start + limit), nextCursor: start + limit < events.length ? String(start + limit) : null } };
      }
      return undefined;
    });
    return gateway;
  }

  it('shows every property as text, metadata as formatted JSON', async () => {
    const platform = platformFixture({ metadata: { team: 'identity', note: '<script>alert(1)</script>' }, platformOnboardingPath: '/onboarding' });
    renderPlatforms('/admin/platforms/DEMO_APP', detailGateway(platform).fetchImpl);
    await screen.findByRole('heading', { name: 'Demo app', level: 1 });
    const value = (term: string) => screen.getByText(term, { selector: 'dt' }).nextElementSibling!.textContent;
    expect(value('Callback URL')).toBe('https://demo.example.test/auth/callback');
    expect(value('Allowed return URLs')).toBe('https://demo.example.test/https://demo.example.test/app/');
    expect(value('Onboarding mode')).toBe('Central');
    expect(value('Central onboarding')).toBe('Enabled');
    expect(value('Handoff challenge')).toBe('Required');
    expect(value('Onboarding path')).toBe('/onboarding');
    expect(value('Client ID')).toBe('pc_test_client');
    expect(value('Requirement version')).toBe('2');
    expect(document.querySelector('pre')!.textContent).toBe(JSON.stringify(platform.metadata, null, 2));
    expect(document.querySelector('script')).toBeNull();
  });

  it('a platform that does not require the handoff challenge says so, with the warning', async () => {
    renderPlatforms('/admin/platforms/DEMO_APP', detailGateway(platformFixture({ handoffChallengeRequired: false })).fetchImpl);
    await screen.findByRole('heading', { name: 'Demo app', level: 1 });
    const shown = screen.getByText('Handoff challenge', { selector: 'dt' }).nextElementSibling!.textContent;
    expect(shown).toMatch(/^Not required Warning: .*login CSRF/);
  });

  it('deactivates and activates after confirming, saying what happens', async () => {
    const gateway = detailGateway(platformFixture());
    renderPlatforms('/admin/platforms/DEMO_APP', gateway.fetchImpl);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Deactivate' }));
    const dialog = screen.getByRole('dialog', { name: 'Deactivate Demo app?' });
    expect(dialog.textContent).toContain('Sign-ins for this platform stop at once, and so do its handoff exchanges');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(gateway.sent.some((request) => request.method === 'DELETE')).toBe(false);

    await user.click(screen.getByRole('button', { name: 'Deactivate' }));
    await user.click(within(screen.getByRole('dialog', { name: 'Deactivate Demo app?' })).getByRole('button', { name: 'Deactivate' }));
    expect(await screen.findByText(/Demo app is inactive: sign-ins and handoff exchanges for it are refused/)).toBeDefined();
    expect(screen.getByText('Inactive', { selector: '.badge' })).toBeDefined();

    await user.click(screen.getByRole('button', { name: 'Activate' }));
    const activate = screen.getByRole('dialog', { name: 'Activate Demo app?' });
    expect(activate.textContent).toContain('resume');
    await user.click(within(activate).getByRole('button', { name: 'Activate' }));
    expect(await screen.findByText(/Demo app is active/)).toBeDefined();
    expect(gateway.sent.filter((request) => request.method !== 'GET').map((request) => `${request.method} ${request.path}`)).toEqual([
      'DELETE /v1/platforms/DEMO_APP',
      'POST /v1/platforms/DEMO_APP/activate',
    ]);
    // the audit events were read again after each change
    expect(gateway.sent.filter((request) => request.path === '/v1/audit-events')).toHaveLength(3);
  });

  it('says what an activation needs when the registry refuses it (409)', async () => {
    renderPlatforms('/admin/platforms/DEMO_APP', detailGateway(platformFixture({ active: false, callbackUrl: null })).fetchImpl);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Activate' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Activate' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('It has no callback URL. Edit the platform to add one, then activate it.');
    expect(document.activeElement).toBe(alert);
    expect(within(alert).getByRole('link', { name: 'Edit the platform' }).getAttribute('href')).toBe('/admin/platforms/DEMO_APP/edit');
  });

  it('rotates after a warning and the typed key, then shows the new secret once', async () => {
    const gateway = detailGateway(platformFixture());
    renderPlatforms('/admin/platforms/DEMO_APP', gateway.fetchImpl);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Rotate credentials' }));
    const dialog = screen.getByRole('dialog', { name: 'Rotate the client secret of Demo app?' });
    expect(dialog.textContent).toContain('The current secret stops working at once.');
    const confirm = within(dialog).getByRole('button', { name: 'Rotate credentials' }) as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    await user.type(within(dialog).getByLabelText('Type DEMO_APP to confirm'), 'demo_app');
    expect(confirm.disabled).toBe(false);
    await user.click(confirm);

    const panel = await screen.findByRole('region', { name: 'New client secret' });
    expect((within(panel).getByLabelText('Client secret') as HTMLTextAreaElement).value).toBe('pcs_rotated_secret_abcdefghijklmnopqrstuvwxyz012345');
    expect(panel.textContent).toContain('You will not see this secret again. Store it now.');
    await user.click(within(panel).getByRole('button', { name: 'I have stored it' }));
    expect(screen.queryByRole('region', { name: 'New client secret' })).toBeNull();
    expect(document.body.innerHTML).not.toContain('pcs_rotated_secret');
  });

  it('lists the audit events (time, action, actor, changed fields) and loads more', async () => {
    const events: AuditEvent[] = Array.from({ length: 23 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      occurredAt: new Date(Date.UTC(2025, 4, 30, 12, 0) - i * 60_000).toISOString(),
      action: i === 0 ? 'platform.rotate_credentials' : 'platform.update',
      platformKey: 'DEMO_APP',
      fieldKey: null,
      sessionId: null,
      actor:
        i === 0 ? { type: 'user', userId: ME.user.id, sub: ME.user.sub }
        : i === 1 ? { type: 'cli', userId: null, sub: null }
        : i === 2 ? { type: 'devstack', userId: null, sub: null }
        : i === 5 ? { type: 'user', userId: 'u-5', sub: 'someone-else', via: 'platform', platformKey: 'DEMO_APP' }
        : { type: 'user', userId: null, sub: 'someone-else' },
      changedFields: i === 0 ? ['clientSecret'] : ['displayName'],
      requestId: null,
    }));
    renderPlatforms('/admin/platforms/DEMO_APP', detailGateway(platformFixture(), events).fetchImpl);
    const user = userEvent.setup();
    const panel = await screen.findByRole('region', { name: 'Audit events' });
    await within(panel).findByText('Showing 20 events, newest first.');
    const rows = within(panel).getAllByRole('row');
    expect(rows).toHaveLength(21);
    expect(within(rows[1]!).getAllByRole('cell').map((cell) => cell.textContent).slice(1)).toEqual(['Client secret rotated', 'You', 'clientSecret']);
    expect(within(rows[2]!).getAllByRole('cell')[2]!.textContent).toBe('Command line');
    // The dev stack's own seeding is neither a person nor an anonymous API caller.
    expect(within(rows[3]!).getAllByRole('cell')[2]!.textContent).toBe('Dev stack (npm start)');
    expect(within(rows[4]!).getAllByRole('cell')[2]!.textContent).toBe('User someone-else');
    // A platform's own credential acting for a person is named as the platform, not shown as the person.
    expect(within(rows[6]!).getAllByRole('cell')[2]!.textContent).toBe('DEMO_APP (its own credential), for user someone-else');
    await user.click(within(panel).getByRole('button', { name: 'Load more' }));
    await within(panel).findByText('Showing 23 events (all of them), newest first.');
    expect(within(panel).getAllByRole('row')).toHaveLength(24);
    expect(within(panel).queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('an unknown platform says so', async () => {
    renderPlatforms('/admin/platforms/NO_SUCH', fakeGateway(() => problem(404, 'PLATFORM_NOT_FOUND', 'No platform NO_SUCH.')).fetchImpl);
    expect(await screen.findByRole('heading', { name: 'Platform not found' })).toBeDefined();
    expect(screen.getByText('There is no platform with the key “NO_SUCH”.')).toBeDefined();
  });
});

describe('register, then the secret once', { timeout: 20_000 }, () => {
  it('continuing to the platform drops the secret (not in the URL, the history state or the page)', async () => {
    let stored: Platform | null = null;
    const gateway = fakeGateway((request) => {
      if (request.method === 'POST' && request.path === '/v1/platforms') {
        stored = platformFixture({ ...(request.body as Partial<Platform>), clientId: 'pc_new' });
        return { status: 201, body: { ...stored, clientSecret: 'pcs_created_secret_abcdefghijklmnopqrstuvwxyz0123' } };
      }
      if (request.method === 'GET' && stored && request.path === `/v1/platforms/${stored.platformKey}`) return { status: 200, body: stored };
      if (request.path === '/v1/audit-events') return { status: 200, body: { items: [], nextCursor: null } };
      return undefined;
    });
    renderPlatforms('/admin/platforms/new', gateway.fetchImpl);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/Platform key/), 'fresh_one');
    await user.click(screen.getByLabelText(/Display name/));
    await user.paste('Fresh one');
    await user.click(screen.getByLabelText('Callback URL'));
    await user.paste('https://fresh.example.test/cb');
    await user.click(screen.getByLabelText('Return URL 1'));
    await user.paste('https://fresh.example.test/');
    await user.click(screen.getByRole('button', { name: 'Register platform' }));

    expect(await screen.findByRole('heading', { name: 'Fresh one is registered', level: 1 })).toBeDefined();
    expect((screen.getByLabelText('Client secret') as HTMLTextAreaElement).value).toBe('pcs_created_secret_abcdefghijklmnopqrstuvwxyz0123');
    expect(screen.getByTestId('location').textContent).toBe('/admin/platforms/new');
    await user.click(screen.getByRole('button', { name: 'Continue to the platform' }));

    await screen.findByRole('heading', { name: 'Fresh one', level: 1 });
    expect(screen.getByTestId('location').textContent).toBe('/admin/platforms/FRESH_ONE');
    expect(screen.getByText('Fresh one is registered and active.')).toBeDefined();
    expect(document.body.innerHTML).not.toContain('pcs_created_secret');
    expect(JSON.stringify(window.history.state ?? null)).not.toContain('pcs_created_secret');
    expect(window.sessionStorage.length + window.localStorage.length).toBe(0);
  });
});
