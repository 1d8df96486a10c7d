// "Apps with my data" and "leave this platform" (issue 26): real logins through the dev
// identity provider, real HTTP, back-channel logout delivered by graphile-worker to a receiver
// that verifies every token against the gateway's JWKS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { JWTPayload } from 'jose';
import { startHarness, addPlatform, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { asPerson, person, signIn } from '../helpers/dataRights.ts';
import { DEV_USERS } from '../../src/devidp/users.ts';
import { startLogoutReceiver as startReceiver } from '../helpers/logoutReceiver.ts';
import { CLI_ACTOR, updatePlatform } from '../../src/services/registry/index.ts';
import { createFieldDefinition } from '../../src/services/onboarding/schema.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../src/services/backchannel/worker.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';

const FRANK = person('frank');
const GRACE = person('grace');
const OWN_PLATFORM = 'ACCOUNT_CENTER_DR';

describe('apps with my data, and leaving a platform', () => {
  let harness: Harness;
  let worker: BackchannelWorker;
  let receiver: { url: string; tokens: JWTPayload[]; close(): Promise<void> };
  let a: TestPlatform;
  let b: TestPlatform;

  beforeAll(async () => {
    harness = await startHarness(
      { GATEWAY_SIGNING_KEYS: generateSigningKeySpec('dr'), OUTBOUND_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8', AUTH_PLATFORM_KEY: OWN_PLATFORM },
      { users: [...DEV_USERS, FRANK, GRACE] },
    );
    worker = await startBackchannelWorker(harness.gateway.deps, { pollIntervalMs: 100 });
    a = await addPlatform(harness);
    b = await addPlatform(harness);
    for (const platform of [a, b]) {
      await createFieldDefinition(harness.database.db, platform.key, { fieldKey: 'team', label: 'Team', fieldType: 'TEXT', required: true }, CLI_ACTOR);
    }
    receiver = await startReceiver(harness, a.clientId);
    await updatePlatform(harness.database.db, a.key, { backchannelLogoutUrl: receiver.url }, CLI_ACTOR, { requireHttps: false, outbound: harness.gateway.config.outbound });
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await harness?.close();
  });

  const db = () => harness.database.db;
  const api = () => request(harness.gateway.app);
  const onboard = async (platform: TestPlatform, credential: string, team: string) => {
    await api().put(`/v1/onboarding/${platform.key}/values`).set('Cookie', credential).send({ values: { team } }).expect(200);
    await api().post(`/v1/onboarding/${platform.key}/complete`).set('Cookie', credential).expect(200);
  };

  it('lists the platforms the person used, what each receives, and leaving one ends it there only; signing in again starts afresh', async () => {
    const inA = await signIn(harness, a, FRANK);
    const inB = await signIn(harness, b, FRANK, inA.browser);
    await onboard(a, inA.credential, 'Red');
    await onboard(b, inB.credential, 'Blue');
    const me = asPerson(harness, inB.cookie);

    const listed = (await me.get('/v1/account/apps').expect(200)).body.items;
    expect(listed.map((app: { platformKey: string }) => app.platformKey)).toEqual([b.key, a.key]);
    expect(listed[1]).toMatchObject({
      platformKey: a.key,
      displayName: `Platform ${a.key}`,
      active: true,
      onboardingCompleted: true,
      completedRequirementVersion: 2,
      identity: ['userId', 'sub', 'sessionId', 'permissions', 'onboardingStatus'],
      fields: [{ key: 'team', label: 'Team', type: 'TEXT', source: 'CUSTOM_FIELD', profileField: null, sharing: null, required: true }],
    });

    await me.delete(`/v1/account/apps/${a.key}`).expect(204);

    // A's credential stops working, and A is told by a verified back-channel logout for its session.
    await api().get('/v1/me').set('Cookie', inA.credential).expect(401);
    await expect.poll(() => receiver.tokens.length, { timeout: 10_000 }).toBe(1);
    expect(receiver.tokens[0]).toMatchObject({ aud: a.clientId, sid: inA.sessionId, sub: inA.userId });
    // Everything else stays: B's credential, the browser's own session, B's values and membership.
    await api().get('/v1/me').set('Cookie', inB.credential).expect(200);
    await me.get('/v1/me').expect(200);
    await api().get('/v1/me').set('Cookie', inA.cookie).expect(200); // the gateway session A's login made is not ended
    const values = await db().raw(
      `SELECT p.platform_key AS key, v.value FROM onboarding_values v JOIN platforms p ON p.id = v.platform_id WHERE v.user_id = ? ORDER BY 1`,
      [inA.userId],
    );
    expect(values.rows).toEqual([{ key: b.key, value: 'Blue' }]);
    const memberships = await db().raw(`SELECT p.platform_key AS key FROM platform_memberships m JOIN platforms p ON p.id = m.platform_id WHERE m.user_id = ?`, [inA.userId]);
    expect(memberships.rows).toEqual([{ key: b.key }]);
    expect((await me.get('/v1/account/apps').expect(200)).body.items.map((app: { platformKey: string }) => app.platformKey)).toEqual([b.key]);
    const { rows: audit } = await db().raw(`SELECT platform_key, changed_fields FROM audit_events WHERE action = 'membership.leave' AND actor_user_id = ?`, [inA.userId]);
    expect(audit).toEqual([{ platform_key: a.key, changed_fields: ['credentials', 'onboardingValues', 'membership'] }]);

    // Leaving again changes nothing.
    expect((await me.delete(`/v1/account/apps/${a.key}`).expect(404)).body.code).toBe('PLATFORM_NOT_FOUND');

    // Signing in to A again: a new membership, onboarding from the start.
    const back = await signIn(harness, a, FRANK, inA.browser);
    expect(back.onboardingStatus).toBe('NOT_STARTED');
    const status = await api().get(`/v1/onboarding/${a.key}/status`).set('Cookie', back.credential).expect(200);
    expect(status.body).toMatchObject({ status: 'NOT_STARTED', missingFields: ['team'] });
    const again = (await asPerson(harness, back.cookie).get('/v1/account/apps').expect(200)).body.items;
    expect(again.map((app: { platformKey: string; onboardingCompleted: boolean }) => [app.platformKey, app.onboardingCompleted])).toEqual([[a.key, false], [b.key, true]]);
    expect(receiver.tokens).toHaveLength(1);
  });

  it('leaving expires the pending handoff codes of the platform: a code issued before cannot be exchanged after', async () => {
    const inA = await signIn(harness, a, GRACE);
    const browser = inA.browser;
    // A second login to A whose code the platform has not exchanged yet.
    const start = await browser.get(new URL(`/v1/auth/start?platformKey=${a.key}&returnTo=${encodeURIComponent('https://bff.example.test/home')}`, harness.baseUrl).href);
    const followed = await browser.followRedirects(start, { stopWhen: (url) => !url.startsWith(harness.baseUrl) && !url.startsWith(harness.idp.issuer), maxHops: 10 });
    const code = new URL(followed.stoppedAt!).searchParams.get('code');
    await asPerson(harness, inA.cookie).delete(`/v1/account/apps/${a.key}`).expect(204);
    expect((await api().post('/v1/auth/exchange').set('Authorization', a.basic).send({ code }).expect(404)).body.code).toBe('HANDOFF_CODE_INVALID');
  });

  it('refuses a platform credential, the gateway\'s own platform, unknown platforms, malformed keys and cross-site requests', async () => {
    const inB = await signIn(harness, b, GRACE);
    const me = asPerson(harness, inB.cookie);
    for (const res of [await api().get('/v1/account/apps').set('Cookie', inB.credential), await api().delete(`/v1/account/apps/${b.key}`).set('Cookie', inB.credential)]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    expect((await me.delete(`/v1/account/apps/${OWN_PLATFORM}`).expect(409)).body.code).toBe('CONFLICT');
    expect((await me.delete('/v1/account/apps/NO_SUCH_PLATFORM').expect(404)).body.code).toBe('PLATFORM_NOT_FOUND');
    expect((await me.delete('/v1/account/apps/lower-case').expect(400)).body.code).toBe('VALIDATION_FAILED');
    const crossSite = await api().delete(`/v1/account/apps/${b.key}`).set('Cookie', inB.cookie).set('Origin', 'https://evil.example');
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.code).toBe('ORIGIN_NOT_ALLOWED');
    await api().get('/v1/account/apps').expect(401);
    // Nothing of the refused attempts left B.
    await api().get('/v1/me').set('Cookie', inB.credential).expect(200);
  });
});
