// The provider refusing the gateway's own client authentication at its token endpoint (a wrong
// or rotated OIDC_CLIENT_SECRET): oidc-provider, like LemonLDAP::NG, answers 401 invalid_client
// with a `WWW-Authenticate: Basic` challenge (RFC 6749 §5.2). That is the provider refusing the
// code exchange, 401 IDP_CODE_EXCHANGE_FAILED; it was reported as ID_TOKEN_INVALID ("the ID token
// could not be verified"), which sends an operator looking at keys instead of the client secret.
// Found with LemonLDAP::NG (test/provider, docs/providers.md). Failed before the fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, addPlatform, startUrl, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';

describe('the provider refuses the gateway\'s client credentials at its token endpoint', () => {
  let harness: Harness;
  let platform: TestPlatform;
  beforeAll(async () => {
    // The gateway's secret is not the one the provider registered.
    harness = await startHarness({ OIDC_CLIENT_SECRET: 'not-the-registered-secret-0123456789' });
    platform = await addPlatform(harness);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('the callback answers 401 IDP_CODE_EXCHANGE_FAILED, not ID_TOKEN_INVALID', async () => {
    const browser = new OidcBrowser();
    const start = await browser.get(startUrl(harness, platform.key));
    const loginPage = await browser.followRedirects(start, { maxHops: 10 });
    const afterLogin = await browser.loginAtDevIdp(loginPage.response, 'alice', 'alice-password');
    // Up to the gateway's callback, whose answer is the refusal page (it stays at the gateway).
    const followed = await browser.followRedirects(afterLogin, { maxHops: 10 });
    const callback = followed.response;
    expect(callback.url.startsWith(`${harness.baseUrl}/v1/auth/callback`)).toBe(true);
    expect(callback.status).toBe(401);
    expect(callback.text, callback.text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 400)).toContain('IDP_CODE_EXCHANGE_FAILED');
    expect(callback.text).not.toContain('ID_TOKEN_INVALID');
  });
});
