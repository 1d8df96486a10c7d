import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { definition, FakeGateway, KEY, renderAdmin } from './testSupport.tsx';

const WRITER = ['onboarding:schema:read', 'onboarding:schema:write'] as const;

function gateway() {
  return new FakeGateway([
    definition({ fieldKey: 'company', label: 'Company', required: true, sortOrder: 10 }),
    definition({ fieldKey: 'country', label: 'Country', fieldType: 'COUNTRY', source: 'PROFILE_FIELD', profileField: 'country', sortOrder: 20 }),
    definition({ fieldKey: 'team', label: 'Team size', fieldType: 'SELECT', options: [{ value: 's', label: 'Small' }], sortOrder: 30 }),
    definition({ fieldKey: 'fax', label: 'Fax', sortOrder: 5, archived: true, archivedAt: '2026-01-02T00:00:00Z' }),
  ]);
}

async function open(fake = gateway(), permissions: readonly ('onboarding:schema:read' | 'onboarding:schema:write' | 'platforms:admin')[] = WRITER) {
  renderAdmin(`/admin/onboarding/${KEY}`, fake, [...permissions]);
  await screen.findByRole('heading', { name: 'Fields' });
  return fake;
}

const titles = () => screen.getAllByRole('heading', { level: 3 }).map((heading) => heading.firstChild?.textContent);

