import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeGateway, json, me, problem, renderProfilePage, SLOW } from './testGateway.tsx';

const status = (value: 'COMPLETE' | 'IN_PROGRESS' | 'NOT_STARTED', missingFields: string[] = []) => ({ status: value, requirementVersion: 2, missingFields, canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] });

describe('profile: your platforms', SLOW, () => {
  it('lists each membership: name, key, status badge, missing fields, and a link to complete onboarding when not complete', async () => {
    renderProfilePage(fakeGateway({
      'GET /v1/me': json(200, me([
        { platformKey: 'DEMO_CENTRAL', displayName: 'Demo central', onboarding: status('IN_PROGRESS', ['company', 'phone']) },
        { platformKey: 'ACCOUNT_CENTER', displayName: 'Account center', onboarding: status('COMPLETE') },
        { platformKey: 'NEW_ONE', displayName: 'New one', onboarding: status('NOT_STARTED', ['company']) },
      ])),
    }));
    const region = within(await screen.findByRole('region', { name: 'Your platforms' }));
    const rows = region.getAllByRole('row').slice(1);
    const cells = rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent));
    expect(cells).toEqual([
      ['Demo central', 'DEMO_CENTRAL', 'In progress', '2', 'Complete onboarding'],
      ['Account center', 'ACCOUNT_CENTER', 'Complete', '0', ''],
      ['New one', 'NEW_ONE', 'Not started', '1', 'Complete onboarding'],
    ]);
    expect(within(rows[0]!).getByText('In progress').className).toBe('badge badge-warning');
    expect(within(rows[1]!).getByText('Complete').className).toBe('badge badge-success');
    const link = region.getByRole('link', { name: 'Complete onboarding for Demo central' });
    expect(link.getAttribute('href')).toBe('/onboarding/DEMO_CENTRAL');
    await userEvent.click(link);
    expect(await screen.findByText('Onboarding page')).toBeDefined();
  });

  it('says so when there are none', async () => {
    renderProfilePage(fakeGateway());
    const region = within(await screen.findByRole('region', { name: 'Your platforms' }));
    expect(region.getByText('You have not signed in to any platform through the gateway yet.')).toBeDefined();
  });
});

describe('profile: sign-in methods', SLOW, () => {
  it('human names, the provider name, and a dash read as "Unknown" for times the provider does not keep', async () => {
    renderProfilePage(fakeGateway({
      'GET /v1/account/authentication-methods': json(200, { items: [
        { id: 'password', type: 'password', displayName: null, createdAt: null, lastUsedAt: '2025-05-21T08:30:00Z' },
        { id: '2873', type: 'passkey', displayName: 'MacBook Touch ID', createdAt: '2025-03-02T10:00:00Z', lastUsedAt: null },
        { id: '2874', type: 'totp', displayName: null, createdAt: null, lastUsedAt: null },
      ] }),
    }));
    const region = within(await screen.findByRole('region', { name: 'Sign-in methods' }));
    const rows = (await region.findAllByRole('row')).slice(1);
    expect(rows.map((row) => within(row).getByRole('rowheader').textContent)).toEqual(['Password', 'Passkey', 'Authenticator app']);
    expect(within(rows[1]!).getByText('MacBook Touch ID')).toBeDefined();
    expect(within(rows[0]!).getAllByText('—')).toHaveLength(2);
    expect(within(rows[0]!).getAllByText('Unknown')).toHaveLength(2);
    expect(within(rows[0]!).getByText((_, element) => element?.tagName === 'TIME').getAttribute('datetime')).toBe('2025-05-21T08:30:00Z');
  });

  it('503: the provider is unavailable, inline, with a retry', async () => {
    const gateway = fakeGateway({
      'GET /v1/account/authentication-methods': [
        problem(503, 'IDP_UNAVAILABLE', 'The identity provider could not complete the request.'),
        json(200, { items: [{ id: 'password', type: 'password', displayName: null, createdAt: null, lastUsedAt: null }] }),
      ],
    });
    renderProfilePage(gateway);
    const region = within(await screen.findByRole('region', { name: 'Sign-in methods' }));
    const alert = await region.findByRole('alert');
    expect(alert.textContent).toMatch(/We could not load your sign-in methods\.\s*The sign-in service cannot be reached right now\. Try again in a moment\./);
    await userEvent.click(region.getByRole('button', { name: 'Try again' }));
    expect(await region.findByRole('rowheader', { name: 'Password' })).toBeDefined();
    expect(gateway.callsTo('GET /v1/account/authentication-methods')).toHaveLength(2);
  });
});
