import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeGateway, platformFixture, problem, renderPlatforms, type SentRequest } from './testing.tsx';
import { buildUpdateRequest, formValuesOf, mapProblemToForm, newReturnUrlRow } from './platformForm.ts';
import { ApiProblem } from '../../../api.ts';
import { englishIntl, intlFor } from '../../../i18n/useIntl.ts';

const created = (body: Record<string, unknown>) => ({
  status: 201,
  body: { ...platformFixture(), ...body, callbackUrl: body.callbackUrl ?? null, clientId: 'pc_new_client', clientSecret: 'pcs_the_new_secret_0123456789abcdefghijklmnop', requirementVersion: 0 },
});

/** The description (hints and errors) a screen reader reads with the input. */
function descriptionOf(input: HTMLElement): string {
  return (input.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');
}

/** Types into a field by pasting (long values typed key by key are slow on a busy machine). */
async function paste(user: ReturnType<typeof userEvent.setup>, input: HTMLElement, text: string) {
  await user.click(input);
  await user.paste(text);
}

async function fillRequired(user: ReturnType<typeof userEvent.setup>) {
  await user.type(await screen.findByLabelText(/Platform key/), 'demo_app');
  await paste(user, screen.getByLabelText(/Display name/), 'Demo app');
  await paste(user, screen.getByLabelText('Callback URL'), 'https://demo.example.test/auth/callback');
  await paste(user, screen.getByLabelText('Return URL 1'), 'https://demo.example.test/');
}

describe('platform form: register', { timeout: 20_000 }, () => {
  it('upper-cases the key as it is typed, defaults to central, and sends every property', async () => {
    const gateway = fakeGateway((request) => (request.method === 'POST' ? created(request.body as Record<string, unknown>) : undefined));
    renderPlatforms('/admin/platforms/new', gateway.fetchImpl);
    const user = userEvent.setup();
    await fillRequired(user);
    expect((screen.getByLabelText(/Platform key/) as HTMLInputElement).value).toBe('DEMO_APP');
    expect((screen.getByLabelText('Onboarding mode') as HTMLSelectElement).value).toBe('central');
    expect((screen.getByLabelText('Central onboarding enabled') as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText('Require a handoff challenge') as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByText(/login CSRF/)).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Add return URL' }));
    await paste(user, screen.getByLabelText('Return URL 2'), 'https://demo.example.test/app/');
    await user.click(screen.getByRole('button', { name: 'Register platform' }));

    await screen.findByRole('heading', { name: 'Client credentials' });
    const posts = gateway.sent.filter((request) => request.method === 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.path).toBe('/v1/platforms');
    expect(posts[0]!.body).toEqual({
      platformKey: 'DEMO_APP',
      displayName: 'Demo app',
      callbackUrl: 'https://demo.example.test/auth/callback',
      allowedReturnUrls: ['https://demo.example.test/', 'https://demo.example.test/app/'],
      defaultOnboardingMode: 'central',
      centralOnboardingEnabled: true,
      handoffChallengeRequired: true,
      metadata: {},
      active: true,
    });
  });

  it('keeps the caret where it was when upper-casing a key typed in the middle', async () => {
    renderPlatforms('/admin/platforms/new', fakeGateway(() => undefined).fetchImpl);
    const user = userEvent.setup();
    const key = (await screen.findByLabelText(/Platform key/)) as HTMLInputElement;
    await user.type(key, 'ab');
    key.setSelectionRange(1, 1);
    await user.type(key, 'x', { initialSelectionStart: 1, initialSelectionEnd: 1 });
    expect(key.value).toBe('AXB');
    expect(key.selectionStart).toBe(2);
  });

  it('edits the return URLs as a list: rows are added and removed, labelled by position, and the focus follows', async () => {
    renderPlatforms('/admin/platforms/new', fakeGateway(() => undefined).fetchImpl);
    const user = userEvent.setup();
    await paste(user, await screen.findByLabelText('Return URL 1'), 'https://one.test/');
    await user.click(screen.getByRole('button', { name: 'Add return URL' }));
    expect(document.activeElement).toBe(screen.getByLabelText('Return URL 2'));
    await user.paste('https://two.test/');
    await user.click(screen.getByRole('button', { name: 'Add return URL' }));
    await user.paste('https://three.test/');

    await user.click(screen.getByRole('button', { name: 'Remove return URL 2' }));
    expect((screen.getByLabelText('Return URL 1') as HTMLInputElement).value).toBe('https://one.test/');
    expect((screen.getByLabelText('Return URL 2') as HTMLInputElement).value).toBe('https://three.test/');
    expect(screen.queryByLabelText('Return URL 3')).toBeNull();
    // the row that took the removed one's place has the focus
    expect(document.activeElement).toBe(screen.getByLabelText('Return URL 2'));

    await user.click(screen.getByRole('button', { name: 'Remove return URL 2' }));
    await user.click(screen.getByRole('button', { name: 'Remove return URL 1' }));
    expect(screen.getByText('No return URL yet.')).toBeDefined();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Add return URL' }));
  });

  it("shows the registry's errors beside their fields, a return URL's beside its row; the summary takes the focus", async () => {
    const gateway = fakeGateway((request) =>
      request.method === 'POST'
        ? problem(400, 'VALIDATION_FAILED', 'One or more fields are invalid.', [
            { pointer: '/body/allowedReturnUrls/1', message: 'must not contain a fragment' },
            { pointer: '/body/callbackUrl', message: 'must not contain userinfo' },
            { pointer: '/body/metadata/a/__proto__', message: 'is a reserved key' },
          ])
        : undefined,
    );
    renderPlatforms('/admin/platforms/new', gateway.fetchImpl);
    const user = userEvent.setup();
    await fillRequired(user);
    // an empty row between the two is not sent: pointer index 1 is the third row
    await user.click(screen.getByRole('button', { name: 'Add return URL' }));
    await user.click(screen.getByRole('button', { name: 'Add return URL' }));
    await paste(user, screen.getByLabelText('Return URL 3'), 'https://demo.example.test/#top');
    await user.click(screen.getByRole('button', { name: 'Register platform' }));

    const summary = await screen.findByRole('alert', { name: /not registered/ });
    expect(document.activeElement).toBe(summary);
    expect((gateway.sent[0]!.body as { allowedReturnUrls: string[] }).allowedReturnUrls).toEqual(['https://demo.example.test/', 'https://demo.example.test/#top']);

    const third = screen.getByLabelText('Return URL 3');
    expect(third.getAttribute('aria-invalid')).toBe('true');
    expect(descriptionOf(third)).toContain('Must not contain a fragment.');
    expect(screen.getByLabelText('Return URL 2').getAttribute('aria-invalid')).toBeNull();
    expect(descriptionOf(screen.getByLabelText('Callback URL'))).toContain('Must not contain userinfo.');
    expect(descriptionOf(screen.getByLabelText('Metadata (JSON)'))).toContain('Is a reserved key.');

    // each summary entry moves the focus to its input
    await user.click(within(summary).getByRole('link', { name: /Return URL 3/ }));
    expect(document.activeElement).toBe(third);
    // correcting the row clears its error
    await user.type(third, 'x');
    expect(third.getAttribute('aria-invalid')).toBeNull();
  });

  it('a duplicate key (409 CONFLICT) is shown beside the key', async () => {
    const gateway = fakeGateway((request) =>
      request.method === 'POST' ? problem(409, 'CONFLICT', 'A platform with the key DEMO_APP already exists.') : undefined,
    );
    renderPlatforms('/admin/platforms/new', gateway.fetchImpl);
    const user = userEvent.setup();
    await fillRequired(user);
    await user.click(screen.getByRole('button', { name: 'Register platform' }));
    const summary = await screen.findByRole('alert', { name: /the key DEMO_APP is taken/ });
    expect(summary).toBeDefined();
    const key = screen.getByLabelText(/Platform key/);
    expect(key.getAttribute('aria-invalid')).toBe('true');
    expect(descriptionOf(key)).toContain('A platform with the key DEMO_APP already exists.');
  });

  it('checks the key and the metadata before sending anything', async () => {
    const gateway = fakeGateway(() => undefined);
    renderPlatforms('/admin/platforms/new', gateway.fetchImpl);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/Platform key/), '1abc');
    await user.type(screen.getByLabelText(/Display name/), 'Demo');
    const metadata = screen.getByLabelText('Metadata (JSON)');
    await user.clear(metadata);
    await user.type(metadata, '[[1, 2]');
    await user.click(screen.getByRole('button', { name: 'Register platform' }));

    await screen.findByRole('alert', { name: /correct the marked fields/ });
    expect(descriptionOf(screen.getByLabelText(/Platform key/))).toContain('Use an uppercase letter first');
    expect(descriptionOf(metadata)).toContain('Enter a JSON object');
    expect(gateway.sent).toEqual([]);
  });

  it('"Create inactive" sends active: false', async () => {
    const gateway = fakeGateway((request) => (request.method === 'POST' ? created({ ...(request.body as object), active: false }) : undefined));
    renderPlatforms('/admin/platforms/new', gateway.fetchImpl);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/Platform key/), 'draft');
    await user.type(screen.getByLabelText(/Display name/), 'Draft');
    await user.click(screen.getByLabelText('Create inactive'));
    await user.click(screen.getByRole('button', { name: 'Register platform' }));
    await screen.findByRole('heading', { name: 'Client credentials' });
    expect(gateway.sent[0]!.body).toMatchObject({ platformKey: 'DRAFT', active: false, allowedReturnUrls: [] });
    expect(gateway.sent[0]!.body).not.toHaveProperty('callbackUrl');
  });
});

