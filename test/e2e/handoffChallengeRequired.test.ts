// Login CSRF through a handoff code without a challenge (issue: security 2): a platform that
// requires the handoff binding refuses a start without handoffChallenge, so no handoff code of
// an unbound login exists that an attacker could send to a victim's browser.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { startHarness, addPlatform, browserLogin, startUrl, PLATFORM_ROOT, type Harness } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { s256Challenge } from '../../src/security/crypto.ts';

const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

describe('a platform that requires the handoff challenge', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  const transactionsOf = async (platformKey: string) =>
    Number(
      (
        await harness.database.db.raw<{ rows: Array<{ n: number }> }>(
          `SELECT count(*) AS n FROM auth_transactions t JOIN platforms p ON p.id = t.platform_id WHERE p.platform_key = ?`,
          [platformKey],
        )
      ).rows[0]!.n,
    );

  it('is what a platform registered without the setting gets', async () => {
    const { platform } = await createPlatform(
      harness.database.db,
      { platformKey: `DEFAULTED_${randomBytes(3).toString('hex').toUpperCase()}`, displayName: 'Defaulted', callbackUrl: 'https://bff.example.test/cb', allowedReturnUrls: [PLATFORM_ROOT], defaultOnboardingMode: 'none' },
      CLI_ACTOR,
    );
    expect(platform.handoffChallengeRequired).toBe(true);
    const res = await request(harness.gateway.app).get(pathOf(startUrl(harness, platform.platformKey))).set('Accept', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('HANDOFF_CHALLENGE_REQUIRED');
  });

  it('refuses a start without handoffChallenge with problem+json, and writes no login', async () => {
    const platform = await addPlatform(harness, { handoffChallengeRequired: true });
    const res = await request(harness.gateway.app).get(pathOf(startUrl(harness, platform.key))).set('Accept', 'application/json');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'HANDOFF_CHALLENGE_REQUIRED', status: 400 });
    expect(res.body.detail).toMatch(/handoffChallenge/);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await transactionsOf(platform.key)).toBe(0);
  });

  it('answers a browser with an HTML page that leads back to the platform', async () => {
    const platform = await addPlatform(harness, { handoffChallengeRequired: true });
    const page = await new OidcBrowser().get(startUrl(harness, platform.key));
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const link = /<a class="button" href="([^"]+)">([^<]+)<\/a>/.exec(page.text);
    expect(link?.[2]).toBe(`Back to Platform ${platform.key}`);
    expect(new URL(link![1]!.replaceAll('&#38;', '&')).href).toBe(PLATFORM_ROOT);
  });

  it('accepts a start with handoffChallenge', async () => {
    const platform = await addPlatform(harness, { handoffChallengeRequired: true });
    const challenge = s256Challenge(randomBytes(32).toString('base64url'));
    const res = await request(harness.gateway.app).get(pathOf(startUrl(harness, platform.key, undefined, { handoffChallenge: challenge })));
    expect(res.status).toBe(302);
    expect(res.headers.location).toMatch(new RegExp(`^${harness.idp.issuer}`));
    expect(await transactionsOf(platform.key)).toBe(1);
  });

  it('a platform that turned it off still starts without one', async () => {
    const platform = await addPlatform(harness, { handoffChallengeRequired: false });
    const res = await request(harness.gateway.app).get(pathOf(startUrl(harness, platform.key)));
    expect(res.status).toBe(302);
  });

  it('an unbound code of a login started while the setting was off is not exchanged once it is on', async () => {
    // Transactions live ten minutes: turning the setting on must also close the logins already
    // started without a challenge, or their codes stay injectable for that long.
    const platform = await addPlatform(harness, { handoffChallengeRequired: false });
    const { location } = await browserLogin(harness, platform.key, { username: 'alice', password: 'alice-password' });
    const code = location.searchParams.get('code')!;
    await harness.database.db.raw('UPDATE platforms SET handoff_challenge_required = true WHERE platform_key = ?', [platform.key]);
    const res = await request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('HANDOFF_CODE_INVALID');
  });
});
