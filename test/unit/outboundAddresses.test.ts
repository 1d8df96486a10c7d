import { describe, expect, it } from 'vitest';
import {
  allowedRangeProblem,
  checkOutboundAddress,
  checkOutboundHost,
  classifyAddress,
  PUBLIC_ONLY,
  type AddressKind,
  type OutboundPolicy,
} from '../../src/security/outboundAddresses.ts';
import { ConfigError, loadConfig, loadDatabaseToolConfig } from '../../src/config/index.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';

describe('classifyAddress', () => {
  const cases: [string, AddressKind][] = [
    ['8.8.8.8', 'public'],
    ['93.184.215.14', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['169.254.169.254', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['fd20:ce::254', 'metadata'], // GCP over IPv6: inside fc00::/7, so never reachable through a listed range
    ['fe80::1%eth0', 'link-local'], // a zone id does not hide the address
    ['::ffff:0:a00:5', 'reserved'], // IPv4-translated 10.0.0.5 (RFC 2765)
    ['100.100.100.200', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['10.0.0.5', 'private'],
    ['::ffff:10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['100.128.0.1', 'public'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['::7f00:1', 'reserved'], // IPv4-compatible (deprecated)
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'], // Teredo
    ['64:ff9b:1::a00:5', 'reserved'], // local-use NAT64
  ];
  it.each(cases)('%s is %s', (address, kind) => {
    expect(classifyAddress(address).kind).toBe(kind);
  });

  it('judges NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses by the IPv4 address they carry', () => {
    expect(classifyAddress('64:ff9b::7f00:1')).toEqual({ kind: 'loopback', embedded: '127.0.0.1' });
    expect(classifyAddress('64:ff9b::169.254.169.254')).toEqual({ kind: 'metadata', embedded: '169.254.169.254' });
    expect(classifyAddress('64:ff9b::808:808')).toEqual({ kind: 'public', embedded: '8.8.8.8' });
    expect(classifyAddress('2002:a00:5::1')).toEqual({ kind: 'private', embedded: '10.0.0.5' });
    expect(classifyAddress('2002:7f00:1::')).toEqual({ kind: 'loopback', embedded: '127.0.0.1' });
    expect(classifyAddress('2002:808:808::1')).toEqual({ kind: 'public', embedded: '8.8.8.8' });
  });

  it('throws on what is not an IP address', () => {
    expect(() => classifyAddress('localhost')).toThrow(TypeError);
    expect(() => classifyAddress('[::1]')).toThrow(TypeError);
  });
});

describe('checkOutboundAddress', () => {
  const listed: OutboundPolicy = { allowedPrivateRanges: ['10.0.0.0/16', 'fd12::/16', '100.64.0.0/10'], allowLoopback: false };

  it('public addresses always; nothing else without a policy', () => {
    expect(checkOutboundAddress('8.8.8.8', PUBLIC_ONLY)).toEqual({ ok: true });
    for (const address of ['127.0.0.1', '::1', '10.0.0.5', '169.254.169.254', 'fe80::1', '0.0.0.0', '::ffff:127.0.0.1', '224.0.0.1']) {
      expect(checkOutboundAddress(address, PUBLIC_ONLY)).toMatchObject({ ok: false });
    }
  });

  it('private addresses only inside the listed ranges (IPv4-mapped and 6to4 forms too)', () => {
    expect(checkOutboundAddress('10.0.0.5', listed)).toEqual({ ok: true });
    expect(checkOutboundAddress('::ffff:10.0.3.4', listed)).toEqual({ ok: true });
    expect(checkOutboundAddress('2002:a00:5::1', listed)).toEqual({ ok: true });
    expect(checkOutboundAddress('fd12:1::9', listed)).toEqual({ ok: true });
    expect(checkOutboundAddress('10.1.0.5', listed)).toMatchObject({ ok: false, kind: 'private', reason: expect.stringMatching(/OUTBOUND_ALLOWED_PRIVATE_RANGES/) });
    expect(checkOutboundAddress('192.168.0.1', listed)).toMatchObject({ ok: false, kind: 'private' });
  });

  it('a metadata address stays refused inside a listed range; loopback, link-local never by listing a private range', () => {
    expect(checkOutboundAddress('100.100.100.200', listed)).toMatchObject({ ok: false, kind: 'metadata' });
    expect(checkOutboundAddress('100.100.100.201', listed)).toEqual({ ok: true });
    expect(checkOutboundAddress('127.0.0.1', listed)).toMatchObject({ ok: false, kind: 'loopback' });
    expect(checkOutboundAddress('169.254.0.1', listed)).toMatchObject({ ok: false, kind: 'link-local' });
  });

  it('loopback with the dev stack allowance (or a listed loopback range), and nothing more', () => {
    const dev: OutboundPolicy = { allowedPrivateRanges: [], allowLoopback: true };
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) expect(checkOutboundAddress(address, dev)).toEqual({ ok: true });
    for (const address of ['10.0.0.5', '169.254.169.254', '0.0.0.0', 'fe80::1']) expect(checkOutboundAddress(address, dev)).toMatchObject({ ok: false });
    const listedLoopback: OutboundPolicy = { allowedPrivateRanges: ['127.0.0.0/8'], allowLoopback: false };
    expect(checkOutboundAddress('127.0.0.1', listedLoopback)).toEqual({ ok: true });
    expect(checkOutboundAddress('::1', listedLoopback)).toMatchObject({ ok: false });
  });
});

describe('checkOutboundHost (registration)', () => {
  it.each(['127.0.0.1', '[::1]', '[::ffff:7f00:1]', 'localhost', 'localhost.', 'app.localhost.', 'app.localhost', 'LOCALHOST', '169.254.169.254', '10.0.0.5', '0.0.0.0', '[fe80::1]'])(
    '%s is refused without an allowance',
    (host) => {
      expect(checkOutboundHost(host, PUBLIC_ONLY)).toMatchObject({ ok: false, reason: expect.stringMatching(/^must not point at/) });
    },
  );

  it('other names pass (judged after resolution, at connection time); localhost only with loopback allowed for both families', () => {
    expect(checkOutboundHost('bff.example.com', PUBLIC_ONLY)).toEqual({ ok: true });
    expect(checkOutboundHost('localhost.example.com', PUBLIC_ONLY)).toEqual({ ok: true });
    expect(checkOutboundHost('localhost', { allowedPrivateRanges: [], allowLoopback: true })).toEqual({ ok: true });
    expect(checkOutboundHost('localhost', { allowedPrivateRanges: ['127.0.0.0/8'], allowLoopback: false })).toMatchObject({ ok: false });
    expect(checkOutboundHost('localhost', { allowedPrivateRanges: ['127.0.0.0/8', '::1'], allowLoopback: false })).toEqual({ ok: true });
  });
});

describe('OUTBOUND_ALLOWED_PRIVATE_RANGES', () => {
  it.each(['10.0.0.0/8', '10.20.0.0/16', '10.0.0.5', '172.16.0.0/12', '192.168.10.0/24', '100.64.0.0/10', 'fd00::/8', 'fc00::/7'])('accepts %s', (entry) => {
    expect(allowedRangeProblem(entry, { isProduction: true })).toBeNull();
  });

  it.each([
    ['10.0.0.0/7', /inside a private range/],
    ['8.8.8.0/24', /inside a private range/],
    ['169.254.0.0/16', /inside a private range/],
    ['0.0.0.0/0', /inside a private range/],
    ['::/0', /inside a private range/],
    ['fe80::/10', /inside a private range/],
    ['10.0.0.0/33', /CIDR/],
    ['ten', /CIDR/],
  ])('refuses %s', (entry, reason) => {
    expect(allowedRangeProblem(entry, { isProduction: false })).toMatch(reason);
  });

  it('loopback can be listed outside production only', () => {
    expect(allowedRangeProblem('127.0.0.0/8', { isProduction: false })).toBeNull();
    expect(allowedRangeProblem('::1', { isProduction: false })).toBeNull();
    expect(allowedRangeProblem('127.0.0.0/8', { isProduction: true })).toMatch(/never allowed in production/);
  });

  const production = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://gateway@db.internal/gateway',
    ENCRYPTION_KEYS: 'k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    PUBLIC_BASE_URL: 'https://gateway.example.com',
    ACCOUNT_CENTER_URL: 'https://account.example.com',
    OIDC_ISSUER: 'https://idp.example.com',
    GATEWAY_SIGNING_KEYS: generateSigningKeySpec('s1'),
  };

  it('is read by the service and the CLI alike; empty by default; loopback allowed by default only where the dev stack runs', () => {
    expect(loadConfig(production).outbound).toEqual({ allowedPrivateRanges: [], allowLoopback: false });
    expect(loadConfig({ ...production, OUTBOUND_ALLOWED_PRIVATE_RANGES: ' 10.20.0.0/16, fd00::/8,10.20.0.0/16 ' }).outbound).toEqual({
      allowedPrivateRanges: ['10.20.0.0/16', 'fd00::/8'],
      allowLoopback: false,
    });
    expect(loadConfig({}).outbound).toEqual({ allowedPrivateRanges: [], allowLoopback: true }); // the dev stack
    expect(loadConfig({ NODE_ENV: 'test', OIDC_ISSUER: 'http://idp.test', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's', ENCRYPTION_KEYS: production.ENCRYPTION_KEYS }).outbound.allowLoopback).toBe(false);
    expect(loadDatabaseToolConfig({ NODE_ENV: 'production', DATABASE_URL: production.DATABASE_URL, OUTBOUND_ALLOWED_PRIVATE_RANGES: '10.0.0.0/8' }).outbound).toEqual({
      allowedPrivateRanges: ['10.0.0.0/8'],
      allowLoopback: false,
    });
    expect(loadDatabaseToolConfig({}).outbound.allowLoopback).toBe(true);
  });

  it('a bad entry stops the boot with a message naming the variable and the entry', () => {
    for (const [entry, reason] of [['8.8.8.0/24', /private range/], ['127.0.0.0/8', /production/], ['169.254.169.254', /private range/]] as const) {
      let problems: readonly string[] = [];
      try {
        loadConfig({ ...production, OUTBOUND_ALLOWED_PRIVATE_RANGES: `10.0.0.0/8,${entry}` });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        problems = (error as ConfigError).problems;
      }
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain(`OUTBOUND_ALLOWED_PRIVATE_RANGES entry "${entry}" is refused`);
      expect(problems[0]).toMatch(reason);
    }
  });
});
