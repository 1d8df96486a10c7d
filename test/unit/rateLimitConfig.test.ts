// The client address behind proxies (TRUSTED_PROXIES), the rate-limit subjects, and the
// RATE_LIMIT_* / TRUSTED_PROXIES variables of the config module (issue 13 §6).
import { describe, expect, it } from 'vitest';
import type { Request } from 'express';

import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { clientAddress, parseProxyEntry } from '../../src/security/clientAddress.ts';
import { addressSubject } from '../../src/services/rateLimits/rateLimits.ts';
import { generateKeyRingSpec } from '../../src/security/crypto.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';

function req(peer: string | undefined, forwarded?: string | string[]): Request {
  return { socket: { remoteAddress: peer }, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } } as unknown as Request;
}

describe('clientAddress', () => {
  it('without trusted proxies: the peer, whatever X-Forwarded-For says', () => {
    expect(clientAddress(req('203.0.113.9', '198.51.100.1'), [])).toBe('203.0.113.9');
    expect(clientAddress(req('::ffff:203.0.113.9'), [])).toBe('203.0.113.9');
    expect(clientAddress(req(undefined), [])).toBeUndefined();
  });

  it('a peer that is not a trusted proxy: the peer', () => {
    expect(clientAddress(req('203.0.113.9', '198.51.100.1'), ['10.0.0.0/8'])).toBe('203.0.113.9');
  });

  it('through trusted proxies: the rightmost address that is not one of them', () => {
    const trusted = ['10.0.0.0/8', '192.0.2.5'];
    expect(clientAddress(req('10.1.2.3', '198.51.100.1'), trusted)).toBe('198.51.100.1');
    expect(clientAddress(req('::ffff:10.1.2.3', 'forged, 198.51.100.7, 192.0.2.5'), trusted)).toBe('198.51.100.7');
    expect(clientAddress(req('10.1.2.3', ['1.1.1.1', '198.51.100.8, 10.9.9.9']), trusted)).toBe('198.51.100.8');
    expect(clientAddress(req('10.1.2.3', '2001:db8::1'), trusted)).toBe('2001:db8::1');
  });

  it('no header, or every entry a trusted proxy: the furthest proxy; an entry that is not an address stops at the proxy that passed it', () => {
    expect(clientAddress(req('10.1.2.3'), ['10.0.0.0/8'])).toBe('10.1.2.3');
    expect(clientAddress(req('10.1.2.3', '10.4.4.4'), ['10.0.0.0/8'])).toBe('10.4.4.4');
    expect(clientAddress(req('10.1.2.3', 'not-an-ip'), ['10.0.0.0/8'])).toBe('10.1.2.3');
  });

  it('IPv6 proxies and ranges', () => {
    expect(clientAddress(req('::1', '203.0.113.4'), ['::1'])).toBe('203.0.113.4');
    expect(clientAddress(req('fd00::7', '203.0.113.4'), ['fd00::/8'])).toBe('203.0.113.4');
  });
});

