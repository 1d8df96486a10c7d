import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { definition, FakeGateway, KEY, problem, renderAdmin } from './testSupport.tsx';

const WRITER = ['onboarding:schema:read', 'onboarding:schema:write'] as const;

function company() {
  return definition({ fieldKey: 'company', label: 'Company', required: true, sortOrder: 10 });
}

async function openNew(gateway = new FakeGateway([company()])) {
  renderAdmin(`/admin/onboarding/${KEY}/new`, gateway, [...WRITER]);
  await screen.findByRole('heading', { name: 'Add a field', level: 1 });
  await screen.findByRole('textbox', { name: required('Label') });
  return gateway;
}

/** A required input's name ("Label (required)"; jsdom drops the space before the hidden words). */
const required = (label: string) => new RegExp(`^${label}\\s*\\(required\\)$`);
const preview = () => within(screen.getByRole('complementary', { name: 'Preview' }));
const typeSelect = () => screen.getByRole('combobox', { name: 'Type' });

describe('field form', () => {
  it('shows the parts that apply to the type: limits for text and numbers, options for lists', async () => {
    await openNew();
    expect(screen.getByRole('textbox', { name: 'Minimum length' })).toBeDefined();
    expect(screen.queryByRole('group', { name: /Options/ })).toBeNull();

    await userEvent.selectOptions(typeSelect(), 'NUMBER');
    expect(screen.queryByRole('textbox', { name: 'Minimum length' })).toBeNull();
    expect(screen.getByRole('textbox', { name: 'Minimum' })).toBeDefined();
    expect(screen.getByRole('textbox', { name: 'Maximum' })).toBeDefined();

    await userEvent.selectOptions(typeSelect(), 'SELECT');
    expect(screen.queryByRole('textbox', { name: 'Minimum' })).toBeNull();
    expect(screen.getByRole('group', { name: /Options/ })).toBeDefined();
    expect(screen.getByRole('textbox', { name: 'Value of option 1' })).toBeDefined();

    await userEvent.selectOptions(typeSelect(), 'BOOLEAN');
    expect(screen.queryByRole('group', { name: /Options/ })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Limits' })).toBeNull();
    expect(preview().getByRole('checkbox', { name: 'Untitled field' })).toBeDefined();
  });

  it('a profile field offers the properties; choosing one sets the type it needs; custom forgets it', async () => {
    await openNew(new FakeGateway([company(), definition({ fieldKey: 'given', label: 'Given name', source: 'PROFILE_FIELD', profileField: 'firstName', sortOrder: 20 })]));
    expect(screen.queryByRole('combobox', { name: /Profile property/ })).toBeNull();
    await userEvent.click(screen.getByRole('radio', { name: /Profile/ }));
    const property = screen.getByRole('combobox', { name: /Profile property/ });
    // Bound by another active field: offered but not choosable.
    expect((within(property).getByRole('option', { name: /First name \(firstName\): used by the field given/ }) as HTMLOptionElement).disabled).toBe(true);
    expect(within(property).getByRole('group', { name: 'Fit the type Single-line text' })).toBeDefined();

    await userEvent.selectOptions(property, 'dateOfBirth');
    expect((typeSelect() as HTMLSelectElement).value).toBe('DATE');
    expect(within(typeSelect()).getAllByRole('option').map((option) => option.getAttribute('value'))).toEqual(['DATE']);
    expect(screen.getByText('The profile property Date of birth needs this type (DATE in the API).')).toBeDefined();

    await userEvent.click(screen.getByRole('radio', { name: /Custom/ }));
    expect(screen.queryByRole('combobox', { name: /Profile property/ })).toBeNull();
    expect(within(typeSelect()).getAllByRole('option')).toHaveLength(11);
  });

  it('edits the options as a list (add, move, remove) and the live preview follows', async () => {
    await openNew();
    await userEvent.type(screen.getByRole('textbox', { name: required('Label') }), 'Team size');
    await userEvent.selectOptions(typeSelect(), 'SELECT');
    await userEvent.type(screen.getByRole('textbox', { name: 'Value of option 1' }), 'small');
    await userEvent.type(screen.getByRole('textbox', { name: 'Label of option 1' }), '1 to 10');
    await userEvent.click(screen.getByRole('button', { name: 'Add an option' }));
    // The new row takes the focus.
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Value of option 2' }));
    await userEvent.keyboard('large');
    await userEvent.type(screen.getByRole('textbox', { name: 'Label of option 2' }), 'More than 10');
    await userEvent.click(screen.getByRole('button', { name: 'Add an option' }));
    await userEvent.keyboard('none');

    const previewSelect = () => preview().getByRole('combobox', { name: /Team size/ });
    expect(within(previewSelect()).getAllByRole('option').map((option) => option.textContent)).toEqual(['Choose…', '1 to 10', 'More than 10', 'none']);

    await userEvent.click(screen.getByRole('button', { name: 'Up: move option 2 up' }));
    expect((screen.getByRole('textbox', { name: 'Value of option 1' }) as HTMLInputElement).value).toBe('large');
    expect(within(previewSelect()).getAllByRole('option').map((option) => option.textContent)).toEqual(['Choose…', 'More than 10', '1 to 10', 'none']);

    await userEvent.click(screen.getByRole('button', { name: 'Remove option 3' }));
    expect(screen.queryByRole('textbox', { name: 'Value of option 3' })).toBeNull();
    expect(within(previewSelect()).getAllByRole('option')).toHaveLength(3);

    // Required shows in the preview as the user will see it.
    await userEvent.click(screen.getByRole('checkbox', { name: 'Required' }));
    expect(preview().getByRole('combobox', { name: required('Team size') })).toBeDefined();
  });

  it('saving starts with a dry run: the dialog says the impact, confirming sends the real request', async () => {
    const gateway = await openNew();
    await userEvent.type(screen.getByRole('textbox', { name: /Field key/ }), 'teamSize');
    await userEvent.type(screen.getByRole('textbox', { name: required('Label') }), 'Team size');
    await userEvent.selectOptions(typeSelect(), 'SELECT');
    await userEvent.type(screen.getByRole('textbox', { name: 'Value of option 1' }), 'small');
    await userEvent.type(screen.getByRole('textbox', { name: 'Label of option 1' }), 'Small');
    await userEvent.click(screen.getByRole('checkbox', { name: 'Required' }));
    await userEvent.click(screen.getByRole('button', { name: 'Add the field' }));

    const dialog = await screen.findByRole('dialog', { name: 'Add “Team size”?' });
    expect(within(dialog).getByText('1 person who completed onboarding will be asked again; the requirement version becomes 4.')).toBeDefined();
    expect(gateway.writes()).toHaveLength(1);
    expect(gateway.writes()[0]).toMatchObject({ method: 'POST', body: {
      fieldKey: 'teamSize', label: 'Team size', fieldType: 'SELECT', required: true, sortOrder: 20, source: 'CUSTOM_FIELD', profileField: null,
      options: [{ value: 'small', label: 'Small' }], validation: {}, uiConfig: {}, placeholder: null, description: null, translations: {},
    } });
    expect(gateway.writes()[0]!.query.get('dryRun')).toBe('true');

    await userEvent.click(within(dialog).getByRole('button', { name: 'Add the field' }));
    expect(await screen.findByText('The field “Team size” was added.')).toBeDefined();
    expect(gateway.writes()).toHaveLength(2);
    expect(gateway.writes()[1]!.query.get('dryRun')).toBeNull();
    expect((await screen.findByTestId('requirement-version')).textContent).toBe('4');
  });

  it('the confirmation offers a date to enforce the change from; the real request carries it (issue 36)', async () => {
    const gateway = await openNew();
    await userEvent.type(screen.getByRole('textbox', { name: /Field key/ }), 'vatNumber');
    await userEvent.type(screen.getByRole('textbox', { name: required('Label') }), 'VAT number');
    await userEvent.click(screen.getByRole('checkbox', { name: 'Required' }));
    await userEvent.click(screen.getByRole('button', { name: 'Add the field' }));

    const dialog = await screen.findByRole('dialog', { name: 'Add “VAT number”?' });
    const when = within(dialog).getByRole('group', { name: 'When does it apply?' });
    expect((within(when).getByRole('radio', { name: /^Immediately/ }) as HTMLInputElement).checked).toBe(true);
    await userEvent.click(within(when).getByRole('radio', { name: /^From a date/ }));
    fireEvent.change(within(when).getByLabelText(/Enforced from/), { target: { value: '2031-03-01T09:30' } });
    expect(within(dialog).getByText('Until then 1 person signs in as before; none of them already meets it.')).toBeDefined();

    await userEvent.click(within(dialog).getByRole('button', { name: 'Add the field' }));
    expect(await screen.findByText('The field “VAT number” was added.')).toBeDefined();
    expect(gateway.writes()[1]!.query.get('enforceAfter')).toBe(new Date('2031-03-01T09:30').toISOString());
    expect(gateway.writes()[1]!.query.get('dryRun')).toBeNull();
  });

  it('a profile field chooses its sharing rule (issue 36); an edit sends only the rule', async () => {
    const gateway = new FakeGateway([company(), definition({ fieldKey: 'mobile', label: 'Mobile', fieldType: 'PHONE', source: 'PROFILE_FIELD', profileField: 'phone', sharing: 'shared', sortOrder: 20 })]);
    renderAdmin(`/admin/onboarding/${KEY}/fields/mobile`, gateway, [...WRITER]);
    await screen.findByRole('heading', { name: 'Edit “Mobile”', level: 1 });
    const sharing = await screen.findByRole('combobox', { name: /^Sharing/ });
    expect((sharing as HTMLSelectElement).value).toBe('shared');
    await userEvent.selectOptions(sharing, 'ask');
    await userEvent.click(screen.getByRole('button', { name: 'Save the changes' }));
    await screen.findByRole('dialog', { name: 'Save the changes to “Mobile”?' });
    expect(gateway.writes()[0]).toMatchObject({ method: 'PATCH', path: `/v1/platforms/${KEY}/onboarding/fields/mobile`, body: { sharing: 'ask' } });
  });

  it('an edit that changes nothing has nothing to save; an edit sends only what changed', async () => {
    const gateway = new FakeGateway([company()]);
    renderAdmin(`/admin/onboarding/${KEY}/fields/company`, gateway, [...WRITER]);
    await screen.findByRole('heading', { name: 'Edit “Company”', level: 1 });
    await screen.findByRole('textbox', { name: required('Label') });
    expect((screen.getByRole('textbox', { name: /Field key/ }) as HTMLInputElement).readOnly).toBe(true);

    await userEvent.click(screen.getByRole('button', { name: 'Save the changes' }));
    const nothing = await screen.findByRole('dialog', { name: 'Nothing to save' });
    expect(within(nothing).getByText(/This change changes nothing/)).toBeDefined();
    expect((within(nothing).getByRole('button', { name: 'Nothing to save' }) as HTMLButtonElement).disabled).toBe(true);
    expect(gateway.writes()).toHaveLength(0);
    await userEvent.click(within(nothing).getByRole('button', { name: 'Cancel' }));

    const label = screen.getByRole('textbox', { name: required('Label') });
    await userEvent.clear(label);
    await userEvent.type(label, 'Employer');
    await userEvent.click(screen.getByRole('button', { name: 'Save the changes' }));
    const dialog = await screen.findByRole('dialog', { name: 'Save the changes to “Company”?' });
    expect(within(dialog).getByText('Changes: label.')).toBeDefined();
    expect(gateway.writes()[0]).toMatchObject({ method: 'PATCH', path: `/v1/platforms/${KEY}/onboarding/fields/company`, body: { label: 'Employer' } });
  });

  it('the gateway answering “changed: false” is said the same way', async () => {
    const gateway = new FakeGateway([company()]);
    gateway.override = (request) => (request.method === 'PATCH'
      ? { status: 200, body: { dryRun: true, changed: false, changedFields: [], field: company(), requirementVersion: 3, reopenedUsers: 0 } }
      : undefined);
    renderAdmin(`/admin/onboarding/${KEY}/fields/company`, gateway, [...WRITER]);
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Required' }));
    await userEvent.click(screen.getByRole('button', { name: 'Save the changes' }));
    expect(await screen.findByRole('dialog', { name: 'Nothing to save' })).toBeDefined();
  });

  it('shows the gateway’s errors beside their inputs (an option row too), the message above, the focus on the first', async () => {
    const gateway = await openNew();
    gateway.override = (request) => (request.method === 'POST'
      ? problem(400, 'VALIDATION_FAILED', 'The request is invalid.', [
        { pointer: '/body/options/1/value', message: 'duplicates the value of option 0' },
        { pointer: '/body/label', message: 'must not be empty' },
      ])
      : undefined);
    await userEvent.type(screen.getByRole('textbox', { name: /Field key/ }), 'size');
    await userEvent.selectOptions(typeSelect(), 'SELECT');
    await userEvent.type(screen.getByRole('textbox', { name: 'Value of option 1' }), 'a');
    await userEvent.click(screen.getByRole('button', { name: 'Add an option' }));
    await userEvent.keyboard('a');
    await userEvent.click(screen.getByRole('button', { name: 'Add the field' }));

    const summary = await screen.findByRole('alert', { name: 'The gateway refused the field: correct the 2 problems below.' });
    expect(within(summary).getAllByRole('link').map((link) => link.textContent)).toEqual(['Label: Must not be empty', 'Option 2 value: Duplicates the value of option 1']);
    const label = screen.getByRole('textbox', { name: required('Label') });
    await waitFor(() => expect(document.activeElement).toBe(label));
    expect(label.getAttribute('aria-invalid')).toBe('true');
    const described = (id: string | null) => (id ?? '').split(' ').map((part) => document.getElementById(part)?.textContent);
    expect(described(label.getAttribute('aria-describedby'))).toContain('Must not be empty.');
    const option = screen.getByRole('textbox', { name: 'Value of option 2' });
    expect(described(option.getAttribute('aria-describedby'))).toEqual(['Duplicates the value of option 1.']);

    // Fixing an input clears its error.
    await userEvent.type(label, 'Size');
    expect(label.getAttribute('aria-invalid')).toBeNull();
  });

  it('a SELECT without options: the gateway’s error shows at the options', async () => {
    const gateway = await openNew();
    gateway.override = (request) => (request.method === 'POST'
      ? problem(400, 'VALIDATION_FAILED', 'The request is invalid.', [{ pointer: '/body/options', message: 'must not be empty for SELECT fields' }])
      : undefined);
    await userEvent.type(screen.getByRole('textbox', { name: /Field key/ }), 'size');
    await userEvent.type(screen.getByRole('textbox', { name: required('Label') }), 'Size');
    await userEvent.selectOptions(typeSelect(), 'SELECT');
    await userEvent.click(screen.getByRole('button', { name: 'Remove option 1' }));
    await userEvent.click(screen.getByRole('button', { name: 'Add the field' }));
    const group = await screen.findByRole('group', { name: /Options/ });
    expect(within(group).getByText('Must not be empty for SELECT fields.')).toBeDefined();
    expect((gateway.writes()[0]!.body as { options: unknown[] }).options).toEqual([]);
  });

  it('a duplicate key (409 CONFLICT) is said beside the field key', async () => {
    await openNew();
    await userEvent.type(screen.getByRole('textbox', { name: /Field key/ }), 'company');
    await userEvent.type(screen.getByRole('textbox', { name: required('Label') }), 'Company again');
    await userEvent.click(screen.getByRole('button', { name: 'Add the field' }));
    expect(await screen.findByRole('alert', { name: 'This platform already has a field with this key. Choose another key.' })).toBeDefined();
    const key = screen.getByRole('textbox', { name: /Field key/ });
    await waitFor(() => expect(document.activeElement).toBe(key));
    expect(screen.getByText('This platform already has a field with the key company.')).toBeDefined();
  });

  it('numbers it cannot read are refused before asking the gateway', async () => {
    const gateway = await openNew();
    const sortOrder = screen.getByRole('textbox', { name: /Sort order/ });
    await userEvent.clear(sortOrder);
    await userEvent.type(sortOrder, 'first');
    await userEvent.click(screen.getByRole('button', { name: 'Add the field' }));
    expect(await screen.findByText('Enter the sort order as a whole number, like 10.')).toBeDefined();
    await waitFor(() => expect(document.activeElement).toBe(sortOrder));
    expect(gateway.writes()).toHaveLength(0);
  });

  it('renders labels, help texts and descriptions as text, never as HTML', async () => {
    await openNew();
    await userEvent.type(screen.getByRole('textbox', { name: required('Label') }), '<b>Bold</b>');
    await userEvent.type(screen.getByRole('textbox', { name: 'Description' }), '<img src=x onerror="alert(1)">');
    expect(preview().getAllByText('<img src=x onerror="alert(1)">').length).toBeGreaterThan(0);
    expect(preview().getAllByRole('textbox', { name: '<b>Bold</b>' }).length).toBeGreaterThan(0);
    expect(document.querySelector('img')).toBeNull();
    expect(document.querySelector('b')).toBeNull();
  });
});

describe('read-only field', () => {
  it('with only onboarding:schema:read: the settings and the preview, no form', async () => {
    renderAdmin(`/admin/onboarding/${KEY}/fields/company`, new FakeGateway([company()]), ['onboarding:schema:read']);
    await screen.findByRole('heading', { name: 'Field “Company”', level: 1 });
    expect(screen.getByText('You can view this form; changing it needs the onboarding:schema:write permission.')).toBeDefined();
    expect(screen.queryByRole('button', { name: 'Save the changes' })).toBeNull();
    expect(screen.queryByRole('textbox', { name: required('Label') })).toBeNull();
    await waitFor(() => expect(within(screen.getByRole('complementary', { name: 'Preview' })).getByRole('textbox', { name: required('Company') })).toBeDefined());
  });

  it('edits translations side by side with the default texts, says what is missing, and saves them with the field', async () => {
    const teamSize = definition({
      fieldKey: 'teamSize', label: 'Team size', fieldType: 'SELECT', sortOrder: 20, uiConfig: { helpText: 'Roughly.' },
      options: [{ value: 'small', label: 'Small' }, { value: 'large', label: 'Large' }],
      translations: { de: { label: 'Teamgröße', options: { small: 'Klein' } } },
    });
    const gateway = new FakeGateway([company(), teamSize]);
    renderAdmin(`/admin/onboarding/${KEY}/fields/teamSize`, gateway, [...WRITER]);
    const german = within(await screen.findByRole('group', { name: 'German (de)' }));
    // Every text the field has, its default beside the German box; the missing ones named.
    expect((german.getByRole('textbox', { name: 'Label in German (de)' }) as HTMLInputElement).value).toBe('Teamgröße');
    expect(german.getByRole('row', { name: /Help text Roughly\./ })).toBeDefined();
    expect(german.getByText('2 texts not translated yet: Help text and Option “Large”')).toBeDefined();

    await userEvent.type(german.getByRole('textbox', { name: 'Help text in German (de)' }), 'Ungefähr.');
    await userEvent.type(german.getByRole('textbox', { name: 'Option “Large” in German (de)' }), 'Groß');
    expect(german.getByText('Every text is translated.')).toBeDefined();

    // Another language, by tag; a blank box is "not translated" and is not sent.
    await userEvent.type(screen.getByRole('textbox', { name: 'Add a language' }), 'fr-ca');
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const french = within(await screen.findByRole('group', { name: 'Canadian French (fr-CA)' }));
    expect(french.getByText(/4 texts not translated yet/)).toBeDefined();

    await userEvent.click(screen.getByRole('button', { name: 'Save the changes' }));
    await screen.findByRole('dialog', { name: 'Save the changes to “Team size”?' });
    expect(gateway.writes()[0]).toMatchObject({ method: 'PATCH', body: { translations: { de: { label: 'Teamgröße', helpText: 'Ungefähr.', options: { small: 'Klein', large: 'Groß' } } } } });
  });
});