describe('platform form: edit', { timeout: 20_000 }, () => {
  const stored = platformFixture();
  const handler = (patches: SentRequest[]) => (request: SentRequest) => {
    if (request.method === 'GET' && request.path === '/v1/platforms/DEMO_APP') return { status: 200, body: stored };
    if (request.method === 'PATCH') {
      patches.push(request);
      return { status: 200, body: { ...stored, ...(request.body as object) } };
    }
    if (request.path === '/v1/audit-events') return { status: 200, body: { items: [], nextCursor: null } };
    return undefined;
  };

  it('shows the key read-only and sends only the changed properties', async () => {
    const patches: SentRequest[] = [];
    renderPlatforms('/admin/platforms/DEMO_APP/edit', fakeGateway(handler(patches)).fetchImpl);
    const user = userEvent.setup();
    const key = (await screen.findByLabelText(/Platform key/)) as HTMLInputElement;
    expect(key.readOnly).toBe(true);
    expect(key.value).toBe('DEMO_APP');
    expect(screen.queryByLabelText('Create inactive')).toBeNull();

    const name = screen.getByLabelText(/Display name/);
    await user.clear(name);
    await user.paste('Demo app (staging)');
    await user.click(screen.getByRole('button', { name: 'Remove return URL 2' }));
    await user.click(screen.getByRole('button', { name: 'Save changes' }));

    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/admin/platforms/DEMO_APP'));
    expect(patches).toHaveLength(1);
    expect(patches[0]!.body).toEqual({ displayName: 'Demo app (staging)', allowedReturnUrls: ['https://demo.example.test/'] });
    expect(await screen.findByText('Saved: display name and allowed return URLs changed.')).toBeDefined();
  });

  it('turning the handoff challenge off shows a warning read with the checkbox, and sends only that change', async () => {
    const patches: SentRequest[] = [];
    renderPlatforms('/admin/platforms/DEMO_APP/edit', fakeGateway(handler(patches)).fetchImpl);
    const user = userEvent.setup();
    const checkbox = (await screen.findByLabelText('Require a handoff challenge')) as HTMLInputElement;
    expect(checkbox.checked).toBe(true);
    expect(descriptionOf(checkbox)).not.toMatch(/login CSRF/);
    await user.click(checkbox);
    expect(checkbox.checked).toBe(false);
    expect(screen.getByText(/^Warning: without a required handoff challenge/)).toBeDefined();
    expect(descriptionOf(checkbox)).toMatch(/login CSRF/);
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(patches).toHaveLength(1));
    expect(patches[0]!.body).toEqual({ handoffChallengeRequired: false });
    expect(await screen.findByText('Saved: handoff challenge requirement changed.')).toBeDefined();
  });

  it('sends nothing when nothing changed, and says so', async () => {
    const patches: SentRequest[] = [];
    renderPlatforms('/admin/platforms/DEMO_APP/edit', fakeGateway(handler(patches)).fetchImpl);
    const user = userEvent.setup();
    await screen.findByLabelText(/Platform key/);
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText('Nothing to save: no property was changed.')).toBeDefined();
    expect(patches).toEqual([]);
  });
});

