import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '../../../api.ts';
import { FakeGateway, KEY, renderAdmin } from './testSupport.tsx';

/** A platform as the registry lists it (only what the picker reads is relevant). */
function platform(platformKey: string, displayName: string, extra: Partial<Schemas['Platform']> = {}): Schemas['Platform'] {
  return {
    platformKey, displayName, callbackUrl: null, allowedReturnUrls: [], defaultOnboardingMode: 'central', centralOnboardingEnabled: true,
    platformOnboardingPath: null, metadata: {}, active: true, clientId: null, requirementVersion: 2, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z',
    ...extra,
  } as Schemas['Platform'];
}

describe('choosing a platform', () => {
  it('an administrator sees every platform', async () => {
    const fake = new FakeGateway([]);
    fake.platforms = [platform(KEY, 'Demo platform'), platform('OTHER', 'Other', { active: false, defaultOnboardingMode: 'none' })];
    renderAdmin('/admin/onboarding', fake, ['platforms:admin']);
    const link = await screen.findByRole('link', { name: 'Demo platform' });
    expect(link.getAttribute('href')).toBe(`/admin/onboarding/${KEY}`);
    expect(screen.getByText('Inactive')).toBeDefined();
    expect(screen.getByText('No onboarding')).toBeDefined();
  });

  it('anyone else: their platforms, and a labelled box that opens any key (upper-cased)', async () => {
    const fake = new FakeGateway([]);
    renderAdmin('/admin/onboarding', fake, ['onboarding:schema:read'], [
      { platformKey: 'MINE', displayName: 'My platform', onboarding: { status: 'COMPLETE', requirementVersion: 1, missingFields: [], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] } },
    ]);
    expect((await screen.findByRole('link', { name: 'My platform' })).getAttribute('href')).toBe('/admin/onboarding/MINE');
    expect(fake.requests.some((request) => request.path === '/v1/platforms')).toBe(false);

    const box = screen.getByRole('textbox', { name: 'Platform key' });
    await userEvent.type(box, 'x');
    await userEvent.click(screen.getByRole('button', { name: 'Open' }));
    expect(screen.getByText(/Enter a platform key/)).toBeDefined();
    expect(box.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(box);

    await userEvent.clear(box);
    await userEvent.type(box, 'demo{Enter}');
    expect(await screen.findByRole('heading', { name: `Onboarding form: ${KEY}`, level: 1 })).toBeDefined();
  });
});
