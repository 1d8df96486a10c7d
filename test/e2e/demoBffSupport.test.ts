// Support access (issue 35) through the example BFF, the dev stack's "done when": an operator
// requests access to a platform for a person with a reason; the person approves; the operator's
// browser opens the sign-in link (the BFF's own sign-in route, which forwards supportAccess to the
// gateway's start through the platform kit) and lands on the BFF, which shows "support session by
// <operator> until <time>"; the person ends it and the BFF's session ends (back-channel logout,
// delivered by graphile-worker and verified by the kit against the gateway's JWKS).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { asPerson } from '../helpers/dataRights.ts';
import { startDemoBff, type DemoBff } from '../../src/devstack/demoBff.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { freePort } from '../../src/db/embedded.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../src/services/backchannel/worker.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';

const PLATFORM = 'DEMO_SUPPORT';
const ALICE = { username: 'alice', password: 'alice-password' };
const ADMIN = { username: 'admin', password: 'admin-password' };

describe('support access through the example BFF', () => {
  let harness: Harness;
  let bff: DemoBff;
  let worker: BackchannelWorker;

  beforeAll(async () => {
    harness = await startHarness({ GATEWAY_SIGNING_KEYS: generateSigningKeySpec('bff-support'), OUTBOUND_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8' });
    worker = await startBackchannelWorker(harness.gateway.deps, { pollIntervalMs: 100 });
    const bffUrl = `http://127.0.0.1:${await freePort()}`;
    const created = await createPlatform(
      harness.database.db,
      {
        platformKey: PLATFORM,
        displayName: 'Demo support platform',
        callbackUrl: `${bffUrl}/auth/callback`,
        backchannelLogoutUrl: `${bffUrl}/backchannel-logout`,
        allowedReturnUrls: [`${bffUrl}/`],
        defaultOnboardingMode: 'none',
        supportAccess: 'approve',
        supportSignInUrl: `${bffUrl}/login`,
      },
      CLI_ACTOR,
      { requireHttps: false, outbound: harness.gateway.config.outbound },
    );
    bff = await startDemoBff({ port: Number(new URL(bffUrl).port), gatewayUrl: harness.baseUrl, platformKey: PLATFORM, clientId: created.platform.clientId!, clientSecret: created.clientSecret, publicUrl: bffUrl });
  });
  afterAll(async () => {
    await worker?.stop();
    await bff?.close();
    await harness?.close();
  });

  /** A person's browser signed in to the BFF (and so to the gateway) the ordinary way. */
  async function signInThroughBff(user: { username: string; password: string }): Promise<OidcBrowser> {
    const browser = new OidcBrowser();
    const toIdp = await browser.followRedirects(await browser.get(`${bff.url}/login`), { maxHops: 10 });
    const landed = await browser.followRedirects(await browser.loginAtDevIdp(toIdp.response, user.username, user.password), { maxHops: 10 });
    expect(landed.response.url).toBe(`${bff.url}/welcome`);
    return browser;
  }

  const gatewayCookie = (browser: OidcBrowser) => `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;

  it('the operator lands on the BFF as the person, marked as support; the person ends it and the BFF session ends', async () => {
    const alice = await signInThroughBff(ALICE);
    const operator = await signInThroughBff(ADMIN);

    const requested = await asPerson(harness, gatewayCookie(operator)).post('/v1/support-access').send({ person: 'alice@example.test', platformKey: PLATFORM, reason: 'Alice sees an empty page' }).expect(201);
    const id: string = requested.body.id;
    await asPerson(harness, gatewayCookie(alice)).post(`/v1/account/support-access/${id}/answer`).send({ decision: 'approve' }).expect(200);
    const signInUrl = (await asPerson(harness, gatewayCookie(operator)).get('/v1/support-access').expect(200)).body.items[0].signInUrl as string;
    expect(signInUrl).toBe(`${bff.url}/login?supportAccess=${id}`);

    // The operator's browser opens the link: the BFF starts a login bound as every other, the
    // gateway answers from the operator's own session, the BFF exchanges and lands on its page.
    const followed = await operator.followRedirects(await operator.get(signInUrl), { maxHops: 10 });
    expect(followed.response.status, followed.response.text.slice(0, 300)).toBe(200);
    expect(followed.response.url).toBe(`${bff.url}/welcome`);
    expect(followed.response.text).toContain('Welcome, Alice Example');
    expect(followed.response.text).toMatch(/support session by Ada Admin until \d{4}-\d{2}-\d{2}T/);
    const sessions = bff.sessionCount();

    await asPerson(harness, gatewayCookie(alice)).post(`/v1/account/support-access/${id}/end`).expect(200);
    await expect.poll(() => bff.sessionCount(), { timeout: 15_000 }).toBe(sessions - 1);
    const after = await operator.get(`${bff.url}/welcome`);
    expect(after.text).toContain('the gateway session ended (back-channel logout)');
    expect(after.text).not.toContain('support session by');
  });
});
