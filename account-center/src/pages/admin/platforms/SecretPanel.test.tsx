import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { renderWithIntl as render } from '../../../test/renderWithIntl.tsx';
import userEvent from '@testing-library/user-event';
import { SecretPanel } from './SecretPanel.tsx';

const SECRET = 'pcs_Ry5tU8iO1pA3sD6fG9hJ2kL4zX7cV0bN3mQ5wE8rT1y';

/** userEvent.setup() installs its own clipboard; ours replaces it, to see the calls or refuse them. */
function stubClipboard(writeText: (text: string) => Promise<void>) {
  const original = Object.getOwnPropertyDescriptor(window.navigator, 'clipboard');
  Object.defineProperty(window.navigator, 'clipboard', { configurable: true, value: { writeText } });
  return () => {
    if (original) Object.defineProperty(window.navigator, 'clipboard', original);
  };
}

describe('SecretPanel', () => {
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it('shows the client id and secret read-only with the warning, and takes the focus', () => {
    render(<SecretPanel title="Client credentials" platformKey="DEMO_APP" clientId="pc_123" clientSecret={SECRET} />);
    const secret = screen.getByLabelText('Client secret') as HTMLTextAreaElement;
    expect(secret.readOnly).toBe(true);
    expect(secret.value).toBe(SECRET);
    expect((screen.getByLabelText('Client ID') as HTMLTextAreaElement).value).toBe('pc_123');
    expect(screen.getByText('You will not see this secret again. Store it now.')).toBeDefined();
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Client credentials' }));
  });

  it('speaks German when the page does', () => {
    render(<SecretPanel title="Client-Zugangsdaten" platformKey="DEMO_APP" clientId="pc_123" clientSecret={SECRET} />, { language: 'de' });
    expect((screen.getByLabelText('Client-Secret') as HTMLTextAreaElement).value).toBe(SECRET);
    expect(screen.getByText('Sie werden dieses Secret nicht wieder sehen. Speichern Sie es jetzt.')).toBeDefined();
    expect(screen.getByRole('button', { name: 'Client-ID kopieren' })).toBeDefined();
  });

  it('copies each value to the clipboard and says so in a polite status', async () => {
    const user = userEvent.setup();
    const writeText = vi.fn(async () => {});
    restore = stubClipboard(writeText);
    render(<SecretPanel title="Client credentials" platformKey="DEMO_APP" clientId="pc_123" clientSecret={SECRET} />);

    await user.click(screen.getByRole('button', { name: 'Copy client secret' }));
    expect(writeText).toHaveBeenLastCalledWith(SECRET);
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Copied the client secret to the clipboard.'));

    await user.click(screen.getByRole('button', { name: 'Copy client ID' }));
    expect(writeText).toHaveBeenLastCalledWith('pc_123');
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Copied the client ID to the clipboard.'));
  });

  it('when the clipboard is refused, selects the text and says how to copy it', async () => {
    const user = userEvent.setup();
    restore = stubClipboard(async () => {
      throw new DOMException('denied', 'NotAllowedError');
    });
    render(<SecretPanel title="Client credentials" platformKey="DEMO_APP" clientId="pc_123" clientSecret={SECRET} />);
    await user.click(screen.getByRole('button', { name: 'Copy client secret' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toMatch(/^Could not copy the client secret: it is selected/));
    const secret = screen.getByLabelText('Client secret') as HTMLTextAreaElement;
    expect(document.activeElement).toBe(secret);
    expect([secret.selectionStart, secret.selectionEnd]).toEqual([0, SECRET.length]);
  });

  it('renders what it is given as text, never as HTML', () => {
    render(<SecretPanel title="<b>x</b>" platformKey={'<img src=x onerror="alert(1)">'} clientId="pc" clientSecret={SECRET} />);
    expect(document.querySelector('img')).toBeNull();
    expect(document.querySelector('b')).toBeNull();
  });
});