describe('a platform’s form', () => {
  it('lists the active fields in sortOrder with their key, type, required and source, and the requirement version', async () => {
    await open();
    expect(screen.getByRole('heading', { name: `Onboarding form: ${KEY}`, level: 1 })).toBeDefined();
    expect(screen.getByTestId('requirement-version').textContent).toBe('3');
    expect(titles()).toEqual(['Company', 'Country', 'Team size']);
    const country = screen.getByRole('heading', { name: /^Country/, level: 3 }).closest('li')!;
    expect(within(country).getByText('country', { selector: 'dd' })).toBeDefined();
    expect(within(country).getByText('Profile: Country')).toBeDefined();
    expect(within(country).getByText('Optional')).toBeDefined();
    // The whole form, as people see it.
    const preview = within(screen.getByRole('region', { name: 'Preview of the form' }));
    expect(preview.getByRole('combobox', { name: /Team size/ })).toBeDefined();
    expect(preview.queryByRole('textbox', { name: /Fax/ })).toBeNull();
  });

  it('speaks German: headings, facts, the profile property by its German name, and the actions named after the field', async () => {
    renderAdmin(`/admin/onboarding/${KEY}`, gateway(), [...WRITER], [], 'de');
    await screen.findByRole('heading', { name: 'Felder' });
    expect(screen.getByRole('heading', { name: `Onboarding-Formular: ${KEY}`, level: 1 })).toBeDefined();
    const country = screen.getByRole('heading', { name: /^Country/, level: 3 }).closest('li')!;
    expect(within(country).getByText('Profil: Land')).toBeDefined();
    expect(within(country).getByText('Land', { selector: 'dd' })).toBeDefined();
    expect(within(country).getByRole('link', { name: 'Country bearbeiten' })).toBeDefined();
    expect(screen.getByRole('link', { name: 'Feld hinzufügen' })).toBeDefined();
  });

  it('“Show archived fields” asks for them too and marks them', async () => {
    const fake = await open();
    await userEvent.click(screen.getByRole('checkbox', { name: 'Show archived fields' }));
    await waitFor(() => expect(titles()).toEqual(['Fax', 'Company', 'Country', 'Team size']));
    expect(fake.requests.at(-1)!.query.get('includeArchived')).toBe('true');
    const fax = screen.getByRole('heading', { name: /^Fax/, level: 3 }).closest('li')!;
    expect(within(fax).getByText('Archived')).toBeDefined();
    expect(within(fax).queryByRole('button', { name: /Archive/ })).toBeNull();
  });

  it('archiving asks first, with the dry run’s impact, then archives', async () => {
    const fake = await open();
    await userEvent.click(screen.getByRole('button', { name: 'Archive Team size' }));
    const dialog = await screen.findByRole('dialog', { name: 'Archive “Team size”?' });
    expect(within(dialog).getByText('1 person who completed onboarding will be asked again; the requirement version becomes 4.')).toBeDefined();
    expect(fake.writes()).toMatchObject([{ method: 'DELETE', path: `/v1/platforms/${KEY}/onboarding/fields/team` }]);
    expect(fake.writes()[0]!.query.get('dryRun')).toBe('true');

    await userEvent.click(within(dialog).getByRole('button', { name: 'Archive the field' }));
    expect(await screen.findByText('The field “Team size” was archived. The requirement version is now 4.')).toBeDefined();
    expect(fake.writes()[1]!.query.get('dryRun')).toBeNull();
    expect(titles()).toEqual(['Company', 'Country']);
  });

  it('archiving can be enforced from a date too (issue 36); cancelling forgets the date', async () => {
    const fake = await open();
    await userEvent.click(screen.getByRole('button', { name: 'Archive Team size' }));
    let dialog = await screen.findByRole('dialog', { name: 'Archive “Team size”?' });
    await userEvent.click(within(dialog).getByRole('radio', { name: /^From a date/ }));
    fireEvent.change(within(dialog).getByLabelText(/Enforced from/), { target: { value: '2031-03-01T09:30' } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await userEvent.click(screen.getByRole('button', { name: 'Archive Team size' }));
    dialog = await screen.findByRole('dialog', { name: 'Archive “Team size”?' });
    expect((within(dialog).getByRole('radio', { name: /^Immediately/ }) as HTMLInputElement).checked).toBe(true);
    await userEvent.click(within(dialog).getByRole('radio', { name: /^From a date/ }));
    fireEvent.change(within(dialog).getByLabelText(/Enforced from/), { target: { value: '2031-04-01T10:00' } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Archive the field' }));
    expect(await screen.findByText('The field “Team size” was archived. The requirement version is now 4.')).toBeDefined();
    const real = fake.writes().filter((write) => write.query.get('dryRun') === null);
    expect(real).toHaveLength(1);
    expect(real[0]!.query.get('enforceAfter')).toBe(new Date('2031-04-01T10:00').toISOString());
  });

  it('lists the changes in a grace period and applies them now (issue 36)', async () => {
    const fake = gateway();
    fake.graces = [{ requirementVersion: 3, enforceAfter: '2031-03-01T09:30:00.000Z' }];
    await open(fake);
    const panel = await screen.findByRole('region', { name: 'Changes in a grace period' });
    expect(within(panel).getByText(/^Requirement version 3: applies from /)).toBeDefined();
    await userEvent.click(within(panel).getByRole('button', { name: 'Apply now' }));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Changes in a grace period' })).toBeNull());
    const put = fake.writes().find((write) => write.method === 'PUT');
    expect(put).toMatchObject({ path: `/v1/platforms/${KEY}/onboarding/grace` });
    expect(Date.parse((put!.body as { enforceAfter: string }).enforceAfter)).toBeLessThanOrEqual(Date.now());
  });

  it('cancelling changes nothing', async () => {
    const fake = await open();
    await userEvent.click(screen.getByRole('button', { name: 'Archive Company' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Cancel' }));
    expect(fake.writes()).toHaveLength(1);
    expect(titles()).toEqual(['Company', 'Country', 'Team size']);
  });

  it('moving a field is a change of sortOrder: the dialog says it raises the version; the focus stays on the button', async () => {
    const fake = await open();
    expect((screen.getByRole('button', { name: 'Move up Company' }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Move down Team size' }) as HTMLButtonElement).disabled).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Move up Team size' }));
    const dialog = await screen.findByRole('dialog', { name: 'Move “Team size” up?' });
    expect(within(dialog).getByText('It will come above “Country”.')).toBeDefined();
    expect(within(dialog).getByText(/Reordering changes the form too/)).toBeDefined();
    expect(within(dialog).getByText('1 person who completed onboarding will be asked again; the requirement version becomes 4.')).toBeDefined();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Move the field' }));
    await waitFor(() => expect(titles()).toEqual(['Company', 'Team size', 'Country']));
    expect(fake.writes().map((write) => [write.method, write.body, write.query.get('dryRun')])).toEqual([
      ['PATCH', { sortOrder: 15 }, 'true'],
      ['PATCH', { sortOrder: 15 }, null],
    ]);
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Move up Team size' })));
  });

  it('a move with no room renumbers the fields, and says how many changes it takes', async () => {
    const fake = new FakeGateway([
      definition({ fieldKey: 'a', label: 'A', sortOrder: 0 }),
      definition({ fieldKey: 'b', label: 'B', sortOrder: 0 }),
      definition({ fieldKey: 'c', label: 'C', sortOrder: 0 }),
    ], { reopened: 2 });
    await open(fake);
    await userEvent.click(screen.getByRole('button', { name: 'Move up C' }));
    const dialog = await screen.findByRole('dialog', { name: 'Move “C” up?' });
    expect(within(dialog).getByText('2 people who completed onboarding will be asked again; the requirement version becomes 6.')).toBeDefined();
    expect(within(dialog).getByText(/renumbered in 3 changes/)).toBeDefined();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Move the field' }));
    await waitFor(() => expect(titles()).toEqual(['A', 'C', 'B']));
    expect(screen.getByTestId('requirement-version').textContent).toBe('6');
  });

  it('with only onboarding:schema:read: no Add, Edit, Archive or Move, and it says why', async () => {
    await open(gateway(), ['onboarding:schema:read']);
    expect(screen.getByText('You can view this form; changing it needs the onboarding:schema:write permission.')).toBeDefined();
    expect(screen.queryByRole('link', { name: 'Add a field' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Archive|Move/ })).toBeNull();
    expect(screen.queryByRole('link', { name: /^Edit/ })).toBeNull();
    expect(screen.getByRole('link', { name: 'View Company' }).getAttribute('href')).toBe(`/admin/onboarding/${KEY}/fields/company`);
  });

  it('platforms:admin may change it', async () => {
    await open(gateway(), ['platforms:admin']);
    expect(screen.getByRole('link', { name: 'Add a field' }).getAttribute('href')).toBe(`/admin/onboarding/${KEY}/new`);
    expect(screen.getByRole('link', { name: 'Edit Company' })).toBeDefined();
  });

  it('an unknown platform says so', async () => {
    renderAdmin('/admin/onboarding/NOPE', gateway(), [...WRITER]);
    expect(await screen.findByText('We could not load the form.')).toBeDefined();
  });
});
