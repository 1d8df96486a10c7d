import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeGateway, json, me, noContent, PROFILE, problem, renderProfilePage, SLOW } from './testGateway.tsx';

async function openDialog(gateway = fakeGateway({ 'DELETE /v1/account/me': noContent() })) {
  renderProfilePage(gateway);
  const zone = within(await screen.findByRole('region', { name: 'Delete your account' }));
  await userEvent.click(zone.getByRole('button', { name: 'Delete my account…' }));
  const dialog = within(screen.getByRole('dialog', { name: 'Delete your account?' }));
  return { gateway, dialog };
}

describe('profile: account deletion', SLOW, () => {
  it('the dialog says what happens; the button stays disabled until DELETE is typed', async () => {
    const { gateway, dialog } = await openDialog();
    expect(dialog.getByText(/every sign-in ends at once/)).toBeDefined();
    expect(dialog.getByText(/platforms you use lose access/)).toBeDefined();
    expect(dialog.getByText(/kept for a limited retention period, then removed/)).toBeDefined();
    const confirm = dialog.getByRole('button', { name: 'Delete my account' }) as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    const box = dialog.getByRole('textbox', { name: 'Type DELETE to confirm' });
    await userEvent.type(box, 'delete');
    expect(confirm.disabled).toBe(true);
    await userEvent.type(box, '{Enter}');
    expect(gateway.callsTo('DELETE /v1/account/me')).toEqual([]);
    await userEvent.clear(box);
    await userEvent.type(box, 'DELETE');
    expect(confirm.disabled).toBe(false);
  });

  it('cancelling sends nothing and forgets what was typed', async () => {
    const { gateway, dialog } = await openDialog();
    await userEvent.type(dialog.getByRole('textbox', { name: 'Type DELETE to confirm' }), 'DELETE');
    await userEvent.click(dialog.getByRole('button', { name: 'Cancel' }));
    expect(gateway.callsTo('DELETE /v1/account/me')).toEqual([]);
    expect(screen.queryByRole('dialog')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Delete my account…' }));
    expect((screen.getByRole('textbox', { name: 'Type DELETE to confirm' }) as HTMLInputElement).value).toBe('');
  });

  it('once deleted, the session is forgotten and the browser is on /signed-out, told why', async () => {
    const { gateway, dialog } = await openDialog();
    await userEvent.type(dialog.getByRole('textbox', { name: 'Type DELETE to confirm' }), 'DELETE');
    await userEvent.click(dialog.getByRole('button', { name: 'Delete my account' }));
    expect(await screen.findByText('Signed out page; state: {"accountDeleted":true}')).toBeDefined();
    expect(gateway.callsTo('DELETE /v1/account/me')).toHaveLength(1);
    expect(screen.queryByRole('heading', { name: 'Your profile' })).toBeNull();
  });

  it('Enter in the confirmation box deletes once DELETE is typed', async () => {
    const { gateway, dialog } = await openDialog();
    await userEvent.type(dialog.getByRole('textbox', { name: 'Type DELETE to confirm' }), 'DELETE{Enter}');
    expect(await screen.findByText(/Signed out page/)).toBeDefined();
    expect(gateway.callsTo('DELETE /v1/account/me')).toHaveLength(1);
  });

  it('a failure is shown in the dialog, which stays open', async () => {
    const { dialog } = await openDialog(fakeGateway({ 'DELETE /v1/account/me': problem(503, 'DATABASE_UNAVAILABLE', 'The database is not available.') }));
    await userEvent.type(dialog.getByRole('textbox', { name: 'Type DELETE to confirm' }), 'DELETE');
    await userEvent.click(dialog.getByRole('button', { name: 'Delete my account' }));
    // In the account center's words for the code (errors catalogue), not the gateway's English detail.
    expect(await dialog.findByText('Your account was not deleted. The service is unavailable right now. Try again in a moment.')).toBeDefined();
    expect(screen.getByRole('dialog', { name: 'Delete your account?' })).toBeDefined();
  });

  it('in German the word to type is LÖSCHEN, and DELETE does not confirm', async () => {
    const caller = me();
    const gateway = fakeGateway({
      'GET /v1/me': json(200, { ...caller, user: { ...caller.user, locale: 'de-DE' } }),
      'GET /v1/profile/me': json(200, { ...PROFILE, locale: 'de-DE' }),
      'DELETE /v1/account/me': noContent(),
    });
    renderProfilePage(gateway);
    const zone = within(await screen.findByRole('region', { name: 'Konto löschen' }));
    await userEvent.click(zone.getByRole('button', { name: 'Mein Konto löschen …' }));
    const dialog = within(screen.getByRole('dialog', { name: 'Ihr Konto löschen?' }));
    const confirm = dialog.getByRole('button', { name: 'Mein Konto löschen' }) as HTMLButtonElement;
    const box = dialog.getByRole('textbox', { name: 'Geben Sie zur Bestätigung LÖSCHEN ein' });
    await userEvent.type(box, 'DELETE');
    expect(confirm.disabled).toBe(true);
    await userEvent.clear(box);
    await userEvent.type(box, 'LÖSCHEN');
    expect(confirm.disabled).toBe(false);
  });
});
