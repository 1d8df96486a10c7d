import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { createApi, type Schemas } from '../../api.ts';
import type { AccountCenterConfig } from '../../config.ts';
import { SessionProvider } from '../../session.tsx';
import { OnboardingPage } from './OnboardingPage.tsx';
import { deferred, fakeGateway, problem, type FakeGateway } from './fakeGateway.ts';
import type { RequirementField } from './onboardingFlow.ts';

const CONFIG: AccountCenterConfig = { authBackendUrl: 'https://gateway.test/v1', authPlatformKey: 'ACCOUNT_CENTER' };
const TX = '0b6f3c1e-8a2d-4f5b-9c7e-1d2e3f4a5b6c';
const RESUME_URL = `https://gateway.test/v1/auth/resume?transaction=${TX}`;
const BASE = '/v1/onboarding/DEMO';
const PHONE_MESSAGE = 'Enter a phone number in international format: + and the country code, then the number, like +44 20 7946 0958.';

function field(fieldKey: string, label: string, fieldType: RequirementField['fieldType'], sortOrder: number, extra: Partial<RequirementField> = {}): RequirementField {
  return {
    fieldKey, label, fieldType, sortOrder,
    source: 'CUSTOM_FIELD', profileField: null, sharing: null, sharedOffer: null, required: false, options: [], validation: {}, uiConfig: {}, placeholder: null, description: null, translations: {},
    archived: false, archivedAt: null, createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z',
    currentValue: fieldType === 'MULTI_SELECT' ? [] : null,
    ...extra,
  };
}

/** One field of every type, given out of order (the page sorts by sortOrder). */
const EVERY_TYPE: RequirementField[] = [
  field('website', 'Website', 'URL', 110),
  field('company', 'Company', 'TEXT', 10, { required: true, placeholder: 'Acme Ltd', description: 'The organisation you work for.', uiConfig: { width: 'half', helpText: '<b>As registered</b>' } }),
  field('about', 'About your team', 'TEXTAREA', 20),
  field('teamSize', 'Team size', 'NUMBER', 30, { validation: { min: 1, max: 1000 }, uiConfig: { width: 'third' } }),
  field('newsletter', 'Send me the newsletter', 'BOOLEAN', 40),
  field('startDate', 'Start date', 'DATE', 50),
  field('plan', 'Plan', 'SELECT', 60, { options: [{ value: 'free', label: 'Free' }, { value: 'team', label: 'Team' }] }),
  field('interests', 'Interests', 'MULTI_SELECT', 70, { required: true, options: [{ value: 'security', label: 'Security' }, { value: 'identity', label: 'Identity' }] }),
  field('country', 'Country', 'COUNTRY', 80, { required: true }),
  field('phone', 'Phone number', 'PHONE', 90, { required: true }),
  field('billingEmail', 'Billing e-mail', 'EMAIL', 100),
];

function status(value: Schemas['OnboardingStatusValue'], missingFields: string[] = [], requirementVersion = 3): Schemas['OnboardingStatus'] {
  return { status: value, requirementVersion, missingFields, canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] };
}

function requirements(fields: RequirementField[], requirementVersion = 3): Schemas['OnboardingRequirements'] {
  return { platformKey: 'DEMO', requirementVersion, language: null, fields };
}

const ME: Schemas['Me'] = {
  user: { id: '8b2e4f60-1c3d-4a5b-9e7f-0a1b2c3d4e5f', sub: 'alice', email: 'alice@example.test', displayName: 'Alice', pictureUrl: null, locale: null },
  permissions: [],
  permissionsReadAt: null,
  authentication: 'session',
  platform: null,
  session: { id: '3f6c1a52-9d4e-4b7a-8c21-5e0f7a9b2d13', expiresAt: '2030-01-01T00:00:00Z' },
  memberships: [{ platformKey: 'DEMO', displayName: 'Demo platform', onboarding: status('NOT_STARTED', ['company']) }],
} as Schemas['Me'];