describe('proxy entries and rate-limit subjects', () => {
  it('parses addresses and CIDR ranges, refuses the rest', () => {
    expect(parseProxyEntry('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseProxyEntry('::1')).toEqual({ address: '::1', prefix: 128, family: 'ipv6' });
    for (const bad of ['10.0.0.0/33', 'fd00::/129', 'proxy.local', '10.0.0.0/8/1', '10.0.0.0/x', '']) expect(parseProxyEntry(bad)).toBeNull();
  });

  it('an IPv4 client is its address; an IPv6 client its /64', () => {
    expect(addressSubject('203.0.113.9')).toBe('203.0.113.9');
    expect(addressSubject('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressSubject('2001:db8:a:b:1:2:3:4')).toBe('2001:db8:a:b::/64');
    expect(addressSubject('2001:db8:a:b::9')).toBe(addressSubject('2001:0db8:000a:000b:ffff::1'));
    expect(addressSubject('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressSubject(undefined)).toBe('unknown');
  });
});

describe('config: rate limits and trusted proxies', () => {
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).problems;
    }
    throw new Error('accepted');
  };

  it('documented defaults', () => {
    const config = loadConfig({});
    expect(config.rateLimits).toEqual({
      start: { points: 6000, durationSeconds: 60 },
      callback: { points: 6000, durationSeconds: 60 },
      passwordChange: { points: 5, durationSeconds: 60 },
      adminWrite: { points: 60, durationSeconds: 60 },
    });
    expect(config.trustedProxies).toEqual([]);
    expect(config.warnings).toEqual([]);
  });

  it('TRUSTED_PROXIES unset in production: a boot warning that says what it costs; set, or outside production, none', () => {
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://gateway@db.internal/gateway',
      ENCRYPTION_KEYS: generateKeyRingSpec('warnings'),
      GATEWAY_SIGNING_KEYS: generateSigningKeySpec('warnings'),
      PUBLIC_BASE_URL: 'https://auth.example.test',
      ACCOUNT_CENTER_URL: 'https://account.example.test',
    };
    expect(loadConfig(production).warnings).toEqual([expect.stringMatching(/^TRUSTED_PROXIES is unset: .*share one start and callback budget/)]);
    expect(loadConfig({ ...production, TRUSTED_PROXIES: '10.0.0.0/8' }).warnings).toEqual([]);
  });

  it('the retired RATE_LIMIT_EXCHANGE_FAILURES_PER_MINUTE is ignored with a warning, never refused', () => {
    const config = loadConfig({ RATE_LIMIT_EXCHANGE_FAILURES_PER_MINUTE: '10' });
    expect(config.rateLimits).not.toHaveProperty('failedExchange');
    expect(config.warnings).toEqual([expect.stringMatching(/^RATE_LIMIT_EXCHANGE_FAILURES_PER_MINUTE is no longer used and is ignored/)]);
  });

  it('each limit is set by its variable', () => {
    const config = loadConfig({
      RATE_LIMIT_START_PER_MINUTE: '1',
      RATE_LIMIT_CALLBACK_PER_MINUTE: '2',
      RATE_LIMIT_PASSWORD_CHANGE_PER_MINUTE: '4',
      RATE_LIMIT_ADMIN_WRITES_PER_MINUTE: '5',
      TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1,::1',
    });
    expect(Object.values(config.rateLimits).map((limit) => limit.points)).toEqual([1, 2, 4, 5]);
    expect(config.trustedProxies).toEqual(['10.0.0.0/8', '192.0.2.1', '::1']);
  });

  it('refuses bad values, naming the variable and the rule', () => {
    expect(problemsOf({ RATE_LIMIT_START_PER_MINUTE: '0' })).toEqual(['RATE_LIMIT_START_PER_MINUTE=0 is refused: allowed 1..100000 (whole number)']);
    expect(problemsOf({ RATE_LIMIT_ADMIN_WRITES_PER_MINUTE: 'many' })).toEqual(['RATE_LIMIT_ADMIN_WRITES_PER_MINUTE=many is refused: allowed 1..100000 (whole number)']);
    expect(problemsOf({ TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal' })).toEqual([
      'TRUSTED_PROXIES entry "proxy.internal" is refused: must be an IP address or a CIDR range such as 10.0.0.0/8',
    ]);
  });

  it('REDIS_URL: redis:// or rediss://, refused otherwise without echoing it (it may carry a password)', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).redisUrl).toBeNull();
    expect(loadConfig({ NODE_ENV: 'test', REDIS_URL: 'redis://cache:6379/2' }).redisUrl).toBe('redis://cache:6379/2');
    expect(loadConfig({ NODE_ENV: 'test', REDIS_URL: 'rediss://:pw@cache.internal:6380' }).redisUrl).toBe('rediss://:pw@cache.internal:6380');
    const problems = problemsOf({ REDIS_URL: 'http://user:hunter2@cache:6379' });
    expect(problems).toEqual([expect.stringMatching(/^REDIS_URL is refused: must be redis:\/\//)]);
    expect(problems.join()).not.toContain('hunter2');
  });
});
