// Connection-time half of the outbound address rule: postLogoutToken over a real socket to a
// listener on 127.0.0.1, with the name resolution injected (the machine has no DNS to rebind):
// a name the resolver maps to loopback is refused before any byte reaches the listener, and
// reaches it when loopback is allowed, resolved exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postLogoutToken, DeliveryError } from '../../src/services/backchannel/delivery.ts';
import { OutboundAddressRefused, type Resolver } from '../../src/security/outboundLookup.ts';
import { PUBLIC_ONLY, type OutboundPolicy } from '../../src/security/outboundAddresses.ts';

const DEV: OutboundPolicy = { allowedPrivateRanges: [], allowLoopback: true };

describe('postLogoutToken connects only to checked addresses', () => {
  let server: http.Server;
  let port: number;
  const received: { host: string | undefined; body: string }[] = [];

  beforeAll(async () => {
    server = http.createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      received.push({ host: req.headers.host, body });
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** A resolver that knows one name and counts its calls. */
  function resolverOf(addresses: { address: string; family: 4 | 6 }[]): Resolver & { calls: string[] } {
    const calls: string[] = [];
    return Object.assign(async (hostname: string) => {
      calls.push(hostname);
      return addresses;
    }, { calls });
  }

  const refusal = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error);

  it('a name that resolves to loopback is refused at connection time; nothing reaches the listener', async () => {
    const resolve = resolverOf([{ address: '127.0.0.1', family: 4 }]);
    const before = received.length;
    const error = await refusal(postLogoutToken(`http://bff.rebind.test:${port}/bc`, 'token', { outbound: { policy: PUBLIC_ONLY, resolve } }));
    expect(error).toBeInstanceOf(OutboundAddressRefused);
    expect(error).toMatchObject({ host: 'bff.rebind.test', address: '127.0.0.1', kind: 'loopback' });
    expect((error as Error).message).toBe('bff.rebind.test resolves to 127.0.0.1, which is refused: the loopback address 127.0.0.1 (the gateway itself; allowed only in the dev stack)');
    expect(resolve.calls).toEqual(['bff.rebind.test']);
    await new Promise((r) => setTimeout(r, 50));
    expect(received.length).toBe(before);
  });

  it('the same name reaches the listener where loopback is allowed, resolved exactly once (no second lookup to rebind)', async () => {
    const resolve = resolverOf([{ address: '127.0.0.1', family: 4 }]);
    const before = received.length;
    await postLogoutToken(`http://bff.rebind.test:${port}/bc`, 'the-token', { outbound: { policy: DEV, resolve } });
    expect(received.slice(before)).toEqual([{ host: `bff.rebind.test:${port}`, body: 'logout_token=the-token' }]);
    expect(resolve.calls).toEqual(['bff.rebind.test']);
  });

  it('every resolved address is checked: one refused address refuses the name', async () => {
    const resolve = resolverOf([{ address: '127.0.0.1', family: 4 }, { address: '169.254.169.254', family: 4 }]);
    const error = await refusal(postLogoutToken(`http://bff.rebind.test:${port}/bc`, 'token', { outbound: { policy: DEV, resolve } }));
    expect(error).toMatchObject({ name: 'OutboundAddressRefused', address: '169.254.169.254', kind: 'metadata' });
    const privateOnly = resolverOf([{ address: '127.0.0.1', family: 4 }]);
    const listed: OutboundPolicy = { allowedPrivateRanges: ['10.0.0.0/8'], allowLoopback: false };
    expect(await refusal(postLogoutToken(`http://bff.rebind.test:${port}/bc`, 'token', { outbound: { policy: listed, resolve: privateOnly } }))).toMatchObject({ kind: 'loopback' });
  });

  it.each([
    ['http://127.0.0.1:PORT/bc', 'loopback'],
    ['http://[::ffff:7f00:1]:PORT/bc', 'loopback'],
    ['http://[::1]:PORT/bc', 'loopback'],
    ['http://localhost:PORT/bc', 'loopback'],
    ['http://169.254.169.254/latest/meta-data', 'metadata'],
    ['http://10.0.0.5/bc', 'private'],
  ])('%s (an IP literal or a localhost name, never looked up) is refused before connecting', async (url, kind) => {
    const resolve = resolverOf([{ address: '127.0.0.1', family: 4 }]);
    const before = received.length;
    const error = await refusal(postLogoutToken(url.replace('PORT', String(port)), 'token', { outbound: { policy: PUBLIC_ONLY, resolve } }));
    expect(error).toMatchObject({ name: 'OutboundAddressRefused', kind });
    expect(resolve.calls).toEqual([]);
    expect(received.length).toBe(before);
  });

  it('without a policy only public addresses are reached (the default)', async () => {
    expect(await refusal(postLogoutToken(`http://127.0.0.1:${port}/bc`, 'token'))).toBeInstanceOf(OutboundAddressRefused);
  });

  it('a receiver that does not answer in time is a timed-out delivery (retried)', async () => {
    const silent = http.createServer(() => {}); // never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const silentPort = (silent.address() as AddressInfo).port;
      const started = Date.now();
      const error = await refusal(postLogoutToken(`http://127.0.0.1:${silentPort}/bc`, 'token', { timeoutMs: 200, outbound: { policy: DEV } }));
      expect(error).toMatchObject({ name: 'DeliveryError', message: `POST http://127.0.0.1:${silentPort}/bc failed: timed out` });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('other failures stay ordinary delivery errors (retried): a name that does not resolve, a refused connection', async () => {
    const nowhere: Resolver = async () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' }));
    const error = await refusal(postLogoutToken('http://nowhere.test/bc', 'token', { outbound: { policy: DEV, resolve: nowhere } }));
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as Error).message).toBe('POST http://nowhere.test/bc failed: ENOTFOUND');
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await refusal(postLogoutToken(`http://127.0.0.1:${closedPort}/bc`, 'token', { outbound: { policy: DEV } }))).toMatchObject({
      name: 'DeliveryError',
      message: expect.stringMatching(/ECONNREFUSED/),
    });
  });
});