/** The gateway of a signed-in person on DEMO with the given fields, every call succeeding. */
function gatewayWith(fields: RequirementField[], initial = status('NOT_STARTED', fields.filter((f) => f.required).map((f) => f.fieldKey))): FakeGateway {
  return fakeGateway()
    .on('GET', '/v1/me', { status: 200, body: ME })
    .on('GET', `${BASE}/requirements`, { status: 200, body: requirements(fields) })
    .on('GET', `${BASE}/status`, { status: 200, body: initial })
    .on('PUT', `${BASE}/values`, { status: 200, body: { values: {}, onboarding: status('IN_PROGRESS') } })
    .on('POST', `${BASE}/complete`, { status: 200, body: status('COMPLETE') });
}

function renderPage(gateway: FakeGateway, url = `/onboarding/DEMO?resume=${TX}`) {
  const leave = vi.fn<(url: string) => void>();
  render(
    <SessionProvider config={CONFIG} api={createApi(CONFIG, gateway.fetch)}>
      <MemoryRouter initialEntries={[url]}>
        <Routes>
          <Route path="/onboarding/:platformKey" element={<OnboardingPage leave={leave} />} />
          <Route path="/profile" element={<h1>Profile page</h1>} />
        </Routes>
      </MemoryRouter>
    </SessionProvider>,
  );
  return { leave, user: userEvent.setup({ delay: null }) };
}

const formReady = () => screen.findByRole('form', { name: /Your details for/ });

/** Fills the required fields of EVERY_TYPE (and a few others) by their labels. */
async function fillRequired(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText(/^Company/), 'Acme Ltd');
  await user.click(within(screen.getByRole('group', { name: /Interests/ })).getByLabelText('Security'));
  await user.type(screen.getByLabelText(/^Country/), 'Germany');
  await user.type(screen.getByLabelText(/^Phone number/), '+44 20 7183 8750');
}

