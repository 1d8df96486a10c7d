import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeGateway, noContent, problem, renderProfilePage, type Answer, SLOW } from './testGateway.tsx';

const section = async () => within(await screen.findByRole('region', { name: 'Change your password' }));

async function attempt(answer: Answer, current = 'alice-password', next = 'a-much-better-one') {
  const gateway = fakeGateway({ 'POST /v1/account/password': answer });
  renderProfilePage(gateway);
  const form = await section();
  const user = userEvent.setup();
  await user.type(form.getByLabelText('Current password'), current);
  await user.type(form.getByLabelText('New password'), next);
  await user.click(form.getByRole('button', { name: 'Change password' }));
  return { gateway, form, user };
}

const describedBy = (input: HTMLElement) => (input.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent).join(' | ');

describe('profile: password change', SLOW, () => {
  it('password inputs with the autocomplete hints password managers need', async () => {
    renderProfilePage(fakeGateway());
    const form = await section();
    expect(form.getByLabelText('Current password')).toMatchObject({ type: 'password', autocomplete: 'current-password' });
    expect(form.getByLabelText('New password')).toMatchObject({ type: 'password', autocomplete: 'new-password' });
    await userEvent.click(form.getByRole('checkbox', { name: 'Show passwords' }));
    expect(form.getByLabelText('New password')).toMatchObject({ type: 'text' });
  });

  it('204: says so and clears the inputs; the passwords went in the body only', async () => {
    const { gateway, form } = await attempt(noContent());
    expect(await form.findByText('Your password was changed.')).toBeDefined();
    expect((form.getByLabelText('Current password') as HTMLInputElement).value).toBe('');
    expect((form.getByLabelText('New password') as HTMLInputElement).value).toBe('');
    const [call] = gateway.callsTo('POST /v1/account/password');
    expect(call).toMatchObject({ path: '/v1/account/password', body: { currentPassword: 'alice-password', newPassword: 'a-much-better-one' } });
    expect(JSON.stringify(localStorage) + JSON.stringify(sessionStorage)).not.toMatch(/alice-password|a-much-better-one/);
  });

  it('403: the current password is not correct, beside it; the summary takes the focus', async () => {
    const { form } = await attempt(problem(403, 'FORBIDDEN', 'The current password is not correct.'), 'wrong-one');
    const summary = await screen.findByRole('alert', { name: 'Your password was not changed.' });
    await waitFor(() => expect(document.activeElement).toBe(summary));
    const current = form.getByLabelText('Current password');
    expect(current.getAttribute('aria-invalid')).toBe('true');
    expect(describedBy(current)).toBe('The current password is not correct.');
    expect(form.getByLabelText('New password').getAttribute('aria-invalid')).toBeNull();
    // entered values stay for correction
    expect((current as HTMLInputElement).value).toBe('wrong-one');
  });

  it("400: the provider's policy message beside the new password", async () => {
    const { form } = await attempt(problem(400, 'VALIDATION_FAILED', 'The identity provider refused the new password.', [
      { pointer: '/body/newPassword', message: 'Password must not contain the username.' },
    ]), 'alice-password', 'alice-rocks-2025');
    await screen.findByRole('alert', { name: 'Your password was not changed.' });
    const next = form.getByLabelText('New password');
    expect(describedBy(next)).toMatch(/^Password must not contain the username\./);
    expect(next.getAttribute('aria-invalid')).toBe('true');
  });

  it('429: too many attempts, with the seconds from Retry-After', async () => {
    await attempt(problem(429, 'RATE_LIMITED', 'Too many password change attempts.', undefined, { 'Retry-After': '42' }));
    expect(await screen.findByRole('alert', { name: 'Too many attempts; try again in 42 seconds.' })).toBeDefined();
  });

  it('429 where the browser may not read Retry-After (cross-origin): the seconds from the detail', async () => {
    await attempt(problem(429, 'RATE_LIMITED', 'Too many password change attempts. Try again in 17 seconds.'));
    expect(await screen.findByRole('alert', { name: 'Too many attempts; try again in 17 seconds.' })).toBeDefined();
  });

  it('503: the provider cannot be reached', async () => {
    await attempt(problem(503, 'IDP_UNAVAILABLE', 'The identity provider could not complete the request.'));
    expect(await screen.findByRole('alert', { name: /sign-in provider cannot be reached right now/ })).toBeDefined();
  });

  it('empty or too short inputs are caught here, before anything is sent', async () => {
    const gateway = fakeGateway();
    renderProfilePage(gateway);
    const form = await section();
    const user = userEvent.setup();
    await user.type(form.getByLabelText('New password'), 'short');
    await user.click(form.getByRole('button', { name: 'Change password' }));
    await screen.findByRole('alert', { name: 'Your password was not changed.' });
    expect(describedBy(form.getByLabelText('Current password'))).toBe('Enter your current password.');
    expect(describedBy(form.getByLabelText('New password'))).toMatch(/^Use at least 8 characters/);
    expect(gateway.callsTo('POST /v1/account/password')).toEqual([]);
  });
});
