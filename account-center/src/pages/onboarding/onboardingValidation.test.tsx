// The onboarding form's checks in one pass and one voice: every problem the page can see is
// shown at once (an invalid phone beside an empty required field), an error goes as soon as its
// field changes, the gateway's errors read like the page's own, and a stored phone number
// shows formatted.
import { describe, expect, it, vi } from 'vitest';
import { englishIntl } from '../../i18n/useIntl.ts';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { createApi, type Schemas } from '../../api.ts';
import type { AccountCenterConfig } from '../../config.ts';
import { SessionProvider } from '../../session.tsx';
import { OnboardingPage } from './OnboardingPage.tsx';
import { fakeGateway, problem, type FakeGateway } from './fakeGateway.ts';
import type { RequirementField } from './onboardingFlow.ts';
import { formatPhone, valueProblem } from './fieldMessages.ts';

const CONFIG: AccountCenterConfig = { authBackendUrl: 'https://gateway.test/v1', authPlatformKey: 'ACCOUNT_CENTER' };
const BASE = '/v1/onboarding/DEMO';
const PHONE_MESSAGE = 'Enter a phone number in international format: + and the country code, then the number, like +44 20 7946 0958.';

function field(fieldKey: string, label: string, fieldType: RequirementField['fieldType'], sortOrder: number, extra: Partial<RequirementField> = {}): RequirementField {
  return {
    fieldKey, label, fieldType, sortOrder,
    source: 'CUSTOM_FIELD', profileField: null, sharing: null, sharedOffer: null, required: false, options: [], validation: {}, uiConfig: {}, placeholder: null, description: null, translations: {},
    archived: false, archivedAt: null, createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z',
    currentValue: null,
    ...extra,
  };
}

const FIELDS = [
  field('company', 'Company', 'TEXT', 10, { required: true }),
  field('phone', 'Phone number', 'PHONE', 20, { required: true }),
  field('website', 'Website', 'URL', 30),
];

const status = (value: Schemas['OnboardingStatusValue']): Schemas['OnboardingStatus'] => ({ status: value, requirementVersion: 1, missingFields: [], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] });

function gatewayWith(fields: RequirementField[]): FakeGateway {
  return fakeGateway()
    .on('GET', '/v1/me', { status: 200, body: { user: { id: '8b2e4f60-1c3d-4a5b-9e7f-0a1b2c3d4e5f', sub: 'alice', email: null, displayName: 'Alice', pictureUrl: null, locale: null }, permissions: [], permissionsReadAt: null, authentication: 'session', platform: null, session: null, memberships: [] } })
    .on('GET', `${BASE}/requirements`, { status: 200, body: { platformKey: 'DEMO', requirementVersion: 1, language: null, fields } })
    .on('GET', `${BASE}/status`, { status: 200, body: status('NOT_STARTED') })
    .on('PUT', `${BASE}/values`, { status: 200, body: { values: {}, onboarding: status('IN_PROGRESS') } })
    .on('POST', `${BASE}/complete`, { status: 200, body: status('COMPLETE') });
}

function renderPage(gateway: FakeGateway) {
  render(
    <SessionProvider config={CONFIG} api={createApi(CONFIG, gateway.fetch)}>
      <MemoryRouter initialEntries={['/onboarding/DEMO']}>
        <Routes>
          <Route path="/onboarding/:platformKey" element={<OnboardingPage leave={vi.fn()} />} />
          <Route path="/profile" element={<h1>Profile page</h1>} />
        </Routes>
      </MemoryRouter>
    </SessionProvider>,
  );
  return userEvent.setup({ delay: null });
}

const describedTexts = (element: Element) =>
  (element.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean).map((id) => document.getElementById(id)?.textContent ?? '');