function describedTexts(element: Element): string[] {
  return (element.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean).map((id) => document.getElementById(id)?.textContent ?? '');
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('OnboardingPage: the form', { timeout: 20_000 }, () => {
  it('renders an input for every field type in sortOrder, with label, placeholder, description, help text (as text) and width; required fields are marked', async () => {
    renderPage(gatewayWith(EVERY_TYPE));
    const form = await formReady();
    expect(await screen.findByRole('heading', { level: 1, name: 'Your details for Demo platform' })).toBeDefined();
    // Every control, found by its label, in sortOrder.
    const controls = [
      screen.getByRole('textbox', { name: /^Company/ }),
      screen.getByRole('textbox', { name: 'About your team' }),
      screen.getByRole('spinbutton', { name: 'Team size' }),
      screen.getByRole('checkbox', { name: 'Send me the newsletter' }),
      screen.getByLabelText('Start date'),
      screen.getByRole('combobox', { name: 'Plan' }),
      screen.getByRole('group', { name: /^Interests/ }),
      screen.getByRole('combobox', { name: /^Country/ }),
      screen.getByRole('textbox', { name: /^Phone number/ }),
      screen.getByRole('textbox', { name: 'Billing e-mail' }),
      screen.getByRole('textbox', { name: 'Website' }),
    ];
    const order = controls.map((control) => Array.from(form.querySelectorAll('input, select, textarea, fieldset')).indexOf(control));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(controls.map((control) => control.getAttribute('type') ?? control.tagName.toLowerCase())).toEqual(
      ['text', 'textarea', 'number', 'checkbox', 'date', 'select', 'fieldset', 'text', 'tel', 'email', 'url'],
    );
    const company = controls[0] as HTMLInputElement;
    expect(company.placeholder).toBe('Acme Ltd');
    expect(describedTexts(company)).toEqual(['The organisation you work for.', '<b>As registered</b>']);
    expect(form.querySelector('b')).toBeNull();
    expect(company.closest('.field')?.className).toContain('field-half');
    expect(controls[2]!.closest('.field')?.className).toContain('field-third');
    // Required: marked for the eye and named "(required)" for a screen reader.
    expect(screen.getByRole('textbox', { name: /^Company\s*\(required\)$/ })).toBe(company);
    expect(screen.getByRole('textbox', { name: 'Website' })).toBeDefined();
    expect(screen.getByRole('button', { name: 'Save and continue' })).toBeDefined();
  });

  it('happy path: writes the complete value map, completes, requires COMPLETE, then navigates to the resume URL', async () => {
    const gateway = gatewayWith(EVERY_TYPE);
    const { leave, user } = renderPage(gateway);
    await formReady();
    await fillRequired(user);
    await user.type(screen.getByRole('spinbutton', { name: 'Team size' }), '12');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Plan' }), 'Team');
    await user.type(screen.getByRole('textbox', { name: 'Website' }), 'https://acme.example');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));

    await waitFor(() => expect(leave).toHaveBeenCalledWith(RESUME_URL));
    expect(leave).toHaveBeenCalledTimes(1);
    expect(gateway.sequence()).toEqual([`GET ${BASE}/requirements`, `GET ${BASE}/status`, `PUT ${BASE}/values`, `POST ${BASE}/complete`]);
    const put = gateway.calls.find((call) => call.method === 'PUT')!;
    expect(put.body).toEqual({
      values: {
        company: 'Acme Ltd', about: null, teamSize: 12, newsletter: false, startDate: null, plan: 'team',
        interests: ['security'], country: 'DE', phone: '+44 20 7183 8750', billingEmail: null, website: 'https://acme.example',
      },
    });
    // Cookies go with every call; nothing is kept in the browser's storage.
    expect(gateway.calls.every((call) => call.credentials === 'include')).toBe(true);
    expect([localStorage.length, sessionStorage.length]).toEqual([0, 0]);
    expect(screen.getByRole('button', { name: 'Continuing to Demo platform…' })).toBeDefined();
    // Restored from the back/forward cache, the form is usable again.
    act(() => {
      window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    });
    expect(screen.getByRole('button', { name: 'Save and continue' }).getAttribute('aria-disabled')).toBeNull();
  });

  it('shows a busy state while saving and ignores a second submit', async () => {
    const gateway = gatewayWith(EVERY_TYPE);
    const held = deferred({ status: 200, body: { values: {}, onboarding: status('IN_PROGRESS') } });
    gateway.on('PUT', `${BASE}/values`, held.reply);
    const { leave, user } = renderPage(gateway);
    const form = await formReady();
    await fillRequired(user);
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    const busyButton = await screen.findByRole('button', { name: 'Saving…' });
    expect(busyButton.getAttribute('aria-disabled')).toBe('true');
    expect(form.getAttribute('aria-busy')).toBe('true');
    expect(screen.getByText('Saving your details…')).toBeDefined();
    await user.click(busyButton);
    held.release();
    await waitFor(() => expect(leave).toHaveBeenCalledWith(RESUME_URL));
    expect(gateway.calls.filter((call) => call.method === 'PUT')).toHaveLength(1);
  });

  it('without a resume: the button says "Save", and after COMPLETE the person goes to /profile (no resume)', async () => {
    const gateway = gatewayWith(EVERY_TYPE);
    const { leave, user } = renderPage(gateway, '/onboarding/DEMO');
    await formReady();
    await fillRequired(user);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('heading', { name: 'Profile page' })).toBeDefined();
    expect(gateway.sequence().slice(2)).toEqual([`PUT ${BASE}/values`, `POST ${BASE}/complete`]);
    expect(leave).not.toHaveBeenCalled();
  });

  it('a resume that is not a UUID is no resume: it only saves, and says so', async () => {
    const gateway = gatewayWith(EVERY_TYPE);
    const { leave, user } = renderPage(gateway, '/onboarding/DEMO?resume=not-a-uuid');
    await formReady();
    expect(screen.getByText('This link does not continue a sign-in.')).toBeDefined();
    await fillRequired(user);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('heading', { name: 'Profile page' })).toBeDefined();
    expect(leave).not.toHaveBeenCalled();
  });

  it('back from an incomplete resume: shows the form with the current status and never resumes by itself', async () => {
    const fields = [field('company', 'Company', 'TEXT', 1, { required: true }), field('country', 'Country', 'COUNTRY', 2, { required: true, currentValue: 'NL' })];
    const gateway = gatewayWith(fields, status('IN_PROGRESS', ['company']));
    const { leave } = renderPage(gateway);
    await formReady();
    expect(screen.getByText('Demo platform still needs: Company.')).toBeDefined();
    expect((screen.getByRole('combobox', { name: /^Country/ }) as HTMLInputElement).value).toBe('Netherlands');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(leave).not.toHaveBeenCalled();
    expect(gateway.sequence()).toEqual([`GET ${BASE}/requirements`, `GET ${BASE}/status`]);
  });
});