describe('platform form model', () => {
  it('compares metadata as JSON (key order does not count) and clears emptied nullable properties with null', () => {
    const platform = platformFixture({ metadata: { b: 1, a: { y: 2, x: [1, 2] } }, platformOnboardingPath: '/onboarding' });
    const values = formValuesOf(platform);
    values.metadata = '{"a": {"x": [1, 2], "y": 2}, "b": 1}';
    expect(buildUpdateRequest(englishIntl(), platform, values).body).toEqual({});
    values.onboardingPath = '  ';
    values.callbackUrl = '';
    expect(buildUpdateRequest(englishIntl(), platform, values).body).toEqual({ platformOnboardingPath: null, callbackUrl: null });
  });

  it('sends a changed default language, and null when it is emptied', () => {
    const platform = platformFixture({ defaultLanguage: 'de' });
    const values = formValuesOf(platform);
    expect(values.defaultLanguage).toBe('de');
    expect(buildUpdateRequest(englishIntl(), platform, values).body).toEqual({});
    values.defaultLanguage = ' pt-BR ';
    expect(buildUpdateRequest(englishIntl(), platform, values).body).toEqual({ defaultLanguage: 'pt-BR' });
    values.defaultLanguage = '';
    expect(buildUpdateRequest(englishIntl(), platform, values).body).toEqual({ defaultLanguage: null });
  });

  it('maps pointers to rows through the sent index, and keeps what fits no input apart', () => {
    const rows = [newReturnUrlRow('https://a.test/'), newReturnUrlRow(''), newReturnUrlRow('https://b.test/')];
    const failure = new ApiProblem(400, {
      type: 'about:blank', title: 'Validation failed', status: 400, code: 'VALIDATION_FAILED', requestId: 'r',
      errors: [
        { pointer: '/body/allowedReturnUrls/1', message: 'must match pattern "^[Hh]…"', reason: 'PATTERN' },
        { pointer: '/body/colour', message: 'is not a known property', reason: 'UNKNOWN_PROPERTY' },
      ],
    });
    const { errors, other } = mapProblemToForm(englishIntl(), failure, [rows[0]!.id, rows[2]!.id], 'create');
    expect([...errors.keys()]).toEqual([`returnUrl:${rows[2]!.id}`]);
    // a pattern from the contract is explained in words
    expect(errors.get(`returnUrl:${rows[2]!.id}`)).toBe('Must be an absolute http or https URL without a user name or password, a ?query or a #fragment.');
    expect(other).toEqual(['colour: is not a known property']);
    // and in German, from the German catalogue
    const german = mapProblemToForm(intlFor({ language: 'de', locale: 'de' }), failure, [rows[0]!.id, rows[2]!.id], 'create');
    expect(german.errors.get(`returnUrl:${rows[2]!.id}`)).toBe('Muss eine absolute http- oder https-URL sein, ohne Benutzername oder Passwort, ?Query oder #Fragment.');
  });
});
