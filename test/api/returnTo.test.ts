// The returnTo allowlist of GET /v1/auth/start (spec step 5; GUIDE §5, §9), through the real
// endpoint with a provider behind it, so that an accepted value really answers 302 and is
// persisted. Every bypass attempt must be 400 or 403 and never a 302; accepted values are
// stored (and later handed to the platform) as the normalized absolute URL.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicAuth } from '../helpers/oidcBrowser.ts';
import { startFakeIdp, type FakeIdp } from '../helpers/fakeIdp.ts';
import { createPlatform } from '../../src/services/registry/index.ts';
import { sha256 } from '../../src/security/crypto.ts';

const CLIENT_ID = 'gateway-return-to-test';
const CLIENT_SECRET = randomBytes(32).toString('base64url');
const PLATFORM_CALLBACK = 'https://bff.example.com/auth/callback';
const ROOTS = ['https://app.example.com/app', 'https://other.example.com/'];
const CLI = { type: 'cli', userId: null, sub: null, requestId: null } as const;

/** Query strings are built by hand where the encoding itself is under test. */
const enc = (value: string) => encodeURIComponent(value);

describe('GET /v1/auth/start: returnTo allowlist and start preconditions', () => {
  let database: TestDatabase;
  let fake: FakeIdp;
  let gateway: TestApp;
  let platformKey: string;
  let platformBasic: string;

  async function newPlatform(
    overrides: { defaultOnboardingMode?: 'none' | 'platform' | 'central'; centralOnboardingEnabled?: boolean; allowedReturnUrls?: string[] } = {},
  ) {
    const key = `RT_${randomBytes(4).toString('hex').toUpperCase()}`;
    const { platform, clientSecret } = await createPlatform(
      database.db,
      {
        platformKey: key,
        displayName: `Return-to ${key}`,
        callbackUrl: PLATFORM_CALLBACK,
        allowedReturnUrls: overrides.allowedReturnUrls ?? ROOTS,
        defaultOnboardingMode: overrides.defaultOnboardingMode ?? 'none',
        centralOnboardingEnabled: overrides.centralOnboardingEnabled ?? true,
        // The allowlist is tested here, not the handoff binding (handoffChallengeRequired.test.ts).
        handoffChallengeRequired: false,
      },
      CLI,
    );
    return { key, basic: basicAuth(platform.clientId!, clientSecret) };
  }

  async function transactionCount(): Promise<number> {
    const { rows } = await database.db.raw<{ rows: { n: number }[] }>('SELECT count(*)::int AS n FROM auth_transactions');
    return rows[0]!.n;
  }

  /** The stored return_to of the transaction a start redirect belongs to. */
  async function storedReturnTo(location: string): Promise<string> {
    const state = new URL(location).searchParams.get('state');
    expect(state).toBeTruthy();
    const { rows } = await database.db.raw('SELECT return_to FROM auth_transactions WHERE state_digest = ?', [sha256(state!)]);
    expect(rows).toHaveLength(1);
    return rows[0].return_to;
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    fake = await startFakeIdp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    gateway = await createTestApp({ db: database.db, oidc: { issuer: fake.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
    ({ key: platformKey, basic: platformBasic } = await newPlatform());
  });
  afterAll(async () => {
    await fake?.close();
    await database?.drop();
  });

  describe('refused: 400 or 403, never a redirect, nothing persisted', () => {
    // [description, expected status, raw returnTo]
    const refused: [string, 400 | 403, string][] = [
      ['protocol-relative //host', 400, '//evil.com'],
      ['protocol-relative //host with path', 400, '//evil.com/app'],
      ['slash-backslash /\\host', 400, '/\\evil.com'],
      ['backslash inside an absolute URL', 400, 'https://evil.com\\@app.example.com/app'],
      ['userinfo naming the allowed host', 400, 'https://app.example.com@evil.com'],
      ['userinfo with the allowed path', 400, 'https://app.example.com@evil.com/app'],
      ['empty userinfo', 400, 'https://@app.example.com/app'],
      ['user:password', 400, 'https://user:pass@app.example.com/app'],
      ['allowed host as a subdomain of another', 403, 'https://app.example.com.evil.com/app'],
      ['trailing-dot host', 400, 'https://app.example.com./app'],
      ['another host', 403, 'https://evil.com/app'],
      ['path prefix without a segment boundary', 403, 'https://app.example.com/application'],
      ['dot segments leaving the root', 403, 'https://app.example.com/app/../admin'],
      ['encoded dot segments leaving the root', 400, 'https://app.example.com/app/%2e%2e/admin'],
      ['root-relative encoded dot segments', 400, '/app/%2e%2e/admin'],
      ['root-relative outside the first root', 403, '/admin'],
      ['encoded slash in the path', 400, 'https://app.example.com/app/..%2fadmin'],
      ['root-relative encoded slashes', 400, '/%2F%2Fevil.com'],
      ['a fragment', 400, 'https://app.example.com/app#x'],
      ['an empty fragment', 400, 'https://app.example.com/app#'],
      ['root-relative fragment', 400, '/app#x'],
      ['scheme mismatch (http for an https root)', 403, 'http://app.example.com/app'],
      ['another port', 403, 'https://app.example.com:8443/app'],
      ['a tab inside', 400, 'https://app.example.com/app/\tx'],
      ['a tab splitting the scheme', 400, 'java\tscript:alert(1)'],
      ['a newline inside', 400, 'https://app.example.com/app/\nx'],
      ['a carriage return inside', 400, '/app/\rx'],
      ['a space inside', 400, 'https://app.example.com/app/ x'],
      ['a leading space', 400, ' https://app.example.com/app'],
      ['a NUL byte', 400, 'https://app.example.com/app\u0000'],
      ['a zero-width space in the host', 400, 'https://app.exa\u200bmple.com/app'],
      ['javascript:', 400, 'javascript:alert(1)'],
      ['data:', 400, 'data:text/html,<script>alert(1)</script>'],
      ['vbscript:', 400, 'vbscript:msgbox(1)'],
      ['ftp:', 400, 'ftp://app.example.com/app'],
      ['scheme without slashes', 400, 'https:app.example.com/app'],
      ['scheme with one slash', 400, 'https:/app.example.com/app'],
      ['scheme with three slashes', 400, 'https:///app.example.com/app'],
      ['a relative path', 400, 'app/x'],
      ['2049 characters', 400, `https://app.example.com/app/${'a'.repeat(2049 - 'https://app.example.com/app/'.length)}`],
    ];

    it.each(refused)('%s → %d', async (_name, status, returnTo) => {
      const before = await transactionCount();
      const res = await request(gateway.app).get(`/v1/auth/start?platformKey=${platformKey}&returnTo=${enc(returnTo)}`);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toMatch(status === 403 ? /^RETURN_TO_NOT_ALLOWED$/ : /^(INVALID_REDIRECT|VALIDATION_FAILED)$/);
      expect(await transactionCount()).toBe(before);
    });

    // Attack review: encodings another server reads as a different path, and host spellings
    // another parser reads as a different host, are refused, never normalised away.
    const invalidRedirect: [string, string][] = [
      ['an encoded dot segment staying inside the root', 'https://app.example.com/app/x/%2e%2e/y'],
      ['a double-encoded dot segment', '/app/%252e%252e/admin'],
      ['a double-encoded slash', 'https://app.example.com/app/%252f%252fevil.com'],
      ['a ; path parameter', '/app;jsessionid=x'],
      ['a ..; segment', 'https://app.example.com/app/..;/admin'],
      ['an encoded NUL', '/app/x%00.html'],
      ['a malformed percent escape', '/app/%zz'],
      ['an overlong UTF-8 dot', '/app/%c0%ae%c0%ae/admin'],
      ['full-width dots', '/app/\uff0e\uff0e/admin'],
      ['percent-encoded full-width dots', 'https://app.example.com/app/%EF%BC%8E%EF%BC%8E/admin'],
      ['an ideographic full stop in the path', '/app/x\u3002y'],
      ['an octal IPv4 host', 'https://0177.0.0.1/app'],
      ['a shortened IPv4 host', 'https://127.1/app'],
      ['a percent-encoded host', 'https://app.ex%61mple.com/app'],
      ['a full-width host character', 'https://\uff41pp.example.com/app'],
      ['an ideographic full stop in the host', 'https://app\u3002example.com/app'],
      ['a non-canonical IPv6 host', 'https://[0:0:0:0:0:0:0:1]/app'],
    ];

    it.each(invalidRedirect)('%s → 400 INVALID_REDIRECT', async (_name, returnTo) => {
      const before = await transactionCount();
      const res = await request(gateway.app).get(`/v1/auth/start?platformKey=${platformKey}&returnTo=${enc(returnTo)}`);
      expect({ status: res.status, code: res.body.code }, JSON.stringify(res.body)).toEqual({ status: 400, code: 'INVALID_REDIRECT' });
      expect(res.headers.location).toBeUndefined();
      expect(res.body.errors).toEqual([{ pointer: '/query/returnTo', reason: 'INVALID', message: expect.stringMatching(/^returnTo /) }]);
      expect(await transactionCount()).toBe(before);
    });

    it('a %2F inside the query of returnTo is not refused', async () => {
      const res = await request(gateway.app).get(`/v1/auth/start?platformKey=${platformKey}&returnTo=${enc('/app/x?next=%2F%2Fevil.com')}`);
      expect(res.status, JSON.stringify(res.body)).toBe(302);
      expect(await storedReturnTo(res.headers.location as string)).toBe('https://app.example.com/app/x?next=%2F%2Fevil.com');
    });

    it('a root registered with a trailing slash does not admit the path without it', async () => {
      const { key } = await newPlatform({ allowedReturnUrls: ['https://app.example.com/app/'] });
      const start = (returnTo: string) => request(gateway.app).get(`/v1/auth/start?platformKey=${key}&returnTo=${enc(returnTo)}`);
      for (const returnTo of ['/app', 'https://app.example.com/app', 'https://app.example.com/app?x=1']) {
        const res = await start(returnTo);
        expect({ returnTo, status: res.status, code: res.body.code }).toEqual({ returnTo, status: 403, code: 'RETURN_TO_NOT_ALLOWED' });
      }
      for (const returnTo of ['/app/', '/app/x', 'https://app.example.com/app/x?y=1']) {
        expect((await start(returnTo)).status).toBe(302);
      }
      // ... while the shared platform's root "https://app.example.com/app" (no slash) admits "/app".
      expect((await request(gateway.app).get(`/v1/auth/start?platformKey=${platformKey}&returnTo=%2Fapp`)).status).toBe(302);
    });

    it('the registry refuses a return root or callback whose host is not spelled canonically', async () => {
      for (const url of ['https://0177.0.0.1/', 'https://app.example.com./', 'https://b\u00fccher.example/', 'https://[0:0::1]/']) {
        await expect(newPlatform({ allowedReturnUrls: [url] }), url).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      }
    });

    it('an empty returnTo → 400', async () => {
      const res = await request(gateway.app).get(`/v1/auth/start?platformKey=${platformKey}&returnTo=`);
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
    });

    it('no returnTo → 400', async () => {
      const res = await request(gateway.app).get(`/v1/auth/start?platformKey=${platformKey}`);
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
    });

    it('a repeated returnTo parameter → 400, even when both values are allowed', async () => {
      const before = await transactionCount();
      const res = await request(gateway.app).get(
        `/v1/auth/start?platformKey=${platformKey}&returnTo=${enc('https://app.example.com/app')}&returnTo=${enc('https://evil.com/')}`,
      );
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      const same = await request(gateway.app).get(
        `/v1/auth/start?platformKey=${platformKey}&returnTo=${enc('/app/a')}&returnTo=${enc('/app/a')}`,
      );
      expect(same.status).toBe(400);
      expect(await transactionCount()).toBe(before);
    });

    it('a browser gets an HTML page with the same status', async () => {
      const res = await request(gateway.app)
        .get(`/v1/auth/start?platformKey=${platformKey}&returnTo=${enc('https://evil.com/')}`)
        .set('Accept', 'text/html');
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers.location).toBeUndefined();
    });
  });

  describe('accepted: 302 to the provider, stored as the normalized absolute URL', () => {
    const maxLength = `https://app.example.com/app/${'a'.repeat(2048 - 'https://app.example.com/app/'.length)}`;
    // [description, raw returnTo, stored return_to]
    const accepted: [string, string, string][] = [
      ['the root itself', 'https://app.example.com/app', 'https://app.example.com/app'],
      ['the root with a trailing slash', 'https://app.example.com/app/', 'https://app.example.com/app/'],
      ['a path under the root with a query', 'https://app.example.com/app/x?y=1', 'https://app.example.com/app/x?y=1'],
      ['an uppercase host', 'https://APP.Example.COM/app/x', 'https://app.example.com/app/x'],
      ['an uppercase scheme', 'HTTPS://app.example.com/app', 'https://app.example.com/app'],
      ['the default port', 'https://app.example.com:443/app/x', 'https://app.example.com/app/x'],
      ['dot segments staying inside the root', 'https://app.example.com/app/a/../b', 'https://app.example.com/app/b'],
      ['root-relative, resolved against the first root', '/app/x?y=1', 'https://app.example.com/app/x?y=1'],
      ['root-relative "/" (the spec admits pathname "/")', '/', 'https://app.example.com/'],
      ['any path of a "/" root', 'https://other.example.com/deep/link?q=a%20b', 'https://other.example.com/deep/link?q=a%20b'],
      ['exactly 2048 characters', maxLength, maxLength],
    ];

    it.each(accepted)('%s', async (_name, returnTo, stored) => {
      const res = await request(gateway.app).get(`/v1/auth/start?platformKey=${platformKey}&returnTo=${enc(returnTo)}`);
      expect(res.status, JSON.stringify(res.body)).toBe(302);
      expect(res.headers.location).toMatch(new RegExp(`^${fake.issuer}/authorize\\?`));
      expect(await storedReturnTo(res.headers.location as string)).toBe(stored);
    });

    it('hands the normalized returnTo to the platform in the exchange response', async () => {
      const start = await request(gateway.app).get(`/v1/auth/start?platformKey=${platformKey}&returnTo=${enc('/app/x?y=1')}`).expect(302);
      const back = await fake.authorize(start.headers.location as string);
      // Carry the start's cookies (the login's browser binding) to the callback, as the browser does.
      const cookies = ((start.headers['set-cookie'] as unknown as string[] | undefined) ?? []).map((line) => line.split(';')[0]!);
      const callback = await request(gateway.app).get(`/v1/auth/callback${back.search}`).set('Cookie', cookies.join('; ')).expect(302);
      const handoff = new URL(callback.headers.location as string);
      expect(`${handoff.origin}${handoff.pathname}`).toBe(PLATFORM_CALLBACK);
      const exchange = await request(gateway.app)
        .post('/v1/auth/exchange')
        .set('Authorization', platformBasic)
        .set('Content-Type', 'application/json')
        .send({ code: handoff.searchParams.get('code') })
        .expect(200);
      expect(exchange.body.returnTo).toBe('https://app.example.com/app/x?y=1');
      // The platform callback never carries the returnTo: the BFF gets it only from the exchange.
      expect(handoff.searchParams.has('returnTo')).toBe(false);
    });
  });

  describe('platform and onboarding mode', () => {
    it('an onboardingMode that differs from the registry → 403 ONBOARDING_MODE_MISMATCH', async () => {
      const before = await transactionCount();
      const res = await request(gateway.app).get(`/v1/auth/start?platformKey=${platformKey}&returnTo=%2Fapp&onboardingMode=platform`);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 'ONBOARDING_MODE_MISMATCH' });
      expect(await transactionCount()).toBe(before);
    });

    it('an onboardingMode equal to the registry is accepted', async () => {
      const res = await request(gateway.app).get(`/v1/auth/start?platformKey=${platformKey}&returnTo=%2Fapp&onboardingMode=none`);
      expect(res.status).toBe(302);
    });

    it('onboardingMode=central on a platform with central onboarding disabled → 409 CENTRAL_ONBOARDING_DISABLED', async () => {
      const { key } = await newPlatform({ defaultOnboardingMode: 'platform', centralOnboardingEnabled: false });
      const before = await transactionCount();
      const res = await request(gateway.app).get(`/v1/auth/start?platformKey=${key}&returnTo=%2Fapp&onboardingMode=central`);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'CENTRAL_ONBOARDING_DISABLED' });
      expect(await transactionCount()).toBe(before);
      await request(gateway.app).get(`/v1/auth/start?platformKey=${key}&returnTo=%2Fapp`).expect(302);
    });

    it('an unknown platform → 404 PLATFORM_NOT_FOUND', async () => {
      const res = await request(gateway.app).get('/v1/auth/start?platformKey=NO_SUCH_PLATFORM&returnTo=%2Fapp');
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'PLATFORM_NOT_FOUND' });
    });

    it('an inactive platform → 404 PLATFORM_NOT_FOUND', async () => {
      const { key } = await newPlatform();
      await request(gateway.app).get(`/v1/auth/start?platformKey=${key}&returnTo=%2Fapp`).expect(302);
      await database.db.raw('UPDATE platforms SET active = false WHERE platform_key = ?', [key]);
      const before = await transactionCount();
      const res = await request(gateway.app).get(`/v1/auth/start?platformKey=${key}&returnTo=%2Fapp`);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'PLATFORM_NOT_FOUND' });
      expect(await transactionCount()).toBe(before);
    });
  });
});