describe('OnboardingPage: failures', { timeout: 20_000 }, () => {
  it('a requirements load failure shows an inline error with a retry action that loads again', async () => {
    const gateway = gatewayWith(EVERY_TYPE).on('GET', `${BASE}/requirements`, { status: 503, body: problem(503, 'DATABASE_UNAVAILABLE', 'The database is unreachable.') }, { status: 200, body: requirements(EVERY_TYPE) });
    const { user } = renderPage(gateway);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('We could not load the details Demo platform asks for.');
    // The code in the person's language, not the gateway's English detail.
    expect(alert.textContent).toContain('The service is unavailable right now. Try again in a moment.');
    expect(screen.queryByRole('form')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await formReady();
    expect(screen.getByRole('textbox', { name: /^Company/ })).toBeDefined();
  });

  it('an empty required multi-select is refused before the write: error beside it and in the summary, which takes the focus; its entry focuses the group', async () => {
    const gateway = gatewayWith(EVERY_TYPE);
    const { leave, user } = renderPage(gateway);
    await formReady();
    await user.type(screen.getByLabelText(/^Company/), 'Acme Ltd');
    await user.type(screen.getByLabelText(/^Country/), 'Germany');
    await user.type(screen.getByLabelText(/^Phone number/), '+44 20 7183 8750');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));

    const summary = await screen.findByRole('alert', { name: 'Some details are missing. Nothing has been saved yet.' });
    await waitFor(() => expect(document.activeElement).toBe(summary));
    const group = screen.getByRole('group', { name: /^Interests/ });
    expect(describedTexts(group)).toContain('Choose at least one option.');
    expect(within(group).getByLabelText('Security').getAttribute('aria-invalid')).toBe('true');
    await user.click(within(summary).getByRole('link', { name: 'Interests: Choose at least one option.' }));
    expect(document.activeElement).toBe(within(group).getByLabelText('Security'));
    // No write, no completion, no navigation.
    expect(gateway.calls.filter((call) => call.method !== 'GET')).toEqual([]);
    expect(leave).not.toHaveBeenCalled();
    // What was entered stays.
    expect((screen.getByLabelText(/^Company/) as HTMLInputElement).value).toBe('Acme Ltd');
  });

  it('a country name that is no country is refused before the write instead of being dropped', async () => {
    const fields = [field('country', 'Country', 'COUNTRY', 1)];
    const gateway = gatewayWith(fields);
    const { user } = renderPage(gateway);
    await formReady();
    await user.type(screen.getByLabelText('Country'), 'Atlantis');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    const summary = await screen.findByRole('alert', { name: /Nothing has been saved yet/ });
    expect(within(summary).getByRole('link', { name: 'Country: Choose a country from the list.' })).toBeDefined();
    expect(gateway.calls.filter((call) => call.method === 'PUT')).toEqual([]);
  });

  it("a gateway validation failure shows the gateway's message above the form and each field's message beside its input, keeping what was entered", async () => {
    const gateway = gatewayWith(EVERY_TYPE).on('PUT', `${BASE}/values`, {
      status: 400,
      body: problem(400, 'VALIDATION_FAILED', 'One or more values are not valid; nothing was stored.', [
        { pointer: '/body/values/phone', reason: 'INVALID_PHONE', message: 'must be a valid international phone number starting with +' },
        { pointer: '/body/values/interests/0', reason: 'NOT_AN_OPTION', message: 'must be one of the options' },
      ]),
    });
    const { leave, user } = renderPage(gateway);
    await formReady();
    await fillRequired(user);
    // A number of a possible length (the page lets it through), which the gateway refuses.
    await user.clear(screen.getByLabelText(/^Phone number/));
    await user.type(screen.getByLabelText(/^Phone number/), '+44 20 0000 0000');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));

    const summary = await screen.findByRole('alert', { name: 'Some details were not accepted. Nothing was saved.' });
    await waitFor(() => expect(document.activeElement).toBe(summary));
    const phone = screen.getByLabelText(/^Phone number/) as HTMLInputElement;
    // In the page's own voice (an instruction), beside the input and in the summary alike.
    expect(describedTexts(phone)).toContain(PHONE_MESSAGE);
    expect(phone.getAttribute('aria-invalid')).toBe('true');
    expect(describedTexts(screen.getByRole('group', { name: /^Interests/ }))).toContain('Choose one of the options.');
    expect(within(summary).getAllByRole('link').map((link) => link.textContent)).toEqual([
      `Phone number: ${PHONE_MESSAGE}`,
      'Interests: Choose one of the options.',
    ]);
    await user.click(within(summary).getByRole('link', { name: /^Phone number/ }));
    expect(document.activeElement).toBe(phone);
    // Kept as entered.
    expect(phone.value).toBe('+44 20 0000 0000');
    expect((screen.getByLabelText(/^Company/) as HTMLInputElement).value).toBe('Acme Ltd');
    expect((screen.getByLabelText(/^Country/) as HTMLInputElement).value).toBe('Germany');
    expect((within(screen.getByRole('group', { name: /^Interests/ })).getByLabelText('Security') as HTMLInputElement).checked).toBe(true);
    // Never completed, never resumed.
    expect(gateway.sequence().some((call) => call.startsWith('POST'))).toBe(false);
    expect(leave).not.toHaveBeenCalled();

    // Fixed, it goes through.
    gateway.on('PUT', `${BASE}/values`, { status: 200, body: { values: {}, onboarding: status('IN_PROGRESS') } });
    await user.clear(phone);
    await user.type(phone, '+44 20 7183 8750');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await waitFor(() => expect(leave).toHaveBeenCalledWith(RESUME_URL));
  });

  it('a complete that answers a status other than COMPLETE keeps the person on the form and names the missing fields by label, including a field added meanwhile', async () => {
    const fields = [field('company', 'Company', 'TEXT', 1, { required: true })];
    const added = field('vatNumber', 'VAT number', 'TEXT', 2, { required: true });
    const gateway = gatewayWith(fields)
      .on('GET', `${BASE}/requirements`, { status: 200, body: requirements(fields) }, { status: 200, body: requirements([...fields, added], 4) })
      .on('POST', `${BASE}/complete`, { status: 200, body: status('IN_PROGRESS', ['vatNumber'], 4) }, { status: 200, body: status('COMPLETE', [], 4) });
    const { leave, user } = renderPage(gateway);
    await formReady();
    await user.type(screen.getByLabelText(/^Company/), 'Acme Ltd');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));

    const summary = await screen.findByRole('alert', { name: /Your details were saved, but Demo platform still needs VAT number\./ });
    expect(summary.textContent).toContain('The form changed while you were filling it in.');
    const vat = screen.getByRole('textbox', { name: /^VAT number/ });
    expect(describedTexts(vat)).toContain('Fill this in.');
    expect((screen.getByLabelText(/^Company/) as HTMLInputElement).value).toBe('Acme Ltd');
    expect(leave).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Save and continue' }).getAttribute('aria-disabled')).toBeNull();

    await user.type(vat, 'GB123456789');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await waitFor(() => expect(leave).toHaveBeenCalledWith(RESUME_URL));
    expect(gateway.calls.filter((call) => call.method === 'PUT').at(-1)!.body).toEqual({ values: { company: 'Acme Ltd', vatNumber: 'GB123456789' } });
  });

  it.each([
    ['the requirements', 'GET', 'requirements'],
    ['the write', 'PUT', 'values'],
    ['the complete', 'POST', 'complete'],
  ] as const)('a 401 from %s shows "session expired" with a button that signs in again, back to this page', async (_name, method, operation) => {
    const gateway = gatewayWith(EVERY_TYPE).on(method, `${BASE}/${operation}`, { status: 401, body: problem(401, 'SESSION_EXPIRED', 'The gateway session has expired.') });
    const { leave, user } = renderPage(gateway);
    if (method !== 'GET') {
      await formReady();
      await fillRequired(user);
      await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    }
    const heading = await screen.findByRole('heading', { level: 1, name: 'Your session has expired' });
    await waitFor(() => expect(document.activeElement?.contains(heading)).toBe(true));
    // With a resume: the login can no longer continue; say how to get back to the platform.
    expect(screen.getByText(/Sign in again here and save your details; then go back to Demo platform and sign in there again/)).toBeDefined();
    await user.click(screen.getByRole('button', { name: 'Sign in again' }));
    expect(leave).toHaveBeenCalledWith(`/auth/login?returnTo=${encodeURIComponent('/onboarding/DEMO')}`);
    expect(leave).toHaveBeenCalledTimes(1);
  });

  it('a 401 without a resume says the person comes back to this page', async () => {
    const gateway = gatewayWith(EVERY_TYPE).on('GET', `${BASE}/status`, { status: 401, body: problem(401, 'UNAUTHENTICATED', 'Sign in.') });
    renderPage(gateway, '/onboarding/DEMO');
    expect(await screen.findByText('After signing in you come back to your details for Demo platform.')).toBeDefined();
  });

  it.each([
    ['a network failure', 'network-error' as const, 'The gateway could not be reached.'],
    ['a 500', { status: 500, body: problem(500, 'INTERNAL_ERROR', 'Unexpected failure.') }, 'Something went wrong on our side. Try again in a moment.'],
    ['a code the account center has no words for', { status: 500, body: problem(500, 'NOT_IMPLEMENTED', 'Not there yet.') }, 'Not there yet.'],
  ])('%s on the write is never completion: no complete, no navigation, the values stay', async (_name, reply, text) => {
    const gateway = gatewayWith(EVERY_TYPE).on('PUT', `${BASE}/values`, reply);
    const { leave, user } = renderPage(gateway);
    await formReady();
    await fillRequired(user);
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    const summary = await screen.findByRole('alert', { name: /Your details could not be saved\./ });
    expect(summary.textContent).toContain(text);
    expect(gateway.sequence().some((call) => call.startsWith('POST'))).toBe(false);
    expect(leave).not.toHaveBeenCalled();
    expect((screen.getByLabelText(/^Company/) as HTMLInputElement).value).toBe('Acme Ltd');
    expect(screen.getByRole('button', { name: 'Save and continue' })).toBeDefined();
  });

  it('a network failure on the complete is never completion', async () => {
    const gateway = gatewayWith(EVERY_TYPE).on('POST', `${BASE}/complete`, 'network-error');
    const { leave, user } = renderPage(gateway);
    await formReady();
    await fillRequired(user);
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    const summary = await screen.findByRole('alert', { name: /Your details were saved, but they could not be confirmed as complete\./ });
    expect(summary.textContent).toContain('The gateway could not be reached.');
    expect(leave).not.toHaveBeenCalled();
  });

  it('a write refused because the schema changed (archived field) reads the form again and keeps the rest', async () => {
    const fields = [field('company', 'Company', 'TEXT', 1, { required: true }), field('legacy', 'Legacy code', 'TEXT', 2)];
    const gateway = gatewayWith(fields)
      .on('GET', `${BASE}/requirements`, { status: 200, body: requirements(fields) }, { status: 200, body: requirements([fields[0]!], 4) })
      .on('PUT', `${BASE}/values`, {
        status: 400,
        body: problem(400, 'VALIDATION_FAILED', 'One or more values are not valid; nothing was stored.', [
          { pointer: '/body/values/legacy', reason: 'ARCHIVED_FIELD', message: 'is an archived field and can no longer be written' },
        ]),
      }, { status: 200, body: { values: {}, onboarding: status('IN_PROGRESS') } });
    const { leave, user } = renderPage(gateway);
    await formReady();
    await user.type(screen.getByLabelText(/^Company/), 'Acme Ltd');
    await user.type(screen.getByLabelText('Legacy code'), 'X1');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    const summary = await screen.findByRole('alert', { name: /The form changed while you were filling it in/ });
    expect(summary).toBeDefined();
    expect(screen.queryByLabelText('Legacy code')).toBeNull();
    expect((screen.getByLabelText(/^Company/) as HTMLInputElement).value).toBe('Acme Ltd');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await waitFor(() => expect(leave).toHaveBeenCalledWith(RESUME_URL));
    expect(gateway.calls.filter((call) => call.method === 'PUT').at(-1)!.body).toEqual({ values: { company: 'Acme Ltd' } });
  });
});

