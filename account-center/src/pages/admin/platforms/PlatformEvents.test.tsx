// The platform form's event delivery (issue 26): the select and the receiver URL, sent only when
// changed, the registry's errors beside them, and both shown on the platform's page.
import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeGateway, platformFixture, problem, renderPlatforms } from './testing.tsx';

describe('platform form: event delivery', { timeout: 20_000 }, () => {
  it('sends only the changed event settings, and shows the registry\'s refusal beside the receiver URL', async () => {
    const platform = platformFixture();
    let patches = 0;
    const gateway = fakeGateway((request) => {
      if (request.method === 'GET') return { status: 200, body: platform };
      if (request.method === 'PATCH') {
        patches += 1;
        return patches === 1
          ? problem(400, 'VALIDATION_FAILED', 'One or more fields are invalid.', [{ pointer: '/body/eventReceiverUrl', message: 'must not point at the loopback address 127.0.0.1' }])
          : { status: 200, body: { ...platform, ...(request.body as object) } };
      }
      return undefined;
    });
    renderPlatforms('/admin/platforms/DEMO_APP/edit', gateway.fetchImpl);
    const user = userEvent.setup();
    const delivery = (await screen.findByLabelText('Event delivery')) as HTMLSelectElement;
    expect(delivery.value).toBe('none');
    await user.selectOptions(delivery, 'push');
    const receiver = screen.getByLabelText('Event receiver URL');
    await user.click(receiver);
    await user.paste('http://127.0.0.1/events');
    await user.click(screen.getByRole('button', { name: /Save/ }));

    expect(await screen.findByText('Must not point at the loopback address 127.0.0.1.', { selector: '*' })).toBeTruthy();
    const sent = gateway.sent.filter((request) => request.method === 'PATCH');
    expect(sent[0]!.body).toEqual({ eventDelivery: 'push', eventReceiverUrl: 'http://127.0.0.1/events' });
    expect(receiver.getAttribute('aria-invalid')).toBe('true');
  });

  it('shows the event delivery and receiver URL on the platform page', async () => {
    const platform = platformFixture({ eventDelivery: 'push', eventReceiverUrl: 'https://demo.example.test/security-events' });
    const gateway = fakeGateway((request) => (request.method === 'GET' && request.path === '/v1/platforms/DEMO_APP' ? { status: 200, body: platform } : { status: 200, body: { items: [], nextCursor: null } }));
    renderPlatforms('/admin/platforms/DEMO_APP', gateway.fetchImpl);
    const settings = await screen.findByRole('region', { name: 'Settings' });
    expect(within(settings).getByText('Push to the receiver URL')).toBeTruthy();
    expect(within(settings).getByText('https://demo.example.test/security-events')).toBeTruthy();
  });
});