describe('OnboardingPage: checks in one pass, one voice', { timeout: 20_000 }, () => {
  it('shows an invalid phone number and an empty required field in the same pass, without writing', async () => {
    const gateway = gatewayWith(FIELDS);
    const user = renderPage(gateway);
    await screen.findByRole('form', { name: /Your details for/ });
    await user.type(screen.getByLabelText(/^Phone number/), '+44 12');
    await user.type(screen.getByLabelText(/^Website/), 'example.com');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const summary = await screen.findByRole('alert', { name: /Nothing has been saved yet/ });
    expect(within(summary).getAllByRole('link').map((link) => link.textContent)).toEqual([
      'Company: Fill this in.',
      `Phone number: ${PHONE_MESSAGE}`,
      'Website: Enter a web address that starts with https:// or http://.',
    ]);
    expect(describedTexts(screen.getByLabelText(/^Phone number/))).toContain(PHONE_MESSAGE);
    expect(gateway.calls.filter((call) => call.method === 'PUT')).toEqual([]);
  });

  it('takes an error away as soon as its field changes, from beside the input and from the summary', async () => {
    const user = renderPage(gatewayWith(FIELDS));
    await screen.findByRole('form', { name: /Your details for/ });
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const summary = await screen.findByRole('alert', { name: /Nothing has been saved yet/ });
    const company = screen.getByLabelText(/^Company/);
    expect(company.getAttribute('aria-invalid')).toBe('true');
    await user.type(company, 'A');
    await waitFor(() => expect(company.getAttribute('aria-invalid')).toBeNull());
    expect(describedTexts(company)).not.toContain('Fill this in.');
    expect(within(summary).getAllByRole('link').map((link) => link.textContent)).toEqual(['Phone number: Fill this in.']);
    // The other field's error stays until it changes.
    expect(screen.getByLabelText(/^Phone number/).getAttribute('aria-invalid')).toBe('true');
  });

  it("says the gateway's refusal of a phone number in the page's own words", async () => {
    const gateway = gatewayWith(FIELDS).on('PUT', `${BASE}/values`, {
      status: 400,
      body: problem(400, 'VALIDATION_FAILED', 'One or more values are not valid; nothing was stored.', [
        { pointer: '/body/values/phone', reason: 'INVALID_PHONE', message: 'must be a valid international phone number starting with +' },
      ]),
    });
    const user = renderPage(gateway);
    await screen.findByRole('form', { name: /Your details for/ });
    await user.type(screen.getByLabelText(/^Company/), 'Acme');
    await user.type(screen.getByLabelText(/^Phone number/), '+44 20 0000 0000');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const summary = await screen.findByRole('alert', { name: /not accepted/ });
    expect(within(summary).getAllByRole('link').map((link) => link.textContent)).toEqual([`Phone number: ${PHONE_MESSAGE}`]);
    expect(describedTexts(screen.getByLabelText(/^Phone number/))).toContain(PHONE_MESSAGE);
  });

  it('shows a stored phone number formatted, as it was typed, not as the gateway stores it', async () => {
    renderPage(gatewayWith([field('phone', 'Phone number', 'PHONE', 10, { currentValue: '+442071838750' })]));
    await screen.findByRole('form', { name: /Your details for/ });
    expect((screen.getByLabelText(/^Phone number/) as HTMLInputElement).value).toBe('+44 20 7183 8750');
  });

  it('checks a value no stricter than the gateway', () => {
    const phone = { fieldType: 'PHONE' as const, label: 'Phone', validation: {} };
    expect(valueProblem(englishIntl(), phone, '+44 20 7183 8750')).toBeNull();
    expect(valueProblem(englishIntl(), phone, '+1 (415) 555-0132')).toBeNull();
    expect(valueProblem(englishIntl(), phone, '020 7183 8750')).toBe(PHONE_MESSAGE);
    expect(valueProblem(englishIntl(), { fieldType: 'NUMBER', label: 'Size', validation: { min: 1, max: 10 } }, 11)).toBe('Enter a number of at most 10.');
    expect(valueProblem(englishIntl(), { fieldType: 'EMAIL', label: 'E-mail', validation: {} }, 'a@b.co')).toBeNull();
    expect(formatPhone('+14155550132')).toBe('+1 415 555 0132');
  });
});