describe('OnboardingPage: a platform with no fields', { timeout: 20_000 }, () => {
  it('with a resume: says there is nothing to fill in, and continues (complete, then resume) or goes to the profile', async () => {
    const gateway = gatewayWith([], status('COMPLETE'));
    const { leave, user } = renderPage(gateway);
    await formReady();
    expect(screen.getByText('Demo platform asks for no details, so there is nothing to fill in.')).toBeDefined();
    expect(screen.getByRole('link', { name: 'Go to your profile' }).getAttribute('href')).toBe('/profile');
    await user.click(screen.getByRole('button', { name: 'Continue to Demo platform' }));
    await waitFor(() => expect(leave).toHaveBeenCalledWith(RESUME_URL));
    expect(gateway.sequence().slice(2)).toEqual([`POST ${BASE}/complete`]);
  });

  it('without a resume: nothing to fill in, and the way to the profile', async () => {
    renderPage(gatewayWith([], status('COMPLETE')), '/onboarding/DEMO');
    await formReady();
    expect(screen.getByText('Demo platform asks for no details, so there is nothing to fill in.')).toBeDefined();
    expect(screen.queryByRole('button', { name: /Continue|Save/ })).toBeNull();
    expect(screen.getByRole('link', { name: 'Go to your profile' })).toBeDefined();
  });
});

