// Issue 10 §5: deleting an account, as a person and their platform see it. Real logins
// through the dev identity provider, the account deactivated there through the dev adapter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startHarness, addPlatform, browserLogin, PLATFORM_CALLBACK, type Harness } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { createDevIdpAccounts } from '../../src/services/identityProvider/devIdp.ts';
import { createLogger } from '../../src/logger.ts';
import { purgeDeletedAccounts } from '../../src/services/account/deletion.ts';
import { createFieldDefinition } from '../../src/services/onboarding/schema.ts';
import { CLI_ACTOR } from '../../src/services/registry/index.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const ACCOUNT_CENTER = 'http://account.test';

function codeAt(location: URL): string {
  expect(`${location.origin}${location.pathname}`).toBe(PLATFORM_CALLBACK);
  return location.searchParams.get('code')!;
}

describe('account deletion end to end', () => {
  describe('with the dev identity provider behind the account port', () => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await startHarness({}, {}, { idpAccounts: (idp) => createDevIdpAccounts(idp.accounts, createLogger('silent')) });
    });
    afterAll(async () => {
      await harness?.close();
    });

    it('the session and the platform credential stop working at once, a pending handoff stops exchanging, and the provider refuses the next sign-in; the purge removes the data after the retention period', async () => {
      const platform = await addPlatform(harness);
      await createFieldDefinition(harness.database.db, platform.key, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT' }, CLI_ACTOR);
      const first = await browserLogin(harness, platform.key, ALICE);
      const exchanged = await request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: codeAt(first.location) }).expect(200);
      const credential = `gw_session=${exchanged.body.session.gatewayToken}`;
      const browserCookie = `gw_session=${first.browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
      await request(harness.gateway.app).put(`/v1/onboarding/${platform.key}/values`).set('Cookie', credential).send({ values: { company: 'Acme' } }).expect(200);

      // A second login whose handoff the platform has not exchanged yet.
      const pending = await browserLogin(harness, platform.key, ALICE, new OidcBrowser());

      await request(harness.gateway.app).delete('/v1/account/me').set('Cookie', browserCookie).set('Origin', ACCOUNT_CENTER).expect(204);

      await request(harness.gateway.app).get('/v1/me').set('Cookie', browserCookie).expect(401);
      await request(harness.gateway.app).get('/v1/me').set('Cookie', credential).expect(401);
      expect((await request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: codeAt(pending.location) }).expect(404)).body.code).toBe('HANDOFF_CODE_INVALID');
      const { rows } = await harness.database.db.raw(`SELECT idp_deactivated_at FROM users WHERE sub = 'dev-user-alice'`);
      expect(rows[0].idp_deactivated_at).toBeInstanceOf(Date);

      // The provider refuses the person now.
      const browser = new OidcBrowser();
      const start = await browser.followRedirects(await browser.get(`${harness.baseUrl}/v1/auth/start?platformKey=${platform.key}&returnTo=${encodeURIComponent('https://bff.example.test/home')}`), { maxHops: 10 });
      const refused = await browser.loginAtDevIdp(start.response, ALICE.username, ALICE.password);
      expect(refused.status).toBe(200);
      expect(refused.text).toMatch(/deactivated/i);

      // After the retention period, the purge removes the data and deletes the provider account.
      await harness.database.db.raw(`UPDATE users SET deleted_at = now() - interval '31 days' WHERE sub = 'dev-user-alice'`);
      const counts = await purgeDeletedAccounts(harness.gateway.deps, 30);
      expect(counts.purged).toBe(1);
      const after = await harness.database.db.raw(
        `SELECT u.purged_at, u.email, (SELECT count(*) FROM profiles p WHERE p.user_id = u.id) AS profiles,
                (SELECT count(*) FROM onboarding_values v WHERE v.user_id = u.id) AS "values"
           FROM users u WHERE sub = 'dev-user-alice'`,
      );
      expect(after.rows[0]).toMatchObject({ email: null, profiles: 0, values: 0 });
      expect(after.rows[0].purged_at).toBeInstanceOf(Date);
      expect((await purgeDeletedAccounts(harness.gateway.deps, 30)).purged).toBe(0);
    });
  });

  describe('when the provider still lets the person sign in', () => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await startHarness(); // no account port: the provider account stays active
    });
    afterAll(async () => {
      await harness?.close();
    });

    it('the gateway refuses the next login with a clear page (403 ACCOUNT_DELETED) and creates no new user', async () => {
      const platform = await addPlatform(harness);
      const first = await browserLogin(harness, platform.key, ALICE);
      const cookie = `gw_session=${first.browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
      await request(harness.gateway.app).delete('/v1/account/me').set('Cookie', cookie).set('Origin', ACCOUNT_CENTER).expect(204);

      const browser = new OidcBrowser();
      const start = await browser.get(`${harness.baseUrl}/v1/auth/start?platformKey=${platform.key}&returnTo=${encodeURIComponent('https://bff.example.test/home')}`);
      const toLogin = await browser.followRedirects(start, { maxHops: 10 });
      const afterLogin = await browser.loginAtDevIdp(toLogin.response, ALICE.username, ALICE.password);
      const followed = await browser.followRedirects(afterLogin, { stopWhen: (url) => !url.startsWith(harness.baseUrl) && !url.startsWith(harness.idp.issuer), maxHops: 10 });
      expect(followed.stoppedAt).toBeUndefined();
      expect(followed.response.status).toBe(403);
      expect(followed.response.text).toContain('The account was deleted');
      const users = await harness.database.db.raw(`SELECT count(*) AS n FROM users WHERE sub = 'dev-user-alice'`);
      expect(Number(users.rows[0].n)).toBe(1);
    });
  });
});
