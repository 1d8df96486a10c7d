import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeGateway, json, me, PROFILE, problem, renderProfilePage, SLOW } from './testGateway.tsx';

const details = async () => within(await screen.findByRole('region', { name: 'Personal details' }));

describe('profile: personal details', SLOW, () => {
  it('shows the profile in labelled inputs, the country by name and the e-mail read-only', async () => {
    renderProfilePage(fakeGateway());
    const form = await details();
    expect((form.getByRole('textbox', { name: 'First name' }) as HTMLInputElement).value).toBe('Alice');
    expect((form.getByRole('textbox', { name: 'Display name' }) as HTMLInputElement).value).toBe('Alice L.');
    expect((form.getByRole('combobox', { name: 'Country' }) as HTMLInputElement).value).toBe('United Kingdom');
    expect(form.getByLabelText('Date of birth').getAttribute('type')).toBe('date');
    expect(form.getByRole('textbox', { name: 'Phone' }).getAttribute('type')).toBe('tel');
    // WCAG 1.3.5: what each input asks for, so the browser can fill it in.
    expect(form.getByRole('textbox', { name: 'First name' }).getAttribute('autocomplete')).toBe('given-name');
    expect(form.getByRole('textbox', { name: 'Last name' }).getAttribute('autocomplete')).toBe('family-name');
    expect(form.getByLabelText('Date of birth').getAttribute('autocomplete')).toBe('bday');
    const language = form.getByRole('textbox', { name: 'Language' });
    expect(document.getElementById(language.getAttribute('aria-describedby')!)?.textContent).toMatch(/en-GB/);
    expect(form.getByText('alice@example.com')).toBeDefined();
    expect(form.queryByRole('textbox', { name: /e-mail/i })).toBeNull();
  });

  it('saves only what changed, shows the stored (normalised) values and says it was saved', async () => {
    const gateway = fakeGateway({
      'PATCH /v1/profile/me': (call) => json(200, { ...PROFILE, ...(call.body as object), phone: '+442071838750', country: 'NL', updatedAt: '2025-06-02T10:00:00Z' }),
    });
    renderProfilePage(gateway);
    const form = await details();
    const user = userEvent.setup();
    await user.clear(form.getByRole('textbox', { name: 'Display name' }));
    await user.type(form.getByRole('textbox', { name: 'Phone' }), '+44 20 7183 8750');
    const country = form.getByRole('combobox', { name: 'Country' });
    await user.clear(country);
    await user.type(country, 'Netherlands');
    await user.type(form.getByRole('textbox', { name: 'Language' }), 'nl-NL');
    await user.click(form.getByRole('button', { name: 'Save profile' }));

    expect(await form.findByText('Your profile was saved.')).toBeDefined();
    expect(gateway.callsTo('PATCH /v1/profile/me').map((call) => call.body)).toEqual([
      { displayName: null, phone: '+44 20 7183 8750', country: 'NL', locale: 'nl-NL' },
    ]);
    expect((form.getByRole('textbox', { name: 'Phone' }) as HTMLInputElement).value).toBe('+442071838750');
    expect((form.getByRole('combobox', { name: 'Country' }) as HTMLInputElement).value).toBe('Netherlands');
  });

  it('sends nothing when nothing changed', async () => {
    const gateway = fakeGateway();
    renderProfilePage(gateway);
    const form = await details();
    await userEvent.click(form.getByRole('button', { name: 'Save profile' }));
    expect(await form.findByText(/nothing to save/)).toBeDefined();
    expect(gateway.callsTo('PATCH /v1/profile/me')).toEqual([]);
  });

  it('a refusal: the message above the form takes the focus, each message is beside its input, what was typed stays', async () => {
    const gateway = fakeGateway({
      'PATCH /v1/profile/me': problem(400, 'VALIDATION_FAILED', 'One or more properties are not valid; nothing was changed.', [
        { pointer: '/body/phone', reason: 'INVALID_PHONE', message: 'must be a valid international phone number starting with +' },
        { pointer: '/body/firstName', reason: 'TOO_LONG', message: 'must be at most 100 characters' },
        { pointer: '/body/locale', message: 'must match pattern "^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$"' },
      ]),
    });
    renderProfilePage(gateway);
    const form = await details();
    const user = userEvent.setup();
    const phone = form.getByRole('textbox', { name: 'Phone' });
    await user.type(phone, '+1234');
    await user.type(form.getByRole('textbox', { name: 'Language' }), 'english!');
    await user.click(form.getByRole('button', { name: 'Save profile' }));

    const summary = await screen.findByRole('alert', { name: /Your profile was not saved/ });
    await waitFor(() => expect(document.activeElement).toBe(summary));
    const described = (input: HTMLElement) => (input.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent).join(' | ');
    expect(phone.getAttribute('aria-invalid')).toBe('true');
    expect(described(phone)).toMatch(/^Enter a valid phone number in international format/);
    expect(described(form.getByRole('textbox', { name: 'First name' }))).toMatch(/^First name must be at most 100 characters\./);
    expect(described(form.getByRole('textbox', { name: 'Language' }))).toMatch(/^Enter a language tag such as en-GB/);
    // kept as typed
    expect((phone as HTMLInputElement).value).toBe('+1234');
    expect((form.getByRole('textbox', { name: 'Language' }) as HTMLInputElement).value).toBe('english!');
    // the summary's links move the focus to the inputs
    await user.click(within(summary).getByRole('link', { name: /^Phone:/ }));
    expect(document.activeElement).toBe(phone);
    expect(form.queryByText('Your profile was saved.')).toBeNull();
  });

  it('a country name that is no country is refused here, not sent (the stored one is not cleared)', async () => {
    const gateway = fakeGateway();
    renderProfilePage(gateway);
    const form = await details();
    const user = userEvent.setup();
    const country = form.getByRole('combobox', { name: 'Country' });
    await user.clear(country);
    await user.type(country, 'Atlantis');
    await user.click(form.getByRole('button', { name: 'Save profile' }));
    expect(await screen.findByRole('alert', { name: /Check the highlighted details/ })).toBeDefined();
    expect(gateway.callsTo('PATCH /v1/profile/me')).toEqual([]);
    expect(form.getAllByText('Choose a country from the list.').length).toBeGreaterThan(0);
  });

  it('a failure without field errors says what happened', async () => {
    renderProfilePage(fakeGateway({ 'PATCH /v1/profile/me': problem(503, 'DATABASE_UNAVAILABLE', 'The database is not available. Try again shortly.') }));
    const form = await details();
    await userEvent.type(form.getByRole('textbox', { name: 'Last name' }), 'x');
    await userEvent.click(form.getByRole('button', { name: 'Save profile' }));
    expect(await screen.findByRole('alert', { name: 'Your profile was not saved. The service is unavailable right now. Try again in a moment.' })).toBeDefined();
  });

  it('renders values as text, never as HTML', async () => {
    renderProfilePage(fakeGateway({ 'GET /v1/profile/me': json(200, { ...PROFILE, email: '<img src=x onerror=alert(1)>@example.com', firstName: '<b>Bold</b>' }) }));
    const form = await details();
    expect(form.getByText('<img src=x onerror=alert(1)>@example.com')).toBeDefined();
    expect(document.querySelector('b')).toBeNull();
    expect(document.querySelector('img[src="x"]')).toBeNull();
  });

  it('a profile that cannot be loaded says so, with a retry', async () => {
    const gateway = fakeGateway({ 'GET /v1/profile/me': [problem(503, 'DATABASE_UNAVAILABLE', 'The database is not available.'), json(200, PROFILE)] });
    renderProfilePage(gateway);
    expect(await screen.findByText('We could not load your profile.')).toBeDefined();
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('region', { name: 'Personal details' })).toBeDefined();
  });

  it("shows the details in the profile's language, the country by its German name", SLOW, async () => {
    const caller = me();
    renderProfilePage(fakeGateway({
      'GET /v1/me': json(200, { ...caller, user: { ...caller.user, locale: 'de-DE' } }),
      'GET /v1/profile/me': json(200, { ...PROFILE, locale: 'de-DE', country: 'DE' }),
    }));
    expect(await screen.findByRole('heading', { name: 'Ihr Profil', level: 1 })).toBeDefined();
    expect(await screen.findByRole('heading', { name: 'Persönliche Angaben' })).toBeDefined();
    expect((await screen.findByRole('combobox', { name: 'Land' }) as HTMLInputElement).value).toBe('Deutschland');
    expect(screen.getByRole('textbox', { name: 'Vorname' })).toBeDefined();
    expect(screen.getByRole('button', { name: 'Profil speichern' })).toBeDefined();
  });
});