describe('OnboardingPage: asking before sharing (issue 36)', { timeout: 20_000 }, () => {
  const offered = () => [field('mobile', 'Mobile', 'PHONE', 10, {
    required: true, source: 'PROFILE_FIELD', profileField: 'phone', sharing: 'ask',
    sharedOffer: { value: '+442071838750', fromPlatform: { platformKey: 'OTHER', displayName: 'Other platform' } },
  })];
  const writes = (gateway: FakeGateway) => gateway.calls.filter((call) => call.method === 'PUT').map((call) => call.body);

  it('asks before using the value given to another platform; confirming sends only the key', async () => {
    const gateway = gatewayWith(offered());
    const { user } = renderPage(gateway);
    await formReady();
    const group = screen.getByRole('group', { name: /^Mobile/ });
    expect(describedTexts(group).join(' ')).toContain('You gave Other platform this: +44 20 7183 8750. Use it for Demo platform too?');
    // Not answered: nothing is shared, the person is asked to choose.
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    expect(await screen.findAllByText('Choose whether to use it, or enter another one.')).not.toHaveLength(0);
    expect(writes(gateway)).toEqual([]);
    await user.click(within(group).getByLabelText('Yes, use +44 20 7183 8750'));
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await waitFor(() => expect(writes(gateway)).toEqual([{ values: {}, acceptShared: ['mobile'] }]));
  });

  it('"enter another one" shows the field\'s own input, and its value is written as this platform\'s', async () => {
    const gateway = gatewayWith(offered());
    const { user } = renderPage(gateway);
    await formReady();
    await user.click(screen.getByLabelText('No, enter another one'));
    await user.type(screen.getByRole('textbox', { name: /^Mobile/ }), '+49 30 1234567');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await waitFor(() => expect(writes(gateway)).toEqual([{ values: { mobile: '+49 30 1234567' } }]));
  });
});
